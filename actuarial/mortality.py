"""Life tables: q_x by integer age, survival at fractional ages, and where tables come from.

A :class:`LifeTable` holds annual mortality rates q_x for consecutive integer ages. Survival
between integer ages follows the table's fractional-age assumption: ``"udd"`` (uniform
distribution of deaths: l is linear within each year of age) or ``"constant-force"`` (l is
geometric within each year).

A table *runs out* when its last q_x is 1: no one is alive at ``omega`` = last age + 1.
A table whose last q is below 1 (PubG-2010 employees, ages 18-80, q_80 = 0.0173) is
never closed silently: survival within it is defined, but anything that needs the whole
of a life (annuities, expectations of life) refuses it naming the table, its last age
and q, unless it is closed explicitly with :meth:`LifeTable.close_at`.

Sources: :func:`sult` (SOA Standard Ultimate Life Table), :func:`ilt` (Illustrative Life
Table of Bowers et al.), :func:`soa` (mort.soa.org tables shipped with ``pymort``),
:func:`from_csv`, :func:`blend` and :func:`join`. Generational mortality (a base table
projected by an improvement scale, one table per year of birth) is in
:mod:`actuarial.generational`.
"""

from __future__ import annotations

import csv
import errno
import functools
import io
import math
import numbers
import os
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

import numpy as np

from actuarial.output_files import takes_paths
from actuarial.shown_text import as_given, kind_and_value, quoted, shortened
from actuarial.text_files import (
    PROBLEMS_SHOWN,
    decimal_number,
    more_problems,
    read_text,
    unique_files,
    whole_number,
)

__all__ = [
    "FRACTIONAL_AGE_ASSUMPTIONS",
    "LifeTable",
    "MortalityError",
    "SOA_MORTALITY_CONTENT_TYPES",
    "age_rows",
    "csv_rows",
    "blend",
    "from_csv",
    "ilt",
    "join",
    "scale_rates",
    "soa",
    "sult",
    "table_from_spec",
]

FRACTIONAL_AGE_ASSUMPTIONS = ("udd", "constant-force")
RADIX = 100_000.0
# A user's CSV of rates (a life table, an improvement scale by age and year) is kilobytes:
# a larger file is refused before it is read whole.
CSV_RATES_LIMIT = 16 * 2**20  # bytes
MAX_RATES_AGE = 200  # the last age a rates file may give: a human life ends long before
# The content types (XTbML ContentType) of the mort.soa.org tables whose rates are q_x, the
# probabilities of death of a life table. The other types pymort ships hold other rates:
# improvement ("Projection Scale"), lapse ("Termination Voluntary"), disability incidence,
# recovery and claim costs, accidental death only ("ADB, AD&D"), selection factors,
# remarriage, persistency; and "Life Table", the historical tables of the numbers living l_x.
SOA_MORTALITY_CONTENT_TYPES = (
    "Annuitant Mortality",
    "CSO/CET",
    "Disabled Lives Mortality",
    "Generational Mortality",
    "Group Life",
    "Healthy Lives Mortality",
    "Insured Lives Mortality",
    "Population Mortality",
)


SEXES = ("F", "M")  # a table's or a member's sex; None: unstated (a unisex table, a blend)


def sex_rule(sex) -> str:
    """The rule a ``sex`` other than "F", "M" or None breaks, with it."""
    return f"'sex' must be in ['F', 'M', None] (got {as_given(sex)})"


class MortalityError(ValueError):
    """A life table, or a question put to it, breaks a rule (table, field, rule and value)."""


def real_array(field_name: str, value, error: type[Exception] = MortalityError) -> np.ndarray:
    """``value`` (a number, or numbers) as a float array; text, None, a bool or anything
    else that is no real number (or Decimal) is ``error`` naming the first, never read as
    numpy would read it ("65" as 65, None as NaN). So is a finite number no float can hold
    (an int of 10**400, Decimal("1e400")), never a raw OverflowError nor read as inf."""
    try:
        array = np.asarray(value)
    except ValueError:  # rows of different lengths
        array = None
    if array is not None and array.dtype.kind in "iuf":
        if array.dtype.kind != "f" or array.dtype.itemsize <= 8:  # every value fits a float
            return array.astype(float, copy=False)
        with np.errstate(over="ignore"):  # a long double past the largest float: below
            floats = array.astype(float)
        beyond = np.isinf(floats) & np.isfinite(array)
        if beyond.any():
            raise _beyond_a_float(field_name, Decimal(str(array[beyond].flat[0])), error)
        return floats
    items = np.asarray(value, dtype=object)  # as given: [65, "66"] is not ["65", "66"]
    floats = np.empty(items.shape)
    for position, item in enumerate(items.ravel().tolist()):
        if not is_real_number(item):
            raise error(f"'{field_name}' must be a number (got {quoted(item)})")
        try:
            number = float(item)
        except OverflowError:  # an int, a Fraction past the largest float
            number = math.inf
        if math.isinf(number) and _is_finite_number(item):
            raise _beyond_a_float(field_name, item, error)
        floats.flat[position] = number
    return floats


