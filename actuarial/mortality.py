"""Life tables: q_x by integer age, survival at fractional ages, and where tables come from.

A :class:`LifeTable` holds annual mortality rates q_x for consecutive integer ages. Survival
between integer ages follows the table's fractional-age assumption: ``"udd"`` (uniform
distribution of deaths: l is linear within each year of age) or ``"constant-force"`` (l is
geometric within each year). A table whose last q_x is below 1 is closed by q = 1 at the
next age, so every table has an age ``omega`` at which no one is alive.

Sources: :func:`sult` (SOA Standard Ultimate Life Table), :func:`ilt` (Illustrative Life
Table of Bowers et al.), :func:`soa` (mort.soa.org tables shipped with ``pymort``),
:func:`from_csv` and :func:`blend`.
"""

from __future__ import annotations

import csv
import math
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = [
    "FRACTIONAL_AGE_ASSUMPTIONS",
    "LifeTable",
    "MortalityError",
    "blend",
    "from_csv",
    "ilt",
    "soa",
    "sult",
    "table_from_spec",
]

FRACTIONAL_AGE_ASSUMPTIONS = ("udd", "constant-force")
RADIX = 100_000.0


class MortalityError(ValueError):
    """A life table, or a question put to it, breaks a rule (table, field, rule and value)."""


def _show(value) -> str:
    """A number as it should appear in a message: 57, 57.4167, 0.0042."""
    return f"{float(value):g}"


@dataclass(frozen=True, slots=True, eq=False)
class LifeTable:
    """Annual mortality rates ``qx[k]`` = q at age ``min_age + k``, with their provenance.

    ``makeham`` = (A, B, c) when the table follows Makeham's law mu_x = A + B c^x; it then
    gives the exact force of mortality (used by Woolhouse's three-term formula).
    """

    name: str
    min_age: int
    qx: np.ndarray = field(repr=False)
    fractional: str = "udd"
    source: str = ""
    makeham: tuple[float, float, float] | None = None
    _q_closed: np.ndarray = field(init=False, repr=False)
    _l_unit: np.ndarray = field(init=False, repr=False)
    _l_ahead: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        qx = np.array(self.qx, dtype=float, copy=True).reshape(-1)
        where = f"table '{self.name}'"
        if isinstance(self.min_age, bool) or not isinstance(self.min_age, int | np.integer):
            raise MortalityError(f"{where}: 'min_age' must be an integer (got {self.min_age!r})")
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
                f"(got {self.fractional!r})"
            )
        qx.setflags(write=False)
        closed = qx if qx[-1] == 1 else np.append(qx, 1.0)
        unit_l = np.concatenate([[1.0], np.cumprod(1.0 - closed)])
        size = len(unit_l) + 1  # ages min_age..omega, then one age of 0 beyond
        padded = np.concatenate([unit_l, np.zeros(size)])
        ahead = padded[np.add.outer(np.arange(size), np.arange(size))]
        for array in (closed, unit_l, ahead):
            array.setflags(write=False)
        object.__setattr__(self, "min_age", int(self.min_age))
        object.__setattr__(self, "qx", qx)
        object.__setattr__(self, "_q_closed", closed)
        object.__setattr__(self, "_l_unit", unit_l)
        object.__setattr__(self, "_l_ahead", ahead)  # [n, k] = l_{n+k}, radix 1, 0 past omega

    # ----------------------------------------------------------------- the table's ages
    @property
    def max_age(self) -> int:
        """The last age with a q_x in the table."""
        return self.min_age + len(self.qx) - 1

    @property
    def omega(self) -> int:
        """The age at which no one is alive: max_age + 1, or max_age + 2 if the last q < 1."""
        return self.max_age + (1 if self.qx[-1] == 1 else 2)

    def _closed_qx(self) -> np.ndarray:
        """q at min_age..omega-1: the table's q, closed by q = 1 if its last is below 1."""
        return self._q_closed

    def check_ages(self, age, field_name: str = "age", upper: str = "omega") -> np.ndarray:
        """``age`` as a float array, or an error naming the first age outside the table.

        ``upper="omega"`` allows [min_age, omega]; ``"alive"`` allows [min_age, omega),
        the ages at which someone is still alive.
        """
        ages = np.asarray(age, dtype=float)
        top = self.omega
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
        ages = np.asarray(age, dtype=float)
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
        linear between integer ages; it is infinite where q = 1.
        """
        ages = self.check_ages(age, upper="alive")
        if self.makeham is not None:
            a, b, c = self.makeham
            return a + b * np.power(c, ages)
        with np.errstate(divide="ignore"):
            log_p = np.log1p(-self._closed_qx())
        central = -0.5 * (np.concatenate([log_p[:1], log_p[:-1]]) + log_p)
        grid = self.min_age + np.arange(len(central))
        with np.errstate(invalid="ignore"):
            return np.interp(ages, grid, central)

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

        Ages beyond omega count as omega, where k is the last year and s = 1 (l = 0).
        """
        years = np.minimum(ages, self.omega) - self.min_age
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
            f"'fractional' must be in {list(FRACTIONAL_AGE_ASSUMPTIONS)} (got {fractional!r})"
        )

    def survival(self, age, t, fractional: str | None = None) -> np.ndarray:
        """t_p_x: probability that a life aged ``age`` survives ``t`` more years.

        Ages and durations may be fractional and broadcast; survival past omega is 0.
        ``fractional`` overrides the table's fractional-age assumption.
        """
        ages = self.check_ages(age, upper="alive")
        durations = np.asarray(t, dtype=float)
        if not (durations >= 0).all():
            bad = durations[~(durations >= 0)].flat[0]
            raise MortalityError(f"'t' must be >= 0 (got {_show(bad)})")
        rule = fractional or self.fractional
        return self._l(ages + durations, 1.0, rule) / self._l(ages, 1.0, rule)

    def e(self, age, complete: bool = False) -> np.ndarray:
        """Expectation of life: curtate e_x = sum_k k_p_x, or complete (integral of t_p_x)."""
        ages = self.check_ages(age, upper="alive")
        if not complete:
            durations = np.arange(1, self.omega - self.min_age + 1)
            return self.survival(ages[..., None], durations).sum(axis=-1)
        cumulative = self._integral_of_l(np.array([float(self.omega)]))[0]
        return (cumulative - self._integral_of_l(ages)) / self._l(ages, 1.0, self.fractional)

    def _integral_of_l(self, ages: np.ndarray) -> np.ndarray:
        """Integral of l (radix 1) from min_age to each age, exact for the table's assumption."""
        l_int = self._l_integer(1.0)
        q = self._closed_qx()
        k, s = self._year_and_fraction(ages)
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.fractional == "udd":
                whole = l_int[:-1] * (1.0 - q / 2)
                part = l_int[k] * (s - q[k] * s**2 / 2)
            else:
                log_p = np.log1p(-q)
                whole = np.where(q == 0, l_int[:-1], np.where(q == 1, 0.0, -q / log_p * l_int[:-1]))
                part = np.where(
                    q[k] == 0,
                    l_int[k] * s,
                    np.where(q[k] == 1, 0.0, l_int[k] * np.expm1(s * log_p[k]) / log_p[k]),
                )
        return np.concatenate([[0.0], np.cumsum(whole)])[k] + part


