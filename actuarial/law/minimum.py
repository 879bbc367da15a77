"""The monthly minimum pension (I-4), judged on the payment date.

Inciso (a), as amended by Ley 3-2013: «se fija una pensión mínima ... de quinientos dólares
($500) mensuales, efectivo el, 1ro de julio de 2013». The amount is the law's
``minimum_monthly_pension`` in force on the payment date: the later of the date the
results are asked for (``as_of``) and the annuity's start date.
"""

from __future__ import annotations

import numpy as np

from actuarial.law.readings import Readings

__all__ = [
    "later_minimums",
    "minimum_changes",
    "minimum_on",
    "minimum_reaches",
    "minimum_since",
    "payment_dates",
]


def minimum_reaches(clause_ids, readings: Readings) -> np.ndarray:
    """Which clauses the minimum applies to (I-4): every clause, or inciso (a) only.

    The text sets the minimum in inciso (a) «para los participantes que se retiraron de
    acuerdo con las disposiciones de este Capítulo 2»; by default it is read to reach every
    Chapter 2 annuity.
    """
    every_clause = readings.minimum_applies_to == "all"
    return np.array([every_clause or clause == "a" for clause in clause_ids], dtype=bool)


def payment_dates(start_dates: np.ndarray, as_of) -> np.ndarray:
    """The date each annuity is paid on: the later of ``as_of`` and its start date."""
    return np.maximum(start_dates, np.datetime64(as_of, "D"))


def minimum_on(law, dates: np.ndarray, reaches: np.ndarray) -> np.ndarray:
    """Monthly minimum in force on each date where it reaches the annuity; 0 elsewhere."""
    minimum = np.zeros(dates.shape)
    paid = reaches & ~np.isnat(dates)
    if paid.any():
        minimum[paid] = law.value("minimum_monthly_pension", dates[paid])
    return minimum


def minimum_changes(law) -> np.ndarray:
    """The dates on which the minimum's amount changes (datetime64[D]), after its first
    entry: an entry restating the amount in force (500 from 2013, 500 again from 2020) is
    no change (a read-only array, computed once per law)."""

    def compute():
        starts = law.changes("minimum_monthly_pension")
        amounts = law.value("minimum_monthly_pension", starts)
        changes = starts[1:][amounts[1:] != amounts[:-1]]
        changes.flags.writeable = False
        return changes

    return law.derived(("minimum_changes",), compute)


def minimum_since(law, day) -> np.datetime64:
    """The date from which the amount of the minimum in force on ``day`` has been in force:
    the last change on or before it (:func:`minimum_changes`), or the minimum's first date."""
    first = law.changes("minimum_monthly_pension")[:1]
    starts = np.concatenate([first, minimum_changes(law)])
    return starts[starts <= np.datetime64(day, "D")].max()


def later_minimums(law, paid_on) -> tuple:
    """(day, amount) of each minimum that takes effect after ``paid_on``: a payment on or
    after it (a deferred annuity's) may get any of them; a restatement of the amount in
    force is none (:func:`minimum_changes`)."""
    changes = minimum_changes(law)
    later = changes[changes > np.datetime64(paid_on, "D")]
    return tuple(
        (day, law.value_on("minimum_monthly_pension", day))
        for day in later.astype("datetime64[D]").tolist()
    )
