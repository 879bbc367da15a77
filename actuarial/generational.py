"""Generational mortality: improvement scales, one life table per year of birth, and the
mortality of a valuation basis (sex-distinct, joined by age, projected, closed, scaled).

Convention (stated in docs/valuation.md): for a member born in year B, q at age x is

    q_x(B) = q_x(base) * prod_{z = base+1}^{B+x} (1 - i(x, z))      when B + x > base,
    q_x(B) = q_x(base) / prod_{z = B+x+1}^{base} (1 - i(x, z))      when B + x < base,

with i(x, z) the scale's rate at age x in calendar year z; beyond the scale's last year
its last year's rates hold, before its first year its first year's; ages outside the
scale's range take the nearest age's rates. A q of 1 (where a table runs out) stays 1. A
base year is a year of :data:`~actuarial.member_record.DATE_YEARS`, those of every date read
(a typo such as 201 for 2010 would project the scale's first rates back 1,800 years).
Within each year of age the base table's fractional-age assumption (UDD) holds on the
projected rates.

The SOA scales MP-2014 ... MP-2020 ship with ``pymort`` (mort.soa.org tables), one per sex;
a CSV scale (``age,<year>,<year>,...``) holds one scale for both sexes.
"""

from __future__ import annotations

import functools
import math
import re
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from actuarial.member_record import DATE_YEARS
from actuarial.mortality import (
    SEXES,
    LifeTable,
    MortalityError,
    age_rows,
    blend,
    csv_rows,
    is_float_number,
    real_array,
    scale_rates,
    sex_rule,
    table_from_spec,
)
from actuarial.shown_text import as_given, quoted
from actuarial.text_files import decimal_number, unique_files

__all__ = [
    "EVEN_WEIGHT",
    "MP_SCALES",
    "ImprovementScale",
    "Mortality",
    "improvement_scale",
    "project",
]


MP_SCALES = {
    # SOA Retirement Plans Experience Committee, Mortality Improvement Scales MP-2014 to
    # MP-2020: mort.soa.org table ids of the female and male scales (shipped with pymort).
    "mp-2014": {"F": 3136, "M": 3135},
    "mp-2015": {"F": 3374, "M": 3373},
    "mp-2016": {"F": 3385, "M": 3386},
    "mp-2017": {"F": 3481, "M": 3482},
    "mp-2018": {"F": 3605, "M": 3606},
    "mp-2019": {"F": 3607, "M": 3608},
    "mp-2020": {"F": 3609, "M": 3610},
}
SEX_NAMES = {"F": "female", "M": "male"}
EVEN_WEIGHT = 0.5  # the female share of q for a member of unstated sex, unless stated


@dataclass(frozen=True, slots=True, eq=False)
class ImprovementScale:
    """Annual mortality improvement rates ``rates[a, y]`` at age ``min_age + a`` in calendar
    year ``first_year + y``; ``files``: the files they were read from (a CSV scale's)."""

    name: str
    min_age: int
    first_year: int
    rates: np.ndarray = field(repr=False)
    source: str = ""
    sex: str | None = None
    files: tuple[Path, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "files", unique_files(self.files))
        try:
            rates = np.array(real_array("rates", self.rates), dtype=float, copy=True)
        except MortalityError as error:
            raise MortalityError(f"scale '{self.name}': {error}") from None
        if rates.ndim != 2 or not rates.size:
            raise MortalityError(f"scale '{self.name}': rates must be a table of ages x years")
        bad = ~(np.isfinite(rates) & (rates < 1) & (rates > -1))
        if bad.any():
            age, year = np.argwhere(bad)[0]
            raise MortalityError(
                f"scale '{self.name}': improvement at age {self.min_age + age} in "
                f"{self.first_year + year} must be in (-1, 1) (got {rates[age, year]:g})"
            )
        rates.setflags(write=False)
        object.__setattr__(self, "rates", rates)

    @property
    def last_year(self) -> int:
        return self.first_year + self.rates.shape[1] - 1

    @property
    def max_age(self) -> int:
        return self.min_age + self.rates.shape[0] - 1

    def rate(self, age, year) -> np.ndarray:
        """i(x, z): the nearest age's rates outside the ages, the first or last year's
        rates outside the years."""
        ages = np.clip(np.asarray(age, dtype=np.int64), self.min_age, self.max_age)
        years = np.clip(np.asarray(year, dtype=np.int64), self.first_year, self.last_year)
        return self.rates[ages - self.min_age, years - self.first_year]


