"""The engine: every Chapter 2 clause for one member or a whole membership, in one pass.

``evaluate_frame`` is the implementation; ``evaluate`` is a one-row call of it. Steps:
parse and validate members, coverage (I-1), ages (I-6), the four clauses, the inciso (c)
reduction from the guide in force, the monthly minimum (I-4), rounding to cents, half up.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from actuarial.dates import age_in_months
from actuarial.guides import GuideSet
from actuarial.interpretations import Readings
from actuarial.members import (
    GROUPS,
    HIGH_RISK_GROUPS,
    MemberArrays,
    MemberDataError,
    member_frame,
    member_warnings,
    parse_members,
)
from actuarial.parameters import coverage_window, minimum_monthly_pension
from actuarial.statute import CLAUSE_RULES, CLAUSES, ClauseOutcome, Situation

__all__ = [
    "RESULT_COLUMNS",
    "ClauseResult",
    "CodedText",
    "Evaluation",
    "MemberResults",
    "evaluate",
    "evaluate_frame",
    "evaluate_members",
    "round_cents",
]

RESULT_COLUMNS = (
    "row",
    "member_id",
    "clause",
    "eligible",
    "reason",
    "start_date",
    "reduction_factor",
    "annual_amount",
    "monthly_amount",
    "minimum_topup",
    "guide_id",
    "error",
    "warnings",
    "readings",
)

NOT_COVERED = {
    1: "not covered by Chapter 2 (I-1): first entry before {start}",
    2: "not covered by Chapter 2 (I-1): first entry on or after {end} "
    "(Retirement Savings Account Program, Ley 305-1999)",
}
CONDITION_TEXT = {
    "no_refund": ("no refund of contributions", "refund of contributions requested or received"),
    "age_65": ("age at separation 65 or older", "age at separation below 65"),
    "service_10": ("credited service 10 years or more", "credited service below 10 years"),
    "high_risk_group": ("police or firefighter", "not police or firefighter"),
    "service_30": ("credited service 30 years or more", "credited service below 30 years"),
    "age_55": ("age at separation 55 or older", "age at separation below 55"),
    "age_below_65": (
        "age at separation below 65",
        "age at separation 65 or older (inciso (a) applies, no reduction)",
    ),
    "service_25": ("credited service 25 years or more", "credited service below 25 years"),
    "separated_before_65": ("separated before age 65", "separated at 65 or older"),
    "separated_before_65_literal": (
        "separated before 65 years of credited service",
        "separated with 65 or more years of credited service",
    ),
    "deferred_service": (
        "credited service {service:g} years or more",
        "credited service below {service:g} years",
    ),
}


def round_cents(amounts) -> np.ndarray:
    """Round USD amounts to cents, half up (the last step of every amount)."""
    cents = np.array(amounts, dtype=float)  # one copy, then every step in place
    cents *= 100.0
    np.round(cents, 6, out=cents)
    cents += 0.5
    np.floor(cents, out=cents)
    cents /= 100.0
    return cents if cents.ndim else cents[()]  # a number for a number, as before


def _condition_text(name: str, passed: bool, readings: Readings) -> str:
    if name == "separated_before_65" and not readings.deferred_reads_age:
        name = "separated_before_65_literal"
    text = CONDITION_TEXT[name][0 if passed else 1]
    return text.format(service=readings.deferred_minimum_service)


def _reason_table(outcome: ClauseOutcome, readings: Readings) -> np.ndarray:
    """Reason text for each failure bitmask (and variant) of a clause."""
    names = [name for name, _ in outcome.conditions]
    variants = ("75%", "65%") if outcome.variant is not None else ("",)
    table = []
    for mask in range(2 ** len(names)):
        for variant in variants:
            failed = [
                _condition_text(n, False, readings) for i, n in enumerate(names) if mask >> i & 1
            ]
            if failed:
                table.append(f"inciso ({outcome.clause}): not eligible: " + "; ".join(failed))
                continue
            passed = "; ".join(_condition_text(n, True, readings) for n in names)
            if variant == "75%":  # variant code 0
                passed += "; age at separation 55 or older: 75% of average compensation"
            elif variant == "65%":
                passed += "; age at separation below 55: 65% of average compensation"
            table.append(f"inciso ({outcome.clause}): eligible: {passed}")
    return np.array(table, dtype=object)


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


@dataclass(frozen=True, slots=True)
class MemberResults:
    """Clause results for parsed members: arrays of shape (members, 4 clauses)."""

    members: MemberArrays
    readings: Readings
    guides: GuideSet
    covered: np.ndarray
    age_months: np.ndarray
    outcomes: tuple[ClauseOutcome, ...]
    eligible: np.ndarray
    reason_codes: np.ndarray  # index into reason_texts
    reason_texts: np.ndarray
    start_date: np.ndarray
    reduction_factor: np.ndarray
    annual_amount: np.ndarray
    monthly_amount: np.ndarray
    minimum_topup: np.ndarray
    minimum_monthly: np.ndarray
    guide_index: np.ndarray
    error: np.ndarray  # "" where none
    error_mask: np.ndarray
    warnings: np.ndarray  # per member: data-quality warnings, "" where none

    @property
    def reason(self) -> np.ndarray:
        """Reason text per member and clause."""
        return self.reason_texts[self.reason_codes]

    def columns(self) -> dict[str, np.ndarray | CodedText]:
        """The :data:`RESULT_COLUMNS`: one row per member and clause, one for an invalid member.

        Text comes as :class:`CodedText`: member_id as each row's position in the members'
        ids, the other texts as codes into their few distinct values.
        """
        members = self.members
        count = len(members)
        valid = members.valid
        keep = np.ones((count, len(CLAUSES)), dtype=bool)
        keep[~valid, 1:] = False
        keep = keep.ravel()
        invalid_rows = np.repeat(~valid, len(CLAUSES))[keep]
        member_position = np.repeat(np.arange(count), len(CLAUSES))[keep]

        def flat(values):
            return values.ravel()[keep]

        def amount(values):
            amounts = flat(values)  # a copy: blanked in place
            amounts[invalid_rows] = np.nan
            return amounts

        clause_codes = np.where(invalid_rows, 0, np.tile(np.arange(1, 5), count)[keep])
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
        return {
            "row": members.row[member_position],
            "member_id": CodedText(member_position, members.member_id),
            "clause": CodedText(clause_codes, ["", *CLAUSES]),
            "eligible": flat(self.eligible) & ~invalid_rows,
            "reason": CodedText(
                np.where(invalid_rows, 0, flat(self.reason_codes)), self.reason_texts
            ),
            "start_date": np.where(invalid_rows, np.datetime64("NaT"), flat(self.start_date)),
            "reduction_factor": amount(self.reduction_factor),
            "annual_amount": amount(self.annual_amount),
            "monthly_amount": amount(self.monthly_amount),
            "minimum_topup": amount(self.minimum_topup),
            "guide_id": CodedText(guide_codes, ["", *(g.id for g in self.guides)]),
            "error": CodedText(error_codes, ["", *error_texts]),
            "warnings": CodedText(member_warning[member_position], ["", *warning_texts]),
            "readings": CodedText(
                np.zeros(len(member_position), dtype=np.int64), [self.readings.label()]
            ),
        }

    def table(self) -> pd.DataFrame:
        """One row per member and clause (a, b, c, d); one row for an invalid member.

        Text columns are categorical (few distinct values over millions of rows).
        """

        def column(name, values):
            if name == "member_id":
                return values.texts.take(values.codes).reset_index(drop=True)
            if isinstance(values, CodedText):
                categories = pd.Index(values.texts, dtype=object)
                return pd.Categorical.from_codes(values.codes, categories=categories)
            if name == "start_date":
                return values.astype("datetime64[s]")
            return values

        return pd.DataFrame(
            {name: column(name, values) for name, values in self.columns().items()},
            copy=False,  # every column is a new array: no need to copy it again
        )


def _coverage(entry_date: np.ndarray, readings: Readings) -> np.ndarray:
    """0 = covered; 1 = entered before the window; 2 = entered on or after its end (I-1)."""
    window = coverage_window()
    start = np.datetime64(window.first_entry_on_or_after, "D")
    end = np.datetime64(window.first_entry_before, "D")
    before = entry_date < start if readings.april_first_is_covered else entry_date <= start
    return np.where(before, 1, np.where(entry_date >= end, 2, 0))


def evaluate_members(
    members: MemberArrays,
    guides: GuideSet,
    as_of: dt.date | None = None,
    readings: Readings | None = None,
) -> MemberResults:
    """Every clause for every parsed member, vectorized."""
    readings = readings or Readings()
    count = len(members)
    valid = members.valid
    coverage = np.where(valid, _coverage(members.entry_date, readings), 0)
    covered = valid & (coverage == 0)
    age_months = age_in_months(
        members.birth_date, members.separation_date, readings.leap_day_birthday
    )
    high_risk_codes = [GROUPS.index(name) for name in HIGH_RISK_GROUPS]
    situation = Situation(
        age_months=age_months,
        birth_date=members.birth_date,
        separation_date=members.separation_date,
        # Invalid rows (NaN, inf) are never reported; zeros keep the arithmetic quiet.
        credited_service=np.nan_to_num(members.credited_service, posinf=0.0, neginf=0.0),
        average_compensation=np.nan_to_num(members.average_compensation, posinf=0.0, neginf=0.0),
        high_risk=np.isin(members.group, high_risk_codes),
        refunded=members.refunded,
    )
    outcomes = tuple(CLAUSE_RULES[clause](situation, readings) for clause in CLAUSES)
    shape = (count, len(CLAUSES))
    eligible = np.zeros(shape, dtype=bool)
    reason_codes = np.zeros(shape, dtype=np.int64)
    start = np.full(shape, np.datetime64("NaT"), dtype="datetime64[D]")
    annual = np.full(shape, np.nan)
    factor = np.full(shape, np.nan)
    guide_index = np.full(shape, -1, dtype=np.int64)
    error = np.full(shape, "", dtype=object)
    error_mask = np.zeros(shape, dtype=bool)  # where error is set
    window = coverage_window()
    reason_texts = [
        "",
        NOT_COVERED[1].format(start=window.first_entry_on_or_after)
        if readings.april_first_is_covered
        else f"not covered by Chapter 2 (I-1, April 1 excluded): first entry on or "
        f"before {window.first_entry_on_or_after}",
        NOT_COVERED[2].format(end=window.first_entry_before),
    ]
    for column, outcome in enumerate(outcomes):
        mask = failure_mask(outcome)
        index = mask if outcome.variant is None else mask * 2 + outcome.variant
        reason_codes[:, column] = np.where(covered, index + len(reason_texts), coverage)
        reason_texts.extend(_reason_table(outcome, readings))
        eligible[:, column] = outcome.eligible & covered
        start[:, column] = np.where(eligible[:, column], outcome.start_date, np.datetime64("NaT"))
        annual[:, column] = np.where(eligible[:, column], outcome.annual_amount, np.nan)

    # Distinct texts that occur, plus "" (sorted first: the code of invalid rows).
    used = np.bincount(reason_codes.ravel(), minlength=len(reason_texts)) > 0
    used[0] = True
    texts = np.array(reason_texts, dtype=str)
    reason_texts, remap = np.unique(texts[used], return_inverse=True)
    lookup = np.zeros(len(texts), dtype=np.int64)
    lookup[used] = remap
    reason_codes = lookup[reason_codes]

    # Inciso (c): the reduction factor of the guide in force on the separation date,
    # read at the exact age at separation (years and months).
    column_c = CLAUSES.index("c")
    early = eligible[:, column_c]
    factor_c, index_c = guides.factors(members.separation_date[early], age_months[early])
    factor[early, column_c] = factor_c
    guide_index[early, column_c] = index_c
    annual[:, column_c] = annual[:, column_c] * factor[:, column_c]
    no_guide = early.copy()
    no_guide[early] = index_c < 0
    error_mask[:, column_c] = no_guide
    if no_guide.any():  # one message per distinct date, shared by its rows
        dates = members.separation_date[no_guide]
        distinct, inverse = np.unique(dates, return_inverse=True)
        messages = np.array(guides.no_guide_messages(distinct), dtype=object)
        error[no_guide, column_c] = messages[inverse.ravel()]

    # The minimum (I-4): payment date = start date, or the later of it and ``as_of``.
    payment = start if as_of is None else np.maximum(start, np.datetime64(as_of, "D"))
    minimum = np.zeros(shape)
    applies = np.array([readings.minimum_applies_to == "all" or c == "a" for c in CLAUSES])
    paid_somewhere = eligible & ~np.isnat(payment) & applies
    if paid_somewhere.any():
        minimum[paid_somewhere] = minimum_monthly_pension().amount_on(payment[paid_somewhere])
    monthly_before_minimum = annual / 12.0
    monthly_paid = np.maximum(monthly_before_minimum, minimum)
    monthly_rounded = round_cents(monthly_before_minimum)
    paid_rounded = round_cents(monthly_paid)
    return MemberResults(
        members=members,
        readings=readings,
        guides=guides,
        covered=covered,
        age_months=age_months,
        outcomes=outcomes,
        eligible=eligible,
        reason_codes=reason_codes,
        reason_texts=reason_texts.astype(object),
        start_date=start,
        reduction_factor=factor,
        annual_amount=round_cents(annual),
        monthly_amount=paid_rounded,
        minimum_topup=round_cents(paid_rounded - monthly_rounded),
        minimum_monthly=minimum,
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
) -> pd.DataFrame:
    """Results table for a frame of members: one row per member and clause (see README).

    Every input row is in the output: invalid rows as one row with ``error`` set.
    """
    members = parse_members(members_df, source=source)
    return evaluate_members(members, guides, as_of, readings).table()


@dataclass(frozen=True, slots=True)
class ClauseResult:
    """One clause for one member: eligibility, reason, amounts and the guide used."""

    clause: str
    eligible: bool
    reason: str
    start_date: dt.date | None
    reduction_factor: float | None
    annual_amount: float | None
    monthly_amount: float | None
    minimum_topup: float | None
    guide_id: str | None
    error: str | None


@dataclass(frozen=True, slots=True)
class Evaluation:
    """Every clause for one member, with the readings used and the explanation."""

    member_id: str
    age_months: int
    covered: bool
    readings: Readings
    clauses: tuple[ClauseResult, ...]
    explanation: tuple[str, ...]
    warnings: tuple[str, ...] = ()  # data-quality warnings (members.member_warnings)

    def clause(self, clause: str) -> ClauseResult:
        return self.clauses[CLAUSES.index(clause)]

    def as_dict(self) -> dict:
        def plain(value):
            return value.isoformat() if isinstance(value, dt.date) else value

        return {
            "member_id": self.member_id,
            "age_at_separation": {"years": self.age_months // 12, "months": self.age_months % 12},
            "covered": self.covered,
            "readings": self.readings.as_dict(),
            "clauses": [
                {name: plain(getattr(result, name)) for name in ClauseResult.__slots__}
                for result in self.clauses
            ],
            "explanation": list(self.explanation),
            "warnings": list(self.warnings),
        }


def _optional(value):
    if isinstance(value, float) and np.isnan(value):
        return None
    if isinstance(value, np.datetime64):
        return None if np.isnat(value) else value.astype("datetime64[D]").item()
    return value


def evaluate(
    member,
    guides: GuideSet,
    as_of: dt.date | None = None,
    readings: Readings | None = None,
    lang: str = "en",
) -> Evaluation:
    """Every clause for one member (a :class:`Member` or a mapping of its fields).

    A one-row call of :func:`evaluate_members`; invalid data raises
    :class:`MemberDataError` with the same message the batch writes in ``error``.
    """
    from actuarial.explain import explain

    members = parse_members(member_frame(member), source="member")
    if not members.valid[0]:
        raise MemberDataError(members.error[0])
    results = evaluate_members(members, guides, as_of, readings)
    guide_ids = [g.id for g in guides]
    clauses = tuple(
        ClauseResult(
            clause=clause,
            eligible=bool(results.eligible[0, column]),
            reason=str(results.reason[0, column]),
            start_date=_optional(results.start_date[0, column]),
            reduction_factor=_optional(float(results.reduction_factor[0, column])),
            annual_amount=_optional(float(results.annual_amount[0, column])),
            monthly_amount=_optional(float(results.monthly_amount[0, column])),
            minimum_topup=_optional(float(results.minimum_topup[0, column])),
            guide_id=guide_ids[results.guide_index[0, column]]
            if results.guide_index[0, column] >= 0
            else None,
            error=str(results.error[0, column]) or None,
        )
        for column, clause in enumerate(CLAUSES)
    )
    return Evaluation(
        member_id=str(members.member_id.iloc[0]),
        age_months=int(results.age_months[0]),
        covered=bool(results.covered[0]),
        readings=results.readings,
        clauses=clauses,
        explanation=tuple(explain(results, 0, lang)),
        warnings=tuple(filter(None, str(results.warnings[0]).split("; "))),
    )
