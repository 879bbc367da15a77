"""The engine: every clause of the law for one member or a whole membership, in one pass.

``evaluate_frame`` is the implementation; ``evaluate`` is a one-row call of it. The engine
orchestrates what :mod:`actuarial.law` declares: parse and validate members, coverage
(I-1), ages (I-6), every registered clause on the law in force on the separation date, the
inciso (c) reduction from the guide in force, the monthly minimum on the payment date
(I-4) with the schedule of amounts, rounding to cents (half up), and the results table.
"""

from __future__ import annotations

import contextlib
import ctypes
import datetime as dt
import functools
import itertools
import mmap
import os
import sys
import threading
from collections import deque
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, make_dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from actuarial.duplicate_ids import distinct_codes
from actuarial.guides import GuideSet, check_guides_under
from actuarial.law.clauses import CLAUSES, situation
from actuarial.law.conditions import ClauseOutcome, render
from actuarial.law.coverage import (
    COVERED,
    ENTERED_AFTER,
    ENTERED_BEFORE,
    coverage_codes,
    law_dates,
    not_covered_reason,
)
from actuarial.law.minimum import minimum_changes, minimum_on, minimum_reaches, payment_dates
from actuarial.law.parameters import PARAMETERS, Law, LawOn, law_in_force, resolve_as_of
from actuarial.law.readings import Readings
from actuarial.law.reduction import reduction_factors
from actuarial.member_record import GROUPS, HIGH_RISK_GROUPS
from actuarial.members import (
    WARNING_SEPARATOR,
    FrameIds,
    MemberArrays,
    MemberDataError,
    check_columns,
    check_frame,
    code_frame_ids,
    frame_id_text,
    parse_member,
    parse_members,
    texts_at,
    warnings_and_where,
)
from actuarial.shown_text import as_given, kind_and_value

__all__ = [
    "RESULT_COLUMNS",
    "ClauseResult",
    "CodedText",
    "Evaluation",
    "MemberResults",
    "ResultColumn",
    "evaluate",
    "evaluate_frame",
    "evaluate_members",
    "round_cents",
]


@dataclass(frozen=True, slots=True)
class ResultColumn:
    """One column of the results: the table, the Arrow schema and the one-member result."""

    name: str
    arrow_type: pa.DataType
    meaning: str
    per_clause: bool = True  # a field of :class:`ClauseResult`
    coded: bool = False  # text with few distinct values: categorical / dictionary-encoded


COLUMNS = (
    ResultColumn("row", pa.int64(), "the member's 1-based data row", per_clause=False),
    ResultColumn("member_id", pa.string(), "the member's id", per_clause=False),
    ResultColumn("clause", pa.string(), "a, b, c, d (empty for an invalid member)", coded=True),
    ResultColumn("eligible", pa.bool_(), "whether the member is eligible under the clause"),
    ResultColumn("reason", pa.string(), "why, from the clause's conditions", coded=True),
    ResultColumn("start_date", pa.date32(), "the date the annuity starts"),
    ResultColumn("reduction_factor", pa.float64(), "inciso (c): the guide's factor"),
    ResultColumn("annual_amount", pa.float64(), "annual USD, after reduction, before minimum"),
    ResultColumn("monthly_amount", pa.float64(), "monthly USD paid on the payment date"),
    ResultColumn("minimum_topup", pa.float64(), "the part of monthly_amount the minimum adds"),
    ResultColumn("schedule", pa.string(), "monthly amount from the start and each change"),
    ResultColumn("guide_id", pa.string(), "the guide read for inciso (c)", coded=True),
    ResultColumn("error", pa.string(), "what stopped the row", coded=True),
    ResultColumn(
        "warnings",
        pa.string(),
        "data-quality warnings on the member: field, rule and value (members.member_warnings)",
        per_clause=False,
        coded=True,
    ),
    ResultColumn(
        "readings", pa.string(), "readings switched from the defaults", per_clause=False, coded=True
    ),
)
RESULT_COLUMNS = tuple(column.name for column in COLUMNS)
_PYTHON_TYPES = {
    pa.string(): str | None,
    pa.bool_(): bool,
    pa.date32(): dt.date | None,
    pa.float64(): float | None,
    pa.int64(): int,
}

ClauseResult = make_dataclass(
    "ClauseResult",
    [(c.name, _PYTHON_TYPES[c.arrow_type]) for c in COLUMNS if c.per_clause],
    frozen=True,
    slots=True,
)
ClauseResult.__module__ = __name__
ClauseResult.__doc__ = "One clause for one member: a row of the results (see RESULT_COLUMNS)."


def round_cents(amounts) -> np.ndarray:
    """Round USD amounts to cents, half up (the last step of every amount)."""
    cents = np.array(amounts, dtype=float)  # one copy, then every step in place
    cents *= 100.0
    cents.round(6, out=cents)
    cents += 0.5
    np.floor(cents, out=cents)
    cents /= 100.0
    return cents if cents.ndim else cents[()]  # a number for a number, as before


def law_values_by_period(law: Law, periods: np.ndarray) -> list[dict]:
    """The law's values in each period (texts state the values in force)."""
    return [law.values_on(start.astype("datetime64[D]").item()) for start in periods]


def _reason_table(outcome: ClauseOutcome, clause, values: list[dict], readings) -> list[str]:
    """Reason text for each (law period, failure bitmask, variant) of a clause, in code order."""
    conditions = [condition for condition, _ in outcome.conditions]
    variants = clause.variants
    table = []
    for law_values in values:
        met, not_met = [], []
        for condition in conditions:
            value = condition.value_in(law_values, readings)
            met.append(render(condition.en.met, law_values, value))
            not_met.append(render(condition.en.not_met, law_values, value))
        tails = [render(variant.en, law_values) for variant in variants]
        for mask in range(2 ** len(conditions)):
            failed = [text for i, text in enumerate(not_met) if mask >> i & 1]
            for tail in tails:
                if failed:
                    table.append(f"inciso ({clause.id}): not eligible: " + "; ".join(failed))
                else:
                    table.append(f"inciso ({clause.id}): eligible: " + "; ".join(met) + tail)
    return table


def _factorized(texts) -> tuple[np.ndarray, Sequence]:
    """Each text's code into the distinct texts (first seen, first coded), and those texts;
    none at all in the usual case of no text, without pandas' cost."""
    if len(texts) == 0:
        return np.zeros(0, np.intp), ()
    return pd.factorize(pd.Series(texts, dtype=object))


_CODE_TYPES = tuple((np.iinfo(kind).max, np.dtype(kind)) for kind in (np.int8, np.int16, np.int32))


def _code_type(texts: int) -> np.dtype:
    """The integer type pandas keeps for codes into ``texts`` texts (its categories): the
    smallest signed type whose maximum exceeds the count, so that it never recodes."""
    for largest, kind in _CODE_TYPES:
        if texts < largest:
            return kind
    return np.dtype(np.int64)


@dataclass(frozen=True, slots=True)
class CodedText:
    """A text column as codes into its texts: ``texts[codes]`` row by row."""

    codes: np.ndarray
    texts: Sequence[str]  # a list, a numpy or Arrow array, or a pandas Series of str