def improvement_scale(spec: str, sex: str | None = None) -> ImprovementScale:
    """``mp-2014`` ... ``mp-2020`` for ``sex`` "F" or "M", or ``csv:<path>`` (both sexes)."""
    name = str(spec).strip().lower()
    if name in MP_SCALES:
        if sex not in SEXES:
            raise MortalityError(
                f"improvement scale '{name}' is by sex: the table it projects must be female "
                f"or male (a table whose name says so, or a side of a FEMALE/MALE spec)"
            )
        return _soa_scale(MP_SCALES[name][sex], name)
    if name.startswith("csv:") and str(spec).strip()[4:]:  # a path, never "" (the folder ".")
        return _csv_scale(Path(str(spec).strip()[4:]))
    raise MortalityError(
        f"'improvement' must be in {[*MP_SCALES, 'csv:<path>']} (got {as_given(spec)})"
    )


@functools.cache
def _soa_scale(table_id: int, name: str) -> ImprovementScale:
    from pymort import MortXML

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        xml = MortXML.from_id(table_id)
    values = xml.Tables[0].Values["vals"].unstack()
    ages, years = values.index.to_numpy(), values.columns.to_numpy()
    info = xml.ContentClassification
    return ImprovementScale(
        name=info.TableName,
        min_age=int(ages[0]),
        first_year=int(years[0]),
        rates=values.to_numpy(dtype=float),
        source=f"mort.soa.org table {table_id} ({name}): {info.TableName}",
        sex="F" if "female" in info.TableName.lower() else "M",
    )


def _csv_scale(path: Path) -> ImprovementScale:
    """A scale from ``age,<year>,<year>,...`` with consecutive ages and years; every bad
    cell is reported at once with file and line."""
    problems: list[str] = []
    reader = csv_rows(path, "improvement scale")
    header = [cell.strip() for cell in next(reader, [])]
    if (
        len(header) < 2
        or header[0] != "age"
        or not all(re.fullmatch(r"[0-9]{4}", h) for h in header[1:])  # ASCII digits only
    ):
        raise MortalityError(
            f"{path} line 1: header must be age,<year>,<year>,... (got {quoted(','.join(header))})"
        )
    years = [int(h) for h in header[1:]]
    if years != list(range(years[0], years[0] + len(years))):
        raise MortalityError(
            f"{path} line 1: years must be consecutive (got {quoted(','.join(header[1:]))})"
        )
    ages, rows = [], []
    for where, age, cells in age_rows(path, reader, len(header), problems):
        row = []
        for year, cell in zip(years, cells, strict=True):
            rate = decimal_number(cell)
            rate = math.nan if rate is None else rate
            if not (math.isfinite(rate) and -1 < rate < 1):
                shown = quoted(cell.strip())
                problems.append(f"{where}: improvement in {year} must be in (-1, 1) (got {shown})")
            row.append(rate)
        ages.append(age)
        rows.append(row)
    return ImprovementScale(
        name=path.stem,
        min_age=ages[0],
        first_year=years[0],
        rates=np.array(rows),
        source=str(path),
        files=(path,),
    )


def project(table: LifeTable, scale: ImprovementScale, base_year: int, cohorts) -> np.ndarray:
    """q[c, a]: the table's q at age ``min_age + a`` for a member born in ``cohorts[c]``,
    projected from ``base_year`` by ``scale`` (the convention in the module docstring); a
    q of 1 stays 1."""
    cohorts = np.atleast_1d(np.asarray(cohorts, dtype=np.int64))
    ages = np.arange(table.min_age, table.max_age + 1)
    years = cohorts[:, None] + ages[None, :]  # calendar year B + x of each age
    span = max(int(np.abs(years - base_year).max()), 1)
    # Sums of ln(1 - i) anchored at the base year, so a cohort's q does not depend on
    # which other cohorts are projected with it:
    # ahead[a, n] = sum over z = base+1 .. base+n+1; behind[a, n] = over z = base-n .. base.
    ahead = np.cumsum(np.log1p(-scale.rate(ages[:, None], base_year + 1 + np.arange(span))), 1)
    behind = np.cumsum(np.log1p(-scale.rate(ages[:, None], base_year - np.arange(span))), 1)
    rows = np.broadcast_to(np.arange(len(ages))[None, :], years.shape)
    offset = years - base_year
    exponent = np.where(
        offset > 0,
        ahead[rows, np.clip(offset - 1, 0, span - 1)],
        -behind[rows, np.clip(-offset - 1, 0, span - 1)],
    )
    exponent[offset == 0] = 0.0
    # A q of 1 (where a table runs out) stays 1: improvement changes the rates, not where
    # the table ends (ILT's q_110, where MP-2020's rates are not 0).
    exponent[:, table.qx == 1] = 0.0
    projected = table.qx[None, :] * np.exp(exponent)
    if (projected > 1).any():
        c, a = np.argwhere(projected > 1)[0]
        raise MortalityError(
            f"table '{table.name}' projected by '{scale.name}' gives q above 1 at age "
            f"{ages[a]} for the cohort born in {cohorts[c]} (q = {projected[c, a]:g})"
        )
    return projected