# --------------------------------------------------------------------- tables by law
def _makeham_qx(ages: np.ndarray, a: float, b: float, c: float) -> np.ndarray:
    """Annual q_x under Makeham's law: 1 - exp(-(A + B c^x (c - 1)/ln c))."""
    return -np.expm1(-(a + b * np.power(c, ages) * (c - 1) / math.log(c)))


def sult() -> LifeTable:
    """SOA Standard Ultimate Life Table: Makeham A=0.00022, B=2.7e-6, c=1.124, ages 20-120."""
    law = (0.00022, 2.7e-6, 1.124)
    qx = _makeham_qx(np.arange(20, 121, dtype=float), *law)
    qx[-1] = 1.0
    return LifeTable(
        name="SULT",
        min_age=20,
        qx=qx,
        source="SOA Standard Ultimate Life Table (AMLCR, SOA exam LTAM): Makeham's law "
        "mu_x = 0.00022 + 2.7e-6 * 1.124^x, ages 20-120, q_120 = 1",
        makeham=law,
    )


def ilt() -> LifeTable:
    """Illustrative Life Table (Bowers et al.): 1000 mu_x = 0.7 + 0.05 * 10^(0.04 x), ages 0-110."""
    law = (0.0007, 0.00005, 10**0.04)
    qx = _makeham_qx(np.arange(0, 111, dtype=float), *law)
    qx[-1] = 1.0
    return LifeTable(
        name="ILT",
        min_age=0,
        qx=qx,
        source="Illustrative Life Table, Bowers et al., Actuarial Mathematics: Makeham's law "
        "1000 mu_x = 0.7 + 0.05 * 10^(0.04 x) at every age, ages 0-110, q_110 = 1",
        makeham=law,
    )


# --------------------------------------------------------------------- tables from data
def soa(table_id: int) -> LifeTable:
    """A mort.soa.org table shipped offline with ``pymort``, by its SOA table id.

    Uses the table's one-dimensional (ultimate) rates: for a select-and-ultimate table, the
    ultimate table. E.g. 3400 = PubG-2010 Male Retiree, 3399 = PubG-2010 Female Retiree
    (both amount-weighted).
    """
    from pymort import MortXML

    if isinstance(table_id, bool) or not isinstance(table_id, int | np.integer):
        raise MortalityError(f"'table_id' must be an integer SOA table id (got {table_id!r})")
    try:
        with warnings.catch_warnings():  # pymort 2.0 uses deprecated importlib/pandas calls
            warnings.simplefilter("ignore", DeprecationWarning)
            xml = MortXML.from_id(int(table_id))
    except FileNotFoundError:
        raise MortalityError(
            f"'table_id' must be a mort.soa.org table shipped with pymort (got {table_id})"
        ) from None
    ultimate = [t for t in xml.Tables if len(t.MetaData.AxisDefs) == 1]
    if not ultimate:
        raise MortalityError(f"SOA table {table_id} has no one-dimensional (ultimate) rates")
    table = ultimate[-1]
    ages = table.Values.index.to_numpy()
    if not np.array_equal(ages, np.arange(ages[0], ages[0] + len(ages))):
        raise MortalityError(f"SOA table {table_id}: ages must be consecutive integers")
    info = xml.ContentClassification
    selected = " (ultimate table)" if len(xml.Tables) > 1 else ""
    return LifeTable(
        name=info.TableName,
        min_age=int(ages[0]),
        qx=table.Values["vals"].to_numpy(dtype=float),
        source=f"mort.soa.org table {table_id}{selected}: {table.MetaData.TableDescription}",
    )