_DAY_TEXTS_SPAN = (np.datetime64("1900-01-01", "D"), np.datetime64("2201-01-01", "D"))
_DATE_WIDTH = len("YYYY-MM-DD")
_DIGITS = np.frombuffer(b"0123456789", np.uint8)  # the byte of each decimal digit
_BASE = len(_DIGITS)
_INT32_DIGITS = len(str(np.iinfo(np.int32).max)) - 1  # any number of so many digits fits
# "00" to "99": the two bytes of each number below 100, taken as one item.
_PAIRS = np.frombuffer("".join(f"{n:02d}" for n in range(_BASE**2)).encode(), np.uint16)
# An amount rounded to cents, of fewer cents than this (about 22 trillion USD), gives back its
# cents exactly times 100 (two float64 roundings, each within 2**-53 of the value, stay below
# half a cent); a schedule refuses a larger amount rather than write wrong digits.
_SCHEDULE_CENTS_LIMIT = 2**51
_DAY_HEAD = len("YYYY-MM-")  # a date's first 8 bytes, one 8-byte item; the day, a 2-byte one


@functools.cache
def _day_items() -> tuple[np.ndarray, np.ndarray]:
    """The "YYYY-MM-DD" texts of every day of :data:`_DAY_TEXTS_SPAN`, formatted once, as items for
    :func:`_put`: "YYYY-MM-" (uint64) and "DD" (uint16) of each day."""
    days = _formatted_days(np.arange(*_DAY_TEXTS_SPAN))
    return tuple(
        np.ascontiguousarray(part).view(kind).reshape(-1)
        for part, kind in ((days[:, :_DAY_HEAD], np.uint64), (days[:, _DAY_HEAD:], np.uint16))
    )


def _formatted_days(days: np.ndarray) -> np.ndarray:
    """The "YYYY-MM-DD" text of each day (years 0-9999) as a (days, 10) byte matrix, by Arrow."""
    texts = pc.cast(pa.array(days, type=pa.date32()), pa.string())
    texts = pa.array(texts, type=pa.string())  # offsets from 0: every text 10 bytes
    data = np.frombuffer(texts.buffers()[2], np.uint8, _DATE_WIDTH * len(days))
    return data.reshape(-1, _DATE_WIDTH)


def _put(matrix: np.ndarray, column: int, items: np.ndarray) -> None:
    """Write one item per row into ``matrix[:, column:]`` (a byte matrix), its bytes in
    order: each row's bytes copied as one item of ``items``' width (an integer or a void),
    3-5x faster than numpy's copy of a (rows, width) block of bytes."""
    width = items.dtype.itemsize
    matrix[:, column : column + width].view(items.dtype)[:, 0] = items


def _put_dates(matrix: np.ndarray, column: int, dates: np.ndarray) -> None:
    """The "YYYY-MM-DD" text of each date (no NaT) into ``matrix[:, column:]``: looked up in
    :func:`_day_items`, formatted by Arrow only for a date outside its span."""
    first, end = _DAY_TEXTS_SPAN
    if len(dates) and (dates.min() < first or dates.max() >= end):
        matrix[:, column : column + _DATE_WIDTH] = _formatted_days(dates)
        return
    index = (dates - first).astype(np.intp)
    for offset, items in zip((0, _DAY_HEAD), _day_items(), strict=True):
        _put(matrix, column + offset, np.take(items, index))


def _schedule_cents(amounts: np.ndarray) -> np.ndarray:
    """Amounts in USD, rounded to cents, as whole cents (int64); a ValueError for an amount
    that is not from 0 to below :data:`_SCHEDULE_CENTS_LIMIT` cents (NaN, infinite, negative
    or too large), instead of wrong digits."""
    with np.errstate(over="ignore"):  # an infinite product is refused below
        cents = np.rint(amounts * 100)
    if len(cents) and not (cents.min() >= 0 and cents.max() < _SCHEDULE_CENTS_LIMIT):
        wrong = amounts[~((cents >= 0) & (cents < _SCHEDULE_CENTS_LIMIT))][0]
        raise ValueError(
            f"a schedule amount must be from 0 to below {_SCHEDULE_CENTS_LIMIT / 100:,.2f} USD "
            f"(got {as_given(float(wrong))})"
        )
    return cents.astype(np.int64)


