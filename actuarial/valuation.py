"""The value of each choice: present values of the Chapter 2 annuities on a stated basis.

Definition (docs/valuation.md): the value at the separation date of a clause's annuity for
a member alive then, paid monthly in advance for life. Time counts in whole months from the
age at separation in completed months A (I-6): payment k = 0, 1, ... falls d + k months
after separation, where d = (age in completed months at the start date) - A. Payment k is
the ``schedule`` amount in force on the calendar date start + k months. So

    PV = sum_k P(start + k months) v^((d+k)/12) l((A+d+k)/12) / l(A/12),

with l from the basis's table for the member's sex and year of birth (UDD within each year
of age) and v = 1/(1 + i). With the schedule's steps (t_j, P_j), P_0 = 0 before the first,
and K_j the first payment on or after t_j:

    PV = sum_j (P_j - P_{j-1}) v^((d+K_j)/12) S(A+d+K_j) / l(A/12),
    S(n) = sum_{m>=0} v^(m/12) l((n+m)/12) = 12 l(n/12) a^(12)_{n/12},

so every member is a few lookups in a grid of monthly annuities-due per table and rate.
``value_over_deferred`` of a (b) or (c) row = its PV minus the PV of the member's (d) row:
the early-retirement subsidy of that member (blank where (d) is not eligible).
"""

from __future__ import annotations

import datetime as dt
import numbers
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd

from actuarial.annuities import AnnuityError, annuity_due, check_interest, checked_bounds, show_rate
from actuarial.dates import add_months, format_age
from actuarial.engine import MemberResults, checked_guides_and_readings, evaluate_members
from actuarial.generational import EVEN_WEIGHT, Mortality
from actuarial.guides import GuideSet, file_sha256
from actuarial.law import law_provenance
from actuarial.law.clauses import CLAUSES, situation
from actuarial.law.readings import Readings
from actuarial.member_files import file_columns, file_format, reading, record_batches
from actuarial.members import MemberDataError, MemberFileError, parse_members
from actuarial.mortality import SEXES, is_real_number
from actuarial.output_files import check_output, takes_paths, writing
from actuarial.pages import format_count, format_usd
from actuarial.shown_text import as_given, decimal_shown, kind_and_value, quoted, show_percent

__all__ = [
    "SEX_CODES",
    "VALUE_COLUMNS",
    "Basis",
    "ValuationError",
    "ValuationNote",
    "ValuationSummary",
    "break_even_interest",
    "choices_by_interest",
    "member_choices",
    "ages_in_months",
    "member_present_values",
    "run_valuation",
    "schedule_steps",
    "sensitivities",
    "sex_codes",
    "shipped_series",
    "subsidy_by_age",
    "totals_by_clause",
    "value_frame",
    "value_results",
]

VALUE_COLUMNS = ("pv_at_separation", "value_over_deferred")
CLAUSE_IDS = tuple(CLAUSES)  # "a", "b", "c", "d": the engine's columns, in order
SUBSIDIZED_CLAUSES = ("b", "c")  # early annuities, valued over the deferred (d)
SEX_CODES = ("F", "M", "")  # the optional member column `sex`: female, male, not given
PAYMENTS_PER_YEAR = 12


class ValuationError(ValueError):
    """A basis or a valuation request breaks a rule (field, rule and value)."""


class ValuationNote(UserWarning):
    """What a valuation values that the basis makes worth nothing: annuities that start at
    an age where its table has no one alive (a table closed before the start of (d))."""


# --------------------------------------------------------------------- the basis
@dataclass(frozen=True, eq=False)
class Basis:
    """Mortality (a spec or a :class:`Mortality`), interest (annual effective) and optional
    generational improvement: the stated basis of a valuation, which records itself."""

    mortality: Mortality | str
    interest: float
    improvement: str | None = None
    base_year: int | None = None
    close_at: int | None = None
    female_weight: float = EVEN_WEIGHT

    def __post_init__(self) -> None:
        rate = self.interest
        if not is_real_number(rate):
            raise ValuationError(f"'interest' must be a number (got {as_given(rate)})")
        _rates(rate)
        # numpy's numbers too (np.int64); a float32 as the decimal it shows (0.045)
        object.__setattr__(self, "interest", decimal_shown(rate))
        if not isinstance(self.mortality, str | Mortality):
            raise ValuationError(
                f"'mortality' must be a spec (text) or a Mortality (got {as_given(self.mortality)})"
            )
        if isinstance(self.mortality, str):
            mortality = Mortality(
                self.mortality,
                self.improvement,
                self.base_year,
                self.female_weight,
                self.close_at,
            )
            object.__setattr__(self, "mortality", mortality)
        elif self.improvement not in (None, self.mortality.improvement):
            raise ValuationError(
                f"'improvement' {self.improvement!r} contradicts the mortality's "
                f"{self.mortality.improvement!r}"
            )
        object.__setattr__(self, "improvement", self.mortality.improvement)

    def with_interest(self, interest: float) -> Basis:
        return replace(self, interest=interest)

    def with_mortality(self, mortality: Mortality) -> Basis:
        return replace(self, mortality=mortality, improvement=mortality.improvement)

    def as_dict(self) -> dict:
        """What the basis is, and the files its mortality was read from with their SHA-256
        (a CSV table or scale: its name alone does not say which rates were used)."""
        files = [{"file": str(f), "sha256": _recorded_sha256(f)} for f in self.mortality.files]
        years = self.mortality.base_years
        return {
            **self.mortality.as_dict(),
            **({"base_years": years} if years else {}),
            **({"files": files} if files else {}),
            "interest": float(self.interest),
            "payments": "monthly in advance, for life, from the start date",
            "fractional_ages": "udd",
            "time": "whole months from the age at separation in completed months (I-6)",
        }

    def describe(self) -> str:
        mortality = self.mortality
        years = ", ".join(map(str, mortality.base_years))
        own = f"; base year {years} (the tables' own)" if years and not mortality.base_year else ""
        return f"{mortality.describe()}{own}; interest {show_percent(self.interest)}; monthly, UDD"


