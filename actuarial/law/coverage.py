"""Who the Chapter 2 annuities cover (I-1): first entry inside the window of the law in force.

Ley 447-1951, art. 2-103: «Los participantes que ingresen por primera vez al Sistema
después del 1ro de abril de 1990 ...»; Ley 305-1999 sends those who first enter from its
date on to the Retirement Savings Account Program. The window's dates are the law's
``coverage.first_entry_on_or_after`` and ``coverage.first_entry_before``, in force on the
separation date.
"""

from __future__ import annotations

import numpy as np

from actuarial.law.conditions import render
from actuarial.law.parameters import LawOn
from actuarial.law.readings import Readings

__all__ = [
    "COVERED",
    "ENTERED_AFTER",
    "ENTERED_BEFORE",
    "WINDOW",
    "coverage_codes",
    "first_day_included",
    "law_dates",
    "not_covered_reason",
]

COVERED, ENTERED_BEFORE, ENTERED_AFTER = 0, 1, 2

# The window's two parameters: a first entry on or after the first and before the second.
WINDOW = ("coverage.first_entry_on_or_after", "coverage.first_entry_before")
START, END = (f"{{law[{name}]}}" for name in WINDOW)
REASONS = {
    (ENTERED_BEFORE, True): f"not covered by Chapter 2 (I-1): first entry before {START}",
    (ENTERED_BEFORE, False): f"not covered by Chapter 2 (I-1, {START} excluded): first entry "
    f"on or before {START}",
    (ENTERED_AFTER, True): f"not covered by Chapter 2 (I-1): first entry on or after {END} "
    "(Retirement Savings Account Program, Ley 305-1999)",
}
REASONS[ENTERED_AFTER, False] = REASONS[ENTERED_AFTER, True]


def first_day_included(readings: Readings) -> bool:
    """Whether a first entry on the window's first day is covered (I-1).

    «ingresen por primera vez al Sistema después del 1ro de abril de 1990»: by default read
    as from that day on (the day included); switched, strictly after it.
    """
    return readings.april_first_is_covered


def coverage_codes(entry_date, separation_date, law_on: LawOn, readings: Readings) -> np.ndarray:
    """0 = covered; 1 = entered before the window; 2 = entered on or after its end (I-1).

    The window in force on the separation date applies: ``law_on`` is the law on
    :func:`law_dates`. A member who separated before the law's first date entered before
    it too: not covered. A first entry on the window's first day: see
    :func:`first_day_included`.
    """
    before_law = separation_date < np.datetime64(law_on.law.first_date(), "D")
    start, end = (law_on[name] for name in WINDOW)
    before = entry_date < start if first_day_included(readings) else entry_date <= start
    return np.where(
        before | before_law, ENTERED_BEFORE, np.where(entry_date >= end, ENTERED_AFTER, COVERED)
    )


def law_dates(separation_date, law) -> np.ndarray:
    """The date whose law judges each member, coverage and clauses alike: the separation
    date, or the law's first date for a separation before it or none (NaT)."""
    first = np.datetime64(law.first_date(), "D")
    return np.where(separation_date >= first, separation_date, first)


def not_covered_reason(code: int, law_values, readings: Readings) -> str:
    """The reason a member with coverage ``code`` (1 or 2) gets on every clause row."""
    return render(REASONS[code, first_day_included(readings)], law_values)
