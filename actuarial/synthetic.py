"""Seeded synthetic memberships for examples, tests and benchmarks.

Entries spread over 1990-2000 (a few just outside the coverage window), ages and service
spread so that every clause, both sides of each threshold, is represented.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from actuarial.law.parameters import shipped_law

__all__ = ["generate_members"]


def generate_members(count: int, seed: int = 0, invalid_fraction: float = 0.0) -> pd.DataFrame:
    """``count`` synthetic members with the member-file fields (typed columns).

    With ``invalid_fraction`` > 0, that share of rows gets one broken field (as text).
    """
    rng = np.random.default_rng(seed)
    day = np.timedelta64(1, "D")
    law = shipped_law().values_on(shipped_law().first_date())  # the first coverage window
    start = np.datetime64(law["coverage.first_entry_on_or_after"], "D")
    window_days = (np.datetime64(law["coverage.first_entry_before"], "D") - start).astype(int)
    entry = start + rng.integers(-60, window_days + 60, count) * day
    entry_age_days = rng.integers(20 * 365, 46 * 365, count)
    birth = entry - entry_age_days * day
    # Years worked: a wide spread so that 10, 25 and 30 years and ages 55 and 65 all occur.
    group = rng.choice(np.array(["general", "police", "firefighter"]), count, p=[0.8, 0.12, 0.08])
    years_worked = np.where(
        group == "general", rng.uniform(1.0, 36.0, count), rng.uniform(15.0, 36.0, count)
    )
    separation = entry + (years_worked * 365.2425).astype(np.int64) * day
    separation = np.minimum(separation, np.datetime64("2026-06-30"))
    span_years = (separation - entry).astype(int) / 365.2425
    credited = np.round(span_years * rng.uniform(0.85, 1.0, count), 2)
    compensation = np.round(rng.lognormal(np.log(32_000), 0.35, count), 2)
    refunded = rng.random(count) < 0.04
    frame = pd.DataFrame(
        {
            "member_id": np.char.add("M-", np.arange(1, count + 1).astype(str).astype("U10")),
            "birth_date": birth.astype("datetime64[s]"),
            "entry_date": entry.astype("datetime64[s]"),
            "separation_date": separation.astype("datetime64[s]"),
            "credited_service": credited,
            "average_compensation": compensation,
            "group": group,
            "refunded": refunded,
        }
    )
    frame["member_id"] = frame["member_id"].astype(object)
    if invalid_fraction > 0:
        frame = frame.astype(object)
        broken = np.flatnonzero(rng.random(count) < invalid_fraction)
        faults = [
            ("credited_service", -2.5),
            ("average_compensation", 0),
            ("group", "teacher"),
            ("refunded", "maybe"),
            ("birth_date", "1960-13-45"),
            ("entry_date", ""),
        ]
        for position, row in enumerate(broken):
            field, value = faults[position % len(faults)]
            frame.at[row, field] = value
    return frame
