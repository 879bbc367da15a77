"""The engine: every clause of the law for one member or a whole membership, in one pass.

``evaluate_frame`` is the implementation; ``evaluate`` is a one-row call of it. The engine
orchestrates what :mod:`actuarial.law` declares: parse and validate members, coverage
(I-1), ages (I-6), every registered clause on the law in force on the separation date, the
inciso (c) reduction from the guide in force, the monthly minimum on the payment date
(I-4) with the schedule of amounts, rounding to cents (half up), and the results table.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, make_dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

from actuarial.guides import GuideSet
from actuarial.law.clauses import CLAUSES, situation
from actuarial.law.conditions import ClauseOutcome, render
from actuarial.law.coverage import (
    COVERED,
    ENTERED_AFTER,
    ENTERED_BEFORE,
    coverage_codes,
    not_covered_reason,
)
from actuarial.law.minimum import minimum_changes, minimum_on, minimum_reaches, payment_dates
from actuarial.law.parameters import PARAMETERS, Law, LawOn, law_in_force, resolve_as_of
from actuarial.law.readings import Readings
from actuarial.law.reduction import reduction_factors
from actuarial.members import (
    GROUPS,
    HIGH_RISK_GROUPS,
    MemberArrays,
    MemberDataError,
    member_frame,
    member_warnings,
    parse_members,
)

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
    np.round(cents, 6, out=cents)
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


def failure_mask(outcome: ClauseOutcome) -> np.ndarray:
    """Bit i set where condition i of the clause failed."""
    mask = np.zeros(outcome.eligible.shape, dtype=np.int64)
    for bit, (_, passes) in enumerate(outcome.conditions):
        mask |= (~passes).astype(np.int64) << bit
    return mask


@dataclass(frozen=True, slots=True)
class CodedText:
    """A text column as codes into its texts: ``texts[codes]`` row by row."""

    codes: np.ndarray
    texts: Sequence[str]  # a list, an array or a pandas Series of str


_ZERO = ord("0")


def _digits(numbers: np.ndarray, width: int) -> np.ndarray:
    """Non-negative integers as ASCII digits, right-aligned in ``width`` columns (uint8)."""
    powers = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    return (_ZERO + (numbers[:, None] // powers) % 10).astype(np.uint8)


def _date_bytes(dates: np.ndarray) -> np.ndarray:
    """``YYYY-MM-DD`` of each date (no NaT) as 10 bytes a row, from a table of the days spanned."""
    days = dates.astype("datetime64[D]").astype(np.int64)
    first = int(days.min(initial=0))
    span = np.arange(first, int(days.max(initial=0)) + 1).astype("datetime64[D]")
    table = np.datetime_as_string(span, unit="D").astype("S10").view(np.uint8)
    table = table.reshape(len(span), -1)
    return table[days - first]


def _entry_bytes(dates: np.ndarray, amounts: np.ndarray, separator: bytes):
    """``[separator]YYYY-MM-DD amount`` per row (no NaT) as bytes packed to the left, and
    the number of bytes of each row."""
    rows = len(dates)
    cents = np.rint(amounts * 100).astype(np.int64)
    whole = cents // 100
    width = max(1, len(str(int(whole.max(initial=0)))))
    digits = np.floor(np.log10(np.maximum(whole, 1))).astype(np.int64) + 1
    lead = np.tile(np.frombuffer(separator, np.uint8), (rows, 1))
    text = np.hstack(
        [
            lead,
            _date_bytes(dates),
            np.full((rows, 1), ord(" "), np.uint8),
            _digits(whole, width),
            np.full((rows, 1), ord("."), np.uint8),
            _digits(cents % 100, 2),
        ]
    )
    start = lead.shape[1] + len("YYYY-MM-DD ")  # first column of the whole-number digits
    unused = width - digits  # leading digit columns a row does not use
    columns = np.arange(text.shape[1])
    index = np.minimum(columns + np.where(columns < start, 0, unused[:, None]), text.shape[1] - 1)
    return np.take_along_axis(text, index, axis=1), text.shape[1] - unused


def schedule_text(dates: list[np.ndarray], amounts: list[np.ndarray]) -> pa.Array:
    """``YYYY-MM-DD amount; YYYY-MM-DD amount`` per row (cents); "" where the first date is NaT.

    Built as bytes with numpy and handed to Arrow as its buffers: no Python string per row.
    Entry k > 0 exists only where entry 0 does.
    """
    count = len(dates[0])
    first = np.flatnonzero(~np.isnat(dates[0]))
    packed, used = _entry_bytes(dates[0][first], amounts[0][first], b"")
    lengths = np.zeros(count, dtype=np.int64)
    lengths[first] = used
    later = []
    for on, amount in zip(dates[1:], amounts[1:], strict=True):
        rows = np.flatnonzero(~np.isnat(on))
        if len(rows):
            later.append((rows, *_entry_bytes(on[rows], amount[rows], b"; ")))
    width = packed.shape[1] + sum(piece.shape[1] for _, piece, _ in later)
    matrix = np.zeros((len(first), width), dtype=np.uint8)
    matrix[:, : packed.shape[1]] = packed
    line = np.zeros(count, dtype=np.int64)  # each row's line in the matrix
    line[first] = np.arange(len(first))
    for rows, piece, size in later:  # the few rows the law changes after their start
        columns = lengths[rows][:, None] + np.arange(piece.shape[1])
        keep = np.arange(piece.shape[1]) < size[:, None]
        lines = np.broadcast_to(line[rows][:, None], columns.shape)
        matrix[lines[keep], columns[keep]] = piece[keep]
        lengths[rows] += size
    data = matrix[np.arange(width) < lengths[first][:, None]]
    offsets = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return pa.StringArray.from_buffers(
        count, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(data)
    )


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
    reason_texts: np.ndarray
    start_date: np.ndarray
    payment_date: np.ndarray
    reduction_factor: np.ndarray
    annual_amount: np.ndarray
    monthly_amount: np.ndarray
    minimum_topup: np.ndarray
    minimum_monthly: np.ndarray
    schedule_dates: tuple[np.ndarray, ...]  # per change: (members, clauses), NaT: no entry
    schedule_amounts: tuple[np.ndarray, ...]
    guide_index: np.ndarray
    error: np.ndarray  # "" where none
    error_mask: np.ndarray
    warnings: np.ndarray  # per member: data-quality warnings, "" where none

    @property
    def clause_ids(self) -> tuple[str, ...]:
        return tuple(clause.id for clause in self.clauses)

    @property
    def reason(self) -> np.ndarray:
        """Reason text per member and clause."""
        return self.reason_texts[self.reason_codes]

    def law_values(self, position: int) -> dict:
        """The law in force for member ``position``: on the separation date, and for the
        parameters selected by the payment date, on ``as_of``."""
        start = self.law_periods[self.law_period[position]]
        values = self.law.values_on(start.astype("datetime64[D]").item())
        for name in values:
            if PARAMETERS[name].selected_by == "payment date":
                values[name] = self.law.value_on(name, self.as_of)
        return values

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
        keep = np.ones((count, clauses), dtype=bool)
        keep[~valid, 1:] = False
        keep = keep.ravel()
        invalid_rows = np.repeat(~valid, clauses)[keep]
        member_position = np.repeat(np.arange(count), clauses)[keep]

        def flat(values):
            return values.ravel()[keep]

        def amount(values):
            amounts = flat(values)  # a copy: blanked in place
            amounts[invalid_rows] = np.nan
            return amounts

        clause_codes = np.where(invalid_rows, 0, np.tile(np.arange(1, clauses + 1), count)[keep])
        guide_codes = np.where(invalid_rows, 0, flat(self.guide_index) + 1)
        has_error = invalid_rows | flat(self.error_mask)
        error_at = np.where(
            invalid_rows[has_error],
            members.error[member_position[has_error]],
            flat(self.error)[has_error],
        )
        # Coded without a fixed-width array (rows x longest message would be gigabytes).
        error_codes = np.zeros(len(member_position), dtype=np.int64)
        codes, error_texts = pd.factorize(pd.Series(error_at, dtype=object))
        error_codes[has_error] = codes + 1
        warned = self.warnings != ""
        warning_codes, warning_texts = pd.factorize(pd.Series(self.warnings[warned], dtype=object))
        member_warning = np.zeros(count, dtype=np.int64)
        member_warning[warned] = warning_codes + 1
        schedule = schedule_text(
            [flat(d) for d in self.schedule_dates], [flat(a) for a in self.schedule_amounts]
        )
        values = {
            "row": members.row[member_position],
            "member_id": CodedText(member_position, members.member_id),
            "clause": CodedText(clause_codes, ["", *self.clause_ids]),
            "eligible": flat(self.eligible) & ~invalid_rows,
            "reason": CodedText(
                np.where(invalid_rows, 0, flat(self.reason_codes)), self.reason_texts
            ),
            "start_date": np.where(invalid_rows, np.datetime64("NaT"), flat(self.start_date)),
            "reduction_factor": amount(self.reduction_factor),
            "annual_amount": amount(self.annual_amount),
            "monthly_amount": amount(self.monthly_amount),
            "minimum_topup": amount(self.minimum_topup),
            "schedule": schedule,
            "guide_id": CodedText(guide_codes, ["", *(g.id for g in self.guides)]),
            "error": CodedText(error_codes, ["", *error_texts]),
            "warnings": CodedText(member_warning[member_position], ["", *warning_texts]),
            "readings": CodedText(
                np.zeros(len(member_position), dtype=np.int64), [self.readings.label()]
            ),
        }
        return {name: values[name] for name in RESULT_COLUMNS}

    def table(self) -> pd.DataFrame:
        """One row per member and clause; one row for an invalid member.

        Text columns are categorical (few distinct values over millions of rows).
        """

        def column(name, values):
            if name == "member_id":
                return values.texts.take(values.codes).reset_index(drop=True)
            if isinstance(values, CodedText):
                categories = pd.Index(values.texts, dtype=object)
                return pd.Categorical.from_codes(values.codes, categories=categories)
            if isinstance(values, pa.Array):
                return pd.arrays.ArrowStringArray(pa.chunked_array([values]))
            if name == "start_date":
                return values.astype("datetime64[s]")
            return values

        return pd.DataFrame(
            {name: column(name, values) for name, values in self.columns().items()},
            copy=False,  # every column is a new array: no need to copy it again
        )


def _reasons(outcomes, clauses, coverage, covered, period, law_values, readings):
    """Reason codes (members, clauses) and their distinct texts ("" first)."""
    periods = len(law_values)
    reason_texts = [""]
    not_covered = np.zeros((periods, 3), dtype=np.int64)
    for p, values in enumerate(law_values):
        for code in (ENTERED_BEFORE, ENTERED_AFTER):
            not_covered[p, code] = len(reason_texts)
            reason_texts.append(not_covered_reason(code, values, readings))
    reason_codes = np.zeros((len(covered), len(outcomes)), dtype=np.int64)
    for column, (outcome, clause) in enumerate(zip(outcomes, clauses, strict=True)):
        variants = len(clause.variants)
        masks = 2 ** len(outcome.conditions)
        index = (period * masks + failure_mask(outcome)) * variants
        if outcome.variant is not None:
            index += outcome.variant
        reason_codes[:, column] = np.where(
            covered, index + len(reason_texts), not_covered[period, coverage]
        )
        reason_texts.extend(_reason_table(outcome, clause, law_values, readings))
    # Distinct texts that occur, plus "" (sorted first: the code of invalid rows).
    used = np.bincount(reason_codes.ravel(), minlength=len(reason_texts)) > 0
    used[0] = True
    texts = np.array(reason_texts, dtype=str)
    distinct, remap = np.unique(texts[used], return_inverse=True)
    lookup = np.zeros(len(texts), dtype=np.int64)
    lookup[used] = remap
    return lookup[reason_codes], distinct.astype(object)


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
    readings = readings or Readings()
    law = law_in_force(law)
    as_of = resolve_as_of(as_of)
    clauses = tuple(CLAUSES.values())
    count = len(members)
    valid = members.valid
    coverage = np.where(
        valid, coverage_codes(members.entry_date, members.separation_date, law, readings), COVERED
    )
    covered = valid & (coverage == COVERED)
    high_risk_codes = [GROUPS.index(name) for name in HIGH_RISK_GROUPS]
    seen = situation(members, readings, np.isin(members.group, high_risk_codes))
    # Every number comes from the law in force on the separation date; rows that are not
    # evaluated (invalid, not covered) read it on the law's first date and are blanked.
    first = np.datetime64(law.first_date(), "D")
    law_dates = np.where(covered, members.separation_date, first)
    law_on = LawOn(law, law_dates)
    periods = law.change_dates("separation date")
    period = (
        np.zeros(count, dtype=np.int64)
        if len(periods) == 1
        else np.searchsorted(periods, law_dates, side="right") - 1
    )
    period_values = law_values_by_period(law, periods)
    outcomes = tuple(clause.rule(seen, law_on, readings) for clause in clauses)
    shape = (count, len(clauses))
    eligible = np.zeros(shape, dtype=bool)
    start = np.full(shape, np.datetime64("NaT"), dtype="datetime64[D]")
    annual = np.full(shape, np.nan)
    factor = np.full(shape, np.nan)
    guide_index = np.full(shape, -1, dtype=np.int64)
    error = np.full(shape, "", dtype=object)
    error_mask = np.zeros(shape, dtype=bool)  # where error is set
    reason_codes, reason_texts = _reasons(
        outcomes, clauses, coverage, covered, period, period_values, readings
    )
    for column, outcome in enumerate(outcomes):
        eligible[:, column] = outcome.eligible & covered
        start[:, column] = np.where(eligible[:, column], outcome.start_date, np.datetime64("NaT"))
        annual[:, column] = np.where(eligible[:, column], outcome.annual_amount, np.nan)

    # Inciso (c) (every clause declared ``reduced``): the factor of the guide in force.
    for column, clause in enumerate(clauses):
        if not clause.reduced:
            continue
        chosen = eligible[:, column]
        factors, index, problems = reduction_factors(
            guides, members.separation_date[chosen], seen.age_months[chosen]
        )
        factor[chosen, column] = factors
        guide_index[chosen, column] = index
        annual[:, column] = annual[:, column] * factor[:, column]
        error[chosen, column] = problems
        error_mask[chosen, column] = problems != ""

    # The minimum (I-4) on the payment date, and the schedule of amounts from the start.
    reaches = eligible & minimum_reaches([c.id for c in clauses], readings) & ~error_mask
    payment = payment_dates(start, as_of)
    minimum = minimum_on(law, payment, reaches)
    monthly_before_minimum = annual / 12.0
    paid_rounded = round_cents(np.maximum(monthly_before_minimum, minimum))
    monthly_rounded = round_cents(monthly_before_minimum)
    # No schedule where no amount is computed (a row with an error).
    schedule_dates = [np.where(error_mask, np.datetime64("NaT"), start)]
    schedule_amounts = [
        round_cents(np.maximum(monthly_before_minimum, minimum_on(law, start, reaches)))
    ]
    previous = schedule_amounts[0]
    for change in minimum_changes(law):
        later = reaches & (start < change)
        if not later.any():
            continue
        on = np.where(later, change, np.datetime64("NaT"))
        amount = round_cents(np.maximum(monthly_before_minimum, minimum_on(law, on, later)))
        amount = np.where(later, amount, previous)
        differs = later & (amount != previous)
        schedule_dates.append(np.where(differs, change, np.datetime64("NaT")))
        schedule_amounts.append(amount)
        previous = amount
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
        start_date=start,
        payment_date=np.where(eligible, payment, np.datetime64("NaT")),
        reduction_factor=factor,
        annual_amount=round_cents(annual),
        monthly_amount=paid_rounded,
        minimum_topup=round_cents(paid_rounded - monthly_rounded),
        minimum_monthly=minimum,
        schedule_dates=tuple(schedule_dates),
        schedule_amounts=tuple(schedule_amounts),
        guide_index=guide_index,
        error=error,
        error_mask=error_mask,
        warnings=member_warnings(members, as_of),
    )


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
    """
    members = parse_members(members_df, source=source)
    return evaluate_members(members, guides, as_of, readings, law).table()


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
        raise KeyError(f"'clause' must be in {[r.clause for r in self.clauses]} (got {clause!r})")

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


