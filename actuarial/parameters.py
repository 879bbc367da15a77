"""Dated statute parameters, read from ``data/parameters.toml``.

Values that change by date (the minimum pension, the coverage window) live in that file
with their start dates, units and sources, never as literals in the rules. Asking for a
value before its first date raises instead of returning nothing.
"""

from __future__ import annotations

import datetime as dt
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np

__all__ = ["CoverageWindow", "DatedValue", "coverage_window", "minimum_monthly_pension"]


@dataclass(frozen=True, slots=True)
class DatedValue:
    """A value in force from ``effective_from`` until the next value's start."""

    effective_from: dt.date
    amount_usd: float
    source: str


@dataclass(frozen=True, slots=True)
class CoverageWindow:
    """First-entry dates covered by Chapter 2 (I-1): ``[on_or_after, before)``."""

    first_entry_on_or_after: dt.date
    first_entry_before: dt.date
    source: str


@cache
def _parameters() -> dict:
    text = resources.files("actuarial").joinpath("data/parameters.toml").read_text("utf-8")
    return tomllib.loads(text)


def coverage_window() -> CoverageWindow:
    """The coverage window of I-1 with its source."""
    raw = _parameters()["coverage"]
    return CoverageWindow(raw["first_entry_on_or_after"], raw["first_entry_before"], raw["source"])


@dataclass(frozen=True, slots=True)
class MinimumPensionSchedule:
    """The monthly minimum pension over time (inciso (a), Ley 3-2013)."""

    values: tuple[DatedValue, ...]

    def amount_on(self, payment_dates) -> np.ndarray:
        """Monthly minimum in force on each payment date (USD); raises before the first date."""
        dates = np.asarray(payment_dates, dtype="datetime64[D]")
        starts = np.array([v.effective_from for v in self.values], dtype="datetime64[D]")
        amounts = np.array([v.amount_usd for v in self.values])
        known = ~np.isnat(dates)
        if np.any(dates[known] < starts[0]):
            first = dates[known][dates[known] < starts[0]].min()
            raise ValueError(
                f"minimum pension: no value in force on {first} "
                f"(the schedule starts on {starts[0]})"
            )
        index = np.searchsorted(starts, np.where(known, dates, starts[0]), side="right") - 1
        return np.where(known, amounts[index], np.nan)


def minimum_monthly_pension() -> MinimumPensionSchedule:
    """The dated schedule of the $500 monthly minimum."""
    values = tuple(
        DatedValue(v["effective_from"], float(v["amount_usd"]), v["source"])
        for v in _parameters()["minimum_monthly_pension"]
    )
    return MinimumPensionSchedule(tuple(sorted(values, key=lambda v: v.effective_from)))
