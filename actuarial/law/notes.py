"""What a law in force holds that can never take effect: notes for whoever amended it.

Each is a legal choice an amendment may make on purpose (a costing may close the coverage
window or repeal early retirement), so each is said, never refused; but written by
mistake it changes results without a word. Noted: an amendment file none of whose
entries is in force (an empty one changes nothing), an entry that a later one replaces
before the law's first date (never in force), and a period of the law in which a lower
bound is not below its upper bound, so nothing is between them: the coverage window of
first entry (I-1), and the ages of inciso (c), from its own age to below that of (a).
"""

from __future__ import annotations

import numpy as np

from actuarial.law.clauses import C_AGE, C_BEFORE_A
from actuarial.law.coverage import WINDOW
from actuarial.law.parameters import Law

__all__ = ["law_notes"]

# (lower bound, upper bound, what is empty when the lower is not below the upper).
_BOUNDS = (
    (*WINDOW, "the coverage window is empty: no first entry is covered (I-1)"),
    (
        C_AGE.parameter,
        C_BEFORE_A.parameter,
        "inciso (c) cannot apply: no age at separation is from its age and below that of (a)",
    ),
)


def law_notes(law: Law) -> tuple[str, ...]:
    """What in ``law`` can never take effect, one text each, naming the file, the parameter
    and the entry or the dates (computed once per law)."""
    return law.derived(
        ("notes",),
        lambda: (*_changing_nothing(law), *_never_in_force(law), *_empty_periods(law)),
    )


def _changing_nothing(law: Law) -> list[str]:
    """Amendment files none of whose entries is in force: an empty file (a wrong or a
    truncated one) would cost a bill at nothing without a word."""
    used = {entry.file for entries in law.entries.values() for entry in entries}
    return [
        f"{file.name}: none of its entries is in the law in force (it holds none, or later "
        "files replace each): it changes nothing"
        for file in law.files[1:]
        if file.name not in used
    ]


def _never_in_force(law: Law) -> list[str]:
    """Entries a later entry replaces on or before the law's first date."""
    first = law.first_date()
    return [
        f"{entry.where(name)}: never in force: {later.where(name)} replaces it on or before "
        f"{first}, the first date of the law in force"
        for name, entries in law.entries.items()
        for entry, later in zip(entries, entries[1:], strict=False)
        if later.effective_from <= first
    ]


def _empty_periods(law: Law) -> list[str]:
    """The spans of the law's periods in which a lower bound is not below its upper."""
    starts, values = law.periods()
    notes = []
    for lower, upper, what in _BOUNDS:
        empty = ~(values[lower] < values[upper])
        # Each run of empty periods: where it starts and where the next non-empty one does.
        edges = np.flatnonzero(np.diff(np.concatenate([[False], empty, [False]])))
        for begin, end in zip(edges[::2], edges[1::2], strict=True):
            span = f"from {starts[begin]}" + (f" until {starts[end]}" if end < len(starts) else "")
            in_force = " and ".join(_entry_on(law, name, starts[begin]) for name in (lower, upper))
            notes.append(f"{span}: {what}; in force: {in_force}")
    return notes


def _entry_on(law: Law, name: str, day: np.datetime64) -> str:
    """The entry of ``name`` in force on ``day``, where it was read, and its value."""
    entry = law.entries[name][np.searchsorted(law.changes(name), day, side="right") - 1]
    value = entry.value
    shown = f"{value:.15g}" if isinstance(value, float) else str(value)
    return f"{entry.where(name)} = {shown}"