def _recorded_sha256(path: Path) -> str:
    """The SHA-256 of a file the basis read, or the error that it can no longer be read."""
    try:
        return file_sha256(path)
    except OSError as error:
        raise ValuationError(
            f"{path}: the mortality read this file, which cannot be read now to record its "
            f"SHA-256 ({error.strerror or error})"
        ) from None


# --------------------------------------------------------------------- schedules
def schedule_steps(results: MemberResults) -> tuple[np.ndarray, np.ndarray]:
    """The engine's ``schedule`` of each clause as dated steps: dates and monthly amounts,
    shape (members, clauses, steps); the first step is the start date, the others the dates
    the law in force changes the amount (NaT where a step does not apply)."""
    return (
        np.stack(results.schedule_dates, axis=-1),
        np.stack(results.schedule_amounts, axis=-1),
    )


def ages_in_months(birth_dates, dates, readings: Readings) -> np.ndarray:
    """Completed months of age on ``dates``, by the anniversary rule of the readings (I-6),
    applied where the law applies it (:func:`actuarial.law.clauses.situation`)."""
    birth_dates = np.asarray(birth_dates, dtype="datetime64[D]")
    count = len(birth_dates)
    members = SimpleNamespace(
        birth_date=birth_dates,
        separation_date=np.asarray(dates, dtype="datetime64[D]"),
        credited_service=np.zeros(count),
        average_compensation=np.zeros(count),
        refunded=np.zeros(count, dtype=bool),
        valid=np.ones(count, dtype=bool),
    )
    return situation(members, readings, np.zeros(count, dtype=bool)).age_months


def _increments(dates: np.ndarray, amounts: np.ndarray) -> np.ndarray:
    """P_j - P_{j-1} over the steps that are there (NaT steps are skipped, P_0 = 0)."""
    present = ~np.isnat(dates) & ~np.isnan(amounts)
    positions = np.arange(dates.shape[-1])
    last = np.maximum.accumulate(np.where(present, positions, -1), axis=-1)  # last step so far
    filled = np.where(
        last >= 0,
        np.take_along_axis(np.nan_to_num(amounts), np.maximum(last, 0), axis=-1),
        0.0,
    )
    before = np.concatenate([np.zeros_like(filled[..., :1]), filled[..., :-1]], axis=-1)
    return np.where(present, filled - before, 0.0)


def _first_payment_on_or_after(start, step_dates) -> np.ndarray:
    """K: the first k >= 0 with start + k months >= the step's date (0 where no step)."""
    first = np.zeros(step_dates.shape, dtype=np.int64)
    starts = np.broadcast_to(start[..., None], step_dates.shape)
    later = ~np.isnat(step_dates) & (step_dates > starts)  # a step on the start date: K = 0
    if not later.any():
        return first
    from_date, to_date = starts[later], step_dates[later]
    months = to_date.astype("datetime64[M]").astype(np.int64) - from_date.astype(
        "datetime64[M]"
    ).astype(np.int64)
    first[later] = months + (add_months(from_date, months) < to_date)
    return first


# --------------------------------------------------------------------- the grid
@dataclass(frozen=True, slots=True)
class _Grid:
    """Per table (sex, cohort) and rate: S(n) and l(n/12) at month ages n0 .. n1."""

    first_month: np.ndarray  # (groups,) 12 x the table's first age
    end_month: np.ndarray  # (groups,) 12 x the first age no one is alive (alive_end)
    names: list
    sums: np.ndarray  # (groups, rates, months), 0 at and past omega
    alive: np.ndarray  # (groups, months)
    low: int


def _grid(
    mortality: Mortality, keys: list[tuple[str | None, int | None]], rates, youngest
) -> _Grid:
    """The grid of each table in ``keys`` at ``rates``; its annuities from the month of age
    ``youngest[g]`` on, the youngest member valued on table g (none is younger)."""
    tables = [mortality.table(sex, cohort) for sex, cohort in keys]
    for table in tables:
        table.require_runs_out()
    low = min(12 * t.min_age for t in tables)
    high = max(12 * t.omega for t in tables)
    width = high - low + 2
    rates = np.asarray(rates, dtype=float)
    sums = np.zeros((len(tables), len(rates), width))
    alive = np.zeros((len(tables), width))
    for g, table in enumerate(tables):
        # No one is alive from alive_end on: omega, or the age after a q of 1 before the
        # last age (a table's own, or a rate capped at 1 by a sensitivity).
        months = np.arange(12 * table.min_age, 12 * table.omega)
        ages = months / 12
        l_at = table.l(ages, radix=1.0, fractional="udd")
        needed = (months >= youngest[g]) & (months < 12 * table.alive_end)
        value = annuity_due(table, ages[None, needed], rates[:, None], PAYMENTS_PER_YEAR, "udd")
        columns = months - low
        sums[g][:, columns[needed]] = PAYMENTS_PER_YEAR * l_at[None, needed] * value
        alive[g, columns] = l_at
    return _Grid(
        first_month=np.array([12 * t.min_age for t in tables]),
        end_month=np.array([12 * t.alive_end for t in tables]),
        names=[t.name for t in tables],
        sums=sums,
        alive=alive,
        low=low,
    )


