"""What a law in force holds that can never take effect: notes for whoever amended it.

Each is a legal choice an amendment may make on purpose (a costing may close the coverage
window or repeal early retirement), so each is said, never refused; but written by
mistake it changes results without a word. Noted: an amendment file none of whose
entries is in force (an empty one changes nothing), an entry that a later one replaces
before the law's first date (never in force), an entry of an amendment that a later
amendment's entry of the same date replaces, and a period of the law in which a lower
bound is not below its upper bound, so nothing is between them.

The bounds (:data:`_BOUNDS`) are every pair the clauses' conditions and the coverage
window put on one quantity, under every reading: the window of first entry (I-1), from its
first day to before its last; the ages of inciso (c), from its own age to below that of
(a); and the age of inciso (d), below its own (read literally, I-2: the credited service
below that number), from 0, below which no age nor service is. The other bounds of the
clauses are lower ones with no upper (the ages of (a) and (b), every minimum of service),
which no law empties. Not noted: bounds that meet only through the members' data or a
reading. Credited service may not exceed the age at separation in days / 365.2425, which a
day before a birthday may pass (65.001 after 17 leap days), so (c)'s years of service at
the age of (a) may still be met; (d)'s minimum service is a reading (I-5).
"""

from __future__ import annotations

import numpy as np

from actuarial.law.clauses import C_AGE, C_BEFORE_A, D_BEFORE_AGE
from actuarial.law.coverage import WINDOW
from actuarial.law.parameters import Entry, Law

__all__ = ["law_notes", "never_in_force", "replaced_entries"]

# (lower bound, upper bound, what is empty when the lower is not below the upper); a lower
# bound of None: none but the quantity's own, 0 (no age at separation nor credited service
# is below it).
_BOUNDS = (
    (*WINDOW, "the coverage window is empty: no first entry is covered (I-1)"),
    (
        C_AGE.parameter,
        C_BEFORE_A.parameter,
        "inciso (c) cannot apply: no age at separation is from its age and below that of (a)",
    ),
    (
        None,
        D_BEFORE_AGE.parameter,
        "inciso (d) cannot apply: no age at separation is below its age (nor any credited "
        "service, read literally (I-2))",
    ),
)


def law_notes(law: Law) -> tuple[str, ...]:
    """What in ``law`` can never take effect, one text each, naming the file, the parameter
    and the entry or the dates (computed once per law)."""
    return law.derived(
        ("notes",),
        lambda: (
            *_changing_nothing(law),
            *_never_in_force(law),
            *_replaced(law),
            *_empty_periods(law),
        ),
    )


def _changing_nothing(law: Law) -> list[str]:
    """Amendment files none of whose entries is in force: an empty file (a wrong or a
    truncated one) would cost a bill at nothing without a word."""
    used, names = _positions_in_force(law), [file.name for file in law.files]
    return [
        f"{file.name}{_which_copy(names, position)}: none of its entries is in the law in "
        "force (it holds none, or later files replace each): it changes nothing"
        for position, file in enumerate(law.files[1:], start=1)
        if position not in used
    ]


def replaced_entries(law: Law) -> tuple[tuple[str, Entry, Entry], ...]:
    """Each entry of an amendment file that a later file's entry of the same date replaces,
    so never in force: (parameter, the entry, the later entry). Not those of a file none of
    whose entries is in force: its own note says so (:func:`_changing_nothing`)."""
    used = _positions_in_force(law)
    return tuple(item for item in law.replaced if item[1].position in used)


def _positions_in_force(law: Law) -> set[int]:
    """The positions (:attr:`Entry.position`) of the files one of whose entries is in force."""
    return {entry.position for entries in law.entries.values() for entry in entries}


def _replaced(law: Law) -> list[str]:
    """Entries of an amendment a later amendment's entry of the same date replaces."""
    return [
        f"{entry.where(name)}: never in force: {later.where(name)} replaces it, of the same date"
        for name, entry, later in replaced_entries(law)
    ]


def _which_copy(names: list[str], position: int) -> str:
    """`` (copy 1 of 2 given)``: which copy of a file given more than once a note is on."""
    copies = [at for at, name in enumerate(names) if name == names[position]]
    if len(copies) == 1:
        return ""
    return f" (copy {copies.index(position) + 1} of {len(copies)} given)"


def never_in_force(law: Law) -> tuple[tuple[str, Entry, Entry], ...]:
    """Each entry a later entry replaces on or before the law's first date, so never in
    force: (parameter, the entry, the later entry)."""
    first = law.first_date()
    return tuple(
        (name, entry, later)
        for name, entries in law.entries.items()
        for entry, later in zip(entries, entries[1:], strict=False)
        if later.effective_from <= first
    )


def _never_in_force(law: Law) -> list[str]:
    """Entries a later entry replaces on or before the law's first date."""
    first = law.first_date()
    return [
        f"{entry.where(name)}: never in force: {later.where(name)} replaces it on or before "
        f"{first}, the first date of the law in force"
        for name, entry, later in never_in_force(law)
    ]


def _empty_periods(law: Law) -> list[str]:
    """The spans of the law's periods in which a lower bound is not below its upper."""
    starts, values = law.periods()
    notes = []
    for lower, upper, what in _BOUNDS:
        least = 0.0 if lower is None else values[lower]
        empty = ~(least < values[upper])
        # Each run of empty periods: where it starts and where the next non-empty one does.
        edges = np.flatnonzero(np.diff(np.concatenate([[False], empty, [False]])))
        named = [name for name in (lower, upper) if name is not None]
        for begin, end in zip(edges[::2], edges[1::2], strict=True):
            span = f"from {starts[begin]}" + (f" until {starts[end]}" if end < len(starts) else "")
            in_force = " and ".join(_entry_on(law, name, starts[begin]) for name in named)
            notes.append(f"{span}: {what}; in force: {in_force}")
    return notes


def _entry_on(law: Law, name: str, day: np.datetime64) -> str:
    """The entry of ``name`` in force on ``day``, where it was read, and its value."""
    entry = law.entries[name][np.searchsorted(law.changes(name), day, side="right") - 1]
    value = entry.value
    shown = f"{value:.15g}" if isinstance(value, float) else str(value)
    return f"{entry.where(name)} = {shown}"