def _beyond_a_float(field_name: str, value, error: type[Exception]) -> Exception:
    """The error of a finite number past the largest float, naming the field and the value."""
    largest = f"{np.finfo(float).max:.2g}"
    return error(
        f"'{field_name}' must be a number a float can hold, from -{largest} to {largest} "
        f"(got {_large_number_shown(value)})"
    )


def _is_finite_number(value) -> bool:
    """Whether a real number is finite, whatever its size (float() may not hold it)."""
    if isinstance(value, Decimal):
        return value.is_finite()
    return isinstance(value, numbers.Rational) or math.isfinite(value)


def _large_number_shown(value) -> str:
    """A number past the largest float as a message shows it: 1e+400, 3.33333e+399."""
    if isinstance(value, numbers.Rational):
        exact = Decimal(value.numerator) / Decimal(value.denominator)
    else:
        exact = Decimal(value)
    return f"{Decimal(f'{exact:.6g}').normalize():g}"


def is_real_number(value) -> bool:
    """Whether ``value`` is a real number (numpy's and Decimal too), not a bool nor a
    duration (numpy counts its durations as integers)."""
    return isinstance(value, numbers.Real | Decimal) and not isinstance(
        value, bool | np.bool_ | np.timedelta64
    )


def is_float_number(value) -> bool:
    """Whether ``value`` is a real number that arithmetic on floats takes (numpy's too): not
    a bool, not a Decimal (which floats do not multiply)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_)


def _show(value) -> str:
    """A number as it should appear in a message: 57, 57.4167, 0.0042."""
    return f"{float(value):g}"


@dataclass(frozen=True, slots=True, eq=False)
class LifeTable:
    """Annual mortality rates ``qx[k]`` = q at age ``min_age + k``, with their provenance.

    ``makeham`` = (A, B, c) when the table follows Makeham's law mu_x = A + B c^x; it then
    gives the exact force of mortality (used by Woolhouse's three-term formula) at the ages
    whose q follows the law. ``sex`` ("F", "M" or None) and ``base_year`` (the calendar
    year of the rates, e.g. 2010 for Pub-2010) are known for some published tables; an
    improvement scale needs them. ``files`` are the files the rates were read from: the one
    parser that reads a file (:func:`from_csv`) records it, and a table made from others (a
    blend, a join, a closing, a scaling, a projection) keeps all of theirs, so that a
    command can refuse to write over any of them.
    """

    name: str
    min_age: int
    qx: np.ndarray = field(repr=False)
    fractional: str = "udd"
    source: str = ""
    makeham: tuple[float, float, float] | None = None
    sex: str | None = None
    base_year: int | None = None
    files: tuple[Path, ...] = ()
    _q_closed: np.ndarray = field(init=False, repr=False)
    _l_unit: np.ndarray = field(init=False, repr=False)
    _alive_end: int = field(init=False, repr=False)  # found once: every age check reads it

    def __post_init__(self) -> None:
        where = f"table '{self.name}'"
        try:
            qx = np.array(real_array("qx", self.qx), dtype=float, copy=True)
        except MortalityError as error:
            raise MortalityError(f"{where}: {error}") from None
        if qx.ndim > 1:  # never flattened: two columns of rates are not one table
            raise MortalityError(
                f"{where}: 'qx' must be one rate per age (got an array of shape {qx.shape})"
            )
        qx = qx.reshape(-1)
        if isinstance(self.min_age, bool) or not isinstance(self.min_age, int | np.integer):
            raise MortalityError(
                f"{where}: 'min_age' must be an integer (got {as_given(self.min_age)})"
            )
        if qx.size == 0:
            raise MortalityError(f"{where}: 'qx' must not be empty")
        bad = ~(np.isfinite(qx) & (qx >= 0) & (qx <= 1))
        if bad.any():
            k = int(np.argmax(bad))
            raise MortalityError(
                f"{where}: q at age {self.min_age + k} must be in [0, 1] (got {qx[k]})"
            )
        if self.fractional not in FRACTIONAL_AGE_ASSUMPTIONS:
            raise MortalityError(
                f"{where}: 'fractional' must be in {list(FRACTIONAL_AGE_ASSUMPTIONS)} "
                f"(got {as_given(self.fractional)})"
            )
        if self.sex not in (None, *SEXES):
            raise MortalityError(f"{where}: {sex_rule(self.sex)}")
        qx.setflags(write=False)
        unit_l = np.concatenate([[1.0], np.cumprod(1.0 - qx)])
        unit_l.setflags(write=False)
        object.__setattr__(self, "min_age", int(self.min_age))
        object.__setattr__(self, "files", unique_files(self.files))
        object.__setattr__(self, "qx", qx)
        object.__setattr__(self, "_q_closed", qx)
        object.__setattr__(self, "_l_unit", unit_l)
        dead = np.flatnonzero(unit_l[:-1] == 0)
        alive_end = self.min_age + int(dead[0]) if dead.size else self.end_age
        object.__setattr__(self, "_alive_end", alive_end)

    # ----------------------------------------------------------------- the table's ages
    @property
    def max_age(self) -> int:
        """The last age with a q_x in the table."""
        return self.min_age + len(self.qx) - 1

    @property
    def end_age(self) -> int:
        """The last age with an l: max_age + 1 (0 there if the table runs out)."""
        return self.max_age + 1

    @property
    def alive_end(self) -> int:
        """The first age at which no one is alive: the end age, or the age after a q of 1
        that comes before the last age (no one reaches the ages after it)."""
        return self._alive_end

    @property
    def runs_out(self) -> bool:
        """Whether the last q is 1, so that no one is alive at max_age + 1."""
        return bool(self.qx[-1] == 1)

    @property
    def omega(self) -> int:
        """The age at which no one is alive (max_age + 1); refused if the table does not run out."""
        self.require_runs_out()
        return self.end_age

    def require_runs_out(self) -> LifeTable:
        """This table, or the refusal naming it, its last age and q, if its last q is below 1."""
        if not self.runs_out:
            raise MortalityError(
                f"table '{self.name}' does not run out: its last age is {self.max_age} with "
                f"q = {_show(self.qx[-1])} (below 1), so survival beyond {self.end_age} is "
                f"unknown; use a table that runs out, join one from a later age, or close "
                f"this one explicitly (--close-at AGE, Python: table.close_at(AGE))"
            )
        return self

    def close_at(self, age: int) -> LifeTable:
        """The table with q = 1 at ``age`` (min_age < age <= max_age + 1) and no ages after.

        The explicit closing rule for a table that does not run out; stated in its name. A
        table that runs out already is refused: closing it would drop its own rates from
        ``age`` on, which no one asking to close a table means.
        """
        if isinstance(age, bool) or not isinstance(age, int | np.integer):
            raise MortalityError(f"'close_at' must be an integer age (got {as_given(age)})")
        if not self.min_age < age <= self.end_age:
            raise MortalityError(
                f"'close_at' must be in [{self.min_age + 1}, {self.end_age}] for table "
                f"'{self.name}' (got {quoted(age)})"
            )
        if self.runs_out:
            raise MortalityError(
                f"'close_at' closes a table that does not run out: table '{self.name}' runs "
                f"out already (q = 1 at {self.max_age}) (got {age})"
            )
        qx = np.append(self.qx[: age - self.min_age], 1.0)
        return LifeTable(
            name=f"{self.name}, closed at {age}",
            min_age=self.min_age,
            qx=qx,
            fractional=self.fractional,
            source=f"{self.source}; closed explicitly by q = 1 at age {age}",
            makeham=self.makeham,
            sex=self.sex,
            base_year=self.base_year,
            files=self.files,
        )

    def _closed_qx(self) -> np.ndarray:
        """q at min_age..max_age (the table's own rates)."""
        return self._q_closed

    def check_ages(self, age, field_name: str = "age", upper: str = "omega") -> np.ndarray:
        """``age`` as a float array, or an error naming the first age outside the table.

        ``upper="omega"`` allows [min_age, max_age + 1]; ``"alive"`` allows
        [min_age, max_age + 1), the ages at which the table says someone may be alive: up to
        the age after a q of 1 that comes before the last age, if one does.
        """
        ages = real_array(field_name, age)
        top = self.end_age if upper == "omega" else self.alive_end
        inside = (ages >= self.min_age) & ((ages <= top) if upper == "omega" else (ages < top))
        if not inside.all():
            bad = ages[~inside].flat[0]
            bracket = "]" if upper == "omega" else ")"
            raise MortalityError(
                f"'{field_name}' must be in [{self.min_age}, {top}{bracket} for table "
                f"'{self.name}' (got {_show(bad)})"
            )
        return ages

    # ----------------------------------------------------------------- mortality rates
    def q(self, age) -> np.ndarray:
        """q_x at integer ages from min_age to max_age."""
        ages = real_array("age", age)
        inside = (ages >= self.min_age) & (ages <= self.max_age) & (ages == np.floor(ages))
        if not inside.all():
            bad = ages[~inside].flat[0]
            raise MortalityError(
                f"'age' must be an integer in [{self.min_age}, {self.max_age}] for table "
                f"'{self.name}' (got {_show(bad)})"
            )
        return self.qx[ages.astype(np.int64) - self.min_age]

    def force_of_mortality(self, age) -> np.ndarray:
        """mu_x: exact if the table carries Makeham's law, else estimated from q.

        The estimate is -(ln p_{x-1} + ln p_x)/2 at integer ages (-ln p_x at the first age),
        linear between integer ages. In a year of age whose q is 1 (the table's last, or one
        before it), in the year before it and in the table's last year (and wherever a
        law's q is not the table's, as at SULT's q_120 = 1), mu is the table's own: under UDD
        mu_{x+s} = q_x / (1 - s q_x), under a constant force -ln(1 - q_x) (infinite where q_x
        is 1); the estimate's value at the first age of such a year is that same own force,
        so the year before ends where it starts. A central estimate is never taken across a
        q of 1, whose -ln p is infinite.
        """
        ages = self.check_ages(age, upper="alive")
        q = self._closed_qx()
        k, s = self._year_and_fraction(ages)
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.fractional == "udd":
                own = q[k] / (1.0 - s * q[k])
                own_at_start = q
            else:
                own = -np.log1p(-q[k])
                own_at_start = -np.log1p(-q)
            if self.makeham is not None:
                a, b, c = self.makeham
                follows_law = np.isclose(
                    q,
                    _makeham_qx(self.min_age + np.arange(len(q), dtype=float), a, b, c),
                    rtol=1e-12,
                    atol=0.0,
                )
                law = a + b * np.power(c, ages)
                return np.where(follows_law[k], law, own)
            # The years whose force is the table's own: a q of 1, the year before one, the last.
            certain = q == 1
            own_year = certain | np.append(certain[1:], True)
            log_p = np.log1p(-q)
            central = -0.5 * (np.concatenate([log_p[:1], log_p[:-1]]) + log_p)
            central = np.where(own_year, own_at_start, central)
            grid = self.min_age + np.arange(len(central))
            return np.where(own_year[k], own, np.interp(ages, grid, central))

    # ----------------------------------------------------------------- survival
    def _l_integer(self, radix: float = RADIX) -> np.ndarray:
        """l at integer ages min_age..omega (the last is 0)."""
        return self._l_unit if radix == 1.0 else radix * self._l_unit

    def l(self, age, radix: float = RADIX, fractional: str | None = None) -> np.ndarray:  # noqa: E743
        """l_x for ages in [min_age, omega], with l at min_age = ``radix``.

        Between integer ages: linear (UDD) or geometric (constant force), by ``fractional``
        (default: the table's assumption).
        """
        ages = self.check_ages(age)
        return self._l(ages, radix, fractional or self.fractional)

    def _year_and_fraction(self, ages) -> tuple[np.ndarray, np.ndarray]:
        """For each age, the year of age k (0 at min_age) and the fraction s of it lived.

        Ages beyond max_age + 1 count as max_age + 1, where k is the last year and s = 1
        (l = 0 there for a table that runs out; callers check the others).
        """
        years = np.minimum(ages, self.end_age) - self.min_age
        k = np.minimum(np.floor(years).astype(np.int64), len(self._q_closed) - 1)
        return k, years - k

    def _l(self, ages: np.ndarray, radix: float, fractional: str) -> np.ndarray:
        """l at checked ages; ages beyond omega give 0."""
        l_int = self._l_integer(radix)
        q = self._closed_qx()
        k, s = self._year_and_fraction(ages)
        if fractional == "udd":
            return l_int[k] * (1.0 - s * q[k])
        if fractional == "constant-force":
            return l_int[k] * np.power(1.0 - q[k], s)
        raise MortalityError(
            f"'fractional' must be in {list(FRACTIONAL_AGE_ASSUMPTIONS)} "
            f"(got {as_given(fractional)})"
        )

    def survival(self, age, t, fractional: str | None = None) -> np.ndarray:
        """t_p_x: probability that a life aged ``age`` survives ``t`` more years.

        Ages and durations may be fractional and broadcast; survival past omega is 0.
        ``fractional`` overrides the table's fractional-age assumption.
        """
        ages = self.check_ages(age, upper="alive")
        durations = real_array("t", t)
        if not (durations >= 0).all():
            bad = durations[~(durations >= 0)].flat[0]
            raise MortalityError(f"'t' must be >= 0 (got {_show(bad)})")
        rule = fractional or self.fractional
        if not self.runs_out and (ages + durations > self.end_age).any():
            self.require_runs_out()  # survival past the table's end is unknown
        return self._l(ages + durations, 1.0, rule) / self._l(ages, 1.0, rule)

    def e(self, age, complete: bool = False) -> np.ndarray:
        """Expectation of life: curtate e_x = sum_k k_p_x, or complete (integral of t_p_x).

        Refused for a table that does not run out. The complete expectation is the integral
        from the age to omega, summed from the end of the table (no difference of two large
        integrals from min_age: exact to rounding at every age, e(120) = 0.5 on SULT).
        """
        self.require_runs_out()
        ages = self.check_ages(age, upper="alive")
        if not complete:
            durations = np.arange(1, self.omega - self.min_age + 1)
            return self.survival(ages[..., None], durations).sum(axis=-1)
        l_int = self._l_integer(1.0)
        q = self._closed_qx()
        k, s = self._year_and_fraction(ages)
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.fractional == "udd":
                whole = l_int[:-1] * (1.0 - q / 2)
                # integral over [s, 1] of l_k (1 - t q_k) dt, divided by l(x) = l_k (1 - s q_k)
                rest = (1.0 - s) * (1.0 - q[k] * (1.0 + s) / 2) / (1.0 - s * q[k])
            else:
                log_p = np.log1p(-q)
                whole = np.where(q == 0, l_int[:-1], np.where(q == 1, 0.0, -q / log_p * l_int[:-1]))
                # integral over [s, 1] of p^t dt / p^s = (p^(1-s) - 1) / ln p
                rest = np.where(
                    q[k] == 0,
                    1.0 - s,
                    np.where(q[k] == 1, 0.0, np.expm1((1.0 - s) * log_p[k]) / log_p[k]),
                )
            tail = np.concatenate([np.cumsum(whole[::-1])[::-1], [0.0]])  # from age k on
            alive = self._l(ages, 1.0, self.fractional)
            return rest + tail[k + 1] / alive


# --------------------------------------------------------------------- tables by law
def _makeham_qx(ages: np.ndarray, a: float, b: float, c: float) -> np.ndarray:
    """Annual q_x under Makeham's law: 1 - exp(-(A + B c^x (c - 1)/ln c))."""
    return -np.expm1(-(a + b * np.power(c, ages) * (c - 1) / math.log(c)))


def _makeham_table(name: str, ages: tuple[int, int], law: tuple, source: str) -> LifeTable:
    """Makeham's law ``(A, B, c)`` at integer ages ``ages[0]``-``ages[1]``, the last q 1."""
    qx = _makeham_qx(np.arange(ages[0], ages[1] + 1, dtype=float), *law)
    qx[-1] = 1.0
    return LifeTable(name=name, min_age=ages[0], qx=qx, source=source, makeham=law)


def sult() -> LifeTable:
    """SOA Standard Ultimate Life Table: Makeham A=0.00022, B=2.7e-6, c=1.124, ages 20-120."""
    law = (0.00022, 2.7e-6, 1.124)
    return _makeham_table(
        "SULT",
        (20, 120),
        law,
        "SOA Standard Ultimate Life Table (AMLCR, SOA exam LTAM): Makeham's law "
        "mu_x = 0.00022 + 2.7e-6 * 1.124^x, ages 20-120, q_120 = 1",
    )


def ilt() -> LifeTable:
    """Illustrative Life Table (Bowers et al.): 1000 mu_x = 0.7 + 0.05 * 10^(0.04 x), ages 0-110."""
    law = (0.0007, 0.00005, 10**0.04)
    return _makeham_table(
        "ILT",
        (0, 110),
        law,
        "Illustrative Life Table, Bowers et al., Actuarial Mathematics: Makeham's law "
        "1000 mu_x = 0.7 + 0.05 * 10^(0.04 x) at every age, ages 0-110, q_110 = 1",
    )


# --------------------------------------------------------------------- tables from data
def soa(table_id: int) -> LifeTable:
    """A mort.soa.org table shipped offline with ``pymort``, by its SOA table id.

    Uses the table's one-dimensional (ultimate) rates: for a select-and-ultimate table, the
    ultimate table. E.g. 3400 = PubG-2010 Male Retiree, 3399 = PubG-2010 Female Retiree
    (both amount-weighted). A table whose content type is not a mortality table's
    (:data:`SOA_MORTALITY_CONTENT_TYPES`: not an improvement scale, a lapse table, ...) is
    refused naming its id, name and content type: its rates are not q_x.
    """
    from pymort import MortXML

    if isinstance(table_id, bool) or not isinstance(table_id, int | np.integer):
        raise MortalityError(
            f"'table_id' must be an integer SOA table id (got {as_given(table_id)})"
        )
    try:
        with warnings.catch_warnings():  # pymort 2.0 uses deprecated importlib/pandas calls
            warnings.simplefilter("ignore", DeprecationWarning)
            xml = MortXML.from_id(int(table_id))
    except OSError as error:
        if error.errno not in (errno.ENOENT, errno.ENAMETOOLONG):  # an id of 4000 digits
            raise
        raise MortalityError(
            f"'table_id' must be a mort.soa.org table shipped with pymort "
            f"(got {shortened(str(table_id))})"
        ) from None
    info = xml.ContentClassification
    content_type = re.sub(r"\s*/\s*", "/", str(info.ContentType or "").strip())  # "CSO / CET"
    if content_type not in SOA_MORTALITY_CONTENT_TYPES:
        raise MortalityError(
            f"SOA table {table_id} {quoted(info.TableName)} is a {quoted(content_type)} table: "
            f"'table_id' must be a mortality table (content type in "
            f"{list(SOA_MORTALITY_CONTENT_TYPES)})"
        )
    ultimate = [t for t in xml.Tables if len(t.MetaData.AxisDefs) == 1]
    if not ultimate:
        raise MortalityError(f"SOA table {table_id} has no one-dimensional (ultimate) rates")
    table = ultimate[-1]
    ages = table.Values.index.to_numpy()
    if not np.array_equal(ages, np.arange(ages[0], ages[0] + len(ages))):
        raise MortalityError(f"SOA table {table_id}: ages must be consecutive integers")
    selected = " (ultimate table)" if len(xml.Tables) > 1 else ""
    description = str(table.MetaData.TableDescription or info.TableDescription or "")
    base_year = re.search(r"Base Year[^.]*?(\d{4})", description)
    return LifeTable(
        name=info.TableName,
        min_age=int(ages[0]),
        qx=table.Values["vals"].to_numpy(dtype=float),
        source=f"mort.soa.org table {table_id}{selected}: {table.MetaData.TableDescription}",
        sex=_sex_in_name(info.TableName),
        base_year=int(base_year.group(1)) if base_year else None,
    )


def _sex_in_name(name: str) -> str | None:
    """'F' or 'M' when a published table's name says Female or Male, else None."""
    words = set(re.findall(r"[a-z]+", str(name).lower()))
    if "female" in words and "male" not in words:
        return "F"
    if "male" in words and "female" not in words:
        return "M"
    return None


@functools.cache
def _soa_cached(table_id: int) -> LifeTable:
    """:func:`soa`, read once per process (tables are immutable)."""
    return soa(table_id)


@takes_paths("path")
def csv_rows(path: Path, kind: str):
    """A ``csv.reader`` over the file at ``path``, a user's ``kind`` ("life table",
    "improvement scale"): at most :data:`CSV_RATES_LIMIT` bytes, UTF-8 (a byte order mark
    accepted, as spreadsheets write one). A file that cannot be read, is larger or is not
    UTF-8 is one :class:`MortalityError` naming it (and the line of the first bad byte)."""
    article = "an" if kind[0] in "aeiou" else "a"
    text, problems = read_text(path, CSV_RATES_LIMIT, f"{article} {kind}")
    if text is None:
        problem = problems[0]
        where = str(path) if problem.line is None else f"{path} line {problem.line}"
        raise MortalityError(f"{where}: {kind}: {problem.message}")
    return csv.reader(io.StringIO(text, newline=""))


def age_rows(path: Path, reader, width: int, problems: list[str]):
    """The data rows of a CSV by consecutive integer age: (where, age, cells after the age).

    Blank rows are skipped; a row with the wrong number of fields or a bad age is reported
    in ``problems`` (file and line) and skipped, and the next age is not checked against
    the age before it (the row skipped may hold the age between); a gap in the ages is
    reported and kept.
    After the last row, a file without rows is reported too, and every problem (the
    caller's included) is raised at once as one :class:`MortalityError`.
    """
    previous = None  # the age of the row before, None when that row was skipped
    for record in reader:
        where = f"{path} line {reader.line_num}"
        if not any(cell.strip() for cell in record):
            continue
        before, previous = previous, None  # None again unless this row is read
        if len(record) != width:
            problems.append(f"{where}: row must have {width} fields (got {len(record)})")
            continue
        age = whole_number(record[0])
        if age is None:
            problems.append(f"{where}: 'age' must be an integer (got {quoted(record[0])})")
            continue
        if not 0 <= age <= MAX_RATES_AGE:
            shown = shortened(record[0].strip())
            problems.append(f"{where}: 'age' must be in [0, {MAX_RATES_AGE}] (got {shown})")
            continue
        if before is not None and age != before + 1:
            problems.append(f"{where}: 'age' must be {before + 1}, the next age (got {age})")
        previous = age
        yield where, age, record[1:]
    if previous is None and not problems:  # no row read, and none skipped (each is a problem)
        problems.append(f"{path}: no rows after the header")
    if problems:
        shown = problems[:PROBLEMS_SHOWN]
        if len(problems) > PROBLEMS_SHOWN:
            shown.append(more_problems(len(problems)))
        raise MortalityError("\n".join(shown))


@takes_paths("path")
def from_csv(path) -> LifeTable:
    """A table from a CSV file with header ``age,qx`` and consecutive integer ages.

    The file is only parsed; every bad row is reported at once with file and line.
    """
    if not isinstance(path, str | os.PathLike):
        raise MortalityError(f"'path' must be a CSV file's path (got {as_given(path)})")
    path = Path(path)
    problems: list[str] = []
    ages: list[int] = []
    rates: list[float] = []
    reader = csv_rows(path, "life table")
    header = [cell.strip() for cell in next(reader, [])]
    if header != ["age", "qx"]:
        raise MortalityError(
            f"{path} line 1: header must be age,qx (got {quoted(','.join(header))})"
        )
    for where, age, (cell,) in age_rows(path, reader, 2, problems):
        rate = decimal_number(cell)
        if rate is None:
            problems.append(f"{where}: 'qx' must be a number (got {quoted(cell)})")
            rate = math.nan
        elif not (math.isfinite(rate) and 0 <= rate <= 1):
            problems.append(f"{where}: 'qx' must be in [0, 1] (got {shortened(cell.strip())})")
        ages.append(age)
        rates.append(rate)
    return LifeTable(
        name=path.stem, min_age=ages[0], qx=np.array(rates), source=str(path), files=(path,)
    )


def blend(table_a: LifeTable, table_b: LifeTable, weight_a: float) -> LifeTable:
    """Unisex blend: q_x = w q^a_x + (1 - w) q^b_x on the ages both tables share.

    The blend covers only those ages (its source says which); an age outside them is
    refused with the range, never filled from one table alone.
    """
    for name, table in (("table_a", table_a), ("table_b", table_b)):
        if not isinstance(table, LifeTable):
            raise MortalityError(
                f"'{name}' must be a LifeTable, e.g. actuarial.mortality.ilt() (got "
                f"{kind_and_value(table)})"
            )
    if not (is_float_number(weight_a) and 0 <= weight_a <= 1):  # not True: a bool is no weight
        raise MortalityError(f"'weight_a' must be in [0, 1] (got {as_given(weight_a)})")
    low, high = max(table_a.min_age, table_b.min_age), min(table_a.max_age, table_b.max_age)
    if low > high:
        raise MortalityError(
            f"tables '{table_a.name}' and '{table_b.name}' share no ages "
            f"({table_a.min_age}-{table_a.max_age} and {table_b.min_age}-{table_b.max_age})"
        )
    if table_a.fractional != table_b.fractional:
        raise MortalityError(
            f"tables to blend must share a fractional-age assumption (got "
            f"{table_a.fractional!r} and {table_b.fractional!r})"
        )
    common = np.arange(low, high + 1)
    qx = weight_a * table_a.q(common) + (1 - weight_a) * table_b.q(common)
    weights = f"{100 * weight_a:g}% {table_a.name} + {100 * (1 - weight_a):g}% {table_b.name}"
    return LifeTable(
        name=weights,
        min_age=low,
        qx=qx,
        fractional=table_a.fractional,
        source=f"blend of q_x, ages {low}-{high}: {weight_a:g} x [{table_a.source}] + "
        f"{1 - weight_a:g} x [{table_b.source}]",
        sex=table_a.sex if table_a.sex == table_b.sex else None,
        base_year=table_a.base_year if table_a.base_year == table_b.base_year else None,
        files=table_a.files + table_b.files,
    )


def join(tables: list[LifeTable], from_ages: list[int]) -> LifeTable:
    """One table from several by age: ``tables[0]`` below ``from_ages[0]``, ``tables[1]``
    from it (below the next), and so on, e.g. Pub-2010 employees below 50, retirees from 50.

    Each table must cover its ages: the one before a join age up to the year before it, the
    one after from the join age on.
    """
    if len(tables) != len(from_ages) + 1 or not tables:
        raise MortalityError("'join' needs one more table than join ages")
    if list(from_ages) != sorted(set(from_ages)):
        raise MortalityError(f"join ages must increase (got {list(from_ages)})")
    if len({t.fractional for t in tables}) > 1:
        raise MortalityError("tables to join must share a fractional-age assumption")
    if from_ages and from_ages[0] <= tables[0].min_age:
        raise MortalityError(
            f"join age {from_ages[0]} must be above {tables[0].min_age}, the first age of "
            f"table '{tables[0].name}'"
        )
    bounds = [tables[0].min_age, *from_ages]
    pieces, names = [], []
    for position, table in enumerate(tables):
        low = bounds[position]
        high = from_ages[position] - 1 if position < len(from_ages) else table.max_age
        if not table.min_age <= low <= high <= table.max_age:
            needed = f"{low}-{high}" if position < len(from_ages) else f"from {low} on"
            raise MortalityError(
                f"table '{table.name}' (ages {table.min_age}-{table.max_age}) must cover ages "
                f"{needed} of the join"
            )
        pieces.append(table.q(np.arange(low, high + 1)))
        names.append(f"{table.name} {low}-{high}")
    sexes = {t.sex for t in tables}
    years = {t.base_year for t in tables}
    return LifeTable(
        name=" + ".join(names),
        min_age=bounds[0],
        qx=np.concatenate(pieces),
        fractional=tables[0].fractional,
        source="join by age: "
        + "; ".join(
            f"ages {name.rsplit(' ', 1)[1]} from [{t.source}]"
            for name, t in zip(names, tables, strict=True)
        ),
        sex=sexes.pop() if len(sexes) == 1 else None,
        base_year=years.pop() if len(years) == 1 else None,
        files=tuple(file for table in tables for file in table.files),
    )


def scale_rates(table: LifeTable, factor: float) -> tuple[LifeTable, np.ndarray]:
    """The table with every q multiplied by ``factor``, and the ages where that passed 1.

    A scaled q above 1 is capped at 1 (no one survives that age); the ages capped are
    returned so that a sensitivity can say where it happened. A q of 1 (the end of a table
    that runs out) stays 1: scaling changes the rates, not where the table ends.
    """
    if not isinstance(factor, int | float):
        raise MortalityError(f"'factor' must be a number > 0 (got {as_given(factor)})")
    factor = float(real_array("factor", factor))  # an int no float holds: refused, named
    if not (math.isfinite(factor) and factor > 0):
        raise MortalityError(f"'factor' must be a number > 0 (got {as_given(factor)})")
    scaled = np.where(table.qx == 1, 1.0, table.qx * factor)
    capped = np.flatnonzero(scaled > 1) + table.min_age
    return (
        LifeTable(
            name=f"{table.name} x {factor:g}",
            min_age=table.min_age,
            qx=np.minimum(scaled, 1.0),
            fractional=table.fractional,
            source=f"q_x x {factor:g}, capped at 1, of [{table.source}]",
            sex=table.sex,
            base_year=table.base_year,
            files=table.files,
        ),
        capped,
    )


def table_from_spec(spec: str, leaf: Callable[[LifeTable], LifeTable] | None = None) -> LifeTable:
    """A table named on the command line: ``sult``, ``ilt``, ``soa:<id>``, ``csv:<path>``,
    a blend of two: ``soa:3400,soa:3399:0.5`` (the weight of a component follows it;
    the weights must be stated and sum to 1), or a join by age of tables or blends:
    ``soa:3398+soa:3400@50`` (3398 below 50, 3400 from 50; more: ``A+B@50+C@80``).

    ``leaf`` transforms each named table before it is blended or joined (generational
    mortality projects each one by its own sex's improvement scale).
    """
    pieces = [piece.strip() for piece in str(spec).split("+")]
    tables, from_ages = [_blend_from_spec(pieces[0], leaf)], []
    for piece in pieces[1:]:
        body, at, age = piece.rpartition("@")
        from_age = _natural_number(age)
        if not at or from_age is None or not body.strip():
            raise MortalityError(
                f"'mortality' join must give each later table its first age, e.g. "
                f"'soa:3398+soa:3400@50' (got {as_given(spec)})"
            )
        tables.append(_blend_from_spec(body.strip(), leaf))
        from_ages.append(from_age)
    return tables[0] if len(tables) == 1 else join(tables, from_ages)


def _blend_from_spec(spec: str, leaf) -> LifeTable:
    """One table or a blend of two (see :func:`table_from_spec`)."""
    parts = [part.strip() for part in str(spec).split(",")]
    if not 1 <= len(parts) <= 2 or not all(parts):
        raise MortalityError(
            f"'mortality' must be one table or a blend of two, e.g. 'sult' or "
            f"'soa:3400,soa:3399:0.5' (got {as_given(spec)})"
        )
    tables, weights = [], []
    for part in parts:
        table, weight = _component(part, spec)
        tables.append(leaf(table) if leaf else table)
        weights.append(weight)
    if len(tables) == 1:
        if weights[0] not in (None, 1.0):
            raise MortalityError(
                f"'mortality' weight of a single table must be 1 (got {as_given(spec)})"
            )
        return tables[0]
    first, second = weights
    if first is None and second is None:
        raise MortalityError(
            f"'mortality' blend must state a weight, e.g. 'soa:3400,soa:3399:0.5' "
            f"(got {as_given(spec)})"
        )
    weight_a = first if first is not None else 1 - second
    if second is not None and abs(weight_a + second - 1) > 1e-12:
        raise MortalityError(f"'mortality' blend weights must sum to 1 (got {as_given(spec)})")
    return blend(tables[0], tables[1], weight_a)


def _component(part: str, spec: str) -> tuple[LifeTable, float | None]:
    """One table of a spec and its stated weight (None when not stated)."""
    kind, *args = part.split(":")
    arity = {"sult": 0, "ilt": 0, "soa": 1}.get(kind)
    weighted = (kind == "csv" and len(args) > 1 and _is_number(args[-1])) or (
        arity is not None and len(args) == arity + 1
    )
    weight = _weight(args.pop(), spec) if weighted else None
    if kind == "sult" and not args:
        return sult(), weight
    if kind == "ilt" and not args:
        return ilt(), weight
    if kind == "soa" and len(args) == 1 and (table_id := _natural_number(args[0])) is not None:
        return _soa_cached(table_id), weight
    if kind == "csv" and ":".join(args):  # a path: "csv:" alone would read the folder "."
        return from_csv(":".join(args)), weight
    raise MortalityError(
        f"'mortality' table must be in ['sult', 'ilt', 'soa:<id>', 'csv:<path>'], each "
        f"optionally followed by ':<weight>' (got {as_given(part)})"
    )


def _natural_number(text: str) -> int | None:
    """An age or a table id of a spec: a whole number as in files (ASCII digits, never '²'
    or '٦٠'), not below 0; None otherwise."""
    number = whole_number(text)
    return number if number is not None and number >= 0 else None


def _is_number(text: str) -> bool:
    # Whatever float() reads (0.5_0, nan too): read as a weight, so _weight says why it is
    # not one, rather than as part of a path.
    try:
        float(text)
    except ValueError:
        return False
    return True


def _weight(text: str, spec: str) -> float:
    weight = decimal_number(text)  # a plain decimal number, as in files: not 0.5_0, nan, inf
    if weight is None:
        raise MortalityError(
            f"'mortality' weight must be a number (got {as_given(text)} in {as_given(spec)})"
        )
    if not 0 <= weight <= 1:
        raise MortalityError(
            f"'mortality' weight must be in [0, 1] (got {text} in {as_given(spec)})"
        )
    return weight