# --------------------------------------------------------------------- present values
def sex_codes(
    frame: pd.DataFrame, source: str = "members", members=None
) -> tuple[np.ndarray, np.ndarray]:
    """The optional column ``sex`` as codes into :data:`SEX_CODES`, and an error per row
    naming the row, the member (its id in ``members``, the frame parsed, when given) and
    the value as given."""
    count = len(frame)
    if "sex" not in frame.columns:
        return np.full(count, 2), np.full(count, "", dtype=object)
    if (frame.columns == "sex").sum() > 1:
        raise _sex_given_twice(source)
    column = frame["sex"]
    if column.dtype == object:  # bytes are the UTF-8 text they hold, as in every field
        column = column.map(_utf8_or_no_code)
    text = column.astype("string").fillna("").str.strip().str.upper().to_numpy(dtype=object)
    codes = np.full(count, -1)
    for code, name in enumerate(SEX_CODES):
        codes[text == name] = code
    error = np.full(count, "", dtype=object)
    bad = np.flatnonzero(codes < 0)
    given = frame["sex"].iloc[bad].astype(object).tolist()  # Python values (1, not np.int64(1))
    for row, value in zip(bad, given, strict=True):
        member_id = None if members is None else members.member_id[row].as_py()
        who = f" (member {quoted(member_id)})" if member_id and member_id.strip() else ""
        error[row] = (
            f"{source} row {row + 1}{who}: 'sex' must be in ['F', 'M', ''] (got {quoted(value)})"
        )
    return np.where(codes < 0, 2, codes), error


def _sex_given_twice(source) -> MemberFileError:
    """A ``sex`` column given twice: which one holds the sex is not guessed (as for a
    required column, :func:`~actuarial.member_record.check_columns`)."""
    return MemberFileError(f"{source}: column 'sex' given more than once")


def _utf8_or_no_code(value):
    """Bytes as the text they hold, or as text that is no sex code when they are not UTF-8
    (the error then shows them as given); any other value as it is."""
    if not isinstance(value, bytes):
        return value
    try:
        return value.decode()
    except UnicodeDecodeError:
        return "\ufffd"


def _check_basis(basis) -> None:
    """A valuation's ``basis`` is a :class:`Basis`: anything else is a TypeError naming it
    (a spec's text, None), never an AttributeError from inside."""
    if not isinstance(basis, Basis):
        raise TypeError(
            "'basis' must be an actuarial.Basis, e.g. Basis('sult', 0.045) "
            f"(got {kind_and_value(basis)})"
        )


