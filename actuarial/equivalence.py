"""Early-retirement reduction factors by actuarial equivalence, and the review of a guide.

Inciso (c): «... con una reducción actuarial que será calculada a base de las Guías
Actuariales adoptadas por la Junta de Síndicos.»

The statute leaves the reduction to the Board's Actuarial Guides. This module gives the
yardstick a guide can be read against: the factor that makes the annuity started early at
age x worth the same as the full annuity deferred to the normal retirement age (NRA),

    f(x) = (NRA - x)E_x * a^(m)_NRA / a^(m)_x,

derives illustrative guides from it, fits the interest rate a guide implies, and prices the
subsidy in a guide whose factors are above equivalence.
"""

from __future__ import annotations

import datetime as dt
import math
import numbers
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.optimize import minimize_scalar

from actuarial.annuities import (
    annuity_due,
    by_cohort,
    check_interest,
    check_method,
    check_payments_per_year,
    checked_bounds,
    checked_pure_endowment,
    checked_whole_lives,
    fractional_for,
    method_for,
)
from actuarial.dates import format_age, is_plain_date
from actuarial.guides import (
    GUIDE_FILE_LIMITS,
    INTERPOLATIONS,
    GuideError,
    Period,
    check_guide,
    guides_held,
    load_guide,
    named_folder,
    overlap_problems,
    span_on,
)
from actuarial.law.parameters import law_in_force, shipped_law
from actuarial.mortality import LifeTable, blend, real_array, soa, sult
from actuarial.output_files import check_output, takes_paths, writing
from actuarial.shown_text import as_given, quoted, show_percent, show_rate, toml_text

__all__ = [
    "EARLIEST_RETIREMENT_AGE",
    "SHIPPED_DERIVATIONS",
    "EquivalenceError",
    "InterestFit",
    "compare_factors",
    "derive_guide",
    "derive_reduction_table",
    "early_retirement_factor",
    "fit_interest",
    "guide_folder",
    "pub2010_general_unisex",
    "subsidy",
    "write_guide",
]

# The ages of incisos (c) and (a) in the shipped law today: the defaults of a derivation.
_SPAN_TODAY = span_on()
NORMAL_RETIREMENT_AGE = _SPAN_TODAY.normal_retirement_age
EARLIEST_RETIREMENT_AGE = _SPAN_TODAY.first // 12
_STATUSES = ("illustrative", "adopted")
_INTERPOLATIONS = tuple(INTERPOLATIONS)  # the registry of guides.py
_METHOD_TEXT = {  # {payments}: the payments summed, as _method_text says them
    "udd": "exact sum of the {payments}, survival linear within each year of age (UDD)",
    "constant-force": "exact sum of the {payments}, constant force within each year of age",
    "woolhouse2": "Woolhouse 2-term approximation a_x - (m-1)/(2m)",
    "woolhouse3": "Woolhouse 3-term approximation a_x - (m-1)/(2m) - (m^2-1)/(12m^2)(delta+mu_x)",
}


class EquivalenceError(ValueError):
    """An argument of a derivation or review breaks a rule (field, rule and value)."""


# --------------------------------------------------------------------- the factor
def early_retirement_factor(
    table,
    age,
    interest,
    normal_retirement_age=NORMAL_RETIREMENT_AGE,
    m=12,
    method=None,
    cohort=None,
    sex=None,
):
    """f(x) = (NRA-x)E_x * a^(m)_NRA / a^(m)_x at exact ages x <= NRA (years + months/12).

    The annuity started at x, times f(x), has the value at x of the full annuity deferred
    to the NRA. Broadcasts ``age`` against ``interest`` (and ``cohort``, the year of birth,
    on a generational basis: each cohort on its own projected table). ``method`` as the
    annuities take it (:mod:`actuarial.annuities`); None, the default: the exact sum under
    each table's own fractional-age assumption, which the pure endowment takes too.
    """
    ages = real_array("age", age, EquivalenceError)
    nra_given = real_array("normal_retirement_age", normal_retirement_age, EquivalenceError)
    if nra_given.ndim:
        raise EquivalenceError(
            f"'normal_retirement_age' must be one age (got {as_given(normal_retirement_age)})"
        )
    if not (ages <= normal_retirement_age).all():
        bad = ages[~(ages <= normal_retirement_age)].flat[0]
        raise EquivalenceError(
            f"'age' must be <= the normal retirement age {normal_retirement_age} (got {bad:g})"
        )

    m, method = check_payments_per_year(m), check_method(method)

    def compute(life: LifeTable, ages, interest):
        # Each argument checked once for the three values, which the public annuity
        # functions would each check again.
        ages = life.check_ages(ages, upper="alive")
        nra = life.check_ages(normal_retirement_age, upper="alive")
        rates = check_interest(interest)
        fractional = fractional_for(life, method)
        deferral = checked_pure_endowment(life, ages, nra - ages, rates, fractional)
        at_age, at_nra = checked_whole_lives(life, (ages, nra), rates, m, method)
        return deferral * at_nra / at_age

    return by_cohort(table, cohort, sex, compute, ages, interest)