def schedule_text(
    count: int, rows: np.ndarray, dates: Sequence[np.ndarray], amounts: Sequence[np.ndarray]
) -> pa.Array:
    """``YYYY-MM-DD amount; YYYY-MM-DD amount`` (cents) for each of ``count`` rows; "".

    ``rows`` (ascending) are the rows that may have a schedule, ``dates[k]`` and
    ``amounts[k]`` their entry k (NaT: none; entry k > 0 exists only where entry 0 does).
    Written as bytes for the rows with a schedule only: one row of a byte matrix per text,
    each entry in its own columns (``; `` after the first, the date, a space, the whole
    dollars right-aligned, a point and the cents), with a mask of the bytes used (the
    leading zeros of the dollars and the absent entries are not): the masked bytes, read
    row by row, are the texts one after another. No Python string per row. An amount
    the text cannot write exactly raises a ValueError (:func:`_schedule_cents`).
    """
    first = (~np.isnat(dates[0])).nonzero()[0]
    entries = []  # (separator, rows among ``first`` that have the entry, dates, amounts)
    for k, (on, amount) in enumerate(zip(dates, amounts, strict=True)):
        at = slice(None) if k == 0 else (~np.isnat(on[first])).nonzero()[0]
        if k == 0 or len(at):
            cents = _schedule_cents(amount[first][at])
            entries.append((b"; " if k else b"", at, on[first][at], *np.divmod(cents, 100)))
    places = [len(str(int(whole.max()))) if len(whole) else 1 for *_, whole, _ in entries]
    fixed = _DATE_WIDTH + len(" ") + len(".00")
    widths = [len(sep) + fixed + p for (sep, *_), p in zip(entries, places, strict=True)]
    matrix = np.empty((len(first), sum(widths)), dtype=np.uint8)
    mask = np.ones(matrix.shape, dtype=bool)
    lengths = np.zeros(count, dtype=np.int32)
    column = 0
    for k, (entry, width, digits) in enumerate(zip(entries, widths, places, strict=True)):
        separator, at, on, whole, part = entry
        # The first entry straight into the matrix; a later one (few rows) into a block.
        block = matrix[:, column : column + width] if k == 0 else np.empty((len(on), width), "u1")
        used = mask[:, column : column + width] if k == 0 else np.ones(block.shape, dtype=bool)
        lead = len(separator) + _DATE_WIDTH + len(" ")
        block[:, : len(separator)] = np.frombuffer(separator, np.uint8)
        _put_dates(block, len(separator), on)
        block[:, lead - 1] = ord(" ")
        remaining = whole.astype(np.int32) if digits <= _INT32_DIGITS else whole
        end = lead + digits  # the dollars two digits at a time, the units first
        for place in range(end - 2, lead - 1, -2):
            remaining, pair = np.divmod(remaining, _BASE**2)
            _put(block, place, np.take(_PAIRS, pair))
        if digits % 2:
            block[:, lead] = np.take(_DIGITS, remaining)
        block[:, -3] = ord(".")
        _put(block, width - 2, np.take(_PAIRS, part))
        written = np.searchsorted(_BASE ** np.arange(1, digits), whole, side="right") + 1
        used_by = np.arange(digits) >= digits - np.arange(digits + 1)[:, None]  # by digits
        used_by = np.take(used_by.view(f"V{digits}").reshape(-1), written)
        _put(used, lead, used_by)
        if k == 0:
            lengths[rows[first]] = width - digits + written
        else:
            mask[:, column : column + width] = False
            matrix[at, column : column + width] = block
            mask[at, column : column + width] = used
            lengths[rows[first[at]]] += (width - digits + written).astype(np.int32)
        column += width
    offsets = np.zeros(count + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    data = matrix[mask] if len(first) else np.zeros(0, np.uint8)
    return pa.StringArray.from_buffers(count, pa.py_buffer(offsets), pa.py_buffer(data))


def _each_repeated(values: np.ndarray, times: int) -> np.ndarray:
    """``np.repeat(values, times)``, by a copy that releases the GIL (np.repeat holds it)."""
    repeated = np.empty((len(values), times), dtype=values.dtype)
    repeated[:] = values[:, None]
    return repeated.reshape(-1)


@dataclass(frozen=True, slots=True)
class MemberResults:
    """Clause results for parsed members: arrays of shape (members, clauses)."""

    members: MemberArrays
    readings: Readings
    guides: GuideSet
    law: Law
    as_of: dt.date
    clauses: tuple  # the Clause declarations evaluated, in column order
    covered: np.ndarray
    age_months: np.ndarray
    law_period: np.ndarray  # index into law_periods, per member (separation date)
    law_periods: np.ndarray  # start of each period of the separation-date parameters
    outcomes: tuple[ClauseOutcome, ...]
    eligible: np.ndarray
    reason_codes: np.ndarray  # index into reason_texts
    reason_texts: np.ndarray  # every text the law and readings give (one member uses few)
    reason_ranks: tuple  # (sorted distinct texts, each text's rank among them): see columns
    start_date: np.ndarray
    reduction_factor: np.ndarray
    annual_amount: np.ndarray
    monthly_amount: np.ndarray
    minimum_topup: np.ndarray
    # Known on the eligible cells only: the cells' flat indices into (members, clauses)
    # and, per cell, the payment date, the minimum on it and the schedule (per change;
    # NaT: no entry). Spread to (members, clauses) by the properties of the same name.
    cells: np.ndarray
    cell_payment_date: np.ndarray
    cell_minimum_monthly: np.ndarray
    cell_schedule_dates: tuple[np.ndarray, ...]
    cell_schedule_amounts: tuple[np.ndarray, ...]
    guide_index: np.ndarray
    error_messages: np.ndarray  # the text of each cell of error_mask, in row-major order
    error_mask: np.ndarray
    warned: np.ndarray  # where a member has data-quality warnings
    warning_texts: np.ndarray  # the warnings of each member warned, in order

    @property
    def warnings(self) -> np.ndarray:
        """Per member: data-quality warnings, "" where none."""
        return texts_at(len(self.warned), self.warned, self.warning_texts)

    def _spread(self, values: np.ndarray, blank) -> np.ndarray:
        full = np.full(self.eligible.shape, blank, dtype=values.dtype)
        full.ravel()[self.cells] = values
        return full

    @property
    def payment_date(self) -> np.ndarray:
        """The date each annuity is paid on (NaT where not eligible)."""
        return self._spread(self.cell_payment_date, np.datetime64("NaT"))

    @property
    def minimum_monthly(self) -> np.ndarray:
        """The monthly minimum in force on the payment date where it applies (0 elsewhere)."""
        return self._spread(self.cell_minimum_monthly, 0.0)

    @property
    def schedule_dates(self) -> tuple[np.ndarray, ...]:
        """Per change of the schedule: its date per member and clause (NaT: no entry)."""
        return tuple(self._spread(d, np.datetime64("NaT")) for d in self.cell_schedule_dates)

    @property
    def schedule_amounts(self) -> tuple[np.ndarray, ...]:
        """Per change of the schedule: the monthly amount from its date (NaN: none)."""
        return tuple(self._spread(a, np.nan) for a in self.cell_schedule_amounts)

    @property
    def error(self) -> np.ndarray:
        """Error text per member and clause ("" where none)."""
        return texts_at(self.error_mask.shape, self.error_mask, self.error_messages)

    @property
    def clause_ids(self) -> tuple[str, ...]:
        return tuple(clause.id for clause in self.clauses)

    @property
    def reason(self) -> np.ndarray:
        """Reason text per member and clause."""
        return self.reason_texts[self.reason_codes]

    def law_values(self, position: int) -> dict:
        """The law in force for member ``position``: on the separation date, and for the
        parameters selected by the payment date, on ``as_of`` (:meth:`Law.payable_on`)
        (computed once per period of each: :meth:`Law.derived`)."""
        start = self.law_periods[self.law_period[position]].astype("datetime64[D]").item()
        paid_on = self.law.payable_on(self.as_of)
        paid_in = int(
            self.law.change_dates("payment date").searchsorted(np.datetime64(paid_on), "right")
        )

        def compute():
            values = self.law.values_on(start)
            for name in values:
                if PARAMETERS[name].selected_by == "payment date":
                    values[name] = self.law.value_on(name, paid_on)
            return values

        return dict(self.law.derived(("law_values", start, paid_in), compute))

    def columns(self) -> dict[str, np.ndarray | CodedText | pa.Array]:
        """The :data:`RESULT_COLUMNS`: one row per member and clause, one for an invalid member.

        Text comes as :class:`CodedText`: member_id as each row's position in the members'
        ids, the other texts as codes into their few distinct values; ``schedule`` as Arrow
        strings.
        """
        members = self.members
        count = len(members)
        clauses = len(self.clauses)
        valid = members.valid
        keep = None  # every (member, clause) cell is a row: the arrays' rows, no copy
        invalid_rows = None
        if not valid.all():
            grid = np.ones((count, clauses), dtype=bool)
            grid[~valid, 1:] = False
            keep = grid.ravel()
            invalid_rows = np.repeat(~valid, clauses)[keep]
        position_type = np.int32 if count < 2**31 else np.int64  # Arrow takes int32 faster
        member_position = _each_repeated(np.arange(count, dtype=position_type), clauses)
        if keep is not None:
            member_position = member_position[keep]

        def flat(values):
            """Row by row: a view of a (members, clauses) array when every cell is a row."""
            return values.ravel() if keep is None else values.ravel()[keep]

        def blanked(values, blank):
            """``flat(values)``, ``blank`` on the one row of an invalid member."""
            return flat(values) if keep is None else np.where(invalid_rows, blank, flat(values))

        rows = len(member_position)
        clause_codes = np.tile(np.arange(1, clauses + 1, dtype=_code_type(clauses + 1)), count)
        guide_codes = flat(self.guide_index) + 1
        if keep is not None:
            clause_codes = np.where(invalid_rows, 0, clause_codes[keep])
            guide_codes[invalid_rows] = 0
        has_error = flat(self.error_mask)
        if keep is not None:
            has_error = has_error | invalid_rows
        error_at = self.error_messages
        if keep is not None:  # the invalid members' rows have an error too: their own
            error_at = np.zeros(int(has_error.sum()), dtype=object)
            error_at[flat(self.error_mask)[has_error]] = self.error_messages
            # An invalid member has one row, in order: its message, with no other error.
            error_at[invalid_rows[has_error]] = members.messages
        # Coded without a fixed-width array (rows x longest message would be gigabytes).
        codes, error_texts = _factorized(error_at)
        error_codes = np.zeros(rows, dtype=_code_type(len(error_texts) + 1))
        error_codes[has_error] = codes + 1
        warned = self.warned
        warning_texts = []
        if warned.any():
            warning_codes, warning_texts = _factorized(self.warning_texts)
            member_warning = np.zeros(count, dtype=_code_type(len(warning_texts) + 1))
            member_warning[warned] = warning_codes + 1
            warning_rows = member_warning[member_position]
        else:  # the usual case: no member warned, every row's code 0
            warning_rows = np.zeros(rows, dtype=np.int8)
        cell_rows = self.cells  # each eligible cell's row in the table
        if keep is not None:
            cell_rows = (np.cumsum(keep) - 1)[self.cells]
        schedule = schedule_text(
            rows, cell_rows, self.cell_schedule_dates, self.cell_schedule_amounts
        )
        nat = np.datetime64("NaT")
        reason_codes, reason_texts = _used_reasons(self.reason_codes, *self.reason_ranks)
        values = {
            "row": (
                _each_repeated(members.row, clauses)
                if keep is None
                else members.row[member_position]
            ),
            "member_id": CodedText(member_position, members.member_id),
            "clause": CodedText(clause_codes, ["", *self.clause_ids]),
            "eligible": blanked(self.eligible, False),
            "reason": CodedText(blanked(reason_codes, 0), reason_texts),
            "start_date": blanked(self.start_date, nat),
            "reduction_factor": blanked(self.reduction_factor, np.nan),
            "annual_amount": blanked(self.annual_amount, np.nan),
            "monthly_amount": blanked(self.monthly_amount, np.nan),
            "minimum_topup": blanked(self.minimum_topup, np.nan),
            "schedule": schedule,
            "guide_id": CodedText(
                guide_codes.astype(_code_type(len(self.guides) + 1), copy=False),
                ["", *(g.id for g in self.guides)],
            ),
            "error": CodedText(error_codes, ["", *error_texts]),
            "warnings": CodedText(warning_rows, ["", *warning_texts]),
            "readings": CodedText(np.zeros(rows, dtype=np.int8), [self.readings.label()]),
        }
        return {name: values[name] for name in RESULT_COLUMNS}

    def table(self) -> pd.DataFrame:
        """One row per member and clause; one row for an invalid member.

        Text columns are categorical (few distinct values over millions of rows).
        """
        writer = TableWriter(len(self.members) * len(self.clauses))
        writer.write(self.columns())
        return writer.table()


def _libc_madvise():
    """glibc's ``madvise`` through ctypes, which releases the GIL around the call; None
    elsewhere."""
    try:
        madvise = ctypes.CDLL("libc.so.6", use_errno=True).madvise
    except (OSError, AttributeError):
        return None
    madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    return madvise


_MADVISE = _libc_madvise() if sys.platform == "linux" else None
_MADV_POPULATE_WRITE = 23  # Linux 5.14: fault in every page of a range, writable
_ALIGNMENT = 64  # bytes: where each column of the table starts


def _columns(
    count: int, kinds: dict[str, np.dtype], mapped: threading.Event | None = None
) -> dict[str, np.ndarray]:
    """Uninitialized columns of the table, ``count`` values of each kind. On Linux, columns
    of 1 MiB or more in all share one numpy array whose pages are all faulted in at once,
    the GIL released: faulting in hundreds of megabytes a page at a time as the rows are
    written costs more (about 12% of ``evaluate_frame`` at 10^6 members), and so does doing
    it holding the GIL (``MAP_POPULATE`` does, inside ``mmap.mmap``). numpy asks the kernel
    for huge pages for its large arrays (``NUMPY_MADVISE_HUGEPAGE``), which a mapping of our
    own did not: 119 page faults instead of 60,928 for 238 MiB, populated in 24-31 ms
    against 102-119 ms. ``mapped`` is set once the columns exist, before their pages are
    populated: from then on no Python runs here, so a caller holding the GIL for long (a
    conversion in C) does not stop it."""
    try:
        offsets, size = {}, 0
        for name, kind in kinds.items():
            offsets[name] = size
            size += -(-count * kind.itemsize // _ALIGNMENT) * _ALIGNMENT
        if _MADVISE is None or size < 1 << 20:
            return {name: np.empty(count, kind) for name, kind in kinds.items()}
        memory = np.empty(size + _ALIGNMENT, np.uint8)  # numpy's huge pages, if it uses them
        start = -memory.ctypes.data % _ALIGNMENT
        pages = memory[start : start + size]
        columns = {
            name: pages[offsets[name] :][: count * kind.itemsize].view(kind)
            for name, kind in kinds.items()
        }
    finally:
        if mapped is not None:
            mapped.set()
    if _MADVISE(pages.ctypes.data, size, _MADV_POPULATE_WRITE) != 0:  # an older kernel
        pages[:: mmap.PAGESIZE] = 0  # a write to each page: numpy's loop
    return columns


def _column(count: int, kind) -> np.ndarray:
    """One column of :func:`_columns`."""
    return _columns(count, {"column": np.dtype(kind)})["column"]


_ARROW_TYPES = {column.name: column.arrow_type for column in COLUMNS}
_RECODED_ROWS = 1 << 20  # rows recoded at a time: the temporary stays small


def _recode(codes: np.ndarray, lookup: np.ndarray) -> None:
    """``codes`` replaced in place by ``lookup[codes]``, a slice at a time (``np.take``
    into the slice itself, which it buffers: half the time of fancy indexing, which first
    converts small codes to intp)."""
    lookup = lookup.astype(codes.dtype, copy=False)
    for start in range(0, len(codes), _RECODED_ROWS):
        part = codes[start : start + _RECODED_ROWS]
        np.take(lookup, part, out=part)


def _sorted_in_place(codes: np.ndarray, texts: list[str]) -> list[str]:
    """``texts`` sorted, ``codes`` recoded in place to match; not recoded when the texts
    are sorted already (each chunk's reasons come sorted: only a reason first seen in a
    later chunk puts them out of order)."""
    order = np.argsort(np.array(texts, dtype=object), kind="stable")
    if (order == np.arange(len(texts))).all():
        return texts
    lookup = np.empty(len(texts), dtype=codes.dtype)
    lookup[order] = np.arange(len(texts), dtype=codes.dtype)
    _recode(codes, lookup)
    return [texts[i] for i in order]


_NUMBER_TYPES = {  # the table's dtype of each kind of number column (ResultColumn.arrow_type)
    pa.float64(): np.dtype(np.float64),
    pa.bool_(): np.dtype(bool),
    pa.date32(): np.dtype("datetime64[s]"),  # the coarsest unit pandas keeps
    pa.int64(): np.dtype(np.int64),
}


class TableWriter:
    """The results table, written a chunk of :meth:`MemberResults.columns` at a time into
    columns allocated once for every row (no copy of the whole table, no temporary of its
    size): numbers and dates in place; text as codes into the texts seen so far.

    ``member_id`` is written as each row's member (its position in reading order) until
    :meth:`code_members` gives every member's code into the distinct ids of the whole
    input; without them, the chunks' ids are coded at the end. :meth:`mark` and
    :meth:`rewind` let chunks be written again (after the repeated ids are known).
    """

    def __init__(self, capacity: int):
        self.rows = 0
        self.capacity = capacity
        self.member_codes = self.member_texts = None
        self.members = 0  # members written so far (chunks come in reading order)
        self.numbers: dict[str, np.ndarray] = {}
        self.codes: dict[str, np.ndarray] = {}
        self.texts: dict[str, dict] = {}
        self.schedule: list[pa.Array] = []
        self.member_chunks: list = []

    def _number_type(self, name: str) -> np.dtype:
        if name in ("row", "member_id"):  # a frame in memory: int32, half the bytes
            return np.dtype(np.int32 if self.capacity < 2**31 - 1 else np.int64)
        return _NUMBER_TYPES[_ARROW_TYPES[name]]

    def _numbers(self, name: str) -> np.ndarray:
        if name not in self.numbers:
            self.numbers[name] = _column(self.capacity, self._number_type(name))
        return self.numbers[name]

    def allocate(self, mapped: threading.Event | None = None) -> TableWriter:
        """Allocate every column now (its pages populated), not at the first write: called
        in a thread while the ids are read (``mapped``: see :func:`_columns`). Text codes
        start as int8 (grown when a column has more texts)."""
        numbers, codes = {}, {}
        for column in COLUMNS:
            if column.arrow_type in _NUMBER_TYPES or column.name == "member_id":
                if column.name not in self.numbers:
                    numbers[column.name] = self._number_type(column.name)
            elif column.coded and column.name not in self.codes:
                codes[column.name] = np.dtype(np.int8)
        allocated = _columns(self.capacity, numbers | codes, mapped)
        self.numbers |= {name: allocated[name] for name in numbers}
        self.codes |= {name: allocated[name] for name in codes}
        return self

    def code_members(self, codes: np.ndarray, texts) -> None:
        """Every member's code into the distinct ids ``texts`` (the whole input's, in
        reading order): the rows written so far recoded in place, the next written so.
        Codes count up as ids are first seen, so a last code of ``len(codes) - 1`` means
        every id is distinct and each member's code is its position: nothing to recode."""
        if len(codes) and codes[-1] != len(codes) - 1:
            _recode(self._numbers("member_id")[: self.rows], codes)
            self.member_codes = codes
        self.member_texts = texts
        self.member_chunks = []

    def mark(self) -> tuple:
        """Where the next chunk goes, for :meth:`rewind`."""
        seen = {name: len(texts) for name, texts in self.texts.items()}
        return self.rows, self.members, len(self.schedule), len(self.member_chunks), seen

    def rewind(self, mark: tuple) -> None:
        """Write again from ``mark``: the rows after it, and the texts first seen in them,
        are forgotten (the texts are coded in the order first seen)."""
        self.rows, self.members, schedules, chunks, seen = mark
        del self.schedule[schedules:], self.member_chunks[chunks:]
        self.texts = {
            name: dict(itertools.islice(texts.items(), seen[name]))
            for name, texts in self.texts.items()
            if name in seen
        }

    def _code(self, name: str, values: CodedText, at: slice) -> None:
        """Codes into the texts of the whole table (first seen, first coded)."""
        known = self.texts.setdefault(name, {})
        lookup = [known.setdefault(str(t), len(known)) for t in values.texts]
        kind = _code_type(len(known))
        codes = self.codes.get(name)
        if codes is None or codes.dtype.itemsize < kind.itemsize:  # first chunk, or grown
            grown = _column(self.capacity, kind)
            if codes is not None:
                grown[: at.start] = codes[: at.start]
            self.codes[name] = codes = grown
        if not len(lookup):
            return
        if lookup == list(range(len(lookup))):  # the texts coded as before
            codes[at] = values.codes
        else:
            codes[at] = np.take(np.array(lookup, codes.dtype), values.codes)

    def write(self, columns: dict) -> None:
        """Append the rows of one chunk (:meth:`MemberResults.columns`)."""
        count = len(columns["row"])
        at = slice(self.rows, self.rows + count)
        for name, values in columns.items():
            if name == "member_id":
                if self.member_texts is None:
                    self.member_chunks.append(values)
                members = self._numbers(name)[at]
                np.add(values.codes, self.members, out=members)  # the member in reading order
                if self.member_codes is not None:
                    np.take(self.member_codes, members, out=members)
                self.members += len(values.texts)
            elif isinstance(values, CodedText):
                self._code(name, values, at)
            elif isinstance(values, pa.Array):
                self.schedule.append(values)
            else:
                self._numbers(name)[at] = values
        self.rows += count

    def _member_ids(self) -> pd.Categorical:
        positions = self.numbers["member_id"][: self.rows]
        if self.member_texts is None:  # the ids of every chunk, coded here
            texts = pa.concat_arrays([chunk.texts for chunk in self.member_chunks])
            codes, distinct = distinct_codes(texts)
            if codes is not None:  # some id repeated (or two ids share a hash)
                positions = codes[positions]
            self.member_texts = pd.arrays.ArrowStringArray(distinct)
        categories = pd.Index(self.member_texts)
        kind = _code_type(len(categories))
        return pd.Categorical.from_codes(
            positions.astype(kind, copy=False),
            # Distinct by construction (factorized): no second hash of a million ids.
            dtype=pd.CategoricalDtype._from_fastpath(categories, False),
            validate=False,
        )

    def table(self) -> pd.DataFrame:
        """The table of the rows written, columns in :data:`RESULT_COLUMNS` order."""
        rows = self.rows
        columns = {}
        for name in RESULT_COLUMNS:
            if name == "member_id":
                columns[name] = self._member_ids()
            elif name in self.codes:
                texts = list(self.texts.get(name, ()))
                codes = self.codes[name][:rows]
                if name == "reason":  # sorted, as a reader scans them
                    texts = _sorted_in_place(codes, texts)
                kind = _code_type(len(texts))
                columns[name] = pd.Categorical.from_codes(
                    codes.astype(kind, copy=False),
                    dtype=pd.CategoricalDtype._from_fastpath(pd.Index(texts, dtype=object), False),
                    validate=False,
                )
            elif name == "schedule":
                columns[name] = pd.arrays.ArrowStringArray(
                    pa.chunked_array(self.schedule, type=pa.string())
                )
            else:
                columns[name] = self.numbers[name][:rows]
        return pd.DataFrame(columns, copy=False)  # every column is new: no second copy


class _ReasonTable(NamedTuple):
    """Every reason text a member can get, in code order ("" first), and how a member's
    code is counted (:func:`_reasons`)."""

    texts: np.ndarray  # object
    not_covered: np.ndarray  # the code of each (law period, coverage code) not covered
    sorted_texts: np.ndarray  # the distinct texts, sorted ...
    rank: np.ndarray  # ... and each text's rank among them (see _used_reasons)
    # Per clause: the code's part for each condition failed (bit i of the failures,
    # times the variants), as a (clauses, conditions) matrix; that part when every
    # condition fails; the codes a law period spans; the clause's first code.
    failed_weights: np.ndarray
    all_failed: np.ndarray
    per_period: np.ndarray
    firsts: np.ndarray


def _reason_texts(outcomes, clauses, law: Law, periods: np.ndarray, readings) -> _ReasonTable:
    """The reason texts and codes of the law's periods for the clauses (:class:`_ReasonTable`).

    Depends on the law, the readings and the clauses' declarations only: computed once per
    law (:meth:`Law.derived`).
    """

    def compute():
        law_values = law_values_by_period(law, periods)
        reason_texts = [""]
        not_covered = np.zeros((len(periods), 3), dtype=np.int64)
        for p, values in enumerate(law_values):
            for code in (ENTERED_BEFORE, ENTERED_AFTER):
                not_covered[p, code] = len(reason_texts)
                reason_texts.append(not_covered_reason(code, values, readings))
        firsts = []
        for outcome, clause in zip(outcomes, clauses, strict=True):
            firsts.append(len(reason_texts))
            reason_texts.extend(_reason_table(outcome, clause, law_values, readings))
        texts = np.array(reason_texts, dtype=object)
        sorted_texts, rank = np.unique(texts, return_inverse=True)  # equal texts, one rank
        counts = [len(outcome.conditions) for outcome in outcomes]
        variants = [len(clause.variants) for clause in clauses]
        weights = np.zeros((len(counts), sum(counts)), dtype=np.int64)
        starts = itertools.accumulate(counts, initial=0)  # each first condition, then the end
        for row, (start, count, kinds) in enumerate(zip(starts, counts, variants, strict=False)):
            weights[row, start : start + count] = (1 << np.arange(count)) * kinds
        return _ReasonTable(
            texts,
            not_covered.astype(np.int32),
            sorted_texts,
            rank,
            weights.astype(np.int32),
            weights.sum(axis=1).astype(np.int32),
            np.array([(1 << c) * v for c, v in zip(counts, variants, strict=True)], np.int32),
            np.array(firsts, dtype=np.int32),
        )

    declared = tuple(
        (clause, tuple(condition for condition, _ in outcome.conditions))
        for outcome, clause in zip(outcomes, clauses, strict=True)
    )
    return law.derived(("reasons", readings, declared), compute)


def _reasons(outcomes, clauses, coverage, covered, period, law, periods, readings):
    """Reason codes (members, clauses) into every text the law gives ("" first), those
    texts, and their ranks (:func:`_used_reasons`).

    A covered member's code in a clause's table (:func:`_reason_table`) counts its law
    period, the conditions it fails (condition i: bit i) and its variant. The failures of
    every clause come from one product: the conditions met, by their weights, taken from
    the weights of all failing (a few calls for one member, and for a million; by einsum's
    own loops: a BLAS product would start threads beside the chunks' threads)."""
    table = _reason_texts(outcomes, clauses, law, periods, readings)
    weights = table.failed_weights
    met = np.array(
        [met for outcome in outcomes for _, met in outcome.conditions], dtype=np.int32
    ).reshape(weights.shape[1], len(covered))
    reason_codes = table.all_failed - np.einsum("km,ck->mc", met, weights)
    reason_codes += period.astype(np.int32)[:, None] * table.per_period
    reason_codes += table.firsts
    for column, outcome in enumerate(outcomes):
        if outcome.variant is not None:
            reason_codes[:, column] += outcome.variant.astype(np.int32)
    if not covered.all():
        uncovered = table.not_covered[period, coverage]
        reason_codes = np.where(covered[:, None], reason_codes, uncovered[:, None])
    return reason_codes, table.texts, (table.sorted_texts, table.rank)


def _used_reasons(reason_codes, sorted_texts, rank) -> tuple[np.ndarray, np.ndarray]:
    """The codes of :func:`_reasons` recoded into the distinct texts that occur, plus ""
    (sorted first: the code of invalid rows), and those texts: a table's few texts, not the
    law's hundreds. By the texts' ranks (computed once per law): no string sorted here."""
    counts = np.bincount(reason_codes.ravel(), minlength=len(rank))
    counts[0] = 1  # "" is always among the texts
    used = counts.nonzero()[0]
    occurs = np.zeros(len(sorted_texts), dtype=bool)
    occurs[rank[used]] = True
    ranks = occurs.nonzero()[0]  # the ranks that occur, ascending
    lookup = np.zeros(len(rank), dtype=_code_type(len(ranks)))
    lookup[used] = (np.cumsum(occurs) - 1)[rank[used]]  # each rank's place among them
    return np.take(lookup, reason_codes), sorted_texts[ranks]


def evaluate_members(
    members: MemberArrays,
    guides: GuideSet,
    as_of: dt.date | None = None,
    readings: Readings | None = None,
    law=None,
) -> MemberResults:
    """Every registered clause for every parsed member, vectorized.

    ``as_of``: the date the results are asked for (default: today); each annuity is paid
    from the later of it and its start date. ``law``: see :func:`law_in_force`.
    """
    readings = checked_guides_and_readings(guides, readings)  # every caller's, checked here
    law = law_in_force(law)
    check_guides_under(guides, law)  # loaded for the ages of this law
    as_of = resolve_as_of(as_of)
    clauses = tuple(CLAUSES.values())
    count = len(members)
    valid = members.valid
    # Every number comes from the law in force on the separation date, coverage's window
    # included (its reason states the window applied); rows that are not evaluated
    # (invalid, not covered) are blanked.
    law_on = LawOn(law, law_dates(members.separation_date, law))
    coverage = np.where(
        valid,
        coverage_codes(members.entry_date, members.separation_date, law_on, readings),
        COVERED,
    )
    covered = valid & (coverage == COVERED)
    high_risk_codes = [GROUPS.index(name) for name in HIGH_RISK_GROUPS]
    high_risk = np.zeros(count, dtype=bool)
    for code in high_risk_codes:  # two codes: cheaper than np.isin's set machinery
        high_risk |= members.group == code
    seen = situation(members, readings, high_risk)
    periods = law.change_dates("separation date")
    period = (
        np.zeros(count, dtype=np.int64)
        if len(periods) == 1
        else periods.searchsorted(law_on.dates, side="right") - 1
    )
    outcomes = tuple(clause.rule(seen, law_on, readings) for clause in clauses)
    shape = (count, len(clauses))
    eligible = np.zeros(shape, dtype=bool)
    start = np.full(shape, np.datetime64("NaT"), dtype="datetime64[D]")
    annual = np.full(shape, np.nan)
    factor = np.full(shape, np.nan)
    guide_index = np.full(shape, -1, dtype=_code_type(len(guides)))
    reason_codes, reason_texts, reason_ranks = _reasons(
        outcomes, clauses, coverage, covered, period, law, periods, readings
    )
    for column, outcome in enumerate(outcomes):  # written in place: no temporary per clause
        np.logical_and(outcome.eligible, covered, out=eligible[:, column])
        np.copyto(start[:, column], outcome.start_date, where=eligible[:, column])
        np.copyto(annual[:, column], outcome.annual_amount, where=eligible[:, column])

    # Inciso (c) (every clause declared ``reduced``): the factor of the guide in force.
    error_cells, error_messages = [], []  # the few cells a problem stops, and its text
    for column, clause in enumerate(clauses):
        chosen = eligible[:, column].nonzero()[0] if clause.reduced else ()
        if not len(chosen):  # no reduction, or no member eligible: nothing to look up
            continue
        factors, index, problems = reduction_factors(
            guides, members.separation_date[chosen], seen.age_months[chosen]
        )
        factor[chosen, column] = factors
        guide_index[chosen, column] = index
        annual[:, column] *= factor[:, column]
        stopped = problems != ""
        error_cells.append(chosen[stopped] * len(clauses) + column)
        error_messages.append(problems[stopped])
    error_mask = np.zeros(shape, dtype=bool)
    messages = np.zeros(0, dtype=object)
    if any(len(cells) for cells in error_cells):  # the usual case: none
        cells = np.concatenate(error_cells)
        error_mask.ravel()[cells] = True
        messages = np.concatenate(error_messages)[np.argsort(cells, kind="stable")]

    # Every amount is computed on the eligible cells only (the others stay NaN, NaT, 0).
    where = eligible.ravel().nonzero()[0]

    def spread(values, blank):
        full = np.full(shape, blank, dtype=values.dtype)
        full.ravel()[where] = values
        return full

    cell_start = start.ravel()[where]
    cell_error = error_mask.ravel()[where]
    cell_reaches = minimum_reaches([c.id for c in clauses], readings)[where % len(clauses)]
    cell_reaches &= ~cell_error
    # The minimum (I-4) on the payment date, and the schedule of amounts from the start.
    payment = payment_dates(cell_start, as_of)
    minimum = minimum_on(law, payment, cell_reaches)
    start_minimum = minimum_on(law, cell_start, cell_reaches)
    cell_annual = annual.ravel()[where]
    monthly_before_minimum = cell_annual / 12.0
    # Rounded at once: round_cents stacks them in its one copy (fewer numpy calls).
    paid_rounded, monthly_rounded, first_amount, annual_rounded = round_cents(
        [
            np.maximum(monthly_before_minimum, minimum),
            monthly_before_minimum,
            np.maximum(monthly_before_minimum, start_minimum),
            cell_annual,
        ]
    )
    # No schedule where no amount is computed (a row with an error).
    schedule_dates = [np.where(cell_error, np.datetime64("NaT"), cell_start)]
    schedule_amounts = [first_amount]
    previous = first_amount
    for change in minimum_changes(law):
        later = cell_reaches & (cell_start < change)
        if not later.any():
            continue
        on = np.where(later, change, np.datetime64("NaT"))
        amount = round_cents(np.maximum(monthly_before_minimum, minimum_on(law, on, later)))
        amount = np.where(later, amount, previous)
        differs = later & (amount != previous)
        schedule_dates.append(np.where(differs, change, np.datetime64("NaT")))
        schedule_amounts.append(amount)
        previous = amount
    annual.ravel()[where] = annual_rounded  # NaN elsewhere already
    warned, warning_texts = warnings_and_where(members, as_of)
    return MemberResults(
        members=members,
        readings=readings,
        guides=guides,
        law=law,
        as_of=as_of,
        clauses=clauses,
        covered=covered,
        age_months=seen.age_months,
        law_period=period,
        law_periods=periods,
        outcomes=outcomes,
        eligible=eligible,
        reason_codes=reason_codes,
        reason_texts=reason_texts,
        reason_ranks=reason_ranks,
        start_date=start,
        reduction_factor=factor,
        annual_amount=annual,  # rounded in place above
        monthly_amount=spread(paid_rounded, np.nan),
        minimum_topup=spread(round_cents(paid_rounded - monthly_rounded), np.nan),
        cells=where,
        cell_payment_date=payment,
        cell_minimum_monthly=minimum,
        cell_schedule_dates=tuple(schedule_dates),
        cell_schedule_amounts=tuple(schedule_amounts),
        guide_index=guide_index,
        error_messages=messages,
        error_mask=error_mask,
        warned=warned,
        warning_texts=warning_texts,
    )


# How long a thread keeps the GIL while another waits for it, during evaluate_frame
# (Python's default: 5 ms): the chunk threads hand it to each other between their numpy and
# Arrow calls sooner: 2-4% off its wall time at 10^6 members (none for the batch).
GIL_TURN = 0.0002
_turns = {"calls": 0, "previous": None}
_turns_lock = threading.Lock()


@contextlib.contextmanager
def short_gil_turns():
    """:data:`GIL_TURN` as the interpreter's switch interval while the block runs, the
    previous one restored when the last such block (of any thread) ends."""
    with _turns_lock:
        if _turns["calls"] == 0:
            _turns["previous"] = sys.getswitchinterval()
            sys.setswitchinterval(min(GIL_TURN, _turns["previous"]))
        _turns["calls"] += 1
    try:
        yield
    finally:
        with _turns_lock:
            _turns["calls"] -= 1
            if _turns["calls"] == 0:
                sys.setswitchinterval(_turns["previous"])


FRAME_CHUNK = 65_536  # members parsed and evaluated at a time: the work arrays stay small
WORKERS = min(2, os.cpu_count() or 1)  # threads evaluating chunks side by side


def evaluate_frame(
    members_df: pd.DataFrame,
    guides: GuideSet,
    as_of: dt.date | None = None,
    readings: Readings | None = None,
    source: str = "members",
    law=None,
) -> pd.DataFrame:
    """Results table for a frame of members: one row per member and clause (see README).

    Every input row is in the output: invalid rows as one row with ``error`` set.
    ``as_of`` defaults to today; ``law``: a path, a list of paths or a loaded law.
    Members are parsed and evaluated at most :data:`FRAME_CHUNK` at a time (chunks of one
    size, :func:`_chunk_size`), each chunk written straight into the table's columns;
    ``member_id`` is categorical (codes into the ids).
    """
    check_frame(members_df)
    check_columns(members_df.columns, source)
    frame = members_df.reset_index(drop=True)
    readings = checked_guides_and_readings(guides, readings)
    law = law_in_force(law)
    as_of = resolve_as_of(as_of)
    size = _chunk_size(len(frame))

    def chunk(start: int, ids: FrameIds) -> dict:
        members = parse_members(
            frame.iloc[start : start + size], source=source, first_row=start + 1, ids=ids
        )
        return evaluate_members(members, guides, as_of, readings, law).columns()

    # Beside the chunks: the table's columns allocated (from while the ids are read as
    # text), and the ids coded once for the whole frame. Chunks are computed and written as
    # if no id were repeated until the ids are coded; those holding a repeated id are then
    # computed again.
    starts = range(0, max(len(frame), 1), size)
    writer = TableWriter(len(frame) * len(CLAUSES))
    with short_gil_turns(), ThreadPoolExecutor(2) as beside:
        mapped = threading.Event()
        allocated = beside.submit(writer.allocate, mapped)
        mapped.wait()  # the columns' pages populated while the ids are read (holding the GIL)
        read = frame_id_text(frame["member_id"])
        coded = beside.submit(code_frame_ids, read)
        ids = None
        written = []  # (start, mark) of the chunks written before the ids were coded

        def use_codes() -> FrameIds:
            """The coded ids; the chunks written before them written again from the first
            that holds a repeated id (rare: an error of the rows that share an id)."""
            ids = coded.result()
            for k, (written_start, mark) in enumerate(written):
                if ids.duplicates.mask[written_start : written_start + size].any():
                    writer.rewind(mark)
                    for again, _ in written[k:]:
                        writer.write(chunk(again, ids))
                    break
            writer.code_members(ids.codes, ids.texts)
            return ids

        evaluated = _in_order(lambda s: chunk(s, read), starts)
        for start, columns in zip(starts, evaluated, strict=True):
            allocated.result()
            if ids is None and coded.done():
                ids = use_codes()
            if ids is None:
                written.append((start, writer.mark()))
            elif ids.duplicates.mask[start : start + size].any():
                columns = chunk(start, ids)
            writer.write(columns)
        if ids is None:
            use_codes()
    return writer.table()


def _chunk_size(members: int) -> int:
    """At most :data:`FRAME_CHUNK` members a chunk, the chunks of a large frame as many as
    a multiple of :data:`WORKERS` and of one size, so that the threads end together."""
    if members <= FRAME_CHUNK:
        return max(members, 1)
    chunks = -(-members // FRAME_CHUNK)
    chunks = -(-chunks // WORKERS) * WORKERS
    return -(-members // chunks)


def _in_order(work, items):
    """``work(item)`` for each item, in order, on :data:`WORKERS` threads (numpy and Arrow
    release the GIL in their loops), with at most one result more than the threads computed
    ahead of the one being used."""
    items, ahead = deque(items), WORKERS + 1
    if len(items) == 1 or WORKERS == 1:
        yield from map(work, items)
        return
    with ThreadPoolExecutor(WORKERS) as pool:
        pending = deque()
        while items or pending:
            while items and len(pending) < ahead:
                pending.append(pool.submit(work, items.popleft()))
            yield pending.popleft().result()


@dataclass(frozen=True, slots=True)
class Evaluation:
    """Every clause for one member, with the readings, law and date used, and the explanation."""

    member_id: str
    age_months: int
    covered: bool
    readings: Readings
    as_of: dt.date
    law_files: tuple[dict, ...]
    clauses: tuple
    explanation: tuple[str, ...]
    warnings: tuple[str, ...] = ()  # data-quality warnings (members.member_warnings)

    def clause(self, clause: str) -> ClauseResult:
        for result in self.clauses:
            if result.clause == clause:
                return result
        raise KeyError(
            f"'clause' must be in {[r.clause for r in self.clauses]} (got {as_given(clause)})"
        )

    def as_dict(self) -> dict:
        def plain(value):
            return value.isoformat() if isinstance(value, dt.date) else value

        return {
            "member_id": self.member_id,
            "age_at_separation": {"years": self.age_months // 12, "months": self.age_months % 12},
            "covered": self.covered,
            "as_of": self.as_of.isoformat(),
            "law": list(self.law_files),
            "readings": self.readings.as_dict(),
            "clauses": [
                {name: plain(getattr(result, name)) for name in ClauseResult.__slots__}
                for result in self.clauses
            ],
            "explanation": list(self.explanation),
            "warnings": list(self.warnings),
        }


def schedule_entries_text(entries) -> str:
    """``YYYY-MM-DD amount; ...`` (cents) from (date, monthly amount) pairs: one member's
    schedule, as :func:`schedule_text` writes it for the table."""
    return "; ".join(f"{date} {amount:.2f}" for date, amount in entries)


def member_clauses(results: MemberResults, position: int) -> list[dict]:
    """Every per-clause column of member ``position`` (:data:`COLUMNS`), one mapping per
    clause, as Python values (None for a missing value or an empty text), with the
    ``payment_date``, the ``minimum_monthly`` in force on it and the ``schedule_entries``
    (date, amount); read from the result arrays, without the table.
    """
    clause_count = len(results.clauses)
    first = position * clause_count
    # Column -> the eligible cell's index into the cell_* arrays (the cells ascend).
    low, high = results.cells.searchsorted([first, first + clause_count])
    cell_index = {int(cell) - first: low + k for k, cell in enumerate(results.cells[low:high])}
    errors_before = int(np.count_nonzero(results.error_mask.ravel()[:first]))
    errors = iter(results.error_messages[errors_before:])  # in row-major order of the cells
    has_error = results.error_mask[position].tolist()
    eligible = results.eligible[position].tolist()
    reasons = results.reason_texts[results.reason_codes[position]].tolist()
    starts = results.start_date[position].tolist()  # dt.date, None for NaT
    guide_index = results.guide_index[position].tolist()
    amounts = {
        name: getattr(results, name)[position].tolist()
        for name in ("reduction_factor", "annual_amount", "monthly_amount", "minimum_topup")
    }
    rows = []
    for column, clause in enumerate(results.clauses):
        row = {
            "clause": clause.id,
            "eligible": eligible[column],
            "reason": reasons[column] or None,
            "start_date": starts[column],
            **{name: None if v[column] != v[column] else v[column] for name, v in amounts.items()},
            "guide_id": results.guides.guides[guide_index[column]].id
            if guide_index[column] >= 0
            else None,
            "error": str(next(errors)) if has_error[column] else None,
            "payment_date": None,
            "minimum_monthly": 0.0,
            "schedule_entries": [],
        }
        index = cell_index.get(column)
        if index is not None:
            row["payment_date"] = results.cell_payment_date[index].item()
            row["minimum_monthly"] = float(results.cell_minimum_monthly[index])
            row["schedule_entries"] = [
                (dates[index].item(), float(amounts_from[index]))
                for dates, amounts_from in zip(
                    results.cell_schedule_dates, results.cell_schedule_amounts, strict=True
                )
                if not np.isnat(dates[index])
            ]
        row["schedule"] = schedule_entries_text(row["schedule_entries"]) or None
        rows.append(row)
    return rows


def _clause_results(rows: list[dict]) -> tuple:
    """The rows of :func:`member_clauses` as :class:`ClauseResult`."""
    fields = ClauseResult.__slots__
    return tuple(ClauseResult(**{name: row[name] for name in fields}) for row in rows)


_DEFAULT_READINGS = Readings()


def checked_guides_and_readings(guides, readings) -> Readings:
    """The ``readings`` of :func:`evaluate` and :func:`evaluate_frame` (None: the defaults),
    with their ``guides``, checked where a user passes them: a mapping of switches (an empty
    one would be the defaults, silently) or a path of guides is a TypeError naming it."""
    if not isinstance(guides, GuideSet):
        raise TypeError(
            "'guides' must be the guides of one series, from actuarial.load_guides "
            f"(got {kind_and_value(guides)})"
        )
    if readings is None:
        return _DEFAULT_READINGS  # not made anew per call
    if not isinstance(readings, Readings):
        raise TypeError(
            "'readings' must be an actuarial.Readings, e.g. Readings(**mapping) "
            f"(got {kind_and_value(readings)})"
        )
    return readings


def evaluate(
    member,
    guides: GuideSet,
    as_of: dt.date | None = None,
    readings: Readings | None = None,
    lang: str = "en",
    law=None,
) -> Evaluation:
    """Every clause for one member (a :class:`Member` or a mapping of its fields).

    A one-row call of :func:`evaluate_members` (the same rules on arrays of one member),
    parsed by :func:`~actuarial.members.parse_member` and read from the result arrays,
    without a DataFrame; invalid data raises :class:`MemberDataError` with the same message
    the batch writes in ``error``.
    """
    from actuarial.explain import explain

    members = parse_member(member, source="member")
    if not members.valid[0]:
        raise MemberDataError(members.error[0])
    results = evaluate_members(members, guides, as_of, readings, law)  # checks both
    rows = member_clauses(results, 0)
    return Evaluation(
        member_id=members.member_id[0].as_py(),
        age_months=int(results.age_months[0]),
        covered=bool(results.covered[0]),
        readings=results.readings,
        as_of=results.as_of,
        law_files=tuple(results.law.provenance()),
        clauses=_clause_results(rows),
        explanation=tuple(explain(results, 0, lang, rows)),
        warnings=tuple(filter(None, str(results.warnings[0]).split(WARNING_SEPARATOR))),
    )