def value_results(
    results: MemberResults,
    basis: Basis,
    sex=None,
    rates=None,
    steps: tuple[np.ndarray, np.ndarray] | None = None,
    skip=None,
) -> tuple[np.ndarray, np.ndarray]:
    """Present values (members, 4 clauses, rates) and a valuation error per member.

    ``sex``: codes into :data:`SEX_CODES` (default: not given). ``rates``: interest rates
    (default: the basis's). ``steps``: the schedule as dated steps (members, 4, S).
    ``skip``: members not to value (no table is built for them), e.g. of a bad ``sex``.
    NaN where a clause is not eligible, the member is invalid or skipped, or the basis does
    not cover the member (who then has an error).
    """
    _check_basis(basis)
    members = results.members
    count = len(members)
    rates = _rates(basis.interest if rates is None else rates)
    sex = np.full(count, 2) if sex is None else np.asarray(sex)
    step_dates, step_amounts = steps if steps is not None else schedule_steps(results)
    valid = members.valid
    at_separation = np.where(valid, results.age_months, 0)
    mortality = basis.mortality
    birth_year = members.birth_date.astype("datetime64[Y]").astype(np.int64) + 1970
    sex_key = sex if mortality.sex_distinct else np.full(count, 2)
    cohort_key = birth_year if mortality.generational else np.zeros(count, dtype=np.int64)
    valued = _with_eligible_row(results)
    if skip is not None:
        valued &= ~np.asarray(skip, dtype=bool)
    combined = sex_key.astype(np.int64) * 100_000 + np.where(valued, cohort_key, 0)
    unique, group = np.unique(combined[valued], return_inverse=True)
    keys = [
        (
            (SEXES[k // 100_000] if k // 100_000 < 2 else None),
            (int(k % 100_000) if mortality.generational else None),
        )
        for k in unique
    ]
    values = np.full((count, len(CLAUSE_IDS), len(rates)), np.nan)
    error = np.full(count, "", dtype=object)
    if not keys:
        return values, error
    youngest = np.full(len(keys), np.iinfo(np.int64).max)
    np.minimum.at(youngest, group, at_separation[valued])
    try:
        grid = _grid(mortality, keys, rates, youngest)
    except AnnuityError as error:  # a rate so near -1 that a value passes the largest float
        raise ValuationError(str(error)) from None
    index = np.flatnonzero(valued)
    age = at_separation[index]
    below = age < grid.first_month[group]
    beyond = age >= grid.end_month[group]
    for position in np.flatnonzero(below | beyond):
        g = group[position]
        rule = (
            f"below {grid.first_month[g] // 12}, the first age of table"
            if below[position]
            else f"at or beyond {grid.end_month[g] // 12}, where no one is alive in table"
        )
        error[index[position]] = (
            f"valuation: age at separation {format_age(age[position])} is {rule} '{grid.names[g]}'"
        )
    covered = ~(below | beyond)
    index, group, age = index[covered], group[covered], age[covered]
    width = grid.alive.shape[1]
    l_at_separation = grid.alive[group, age - grid.low]
    log_v = -np.log1p(rates)
    birth = members.birth_date[index]
    no_one_alive = []  # per clause: the tables and months of age at the start of such rows
    for column in range(len(CLAUSE_IDS)):
        start_all = results.start_date[index, column]
        rows = np.flatnonzero(~np.isnat(start_all))  # the members eligible for this clause
        start, at, g = start_all[rows], age[rows], group[rows]
        deferral = np.zeros(len(rows), dtype=np.int64)  # 0 when paid from separation
        later = start != results.members.separation_date[index[rows]]
        deferral[later] = (
            ages_in_months(birth[rows][later], start[later], results.readings) - at[later]
        )
        dates = step_dates[index[rows], column]
        amounts = step_amounts[index[rows], column]
        increments = _increments(dates, amounts)
        first = _first_payment_on_or_after(start, dates)
        months = deferral[:, None] + first  # months from separation to each step's first payment
        cells = np.minimum(at[:, None] + months - grid.low, width - 1)
        total = np.empty((len(rows), len(rates)))
        for r in range(len(rates)):
            tail = grid.sums[g[:, None], r, cells]
            with np.errstate(over="ignore", invalid="ignore"):  # nothing where no one is alive
                discount = np.exp(log_v[r] / 12 * months)
                paid = np.where(tail > 0, discount * tail, 0.0)
            total[:, r] = np.einsum("ij,ij->i", increments, paid)
        with np.errstate(over="ignore"):  # a value past the largest float: refused below
            total /= l_at_separation[rows, None]
        total[np.isnan(amounts[:, 0])] = np.nan  # no amount (no guide in force): no value
        values[index[rows], column] = total
        # Valued, and worth 0: the annuity starts where the table has no one alive.
        dead = (at + deferral >= grid.end_month[g]) & ~np.isnan(amounts[:, 0])
        no_one_alive.append((CLAUSE_IDS[column], g[dead], (at + deferral)[dead]))
    _check_representable(values, rates, "a present value")
    _note_no_one_alive(no_one_alive, grid)
    return values, error


def _note_no_one_alive(found, grid: _Grid) -> None:
    """A :class:`ValuationNote` for each clause and age from which no one is alive where
    annuities of the clause start (each valued at 0), from ``found``: per clause, the tables
    of such rows and the months of age at which their annuities start. It names the table
    (or how many: one per cohort or sex), the age, the rows and the ages at the start."""
    for clause, tables, months in found:
        end_ages = grid.end_month[tables] // 12
        for end_age in np.unique(end_ages).tolist():
            here = end_ages == end_age
            names = sorted({grid.names[table] for table in np.unique(tables[here]).tolist()})
            named = (
                f"table '{names[0]}' has"
                if len(names) == 1
                else (f"{len(names)} tables ('{names[0]}', ...) have")
            )
            low, high = format_age(months[here].min()), format_age(months[here].max())
            starts = low if low == high else f"{low} to {high}"
            count = int(here.sum())
            these = (
                f"whose annuity starts at {starts}, is"
                if count == 1
                else f"whose annuities start at {starts}, are"
            )
            warnings.warn(
                f"{named} no one alive from age {end_age}: {format_count(count, 'row')} of "
                f"inciso ({clause}), {these} valued at {format_usd(0.0)}",
                ValuationNote,
                stacklevel=3,
            )


def _with_eligible_row(results: MemberResults) -> np.ndarray:
    """The members there is something to value for: valid, with an eligible row."""
    return results.members.valid & results.eligible.any(axis=1)


def _rates(rates) -> np.ndarray:
    """Interest rates as floats, each finite and above -1 (the rule of the annuities)."""
    try:
        return np.atleast_1d(check_interest(rates))
    except AnnuityError as error:
        raise ValuationError(str(error)) from None


# --------------------------------------------------------------------- frames
def _flat_rows(results: MemberResults) -> np.ndarray:
    """Which (member, clause) cells are rows of the results table (as the engine keeps them)."""
    keep = np.ones((len(results.members), len(CLAUSE_IDS)), dtype=bool)
    keep[~results.members.valid, 1:] = False
    return keep.ravel()


def _over_deferred(values: np.ndarray) -> np.ndarray:
    """PV of (b) and (c) minus the member's (d); NaN elsewhere and where (d) is blank."""
    over = np.full(values.shape, np.nan)
    deferred = values[:, CLAUSE_IDS.index("d")]
    for clause in SUBSIDIZED_CLAUSES:
        column = CLAUSE_IDS.index(clause)
        over[:, column] = values[:, column] - deferred
    return over


def _table(results: MemberResults, values: np.ndarray, errors: np.ndarray) -> pd.DataFrame:
    table = results.table()
    keep = _flat_rows(results)
    invalid_rows = np.repeat(~results.members.valid, len(CLAUSE_IDS))[keep]
    pv = values.ravel()[keep]
    pv[invalid_rows] = np.nan
    over = _over_deferred(values).ravel()[keep]
    over[invalid_rows] = np.nan
    table["pv_at_separation"] = pv
    table["value_over_deferred"] = over
    member_error = np.repeat(errors, len(CLAUSE_IDS))[keep]
    eligible = table["eligible"].to_numpy()
    marked = (member_error != "") & eligible
    if marked.any():
        error = table["error"].astype(object).to_numpy().copy()
        error[marked] = np.where(
            error[marked] == "", member_error[marked], error[marked] + "; " + member_error[marked]
        )
        table["error"] = pd.Categorical(error)
    return table


def value_frame(
    members_df: pd.DataFrame,
    guides: GuideSet,
    basis: Basis,
    as_of: dt.date | None = None,
    readings: Readings | None = None,
    source: str = "members",
    law=None,
) -> pd.DataFrame:
    """The batch's rows and columns plus ``pv_at_separation`` and ``value_over_deferred``.

    A member the basis does not cover (an age below its first age, a bad ``sex``) gets an
    error on its eligible rows and blank values; every other member is valued.
    """
    _check_basis(basis)
    return _valued(*_evaluated(members_df, guides, as_of, readings, source, law), basis)[0]


def _valued(results, sex, sex_error, basis):
    """The table of the members' values at the basis, the values and their errors."""
    values, errors = _values(results, basis, sex, sex_error, None)
    return _table(results, values[..., 0], errors), values, errors


def _evaluated(members_df, guides, as_of, readings, source, law):
    """The members' results, their ``sex`` codes and the error of a bad ``sex``."""
    # The frame is the whole input: parse_members finds its duplicate ids itself.
    members = parse_members(members_df, source=source)
    results = evaluate_members(members, guides, as_of, readings, law)
    sex, sex_error = sex_codes(members_df, source, members)
    return results, sex, sex_error


def _values(results, basis, sex, sex_error, rates=None):
    """:func:`value_results`, with no value and the ``sex`` error for a bad ``sex`` on a
    sex-distinct basis (a unisex one does not read ``sex``, as ``docs/valuation.md`` says),
    on the members with an eligible row only: a member with none has nothing to value, and
    no row to carry the error, so the summary does not count it. Such a member is not
    valued at all: no table is built for it (the blend of unstated sex may not exist)."""
    bad = (sex_error != "") & _with_eligible_row(results) & basis.mortality.sex_distinct
    values, errors = value_results(results, basis, sex, rates, skip=bad)
    return values, np.where(bad, sex_error, errors)


def _member_table(member, guides, basis, as_of, readings, law) -> pd.DataFrame:
    """:func:`value_frame` for one member (a mapping may carry ``sex``, read as given: a
    list is not unpacked); invalid member data raises :class:`MemberDataError`, as
    :func:`~actuarial.engine.evaluate` does."""
    from actuarial.members import member_frame

    frame = member_frame(member)
    if isinstance(member, Mapping) and "sex" in member:
        sex = np.empty(1, dtype=object)
        sex[0] = member["sex"]
        frame["sex"] = sex
    table = value_frame(frame, guides, basis, as_of, readings, source="member", law=law)
    if table["clause"].iloc[0] == "":  # the one row of an invalid member
        raise MemberDataError(table["error"].iloc[0])
    return table


def member_present_values(member, guides, basis, as_of=None, readings=None, law=None) -> dict:
    """One member's present value by clause (None where not eligible or not covered).

    Raises :class:`MemberDataError` for invalid member data and :class:`ValuationError`
    where an eligible clause cannot be valued on ``basis`` (an age below its table, a bad
    ``sex``), with the message its row carries."""
    _check_basis(basis)
    table = _member_table(member, guides, basis, as_of, readings, law)
    unvalued = table["eligible"].to_numpy() & (table["error"].astype(str) != "").to_numpy()
    if unvalued.any():
        raise ValuationError(table["error"].astype(str).to_numpy()[unvalued][0])
    return {
        clause: (None if np.isnan(pv) else float(pv))
        for clause, pv in zip(table["clause"], table["pv_at_separation"], strict=True)
    }


@takes_paths("law")
def break_even_interest(
    member,
    guides,
    basis,
    early="c",
    later="d",
    bounds=(-0.05, 0.25),
    as_of=None,
    readings=None,
    law=None,
):
    """The interest rate at which the member's ``early`` and ``later`` clauses have equal
    present values (None if they do not cross within ``bounds``); ``as_of``, ``readings``
    and ``law`` as :func:`member_present_values` takes them."""
    _check_basis(basis)
    from scipy.optimize import brentq

    for name, clause in (("early", early), ("later", later)):
        if clause not in CLAUSE_IDS:
            raise ValueError(f"'{name}' must be in {list(CLAUSE_IDS)} (got {as_given(clause)})")

    def gap(rate):
        at_rate = basis.with_interest(rate)
        values = member_present_values(member, guides, at_rate, as_of, readings, law)
        if values[early] is None or values[later] is None:
            raise ValuationError(f"inciso ({early}) and inciso ({later}) must both be valued")
        return values[early] - values[later]

    bounds = checked_bounds(bounds, ValuationError)
    low, high = gap(bounds[0]), gap(bounds[1])
    if np.sign(low) == np.sign(high):
        return None
    return float(brentq(gap, *bounds, xtol=1e-10))


# --------------------------------------------------------------------- summary
@dataclass
class ValuationSummary:
    """Totals by clause, the total subsidy, members not valued, and the sensitivities."""

    basis: dict
    members: int = 0
    invalid: int = 0
    not_valued: int = 0
    valued_rows: dict = field(default_factory=lambda: dict.fromkeys(CLAUSE_IDS, 0))
    totals: dict = field(default_factory=lambda: dict.fromkeys(CLAUSE_IDS, 0.0))
    total_subsidy: float = 0.0
    subsidy_rows: int = 0
    eligible_not_valued: int = 0
    sensitivities: pd.DataFrame | None = None

    @classmethod
    def of(cls, results: MemberResults, values, errors, basis: Basis) -> ValuationSummary:
        summary = cls(basis=basis.as_dict())
        summary.members = len(results.members)
        summary.invalid = int((~results.members.valid).sum())
        summary.not_valued = int((errors != "").sum())
        totals = _totals(values, basis.interest)
        for column, clause in enumerate(CLAUSE_IDS):
            summary.valued_rows[clause] = int(np.isfinite(values[:, column]).sum())
            summary.totals[clause] = totals[f"pv_{clause}"]
        summary.total_subsidy = totals["total_subsidy"]
        summary.subsidy_rows = int(np.isfinite(_over_deferred(values)).sum())
        # Each such row's error says why: the basis, a bad sex, no guide in force.
        eligible = results.eligible & results.members.valid[:, None]
        summary.eligible_not_valued = int((eligible & ~np.isfinite(values)).sum())
        return summary

    def lines(self) -> list[str]:
        totals = "; ".join(
            f"({c}) {format_usd(self.totals[c])} ({format_count(self.valued_rows[c], 'row')})"
            for c in CLAUSE_IDS
        )
        lines = [
            f"members: {self.members:,} (invalid rows: {self.invalid:,}; not valued: "
            f"{self.not_valued:,}, each one's error says why)",
            f"present value at separation by clause: {totals}",
            f"total subsidy, (b) and (c) over (d): {format_usd(self.total_subsidy)} "
            f"({format_count(self.subsidy_rows, 'row')})",
            f"eligible rows not valued: {self.eligible_not_valued:,} (each row's error says why)",
            *(f"mortality: {f['file']} sha256 {f['sha256']}" for f in self.basis.get("files", ())),
        ]
        if self.sensitivities is not None:
            lines.append("sensitivities (totals in USD):")
            # A scenario not valued has empty totals (its note says why), not NaN; a change
            # that rounds to zero is 0.00, not -0.00.
            lines.extend(
                self.sensitivities.to_string(
                    index=False, na_rep="", float_format=lambda v: f"{round(v, 2) + 0.0:,.2f}"
                ).splitlines()
            )
        return lines


def _totals(values, interest) -> dict:
    """Totals by clause and the total subsidy at ``interest``; all NaN for ``values`` None
    (not valued); refused when one passes the largest float."""
    if values is None:
        return {**{f"pv_{c}": np.nan for c in CLAUSE_IDS}, "total_subsidy": np.nan}
    with np.errstate(over="ignore"):
        row = {f"pv_{c}": float(np.nansum(values[:, i])) for i, c in enumerate(CLAUSE_IDS)}
        row["total_subsidy"] = float(np.nansum(_over_deferred(values)))
    _check_representable(np.array([[total] for total in row.values()]), [interest], "a total")
    return row


def _check_representable(values, rates, what: str) -> None:
    """Refuses ``values`` (..., rates) with one past the largest float: ``what`` names it.
    Only a rate near -1 gets there (v large over a long life): the message names the rate."""
    past = np.isinf(values)
    if past.any():
        rate = rates[int(np.nonzero(past)[-1][0])]
        raise ValuationError(
            f"'interest' {show_rate(rate)} is too close to -1: {what} passes the largest float "
            f"({np.finfo(float).max:.3g})"
        )


def sensitivities(
    members_df: pd.DataFrame,
    guides: GuideSet,
    basis: Basis,
    as_of=None,
    readings=None,
    series: dict[str, GuideSet] | None = None,
    source: str = "members",
    law=None,
) -> pd.DataFrame:
    """Totals by clause and total subsidy: on the basis; interest +-1 percentage point
    (GASB 67/68); every q x 0.9 and x 1.1 (capped at 1; the ages are named); and under each
    guide series in ``series`` (the cost of a change of guide: ``subsidy_change``)."""
    _check_basis(basis)
    evaluated = _evaluated(members_df, guides, as_of, readings, source, law)
    return _sensitivities(*evaluated, basis, as_of, readings, series, law)


def _sensitivities(
    results, sex, sex_error, basis, as_of, readings, series, law, basis_values=None
) -> pd.DataFrame:
    """:func:`sensitivities` of members already evaluated (:func:`_evaluated`);
    ``basis_values``: their values on the basis, where the caller has them already.

    Every scenario totals the rows the basis values, and no others, so that its change is
    like for like; a row valued on one and not on the other (a guide series with no guide
    on a date, an age past a q capped at 1) is counted in the scenario's note. The notes of
    the basis's valuation (:class:`ValuationNote`) are given once, by the valuation itself;
    those of a scenario's own tables (q x 0.9, x 1.1) are in its note.
    """
    if basis_values is not None:
        on_basis_valued = (basis_values, [])
    else:  # valued once, for its row and the rows every scenario keeps to
        on_basis_valued = _valued_or_error(results, basis, sex, sex_error, basis.interest)
    on_basis = None  # the basis is not valued: its row says why; no rows to keep to
    if not isinstance(on_basis_valued, ValuationError):
        on_basis = np.isfinite(on_basis_valued[0][..., 0])

    def scenario(label, evaluated, on, rate=None, describe=lambda: "", got=None):
        # A rate at or below -1 has no v; one so near -1 that a value passes the largest
        # float has no value: such a scenario alone is not valued, and its note says why.
        # ``got``: its values already, or the error that stopped them (the basis's row).
        rate = on.interest if rate is None else rate
        if got is None:
            got = _valued_or_error(evaluated, on, sex, sex_error, rate)
        if isinstance(got, ValuationError):
            return {"scenario": label, **_totals(None, rate), "note": f"not valued: {got}"}
        values, noted = got
        # The scenario's own notes (annuities valued at $0.00 where its table has no one
        # alive); those of the basis's tables are the valuation's, given once.
        notes = [describe(), *(noted if on is not basis else ())]
        values = values[..., 0]
        if on_basis is not None:
            valued = np.isfinite(values)
            missing, extra = (on_basis & ~valued).sum(), (valued & ~on_basis).sum()
            if missing:
                are = "is" if missing == 1 else "are"
                notes.append(
                    f"{format_count(missing, 'row')} valued on the basis {are} not valued here"
                )
            if extra:
                are = "is" if extra == 1 else "are"
                notes.append(f"{format_count(extra, 'row')} not valued on the basis {are} left out")
            values = np.where(on_basis, values, np.nan)
        note = "; ".join(note for note in notes if note)
        return {"scenario": label, **_totals(values, rate), "note": note}

    # + 0.0: the rate shown never -0.0, as on the other rows
    rows = [scenario("basis", results, basis, basis.interest + 0.0, got=on_basis_valued)]
    for label, change in (("interest -1pp", -0.01), ("interest +1pp", 0.01)):
        rows.append(scenario(label, results, basis, basis.interest + change))
    for factor in (0.9, 1.1):
        scaled = basis.mortality.scaled(factor)

        def capped(scaled=scaled) -> str:  # where the scaling capped q at 1
            ages = scaled.capped_ages
            return f"q capped at 1 at ages {_ranges(ages)}" if ages else "no q capped"

        on = basis.with_mortality(scaled)
        rows.append(scenario(f"q x {factor:g}", results, on, describe=capped))
    for name, guide_set in (series or {}).items():
        other = evaluate_members(results.members, guide_set, as_of, readings, law)
        rows.append(scenario(f"series {name}", other, basis))
    frame = pd.DataFrame(rows)
    frame.insert(
        frame.columns.get_loc("total_subsidy") + 1,
        "subsidy_change",
        frame["total_subsidy"] - frame["total_subsidy"].iloc[0],
    )
    return frame


def _valued_or_error(results, basis, sex, sex_error, rate):
    """:func:`_noted_values` at one ``rate``, or the :class:`ValuationError` that stops it."""
    try:
        return _noted_values(results, basis, sex, sex_error, [rate])
    except ValuationError as error:
        return error


def _noted_values(results, basis, sex, sex_error, rates=None) -> tuple[np.ndarray, list[str]]:
    """The present values of :func:`_values` and the texts of its :class:`ValuationNote`s,
    which are not warned."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ValuationNote)
        values = _values(results, basis, sex, sex_error, rates)[0]
    notes = []
    for warning in caught:
        if issubclass(warning.category, ValuationNote):
            notes.append(str(warning.message))
        else:  # not ours to keep: warned as it came
            warnings.warn_explicit(
                warning.message, warning.category, warning.filename, warning.lineno
            )
    return values, notes


def _ranges(ages) -> str:
    """'98-120' for consecutive ages, '70, 98-120' otherwise."""
    ages = sorted(ages)
    pieces, start = [], None
    for position, age in enumerate(ages):
        if start is None:
            start = age
        if position + 1 == len(ages) or ages[position + 1] != age + 1:
            pieces.append(f"{start}" if start == age else f"{start}-{age}")
            start = None
    return ", ".join(pieces)


def shipped_series() -> dict[str, GuideSet]:
    """Every shipped guide series, loaded."""
    from actuarial.guides import SHIPPED_GUIDES, load_every_guide, load_guides

    names = sorted({g.series for g in load_every_guide(SHIPPED_GUIDES)})
    return {name: load_guides(SHIPPED_GUIDES, name) for name in names}


@takes_paths("members_path", "out_path", "law")
def run_valuation(
    members_path,
    guides: GuideSet,
    basis: Basis,
    out_path,
    as_of=None,
    readings=None,
    with_sensitivities: bool = True,
    law=None,
) -> ValuationSummary:
    """Value a member file into ``out_path`` (CSV or Parquet); the summary with totals,
    members not valued and (optionally) the sensitivities."""
    _check_basis(basis)
    from actuarial.batch import read_members, run_metadata, write_results

    readings = checked_guides_and_readings(guides, readings)
    members_path, out_path = Path(members_path), Path(out_path)
    out_format = file_format(out_path, "the output file")
    series = shipped_series() if with_sensitivities else {}
    law_files = law_provenance(law, as_of)
    # Every file the run reads, never the output (checked before reading the member file):
    # the member file, the guides' files (and the shipped ones of the sensitivities), the
    # law's and the mortality's (its CSV tables and improvement scale).
    inputs = [
        members_path,
        *guides.files,
        *(file for other in series.values() for file in other.files),
        *(Path(entry["file"]) for entry in law_files["law"]),
        *basis.mortality.files,
    ]
    check_output(out_path, inputs)
    frame = read_members(members_path)
    sex = _read_sex(members_path)
    if sex is not None:
        frame["sex"] = sex
    # Parsed and evaluated once, for the table and the sensitivities alike.
    results, sex, sex_error = _evaluated(frame, guides, as_of, readings, members_path.name, law)
    table, values, errors = _valued(results, sex, sex_error, basis)
    summary = ValuationSummary.of(results, values[..., 0], errors, basis)
    if with_sensitivities:
        summary.sensitivities = _sensitivities(
            results, sex, sex_error, basis, as_of, readings, series, law, values
        )
    # As the batch writes its files (the same types, CSV cells, metadata), through a
    # temporary file of this run's, renamed when complete (actuarial.output_files).
    import json

    import pyarrow as pa

    metadata = run_metadata(results.readings, guides, members_path, law_files["law"], results.as_of)
    metadata[b"actuarial.basis"] = json.dumps(basis.as_dict()).encode()
    with writing(out_path, inputs) as partial:
        arrow = pa.Table.from_pandas(table, preserve_index=False)
        write_results(arrow, partial, out_format, metadata)
    return summary


def _read_sex(path: Path):
    """The optional ``sex`` column of a member file, read as its member columns are (text,
    an empty cell missing), or None; refused when given twice, as :func:`sex_codes` does."""
    import pyarrow as pa

    fmt = file_format(path, "a member file")
    columns = file_columns(path, fmt)
    if "sex" not in columns:
        return None
    if columns.count("sex") > 1:
        raise _sex_given_twice(path)
    chunks = [batch.column(0) for batch in reading(path, record_batches(path, fmt, ["sex"]))]
    return pa.chunked_array(chunks, chunks[0].type if chunks else pa.string()).to_pandas()


# --------------------------------------------------------------------- tables to show
def member_choices(member, guides: GuideSet, basis: Basis, as_of=None, readings=None, law=None):
    """One member's clauses side by side: eligibility, start, monthly amount, present value
    at separation and value over the deferred (d)."""
    _check_basis(basis)
    table = _member_table(member, guides, basis, as_of, readings, law)
    columns = ["clause", "eligible", "start_date", "reduction_factor", "monthly_amount"]
    return table[[*columns, *VALUE_COLUMNS, "error"]].reset_index(drop=True)


def totals_by_clause(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows valued, total present value and total value over (d), by clause."""
    valued = frame[frame["pv_at_separation"].notna()]
    grouped = valued.groupby("clause", observed=True)
    table = pd.DataFrame(
        {
            "rows_valued": grouped.size(),
            "pv_at_separation": grouped["pv_at_separation"].sum(),
            "value_over_deferred": grouped["value_over_deferred"].sum(min_count=1),
        }
    )
    return table.reindex(list(CLAUSE_IDS)).fillna({"rows_valued": 0}).astype({"rows_valued": int})


def subsidy_by_age(frame: pd.DataFrame, members_df: pd.DataFrame, readings=None) -> pd.DataFrame:
    """The subsidy (value over (d) of (b) and (c) rows) by completed year of age at
    separation: rows, total and mean. The dates are read as the engine read them
    (:func:`~actuarial.members.parse_members`: a period of one day is that day)."""
    readings = readings or Readings()
    members = parse_members(members_df)
    age = ages_in_months(members.birth_date, members.separation_date, readings) // 12
    subsidized = frame[frame["value_over_deferred"].notna()]
    ages = age[subsidized["row"].to_numpy() - 1]
    grouped = subsidized.groupby(ages)["value_over_deferred"]
    table = pd.DataFrame({"rows": grouped.size(), "total": grouped.sum(), "mean": grouped.mean()})
    table.index.name = "age_at_separation"
    return table


@takes_paths("law")
def choices_by_interest(
    member, guides: GuideSet, basis: Basis, rates, as_of=None, readings=None, law=None
) -> pd.DataFrame:
    """One member's present value of each eligible clause at each interest rate; ``as_of``,
    ``readings`` and ``law`` as :func:`member_present_values` takes them."""
    _check_basis(basis)
    columns = {}
    for rate in [rates] if isinstance(rates, numbers.Real) else rates:  # one rate or several
        at_rate = basis.with_interest(rate)  # checked as a basis's interest
        values = member_present_values(member, guides, at_rate, as_of, readings, law)
        columns[at_rate.interest] = {c: v for c, v in values.items() if v is not None}
    table = pd.DataFrame(columns).T
    table.index.name = "interest"
    return table