def derive_reduction_table(
    table,
    interest: float,
    normal_retirement_age=NORMAL_RETIREMENT_AGE,
    m=12,
    method=None,
    cohort=None,
    *,
    earliest_age: int = EARLIEST_RETIREMENT_AGE,
) -> pd.DataFrame:
    """Equivalent factors for every month from the age of inciso (c) (``earliest_age``,
    55y0m) to NRAy0m, rounded to 6 decimals.

    Columns ``age_years, age_months, factor``; the factor is exactly 1 at NRAy0m.
    ``cohort``: the year of birth on a generational basis. A factor that rounds to 0 (a
    guide's must be above it) is an error naming the interest, the age and the factor.
    """
    earliest, nra = (
        _whole_years("earliest_age", earliest_age),
        _whole_years("normal_retirement_age", normal_retirement_age),
    )
    if not earliest < nra:
        raise EquivalenceError(
            f"'earliest_age' must be below the normal retirement age {nra} (got {earliest})"
        )
    if np.ndim(interest):
        raise EquivalenceError(
            f"'interest' must be one rate: a table is derived on one basis (got "
            f"{as_given(interest)})"
        )
    months = np.arange(earliest * 12, nra * 12 + 1)
    exact = early_retirement_factor(
        table, months / 12, interest, normal_retirement_age, m, method, cohort
    )
    factor = np.round(exact, 6)
    zero = np.flatnonzero(factor == 0)
    if zero.size:
        at = zero[0]
        more = f" (and {zero.size - 1} more month(s))" if zero.size > 1 else ""
        raise EquivalenceError(
            f"interest {show_rate(interest)} discounts the annuity deferred to the normal "
            f"retirement age to almost nothing: the equivalent factor is {exact[at]:g} at "
            f"{format_age(months[at])}, 0 at the 6 decimals of a guide, whose factors must be "
            f"in (0, 1]{more}"
        )
    factor[-1] = 1.0  # 0E_NRA * a_NRA / a_NRA, exactly
    return pd.DataFrame({"age_years": months // 12, "age_months": months % 12, "factor": factor})


def _whole_years(name: str, value) -> int:
    """An age of a derived table's rows: a whole number of years (a guide's rows start at
    whole ages), not a bool, not a fraction."""
    whole = isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_)
    if not (whole and math.isfinite(value) and value == int(value) and value >= 0):
        raise EquivalenceError(f"'{name}' must be a whole number of years (got {as_given(value)})")
    return int(value)


# --------------------------------------------------------------------- guide files
def _toml_value(key: str, value) -> str:
    if isinstance(value, bool | str) or is_plain_date(value):
        return toml_text(value)
    if isinstance(value, int | np.integer):
        return toml_text(int(value))
    if isinstance(value, float | np.floating) and np.isfinite(value):
        return toml_text(float(value))
    raise EquivalenceError(
        f"'{key}' must be a string, a finite number, a boolean or a date (got {as_given(value)})"
    )


def _toml_line(key: str, value) -> str:
    if not re.fullmatch(r"[A-Za-z0-9_-]+", key):
        raise EquivalenceError(f"key must be letters, digits, '_' or '-' (got {as_given(key)})")
    return f"{key} = {_toml_value(key, value)}\n"


def _as_date(key: str, value) -> dt.date:
    if is_plain_date(value):
        return value
    try:
        return dt.date.fromisoformat(str(value))
    except ValueError:
        raise EquivalenceError(
            f"'{key}' must be a date YYYY-MM-DD (got {as_given(value)})"
        ) from None


def _guide_ages(effective_from, normal_retirement_age: int | None, law) -> tuple[int, int]:
    """The ages, in years, a guide in force from ``effective_from`` spans: that of inciso
    (c) and the normal retirement age (``normal_retirement_age``; None: that of inciso (a))
    in ``law`` (None: the shipped law) on that day (:func:`~actuarial.guides.span_on`)."""
    span = span_on(_as_date("effective_from", effective_from), law)
    nra = span.normal_retirement_age if normal_retirement_age is None else normal_retirement_age
    return span.first // 12, nra


def _table_problems(
    table_df: pd.DataFrame, earliest_age: int, normal_retirement_age: int
) -> list[str]:
    columns = ["age_years", "age_months", "factor"]
    if list(table_df.columns) != columns:
        return [f"'table_df' columns must be {columns} (got {list(table_df.columns)})"]
    months = table_df["age_years"].to_numpy() * 12 + table_df["age_months"].to_numpy()
    factor = table_df["factor"].to_numpy(dtype=float)
    expected = np.arange(earliest_age * 12, normal_retirement_age * 12 + 1)
    problems = []
    if not np.array_equal(months, expected):
        problems.append(
            f"'table_df' rows must be every month from {earliest_age}y0m to "
            f"{normal_retirement_age}y0m in order"
        )
    outside = np.flatnonzero(~(np.isfinite(factor) & (factor > 0) & (factor <= 1)))
    if outside.size:
        at = outside[0]
        more = f", and {outside.size - 1} more month(s)" if outside.size > 1 else ""
        problems.append(
            f"'factor' must be in (0, 1] (got {factor[at]:g} at {format_age(months[at])}{more})"
        )
    falls = np.flatnonzero(np.diff(factor) < 0)
    if falls.size:
        at = falls[0]
        problems.append(
            f"'factor' must not decrease with age (from {factor[at]:g} at "
            f"{format_age(months[at])} to {factor[at + 1]:g} at {format_age(months[at + 1])})"
        )
    if len(factor) and factor[-1] != 1.0:
        problems.append(f"'factor' must be 1 at {normal_retirement_age}y0m (got {factor[-1]})")
    return problems


@takes_paths("folder", "law")
def write_guide(
    folder,
    *,
    guide_id: str,
    series: str,
    title: str,
    source: str,
    effective_from,
    table_df: pd.DataFrame,
    basis: dict,
    status: str = "illustrative",
    effective_until=None,
    interpolation: str = "exact",
    normal_retirement_age: int | None = None,
    adopted_by: str | None = None,
    adopted_on=None,
    inputs=(),
    replace: bool = False,
    law=None,
) -> Path:
    """Write ``folder/guide.toml`` and ``folder/reduction.csv`` (folder name = guide id);
    ``inputs``, the files read to make them, are never replaced, nor a guide already in
    ``folder`` unless ``replace``.

    ``basis`` is free-form (strings, numbers, booleans, dates) and records how the factors
    were made. The table spans the ages of incisos (c) and (a) on ``effective_from``
    in ``law`` (paths of amendment files or a Law; None: the shipped law), as
    :func:`~actuarial.guides.span_on` gives them (``normal_retirement_age`` None: that of
    (a)). Every problem is reported at once; nothing is written if there is one.
    """
    folder = guide_folder(folder)
    law = law_in_force(law)
    earliest, nra = _guide_ages(effective_from, normal_retirement_age, law)
    problems = _table_problems(table_df, earliest, nra)
    if not replace and (already := guide_already_in(folder)):
        problems.append(already)
    held = guides_held(folder)
    if held:
        # Its guide.toml would make the folder one guide: the guides in it would be unread.
        problems.append(
            f"{folder}: a folder of guides ({', '.join(held)}), not a guide's own folder: "
            f"write the guide into a folder of its own, such as {folder / guide_id}"
        )
    if folder.name != guide_id:
        problems.append(
            f"'guide_id' must equal the folder name {folder.name!r} (got {as_given(guide_id)})"
        )
    if status not in _STATUSES:
        problems.append(f"'status' must be in {list(_STATUSES)} (got {as_given(status)})")
    if status == "adopted" and not (adopted_by and adopted_on):
        problems.append("'adopted_by' and 'adopted_on' are required when 'status' is 'adopted'")
    if interpolation not in _INTERPOLATIONS:
        problems.append(
            f"'interpolation' must be in {list(_INTERPOLATIONS)} (got {as_given(interpolation)})"
        )
    if problems:
        raise EquivalenceError("\n".join(problems))
    header = {
        "id": guide_id,
        "series": series,
        "title": title,
        "status": status,
        "effective_from": _as_date("effective_from", effective_from),
        "effective_until": effective_until and _as_date("effective_until", effective_until),
        "normal_retirement_age": nra,
        "interpolation": interpolation,
        "adopted_by": adopted_by,
        "adopted_on": adopted_on and _as_date("adopted_on", adopted_on),
        "source": source,
    }
    text = "".join(_toml_line(key, value) for key, value in header.items() if value is not None)
    text += "\n[basis]\n" + "".join(_toml_line(key, value) for key, value in basis.items())
    rows = "".join(
        f"{years},{months},{factor:.6f}\n"
        for years, months, factor in table_df.itertuples(index=False, name=None)
    )
    texts = {"guide.toml": text, "reduction.csv": "age_years,age_months,factor\n" + rows}
    _check_as_loaded(folder, texts, law)
    # Both files through temporary files, renamed together (actuarial.output_files).
    check_output(folder, kind="folder")
    with writing([folder / name for name in GUIDE_FILE_LIMITS], inputs) as written:
        for path, name in zip(written, GUIDE_FILE_LIMITS, strict=True):
            path.write_text(texts[name], encoding="utf-8")
    return folder


def guide_already_in(folder: Path) -> str | None:
    """Why a guide may not be written into ``folder`` without replacing one: it holds a guide
    already, or a file of one (a Board's ``reduction.csv`` saved before its ``guide.toml``);
    None when it holds neither."""
    held = [
        folder / name
        for name in GUIDE_FILE_LIMITS
        if (folder / name).exists() or (folder / name).is_symlink()
    ]
    if not held:
        return None
    what = "a guide" if len(held) == len(GUIDE_FILE_LIMITS) else "a guide's file"
    return (
        f"{folder}: holds {what} already ({', '.join(map(str, held))}): not replaced; use "
        "--force (in Python, replace=True) to replace it, or write the new guide into another "
        "folder"
    )


@takes_paths("folder")
def guide_folder(folder) -> Path:
    """``folder`` by a path whose name is its guide's id: ``.`` and ``..``, which have no
    name of their own, as the folder they lead to; an error for the root, which has none,
    and for a link to a folder of another name (the guide would be read there, by it)."""
    folder = Path(folder)
    named = named_folder(folder)
    if not named.name:
        raise EquivalenceError(
            f"{folder}: a guide's id is the name of its folder, and this folder has none"
        )
    target = Path(os.path.realpath(named)) if named.is_symlink() else named
    if target.name != named.name:  # the guide would be read in the target, by its name
        raise EquivalenceError(
            f"{folder}: a link to {target}: a guide's id is its folder's name, there "
            f"{target.name!r}, not {named.name!r}: give {target} as the folder"
        )
    return named


def _check_as_loaded(folder: Path, texts: dict[str, str], law) -> None:
    """Every rule of the guide loader on the files about to be written (for example an
    ``effective_until`` before ``effective_from``), checked on a scratch copy named as
    ``folder``, and on it beside the other guides of its series in ``folder``'s parent (their
    periods apart): nothing is written if one is broken. Problems name ``folder``'s files."""
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / folder.name
        copy.mkdir()
        for name, text in texts.items():
            (copy / name).write_text(text, encoding="utf-8")
        try:
            guide = load_guide(copy, law)
        except GuideError as error:
            raise EquivalenceError(_problems_text(error, copy, folder)) from None
        own = Period(guide.id, guide.effective_from, guide.effective_until, str(copy))
        overlaps = overlap_problems(guide.series, [*_sibling_periods(folder, guide.series), own])
        if overlaps:
            raise EquivalenceError(
                f"{_problems_text(GuideError(overlaps), copy, folder)}\n{folder}: not written: "
                f"{folder.parent} would no longer load; give the guide a period apart from "
                f"the other guides of series {quoted(guide.series)}, another series or "
                "another folder"
            ) from None


def _problems_text(error: GuideError, copy: Path, folder: Path) -> str:
    """The problems of the scratch ``copy`` of a guide, naming ``folder`` instead; one of its
    guide.toml without a line (the file is not written: each names the argument, the option
    of guides derive, it comes from)."""
    toml = str(copy / "guide.toml")
    return "\n".join(
        f"{folder}: {problem.message}"
        if problem.path == toml
        else str(problem).replace(str(copy), str(folder), 1)
        for problem in error.problems
    )


def _sibling_periods(folder: Path, series: str) -> list[Period]:
    """The periods of the guides of ``series`` beside ``folder`` in its parent folder of
    guides (``folder`` itself, written again, is not one), as their guide.toml states them,
    whatever else of theirs is broken (a table being fixed still holds its period); their
    other problems are left to the commands that read the folder, which name them."""
    parent, periods, unread = folder.parent, {}, []
    for name in guides_held(parent):
        if name != folder.name:
            check_guide(parent / name, unread, periods)
    return periods.get(series, [])


def _payment_timing(m: int) -> str:
    return {1: "annually in advance (m = 1)", 12: "monthly in advance (m = 12)"}.get(
        m, f"{m} times a year in advance (m = {m})"
    )


def _method_text(method: str, m: int) -> str:
    """How the annuities were valued, naming the payments summed (m of them a year)."""
    payments = {1: "annual payments", 12: "monthly payments"}.get(m, f"payments {m} times a year")
    return _METHOD_TEXT[method].format(payments=payments)


@takes_paths("folder", "law")
def derive_guide(
    folder,
    table,
    interest: float,
    *,
    cohort: int | None = None,
    guide_id: str,
    series: str,
    title: str,
    effective_from,
    normal_retirement_age: int | None = None,
    m: int = 12,
    method: str | None = None,
    status: str = "illustrative",
    effective_until=None,
    source: str | None = None,
    extra_basis: dict | None = None,
    replace: bool = False,
    law=None,
) -> Path:
    """Derive the equivalent reduction table and write it as a guide whose ``source`` and
    ``[basis]`` say exactly how it was made (table, interest, timing, method, NRA); a
    guide already in ``folder`` is replaced only if ``replace`` (:func:`write_guide`).

    ``table`` is a :class:`LifeTable` or a basis's mortality; on a generational basis the
    guide is for the members born in ``cohort``, recorded in ``[basis]`` with the scale.
    ``method`` None (the default): the exact sum under the table's own fractional-age
    assumption; the source and ``[basis]`` name the method used. The guide spans the ages
    of incisos (c) and (a) on ``effective_from`` in ``law`` (as :func:`write_guide`;
    ``normal_retirement_age`` None: that of (a)), as its loader requires.
    """
    law = law_in_force(law)
    earliest, nra = _guide_ages(effective_from, normal_retirement_age, law)
    generational = getattr(table, "generational", False)
    if generational and cohort is None:
        raise EquivalenceError("a guide on a generational basis needs 'cohort' (year of birth)")
    table_df = derive_reduction_table(
        table, interest, nra, m, method, cohort, earliest_age=earliest
    )
    life = table if isinstance(table, LifeTable) else table.table(None, cohort)
    extra_basis = dict(extra_basis or {})
    if not isinstance(table, LifeTable):
        extra_basis = {
            **{
                f"mortality_{k}" if k != "mortality" else "mortality_spec": v
                for k, v in table.as_dict().items()
            },
            **extra_basis,
        }
        if generational:
            extra_basis["cohort"] = int(cohort)
    table = life
    method = method_for(table, method)  # the method used, as the source and [basis] say
    formula = f"({nra}-x)E_x * a({m})_{nra} / a({m})_x"
    if source is None:
        source = (
            f"Derived by actuarial equivalence with actuarial.equivalence.derive_guide: "
            f"factor(x) = {formula} at each exact age x = {earliest}y0m to "
            f"{nra}y0m by month; mortality {table.name} ({table.source}); interest "
            f"{show_percent(interest)} a year; annuity-due paid {_payment_timing(m)}; "
            f"{_method_text(method, m)}; factors rounded to 6 decimals."
        )
        if status == "illustrative":
            source += " Illustrative: not adopted by the Junta de Síndicos."
    basis = {
        "mortality": table.name,
        "mortality_source": table.source,
        "interest_rate": float(interest) + 0.0,  # never -0.0
        "payment_timing": _payment_timing(m),
        "fractional_ages": fractional_for(table, method),
        "annuity_method": _method_text(method, m),
        "normal_retirement_age": nra,
        "formula": formula,
        "ages": f"every month from {earliest}y0m to {nra}y0m",
        "rounding": "6 decimals",
        **(extra_basis or {}),
    }
    return write_guide(
        folder,
        guide_id=guide_id,
        series=series,
        title=title,
        source=source,
        effective_from=effective_from,
        table_df=table_df,
        basis=basis,
        status=status,
        effective_until=effective_until,
        normal_retirement_age=nra,
        inputs=table.files,  # the life table's files: never replaced by the guide's
        replace=replace,
        law=law,
    )


# --------------------------------------------------------------------- review of a guide
def _age_months(age_months, *others, names=()) -> tuple[np.ndarray, ...]:
    months = real_array("age_months", age_months, EquivalenceError)
    if months.ndim != 1 or not np.array_equal(months, np.round(months)):
        raise EquivalenceError("'age_months' must be a 1-D array of whole months (e.g. 663)")
    arrays = [
        real_array(name, other, EquivalenceError) for name, other in zip(names, others, strict=True)
    ]
    for name, array in zip(names, arrays, strict=True):
        if array.shape != months.shape:
            raise EquivalenceError(
                f"'{name}' must have one value per age ({len(months)}) (got shape {array.shape})"
            )
        if not np.isfinite(array).all():
            bad = int(np.argmax(~np.isfinite(array)))
            age = int(months[bad])
            raise EquivalenceError(
                f"'{name}' must be a number at every age (got {array[bad]} at "
                f"{age // 12}y{age % 12}m)"
            )
    return months.astype(np.int64), *arrays


def _by_age(months: np.ndarray, **columns) -> pd.DataFrame:
    return pd.DataFrame({"age_years": months // 12, "age_months": months % 12, **columns})


@dataclass(frozen=True, slots=True, eq=False)
class InterestFit:
    """The interest rate whose equivalent factors fit a guide best (least squares)."""

    interest: float
    rmse: float
    max_abs_deviation: float
    deviations: pd.DataFrame  # age_years, age_months, guide_factor, equivalent_factor, difference
    bounds: tuple[float, float] = (0.0, 0.2)  # the rates searched
    # "below" or "above" when a rate beyond that bound fits better: ``interest`` is then the
    # bound, not the rate the guide implies; None when the best rate lies within the bounds.
    beyond: str | None = None


# How far beyond a bound of the search fit_interest looks: a tenth of the 0.0001% to which a
# rate is printed, so that a best rate shown as the bound is the bound at that precision.
_BEYOND_STEP = 1e-7


def fit_interest(
    table,
    age_months,
    factors,
    normal_retirement_age=NORMAL_RETIREMENT_AGE,
    m=12,
    method=None,
    bounds=(0.0, 0.2),
    cohort=None,
) -> InterestFit:
    """The rate i in ``bounds`` minimising sum (guide - f_i(x))^2 over the guide's rows.

    The NRA row (1 by definition) is left out. When a rate just beyond a bound fits better,
    ``beyond`` says which ("below", "above"): the guide is not equivalent at any rate inside,
    and ``interest`` is only the bound; widen ``bounds`` or read the deviations.
    """
    months, factors = _age_months(age_months, factors, names=("factors",))
    fitted = months != normal_retirement_age * 12
    months, factors = months[fitted], factors[fitted]
    if not months.size:
        raise EquivalenceError("'age_months' must include an age below the normal retirement age")
    ages = months / 12

    def equivalent(rate: float) -> np.ndarray:
        return early_retirement_factor(table, ages, rate, normal_retirement_age, m, method, cohort)

    def squares(rate: float) -> float:
        return float(np.sum((factors - equivalent(rate)) ** 2))

    low, high = checked_bounds(bounds, EquivalenceError)
    best = minimize_scalar(squares, bounds=(low, high), method="bounded", options={"xatol": 1e-9})
    # A step beyond each bound tells a best rate at the bound from one beyond it.
    beyond = None
    if low - _BEYOND_STEP > -1 and squares(low - _BEYOND_STEP) < best.fun:
        beyond = "below"
    elif squares(high + _BEYOND_STEP) < best.fun:
        beyond = "above"
    fitted_factors = equivalent(best.x)
    difference = factors - fitted_factors
    return InterestFit(
        interest=float(best.x),
        rmse=float(np.sqrt(np.mean(difference**2))),
        max_abs_deviation=float(np.max(np.abs(difference))),
        deviations=_by_age(
            months,
            guide_factor=factors,
            equivalent_factor=fitted_factors,
            difference=difference,
        ),
        bounds=(low, high),
        beyond=beyond,
    )


def compare_factors(age_months, factors_a, factors_b) -> pd.DataFrame:
    """Two sets of factors side by side with ``difference`` = a - b, largest |difference|
    first (ties in age order)."""
    months, a, b = _age_months(age_months, factors_a, factors_b, names=("factors_a", "factors_b"))
    frame = _by_age(months, factor_a=a, factor_b=b, difference=a - b)
    order = np.argsort(-np.abs(a - b), kind="stable")
    return frame.iloc[order].reset_index(drop=True)


def subsidy(
    table,
    age_months,
    guide_factors,
    interest,
    normal_retirement_age=NORMAL_RETIREMENT_AGE,
    m=12,
    method=None,
    cohort=None,
) -> pd.DataFrame:
    """What a guide gives beyond actuarial equivalence, per age.

    For a member entitled at the NRA to 1 a year (paid m-thly in advance) who retires at x:
    ``equivalent_factor`` = f(x), ``ratio`` = guide / equivalent, and ``subsidy_value`` =
    (guide - equivalent) * a^(m)_x, the present value at x of the excess of the guide's
    reduced annuity over the equivalent one (negative: the guide reduces more).
    """
    months, guide = _age_months(age_months, guide_factors, names=("guide_factors",))
    ages = months / 12
    equivalent = early_retirement_factor(
        table, ages, interest, normal_retirement_age, m, method, cohort
    )
    none = np.flatnonzero(~(equivalent > 0))
    if none.size:  # the ratio would divide by it
        at = none[0]
        raise EquivalenceError(
            f"the equivalent factor is {equivalent.flat[at]:g} at {format_age(months[at])} "
            f"(interest {show_rate(interest)} discounts the annuity deferred to the normal "
            "retirement age to nothing): no ratio to it"
        )
    value = annuity_due(table, ages, interest, m, method, cohort)
    return _by_age(
        months,
        guide_factor=guide,
        equivalent_factor=equivalent,
        ratio=guide / equivalent,
        subsidy_value=(guide - equivalent) * value,
    )


# --------------------------------------------------------------------- shipped guides
def pub2010_general_unisex() -> LifeTable:
    """PubG-2010 amount-weighted General Retiree, 50% male (SOA 3400) + 50% female (3399)."""
    return blend(soa(3400), soa(3399), 0.5)


def _derive_sult_5pct(folder) -> Path:
    return derive_guide(
        folder,
        sult(),
        0.05,
        guide_id="sult-5pct-monthly",
        series="sult-5pct-monthly",
        title="Illustrative reduction factors: SOA Standard Ultimate Life Table, 5%, monthly",
        effective_from=shipped_law().first_date(),  # the first day of the law
        replace=True,  # the shipped guide, derived again
    )


def _derive_pub2010_unisex(folder) -> Path:
    return derive_guide(
        folder,
        pub2010_general_unisex(),
        0.045,
        guide_id="pub2010-general-unisex-4.5pct",
        series="pub2010-general-unisex-4.5pct",
        title="Illustrative reduction factors: Pub-2010 General Retiree (amount-weighted), "
        "unisex 50/50, 4.5%, monthly",
        effective_from=shipped_law().first_date(),  # the first day of the law
        extra_basis={
            "mortality_tables": "SOA 3400 PubG-2010 Male Retiree and SOA 3399 PubG-2010 "
            "Female Retiree, amount-weighted, base year 2010, ages 50-120",
            "blend": "q_x = 0.5 q_x(male) + 0.5 q_x(female)",
            "mortality_improvement": "none (base-year 2010 rates, no projection scale)",
        },
        replace=True,  # the shipped guide, derived again
    )


SHIPPED_DERIVATIONS: dict[str, Callable[[Path], Path]] = {
    "sult-5pct-monthly": _derive_sult_5pct,
    "pub2010-general-unisex-4.5pct": _derive_pub2010_unisex,
}
"""Guide id -> function(folder) that re-derives the shipped guide into ``folder`` (over the
guide there, if any)."""