def _plain(value, text_column: bool):
    if text_column:
        return None if value is None or value == "" or value is pd.NA else str(value)
    if value is pd.NaT or (isinstance(value, float) and np.isnan(value)):
        return None
    if isinstance(value, pd.Timestamp):
        return value.date()
    if isinstance(value, np.generic):
        return value.item()
    return value


def evaluate(
    member,
    guides: GuideSet,
    as_of: dt.date | None = None,
    readings: Readings | None = None,
    lang: str = "en",
    law=None,
) -> Evaluation:
    """Every clause for one member (a :class:`Member` or a mapping of its fields).

    A one-row call of :func:`evaluate_members`; invalid data raises
    :class:`MemberDataError` with the same message the batch writes in ``error``.
    """
    from actuarial.explain import explain

    members = parse_members(member_frame(member), source="member")
    if not members.valid[0]:
        raise MemberDataError(members.error[0])
    results = evaluate_members(members, guides, as_of, readings, law)
    table = results.table()
    text = {c.name for c in COLUMNS if c.arrow_type == pa.string()}
    fields = [c.name for c in COLUMNS if c.per_clause]
    clauses = tuple(
        ClauseResult(**{name: _plain(row[name], name in text) for name in fields})
        for row in table.to_dict("records")
    )
    return Evaluation(
        member_id=str(members.member_id.iloc[0]),
        age_months=int(results.age_months[0]),
        covered=bool(results.covered[0]),
        readings=results.readings,
        as_of=results.as_of,
        law_files=tuple(results.law.provenance()),
        clauses=clauses,
        explanation=tuple(explain(results, 0, lang)),
        warnings=tuple(filter(None, str(results.warnings[0]).split("; "))),
    )