@dataclass(frozen=True, eq=False)
class Mortality:
    """The mortality of a basis: which table for a member of a given sex and year of birth.

    ``spec``: a table spec (see :func:`actuarial.mortality.table_from_spec`), or a
    sex-distinct ``FEMALE/MALE`` pair of them, the female first (each side may be a blend or
    a join). ``improvement``: ``mp-2014`` ... ``mp-2020`` (each table projected by its own
    sex's scale) or ``csv:<path>``; ``base_year``: for tables whose metadata does not give
    it. ``female_weight``: the blend of q for a member whose sex is not given (default
    50/50). ``close_at``: an explicit closing age for a table that does not run out (on a
    FEMALE/MALE basis, for each of its tables that does not).
    ``rate_factor``: every final q times this, capped at 1 (a sensitivity).
    """

    spec: str
    improvement: str | None = None
    base_year: int | None = None
    female_weight: float = EVEN_WEIGHT
    close_at: int | None = None
    rate_factor: float = 1.0
    _cache: dict = field(default_factory=dict, init=False, repr=False)
    _capped: set = field(default_factory=set, init=False, repr=False)
    _base_years: set = field(default_factory=set, init=False, repr=False)
    _read: LifeTable = field(init=False, repr=False)  # the tables as read (see __post_init__)

    def __post_init__(self) -> None:
        if not (is_float_number(self.female_weight) and 0 <= self.female_weight <= 1):
            raise MortalityError(
                f"'female_weight' must be in [0, 1] (got {as_given(self.female_weight)})"
            )
        year = self.base_year
        if year is not None and (
            isinstance(year, bool)
            or not isinstance(year, int | np.integer)
            or not DATE_YEARS[0] <= year <= DATE_YEARS[1]
        ):
            raise MortalityError(
                f"'base_year' must be a year from {DATE_YEARS[0]} to {DATE_YEARS[1]} "
                f"(got {as_given(year)})"
            )
        sides = _sides(self.spec)
        # An option that would change nothing is refused, never silently dropped.
        if len(sides) == 1 and self.female_weight != EVEN_WEIGHT:
            raise MortalityError(
                f"'female_weight' weighs the sides of a FEMALE/MALE spec; '{self.spec}' has "
                f"one (got {as_given(self.female_weight)})"
            )
        if year is not None and self.improvement is None:
            raise MortalityError(
                f"'base_year' is the year of the rates an improvement scale projects: it "
                f"needs 'improvement' (got {as_given(year)})"
            )
        object.__setattr__(self, "_sides", sides)
        # Every table and scale named must load. A generational basis's tables are read, not
        # projected: a projection is checked for each cohort asked for, never for one chosen
        # here (a basis valid for the members born in 1965 was refused for those of 1960).
        read = self._build(None, None) if self.generational else self.table(None, None)
        object.__setattr__(self, "_read", read)

    @property
    def generational(self) -> bool:
        return self.improvement is not None

    @property
    def files(self) -> tuple[Path, ...]:
        """Every file this mortality read: the CSV tables of each side, blend and join, and
        a CSV improvement scale (published tables and MP scales come from ``pymort``'s own
        data). Recorded by the parsers that read them (:attr:`LifeTable.files`)."""
        return self._read.files

    @property
    def sex_distinct(self) -> bool:
        return len(self._sides) == 2

    @property
    def base_years(self) -> list[int]:
        """The years of the rates the improvement scale projects from: each table's own
        (Pub-2010: 2010) or ``base_year`` (empty when not generational)."""
        return sorted(self._base_years)

    @property
    def capped_ages(self) -> list[int]:
        """Ages at which ``rate_factor`` took a q above 1 (capped at 1), in the tables built."""
        return sorted(self._capped)

    def scaled(self, factor: float) -> Mortality:
        """The same basis with every q times ``factor`` (capped at 1)."""
        return replace(self, rate_factor=self.rate_factor * factor)

    def table(self, sex: str | None = None, cohort: int | None = None) -> LifeTable:
        """The life table of a member of ``sex`` ("F", "M" or None: the blend) born in
        ``cohort`` (required when generational)."""
        if sex not in (None, *SEXES):
            raise MortalityError(sex_rule(sex))
        if self.generational and cohort is None:
            raise MortalityError(
                f"generational mortality ({self.improvement}) needs a cohort (year of birth)"
            )
        key = (sex, int(cohort) if self.generational else None)
        if key not in self._cache:
            self._cache[key] = self._build(sex, key[1])
        return self._cache[key]

    def _build(self, sex: str | None, cohort: int | None) -> LifeTable:
        """The table of ``sex`` born in ``cohort``; on a generational basis without a cohort,
        its tables as read (scales loaded, base years checked) and not projected."""
        if len(self._sides) == 1:
            table = self._side(self._sides[0], None, cohort)
        elif sex is None:
            female = self._side(self._sides[0], "F", cohort)
            male = self._side(self._sides[1], "M", cohort)
            if self.close_at is not None and female.runs_out and male.runs_out:
                raise MortalityError(  # one side's table is refused apart, by close_at
                    f"'close_at' closes a table that does not run out: every table of "
                    f"'{self.spec}' runs out already (got {self.close_at})"
                )
            table = blend(female, male, float(self.female_weight))
        else:
            table = self._side(self._sides[SEXES.index(sex)], sex, cohort)
        # Closed where it does not run out: on a FEMALE/MALE basis, a side that runs out (and
        # a blend of two that do) is left as it is; the one table of a spec is refused.
        if self.close_at is not None and (len(self._sides) == 1 or not table.runs_out):
            table = table.close_at(self.close_at)
        if self.rate_factor != 1.0:
            table, capped = scale_rates(table, float(self.rate_factor))
            if cohort is not None or not self.generational:  # a table a member is valued on
                self._capped.update(int(age) for age in capped)
        return table

    def _side(self, spec: str, sex: str | None, cohort: int | None) -> LifeTable:
        def leaf(table: LifeTable) -> LifeTable:
            if sex is not None and table.sex not in (None, sex):
                raise MortalityError(
                    f"table '{table.name}' is {SEX_NAMES[table.sex]} but stands on the "
                    f"{SEX_NAMES[sex]} side of '{self.spec}' (FEMALE/MALE, the female first)"
                )
            if not self.generational:
                return table
            table_sex = table.sex or sex
            scale = improvement_scale(self.improvement, table_sex)
            base_year = table.base_year
            if base_year is None:
                base_year = self.base_year
            elif self.base_year is not None and self.base_year != base_year:
                raise MortalityError(
                    f"'base_year' {self.base_year} contradicts table '{table.name}', whose "
                    f"rates are for {base_year}"
                )
            if base_year is None:
                raise MortalityError(
                    f"table '{table.name}' does not state the year of its rates: give "
                    f"--base-year to project it by '{self.improvement}'"
                )
            self._base_years.add(int(base_year))
            if cohort is None:  # the table as read, with the scale's files
                return replace(table, files=table.files + scale.files)
            q = project(table, scale, int(base_year), [cohort])[0]
            return LifeTable(
                name=f"{table.name}, {scale.name} from {base_year}, born {cohort}",
                min_age=table.min_age,
                qx=q,
                fractional=table.fractional,
                source=f"[{table.source}] projected from {base_year} by [{scale.source}] "
                f"for the cohort born in {cohort}",
                sex=table_sex,
                base_year=None,
                files=table.files + scale.files,
            )

        return table_from_spec(spec, leaf)

    def describe(self) -> str:
        """One line saying what this basis's mortality is."""
        parts = [f"mortality {self.spec}"]
        if self.sex_distinct:
            parts.append(
                f"female/male; members of unstated sex: {100 * self.female_weight:g}% female "
                f"+ {100 * (1 - self.female_weight):g}% male"
            )
        if self.generational:
            base = f", base year {self.base_year}" if self.base_year is not None else ""
            parts.append(f"generational, improvement {self.improvement}{base}")
        if self.close_at is not None:
            parts.append(f"closed at {self.close_at}")
        if self.rate_factor != 1.0:
            parts.append(f"q x {self.rate_factor:g} capped at 1")
        return "; ".join(parts)

    def as_dict(self) -> dict:
        record = {"mortality": self.spec}
        if self.sex_distinct:
            record["female_weight"] = float(self.female_weight)
        if self.generational:
            record["improvement"] = self.improvement
            if self.base_year is not None:
                record["base_year"] = int(self.base_year)
        if self.close_at is not None:
            record["close_at"] = int(self.close_at)
        if self.rate_factor != 1.0:
            record["rate_factor"] = float(self.rate_factor)
        return record


# The '/' before a table kind, spaces around it allowed as around '+' and ','.
_KIND_AHEAD = r"/\s*(?=(?:sult|ilt)(?:[,:+@\s]|$)|soa:|csv:)"


def _sides(spec: str) -> tuple[str, ...]:
    """The spec, or its female and male sides (split at the '/' before a table kind)."""
    sides = tuple(side.strip() for side in re.split(_KIND_AHEAD, str(spec).strip()))
    if len(sides) > 2 or not all(sides):
        raise MortalityError(
            f"'mortality' must be one spec or FEMALE/MALE, the female first, e.g. "
            f"'soa:3399/soa:3400' (got {as_given(spec)})"
        )
    return sides