def from_csv(path) -> LifeTable:
    """A table from a CSV file with header ``age,qx`` and consecutive integer ages.

    The file is only parsed; every bad row is reported at once with file and line.
    """
    path = Path(path)
    problems: list[str] = []
    ages: list[int] = []
    rates: list[float] = []
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        header = [cell.strip() for cell in next(reader, [])]
        if header != ["age", "qx"]:
            raise MortalityError(f"{path} line 1: header must be age,qx (got {','.join(header)!r})")
        for record in reader:
            where = f"{path} line {reader.line_num}"
            if not any(cell.strip() for cell in record):
                continue
            if len(record) != 2:
                problems.append(f"{where}: row must have 2 fields (got {len(record)})")
                continue
            try:
                age = int(record[0])
            except ValueError:
                problems.append(f"{where}: 'age' must be an integer (got {record[0]!r})")
                continue
            if ages and age != ages[-1] + 1:
                problems.append(f"{where}: 'age' must be {ages[-1] + 1}, the next age (got {age})")
            try:
                rate = float(record[1])
            except ValueError:
                problems.append(f"{where}: 'qx' must be a number (got {record[1]!r})")
                rate = math.nan
            else:
                if not (math.isfinite(rate) and 0 <= rate <= 1):
                    problems.append(f"{where}: 'qx' must be in [0, 1] (got {record[1].strip()})")
            ages.append(age)
            rates.append(rate)
    if not ages and not problems:
        problems.append(f"{path}: no rows after the header")
    if problems:
        raise MortalityError("\n".join(problems))
    return LifeTable(name=path.stem, min_age=ages[0], qx=np.array(rates), source=str(path))


def blend(table_a: LifeTable, table_b: LifeTable, weight_a: float) -> LifeTable:
    """Unisex blend: q_x = w q^a_x + (1 - w) q^b_x on the ages both tables share."""
    if not (isinstance(weight_a, int | float) and 0 <= weight_a <= 1):
        raise MortalityError(f"'weight_a' must be in [0, 1] (got {weight_a!r})")
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
    )


def table_from_spec(spec: str) -> LifeTable:
    """A table named on the command line: ``sult``, ``ilt``, ``soa:<id>``, ``csv:<path>``,
    or a blend of two: ``soa:3400,soa:3399:0.5`` (the weight of a component follows it;
    the weights must be stated and sum to 1)."""
    parts = [part.strip() for part in str(spec).split(",")]
    if not 1 <= len(parts) <= 2 or not all(parts):
        raise MortalityError(
            f"'mortality' must be one table or a blend of two, e.g. 'sult' or "
            f"'soa:3400,soa:3399:0.5' (got {spec!r})"
        )
    tables, weights = [], []
    for part in parts:
        table, weight = _component(part, spec)
        tables.append(table)
        weights.append(weight)
    if len(tables) == 1:
        if weights[0] not in (None, 1.0):
            raise MortalityError(f"'mortality' weight of a single table must be 1 (got {spec!r})")
        return tables[0]
    first, second = weights
    if first is None and second is None:
        raise MortalityError(
            f"'mortality' blend must state a weight, e.g. 'soa:3400,soa:3399:0.5' (got {spec!r})"
        )
    weight_a = first if first is not None else 1 - second
    if second is not None and abs(weight_a + second - 1) > 1e-12:
        raise MortalityError(f"'mortality' blend weights must sum to 1 (got {spec!r})")
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
    if kind == "soa" and len(args) == 1 and args[0].isdigit():
        return soa(int(args[0])), weight
    if kind == "csv" and args:
        return from_csv(":".join(args)), weight
    raise MortalityError(
        f"'mortality' table must be in ['sult', 'ilt', 'soa:<id>', 'csv:<path>'], each "
        f"optionally followed by ':<weight>' (got {part!r})"
    )


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _weight(text: str, spec: str) -> float:
    try:
        weight = float(text)
    except ValueError:
        raise MortalityError(
            f"'mortality' weight must be a number (got {text!r} in {spec!r})"
        ) from None
    if not 0 <= weight <= 1:
        raise MortalityError(f"'mortality' weight must be in [0, 1] (got {text} in {spec!r})")
    return weight
