"""The law file: every number of the Chapter 2 clauses as dated data, and its amendments.

The shipped ``law.toml`` holds, for each parameter of :data:`PARAMETERS`, a series of
entries ``{effective_from, value, unit, source}`` under its dotted name (a quoted key holding
a dot, one name to TOML, is refused). An amendment file of the same form adds
its entries on top: an entry at a new date starts a new period, an entry at a date already
in force replaces it. The law in force is validated as a whole, each problem naming the
file, the parameter and the entry; amounts are at most :data:`USD_A_MONTH_MAX` and dates
within :data:`DATE_RANGE`. Before parsing, a file is checked as guide files are
(:mod:`actuarial.text_files`: size, UTF-8, nesting depth, number of keys). Look-ups are
vectorized over arrays of dates and raise before a parameter's first date instead of
returning nothing. TOML is only parsed: nothing loaded is executed.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import math
import os
import re
import sys
import tomllib
import warnings
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import cache
from importlib import resources
from pathlib import Path

import numpy as np

from actuarial.dates import (
    coarse_or_missing,
    is_plain_date,
    not_a_date,
    numpy_day,
    period_day,
)
from actuarial.member_record import (
    DATE_RANGE,
    DATE_RANGE_RULE,
    NO_TIME_OF_DAY_RULE,
    timestamp_rule,
)
from actuarial.output_files import takes_paths
from actuarial.shown_text import as_given, quoted, shortened, toml_text
from actuarial.text_files import (
    TextProblem,
    decode_text,
    outside_strings,
    read_bytes,
    toml_shape_problems,
)

__all__ = [
    "PARAMETERS",
    "UNITS",
    "Entry",
    "Law",
    "LawError",
    "LawNote",
    "LawFile",
    "LawOn",
    "Parameter",
    "date_outside",
    "law_in_force",
    "law_provenance",
    "load_law",
    "resolve_as_of",
    "shipped_law",
]

SHIPPED_NAME = "actuarial/law/law.toml"

# The largest amount in USD (a month) a law file may give, so that the engine's cents are
# exact: float64 holds every whole number of cents exactly below 2**53 cents; the engine rounds
# to cents through 6 decimals of a cent (engine.round_cents), exact while cents x 10**6 stay
# below 2**53 (about 90 million USD); the schedule text writes far larger amounts exactly
# (engine.schedule_text). Ten million USD a month is well inside all three.
USD_A_MONTH_MAX = 10_000_000

UNITS = {
    "USD a month": f"a monthly amount in US dollars, in whole cents, from 0 to {USD_A_MONTH_MAX:,}",
    "years": "a number of years (ages in whole years), from 0 to 120",
    "rate": "a fraction, above 0 and at most 1 (0.02 = 2%)",
    "date": f"a calendar date, YYYY-MM-DD, from {DATE_RANGE[0]} to {DATE_RANGE[1]}",
}
ENTRY_KEYS = ("effective_from", "value", "unit", "source")
# Limits of a law file, checked before parsing (actuarial.text_files); the shipped law.toml
# is about 4 KB, 4 levels deep ([[service_annuity.age]] and its keys) with 70 keys.
LAW_FILE_MAX_BYTES = 256 * 1024
LAW_TOML_MAX_DEPTH = 6
LAW_TOML_MAX_KEYS = 2_000
ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_SMALL = 64  # dates: up to this many, a parameter with one value is copied, not broadcast


@dataclass(frozen=True, slots=True)
class Parameter:
    """One public parameter name of the law file: its unit and what selects its value."""

    name: str
    unit: str
    selected_by: str  # "separation date" or "payment date"
    meaning: str
    whole: bool = False  # ages: whole years

    def problem_with(self, value) -> str | None:
        """Why ``value`` is outside this parameter's domain (None when it is inside)."""
        if self.unit == "date":
            if not isinstance(value, dt.date) or isinstance(value, dt.datetime):
                return not_a_date("value", value, quoted(value))
            return date_outside("value", value)
        if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
            return f"'value' must be a number (got {quoted(value)})"
        number = _as_written(value)  # exact: every rule is checked on the number written
        if not number.is_finite():
            return f"'value' must be a finite number (got {quoted(value)})"
        if self.unit == "rate" and not 0 < number <= 1:
            return f"'value' must be in (0, 1] (got {quoted(value)})"
        if self.unit == "years" and not 0 <= number <= 120:
            return f"'value' must be in [0, 120] (got {quoted(value)})"
        if self.unit == "USD a month" and number < 0:
            return f"'value' must be >= 0 (got {quoted(value)})"
        if self.unit == "USD a month" and number > USD_A_MONTH_MAX:
            return (
                f"'value' must be at most {USD_A_MONTH_MAX:,}, so that every cent is exact "
                f"(got {quoted(value)})"
            )
        if self.unit == "USD a month" and number != number.quantize(_CENT):
            return f"'value' must be in whole cents (got {quoted(value)})"
        if self.whole and number != number.to_integral_value():
            return f"'value' must be a whole number of years (got {quoted(value)})"
        kept = float(number)
        if _as_written(kept) != number:
            return (
                f"'value' must be a number the engine keeps as written (got {quoted(value)}, "
                f"kept as {kept!r})"
            )
        return None

    def shown(self, value) -> str:
        """``value`` as a page writes it, never rounded: dollars as ``$600.00`` (whole cents,
        :meth:`problem_with`), a rate as a percent (``1.75%``), years as ``20`` or ``20.5``, a
        date as ``2027-01-01``; "" for none (NaN, no value on that date)."""
        return shown_value(self.unit, value)


def shown_value(unit: str, value) -> str:
    """A value of the law in ``unit`` as a page writes it (:meth:`Parameter.shown`)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if unit == "date":
        return str(value)
    exact = _as_written(float(value))  # the shortest text read back as the number
    if unit == "USD a month":
        return f"${exact:,.2f}"
    if unit == "rate":
        exact *= 100
    return f"{exact.normalize():f}" + ("%" if unit == "rate" else "")


_CENT = Decimal("0.01")


class _WrittenNumber(Decimal):
    """A decimal number of a law file, exactly as written (TOML's ``parse_float``): its rules
    are checked on the digits written, never on the float TOML would read
    (``500.000000000000001`` is not whole cents, though its float is 500.0), and a message
    quotes it as written (``1e17``, ``1_000.5``)."""

    __slots__ = ("text",)

    def __new__(cls, text: str) -> _WrittenNumber:
        try:
            number = super().__new__(cls, text)
        except InvalidOperation:  # an exponent beyond a decimal's: what the number is
            number = super().__new__(cls, _beyond_exponents(text))
        number.text = text
        return number

    def __str__(self) -> str:
        return self.text

    __repr__ = __str__  # in a list or table a message quotes: as written too


def _beyond_exponents(text: str) -> str:
    """A TOML float whose exponent no decimal holds, as a decimal of the same kind: 0 (its
    digits all 0), infinite (a huge exponent) or a nonzero number no float keeps (a tiny
    one), so that the rules refuse it for what it is."""
    digits, _, exponent = text.replace("_", "").lower().partition("e")
    sign = "-" if digits.startswith("-") else ""
    if not any(digit in "123456789" for digit in digits):
        return f"{sign}0"
    return f"{sign}1e-999999999999999999" if exponent.startswith("-") else f"{sign}Infinity"


def _as_written(value: int | float | Decimal) -> Decimal:
    """``value`` as the exact decimal it was written as: a float as its shortest text
    (``0.07``, whose binary float is not 7 cents: a fraction of a cent would be explained as
    one amount and paid, rounded, as another)."""
    if isinstance(value, Decimal):
        return value
    return Decimal(value) if isinstance(value, int) else Decimal(repr(value))


def date_outside(key: str, day: dt.date) -> str | None:
    """Why the date ``key`` of a law or guide file is outside :data:`DATE_RANGE` (None when
    it is inside)."""
    if DATE_RANGE[0] <= day <= DATE_RANGE[1]:
        return None
    return f"'{key}' {DATE_RANGE_RULE} (got {day})"


PARAMETERS = {
    parameter.name: parameter
    for parameter in (
        Parameter(
            "minimum_monthly_pension",
            "USD a month",
            "payment date",
            "monthly minimum of every Chapter 2 annuity (I-4)",
        ),
        Parameter(
            "service_annuity.age", "years", "separation date", "age of inciso (a)", whole=True
        ),
        Parameter(
            "service_annuity.minimum_service",
            "years",
            "separation date",
            "credited service inciso (a) requires",
        ),
        Parameter(
            "service_annuity.rate",
            "rate",
            "separation date",
            "share of average compensation per year of service, incisos (a), (c), (d)",
        ),
        Parameter("high_risk.age", "years", "separation date", "age of inciso (b)", whole=True),
        Parameter(
            "high_risk.minimum_service",
            "years",
            "separation date",
            "credited service inciso (b) requires",
        ),
        Parameter(
            "high_risk.rate_at_age",
            "rate",
            "separation date",
            "share of average compensation at or after the age of inciso (b)",
        ),
        Parameter(
            "high_risk.rate_before_age",
            "rate",
            "separation date",
            "share of average compensation before the age of inciso (b)",
        ),
        Parameter(
            "early_retirement.age", "years", "separation date", "age of inciso (c)", whole=True
        ),
        Parameter(
            "early_retirement.minimum_service",
            "years",
            "separation date",
            "credited service inciso (c) requires",
        ),
        Parameter(
            "deferred.age", "years", "separation date", "age inciso (d) starts at", whole=True
        ),
        Parameter(
            "coverage.first_entry_on_or_after",
            "date",
            "separation date",
            "first day of first entry covered by Chapter 2 (I-1)",
        ),
        Parameter(
            "coverage.first_entry_before",
            "date",
            "separation date",
            "first day of first entry no longer covered (Ley 305-1999)",
        ),
    )
}


@dataclass(frozen=True, slots=True)
class LawFile:
    """A file the law in force was read from, with its SHA-256."""

    name: str
    sha256: str


@dataclass(frozen=True, slots=True)
class Entry:
    """One dated value of a parameter, and where it was read."""

    effective_from: dt.date
    value: float | dt.date
    unit: str
    source: str
    file: str
    number: int  # the entry's position among the parameter's entries in its file, from 1
    position: int = 0  # its file's among the law's files: 0 the shipped law, 1 the first amendment
    line: int | None = None  # the line of its [[header]] (None: written in an inline array)

    def where(self, name: str) -> str:
        return f"{_at(self.file, self.line)}: '{name}' entry {self.number} " + (
            f"(effective_from {self.effective_from})"
        )


def _at(name: str, line: int | None) -> str:
    """A file's name and, when known, a line of it: ``bill.toml:12``."""
    return f"{name}:{line}" if line else name


# An array-of-tables header, [[service_annuity.age]]: its key, perhaps quoted or spaced.
_ARRAY_HEADER = re.compile(r"^\s*\[\[\s*([^\[\]]+?)\s*\]\]\s*(?:#.*)?$")


def _header_lines(text: str) -> dict[str, list[int]]:
    """The lines of each parameter's ``[[...]]`` headers in a law file, in order."""
    lines: dict[str, list[int]] = {}
    for number, line in outside_strings(text):
        if (found := _ARRAY_HEADER.match(line)) is not None:
            path = ".".join(part.strip().strip("\"'") for part in found[1].split("."))
            lines.setdefault(path, []).append(number)
    return lines


class LawNote(UserWarning):
    """What an amended law holds that can never take effect (:meth:`Law.amended`)."""


class LawError(ValueError):
    """A law or amendment file that cannot be used; lists every problem found."""

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


def _located(name: str, problems: Iterable[TextProblem]) -> list[str]:
    """Problems of a file's text as the lines of a :class:`LawError`: ``file:line: ...``."""
    return [
        f"{name}{f':{problem.line}' if problem.line else ''}: {problem.message}"
        for problem in problems
    ]


def _read(name: str, data: bytes) -> tuple[dict[str, list[Entry]], list[str]]:
    """The entries of one law file by parameter, and the problems of the file alone.

    Before parsing (:mod:`actuarial.text_files`): at most :data:`LAW_FILE_MAX_BYTES`, UTF-8
    (a byte-order mark accepted), at most :data:`LAW_TOML_MAX_DEPTH` levels deep (a dotted
    key counts one level a part) and :data:`LAW_TOML_MAX_KEYS` keys; every broken limit is a
    problem with the file and, where known, the line.
    """
    problems: list[str] = []
    text, found = decode_text(data, LAW_FILE_MAX_BYTES, "a law file")
    if text is not None:
        found = toml_shape_problems(text, LAW_TOML_MAX_DEPTH, LAW_TOML_MAX_KEYS)
    if found:
        return {}, _located(name, found)
    try:
        document = tomllib.loads(text, parse_float=_WrittenNumber)  # as written: no float yet
    except tomllib.TOMLDecodeError as error:
        line = re.search(r"line (\d+)", str(error))
        where = f"{name}:{line.group(1)}" if line else name
        return {}, [f"{where}: not a TOML file ({error})"]
    except RecursionError:  # cannot happen within the depth limit; never a traceback
        return {}, [f"{name}: not a TOML file (nested too deeply to read)"]
    found: dict[str, list[Entry]] = {}
    headers = _header_lines(text)
    dotted: dict[str, str] = {}  # path: the key as written, of each quoted key holding a dot

    def walk(table: dict, prefix: str) -> None:
        for key, value in table.items():
            path = f"{prefix}{key}"
            if "." in key:  # one name to TOML: never a parameter, nor merged with one
                dotted[path] = f"{prefix}{toml_text(shortened(key))}"
            elif isinstance(value, dict) and path not in PARAMETERS:
                walk(value, f"{path}.")
            elif path not in PARAMETERS:
                problems.append(
                    f"{name}: unknown parameter '{path}' (parameters: {sorted(PARAMETERS)})"
                )
            elif not isinstance(value, list):
                got = f"one table [{path}]" if isinstance(value, dict) else quoted(value)
                problems.append(
                    f"{name}: '{path}' must be an array of entries [[{path}]] (got {got})"
                )
            else:
                lines = headers.get(path, [])
                lines = lines if len(lines) == len(value) else [None] * len(value)
                found[path] = _entries(name, path, value, problems, lines)

    walk(document, "")
    problems.extend(
        _quoted_dot_problem(name, path, key, path in found) for path, key in dotted.items()
    )
    return found, problems


def _quoted_dot_problem(name: str, path: str, key: str, given: bool) -> str:
    """A quoted key holding a dot (``"service_annuity.age" = [...]``): TOML reads it as one
    name, apart from the table ``service_annuity``'s key ``age``; read as the parameter, it
    would give it twice where the file also gives it unquoted, one series silently lost."""
    rule = "a key must not hold a dot inside quotes"
    if given:
        return (
            f"{name}: '{path}' is given twice, as [[{path}]] and as the quoted key {key}: "
            f"{rule} (TOML reads it as one name); give each parameter once, as [[{path}]]"
        )
    hint = f": write the parameter unquoted, [[{path}]]" if path in PARAMETERS else ""
    return (
        f"{name}: {rule}: TOML reads it as one name, not as the path '{shortened(path)}' (got "
        f"{key}{hint})"
    )


def _entries(
    name: str, path: str, raw: list, problems: list[str], lines: list[int | None]
) -> list[Entry]:
    """The entries of one parameter in one file (``lines``: the line of each one's header);
    every problem of each entry is added to ``problems`` (an entry with one is left out)."""
    parameter = PARAMETERS[path]
    entries: list[Entry] = []
    for number, (item, line) in enumerate(zip(raw, lines, strict=True), start=1):
        where = f"{_at(name, line)}: '{path}' entry {number}"
        if not isinstance(item, dict):
            problems.append(f"{where}: must be a table of {list(ENTRY_KEYS)} (got {quoted(item)})")
            continue
        found = []  # this entry's problems, each key's checked where the key is given
        missing = [key for key in ENTRY_KEYS if key not in item]
        extra = sorted(set(item) - set(ENTRY_KEYS))
        if missing or extra:
            found.append(f"keys must be {list(ENTRY_KEYS)} (missing {missing}, unknown {extra})")
        start = item.get("effective_from")
        if "effective_from" in item:
            if not isinstance(start, dt.date) or isinstance(start, dt.datetime):
                found.append(not_a_date("effective_from", start, quoted(start)))
            elif outside := date_outside("effective_from", start):
                found.append(outside)
            else:
                where = f"{where} (effective_from {start})"
                if entries and start <= entries[-1].effective_from:
                    found.append(
                        f"entries must be in ascending date order, one per date "
                        f"({start} follows {entries[-1].effective_from})"
                    )
        unit, value, source = (item.get(key) for key in ("unit", "value", "source"))
        if "unit" in item and unit != parameter.unit:
            found.append(f"'unit' must be {parameter.unit!r} (got {quoted(unit)})")
        if "value" in item and (wrong := parameter.problem_with(value)):
            found.append(wrong)
        if "source" in item and (not isinstance(source, str) or not source.strip()):
            found.append(f"'source' must name the text it comes from (got {quoted(source)})")
        if found:
            problems.extend(f"{where}: {problem}" for problem in found)
            continue
        if parameter.unit != "date":
            value = float(value) + 0.0  # -0.0 is 0: never shown as $-0.00
        entries.append(Entry(start, value, unit, source, name, number, line=line))
    return entries


@dataclass(frozen=True, slots=True)
class _Series:
    starts: np.ndarray  # datetime64[D], ascending
    values: np.ndarray  # float64, or datetime64[D] for dates
    entries: tuple[Entry, ...]


@dataclass(frozen=True, slots=True)
class Law:
    """The law in force: every parameter's dated entries, and the files they came from.

    What only depends on the law (its change dates, first date, the values in force on a
    date, the reason texts of its periods) is computed once per law (:meth:`derived`).
    """

    files: tuple[LawFile, ...]
    entries: dict[str, tuple[Entry, ...]] = field(repr=False)
    # (parameter, entry, the entry of a later amendment file that replaces it on its date)
    replaced: tuple[tuple[str, Entry, Entry], ...] = field(default=(), repr=False)
    _series: dict[str, _Series] = field(init=False, repr=False, compare=False)
    _derived: dict = field(init=False, repr=False, compare=False)  # see :meth:`derived`

    def __post_init__(self) -> None:
        object.__setattr__(self, "_derived", {})
        series = {}
        for name, entries in self.entries.items():
            kind = "datetime64[D]" if PARAMETERS[name].unit == "date" else np.float64
            series[name] = _Series(
                np.array([e.effective_from for e in entries], dtype="datetime64[D]"),
                np.array([e.value for e in entries], dtype=kind),
                entries,
            )
        object.__setattr__(self, "_series", series)

    def value(self, name: str, dates) -> np.ndarray:
        """Value of parameter ``name`` in force on each date (NaN or NaT where a date is NaT).

        Raises :class:`LawError` for a date before the parameter's first entry. The array
        may be a read-only view (one value in force for every date): copy it to change it.
        """
        dates = np.asarray(dates, dtype="datetime64[D]")
        return self._value(name, dates, *_earliest_known(dates))

    def _value(self, name: str, dates: np.ndarray, earliest, known) -> np.ndarray:
        """:meth:`value`, given the earliest known date and where dates are known (None:
        all), which every parameter read on the same dates shares (:class:`LawOn`)."""
        series = self._parameter(name)
        if earliest is not None and earliest < series.starts[0]:
            first = series.entries[0]
            raise LawError(
                [
                    f"law: '{name}' has no value in force on {earliest}: its first entry "
                    f"({first.where(name)}) starts later"
                ]
            )
        if len(series.starts) == 1 and dates.size <= _SMALL:  # one value: a few copies
            values = series.values.repeat(dates.size).reshape(dates.shape)
        elif len(series.starts) == 1:  # one value for every date: no copy per date
            values = np.broadcast_to(series.values[0], dates.shape)
        else:
            looked_up = dates if known is None else np.where(known, dates, series.starts[0])
            values = series.values[series.starts.searchsorted(looked_up, "right") - 1]
        if known is not None:
            missing = (
                np.array("NaT", dtype="datetime64[D]")
                if series.values.dtype.kind == "M"
                else np.nan
            )
            values = np.where(known, values, missing)
        return values

    def value_on(self, name: str, date) -> float | dt.date:
        """The value of ``name`` in force on one date."""
        value = self.value(name, np.array([date], dtype="datetime64[D]"))[0]
        return (
            value.astype("datetime64[D]").item()
            if isinstance(value, np.datetime64)
            else float(value)
        )

    def values_on(self, date) -> dict:
        """Every parameter's value in force on one date (for the texts that state them)."""
        values = self.derived(
            ("values_on", date),
            lambda: {name: self.value_on(name, date) for name in self._series},
        )
        return dict(values)  # the caller's own dict

    def derived(self, key, compute):
        """``compute()``, computed once per law and ``key`` (a law is never changed): what
        only depends on the law, such as the reason texts of its periods."""
        if key not in self._derived:
            self._derived[key] = compute()
        return self._derived[key]

    def values_in_force(self, day: dt.date | None = None) -> dict:
        """Every parameter's value on ``day`` (today for None), or on the law's first date
        for a day before it: what a text of no member's dates states (help, tables)."""
        day = dt.date.today() if day is None else day
        return self.values_on(max(day, self.first_date()))

    def change_dates(self, selected_by: str | None = None) -> np.ndarray:
        """The law's first date (:meth:`first_date`) and every later date on which a
        parameter (selected by ``selected_by``) changes, ascending (a read-only array,
        computed once per law). An entry dated earlier is in force from the first date at
        the earliest: before it, the law has no value of every parameter to read."""

        def compute():
            names = [n for n in self._series if selected_by in (None, PARAMETERS[n].selected_by)]
            changes = np.unique(np.concatenate([self._series[n].starts for n in names]))
            first = np.datetime64(self.first_date(), "D")
            dates = np.concatenate([[first], changes[changes > first]])
            dates.flags.writeable = False
            return dates

        return self.derived(("change_dates", selected_by), compute)

    def periods(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """The law's periods (from :meth:`change_dates`: from its first date, every
        parameter in force) and each parameter's value in each of them: the start of each
        period (datetime64[D], ascending) and, by parameter, its values (computed once per
        law)."""

        def compute():
            starts = self.change_dates()
            values = {name: self.value(name, starts) for name in self._series}
            for array in values.values():
                array.flags.writeable = False
            return starts, values

        return self.derived(("periods",), compute)

    def changes(self, name: str) -> np.ndarray:
        """The dates from which ``name`` takes each of its values (datetime64[D])."""
        return self._parameter(name).starts

    def first_date(self) -> dt.date:
        """The first date on which every parameter has a value."""
        return self.derived(
            ("first_date",),
            lambda: max(entries[0].effective_from for entries in self.entries.values()),
        )

    def payable_on(self, as_of: dt.date) -> dt.date:
        """The first day a payment asked for on ``as_of`` can be made under this law:
        ``as_of``, or the law's first date if earlier (no annuity is paid before it)."""
        return max(as_of, self.first_date())

    @takes_paths("sources")
    def amended(self, *sources) -> Law:
        """This law with the entries of each amendment file (a path) added, in order.

        What the amended law holds that can never take effect is warned, a
        :class:`LawNote` each (:func:`~actuarial.law.notes.law_notes`).
        Every file is read and parsed first: the problems of all of them that do not depend
        on the law they amend (unreadable, too large, not UTF-8, too deep, too many keys, not
        TOML, an unknown parameter or a malformed entry) are raised together."""
        read, problems = [], []
        for source in sources:
            if not isinstance(source, _LAW_PATH):  # Path(source) would say "expected str..."
                raise TypeError(
                    f"an amendment file must be a path, each an argument of its own "
                    f"(load_law('a.toml', 'b.toml')); got {shortened(repr(source))}"
                )
            name = str(source)
            data, unreadable = read_bytes(Path(source), LAW_FILE_MAX_BYTES)
            if data is None:
                why = (problem.message.removeprefix("cannot read ") for problem in unreadable)
                problems.extend(f"{name}: cannot read the law file {text}" for text in why)
                continue
            found, file_problems = _read(name, data)
            problems.extend(file_problems)
            read.append((name, data, found))
        if problems:
            raise LawError(problems)
        if not read:  # no file: this law itself, with what it computed once
            return self
        law = _merge(self, read)  # checked as one law: never as a law between two files
        from actuarial.law.notes import law_notes  # notes read the clauses

        known = set(law_notes(self))
        for note in law_notes(law):
            if note not in known:
                warnings.warn(note, LawNote, stacklevel=_outside_the_package())
        return law

    def provenance(self) -> list[dict[str, str]]:
        """Every file of the law in force with its SHA-256, in the order applied."""
        return [{"file": f.name, "sha256": f.sha256} for f in self.files]

    @property
    def paths(self) -> tuple[Path, ...]:
        """Every file of the law in force, in the order applied."""
        return tuple(Path(f.name) for f in self.files)

    def label(self) -> str:
        """Short tag: the amendment files' names, or ``"shipped"``."""
        amendments = [Path(f.name).name for f in self.files[1:]]
        return "shipped + " + " + ".join(amendments) if amendments else "shipped"

    def _parameter(self, name: str) -> _Series:
        if name not in self._series:
            raise LawError([f"law: unknown parameter '{name}' (parameters: {sorted(PARAMETERS)})"])
        return self._series[name]


_PACKAGE = str(Path(__file__).resolve().parents[1])  # actuarial/, where no warning points


def _outside_the_package() -> int:
    """The ``stacklevel`` of a warning raised in the function that calls this one which
    points at the first caller outside the package: the user's line, not a wrapper's."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


def _merge(base: Law | None, read: Sequence[tuple[str, bytes, dict]]) -> Law:
    """``base`` with the entries of each file read (``(name, data, entries)``, in order) added;
    the law they make together checked as a whole (:func:`_whole_law_problems`)."""
    merged: dict[str, dict[dt.date, Entry]] = {
        key: {e.effective_from: e for e in entries}
        for key, entries in (base.entries.items() if base else ())
    }
    files = base.files if base else ()
    replaced = list(base.replaced if base else ())
    for position, (name, data, found) in enumerate(read, start=len(files)):
        for key, entries in found.items():  # a file given twice is two files
            series = merged.setdefault(key, {})
            for entry in entries:
                entry = dataclasses.replace(entry, position=position)
                earlier = series.get(entry.effective_from)
                if earlier is not None and earlier.position > 0:  # an amendment's, not the law's
                    replaced.append((key, earlier, entry))
                series[entry.effective_from] = entry
        files = (*files, LawFile(name, hashlib.sha256(data).hexdigest()))
    entries = {key: tuple(merged[key][d] for d in sorted(merged[key])) for key in merged}
    problems = _whole_law_problems(files[-1].name, entries)
    if problems:
        raise LawError(problems)
    return Law(files, {key: entries[key] for key in PARAMETERS}, tuple(replaced))


def _whole_law_problems(name: str, entries: dict[str, tuple[Entry, ...]]) -> list[str]:
    """The law in force as a whole: every parameter has a value from the first covered entry."""
    problems = [
        f"{name}: parameter '{key}' has no entry (every parameter of the law needs one)"
        for key in PARAMETERS
        if not entries.get(key)
    ]
    if problems:
        return problems
    # A covered member entered on or after the earliest coverage start and separated later:
    # every parameter must be in force from that day.
    needed = entries["coverage.first_entry_on_or_after"][0]
    for key, series in entries.items():
        if series[0].effective_from > needed.value:
            problems.append(
                f"{series[0].where(key)}: no value in force on {needed.value}, the first day "
                f"of coverage ({needed.where('coverage.first_entry_on_or_after')}); "
                f"'{key}' needs an entry from that date"
            )
    return problems


@cache
def shipped_law() -> Law:
    """The law shipped in the package (``actuarial/law/law.toml``)."""
    data = resources.files("actuarial.law").joinpath("law.toml").read_bytes()
    found, problems = _read(SHIPPED_NAME, data)
    if problems:
        raise LawError(problems)
    return _merge(None, [(SHIPPED_NAME, data, found)])


@takes_paths("amendments")
def load_law(*amendments) -> Law:
    """The shipped law with each amendment file (a path) applied in order."""
    return shipped_law().amended(*amendments)


@takes_paths("law")
def law_in_force(law=None) -> Law:
    """The ``law=`` argument of the public functions as a :class:`Law`.

    ``None``: the shipped law; a :class:`Law`: itself; a path, or a list of paths and
    laws: the shipped law (or the last law given, which replaces all before it) with every
    file after it applied at once, in order, as :func:`load_law` and ``--law`` apply them:
    the law between two files is never a law in force, so it is never noted, and the
    problems of every file are reported together. A path is text or path-like; anything
    else (bytes, a mapping, a number) is refused, naming it.
    """
    if law is None:
        return shipped_law()
    if isinstance(law, Law):
        return law
    if isinstance(law, _LAW_PATH):
        return load_law(law)
    if isinstance(law, AbstractSet):  # files are applied in order: a set has none
        raise TypeError(f"'law' must give its files in order, a list (got a set: {as_given(law)})")
    if isinstance(law, Iterable) and not isinstance(law, bytes | bytearray | Mapping):
        base, paths = shipped_law(), []
        for item in law:
            if not isinstance(item, (Law, *_LAW_PATH)):
                raise _not_a_law(item)
            if isinstance(item, Law):
                base, paths = item, []
            else:
                paths.append(item)
        return base.amended(*paths)
    raise _not_a_law(law)


_LAW_PATH = (str, os.PathLike)  # a law file's path: text or path-like (not bytes)


def _not_a_law(value) -> TypeError:
    return TypeError(f"'law' must be a path, a list of paths or a Law (got {as_given(value)})")


def _earliest_known(dates: np.ndarray):
    """The earliest date that is not NaT (None if none), and where dates are not NaT (None:
    everywhere)."""
    earliest = dates.min() if dates.size else None  # NaT if any date is NaT
    known = None
    if earliest is not None and np.isnat(earliest):
        known = ~np.isnat(dates)
        earliest = dates[known].min() if known.any() else None
    return earliest, known


class LawOn:
    """A law's values on an array of dates, each parameter looked up once when first read.

    On a few dates (at most 64: one member) on or after the law's first date, each value is
    read from the table of the law's periods (:meth:`Law.periods`) by one period index for
    every parameter, instead of one look-up per parameter.
    """

    def __init__(self, law: Law, dates: np.ndarray):
        self.law = law
        self.dates = np.asarray(dates, dtype="datetime64[D]")
        self._earliest_known = None  # shared by the parameters looked up on the dates
        self._values: dict[str, np.ndarray] = {}
        self._period = None  # index into law.periods() of each date, where it is used
        if 0 < self.dates.size <= _SMALL:
            earliest = self.dates.min()  # NaT if a date is NaT
            starts, _ = law.periods()
            if not np.isnat(earliest) and earliest >= starts[0]:
                self._period = starts.searchsorted(self.dates, "right") - 1

    def __getitem__(self, name: str) -> np.ndarray:
        if name not in self._values:
            if self._period is None or name not in PARAMETERS:
                if self._earliest_known is None:
                    self._earliest_known = _earliest_known(self.dates)
                self._values[name] = self.law._value(name, self.dates, *self._earliest_known)
            else:
                self._values[name] = self.law.periods()[1][name][self._period]
        return self._values[name]


def resolve_as_of(as_of=None) -> dt.date:
    """The date results are asked for: ``as_of`` (a date or ``YYYY-MM-DD``), default today.
    A timestamp is read as a member's dates are (``member_record.timestamp_rule``): at
    midnight without a time zone, as that date; with a time of day or a time zone, refused.
    So is a pandas period (:func:`~actuarial.dates.period_day`): of one day, that day.
    The date must be within :data:`DATE_RANGE`, as ``--as-of``'s."""
    if as_of is None:
        return dt.date.today()
    day = _as_of_day(as_of)
    if outside := date_outside("as_of", day):
        raise LawError([outside])
    return day


def _as_of_day(as_of) -> dt.date:
    if (day := period_day(as_of)) is not None:  # a pandas period of one day, as a member's
        as_of = day
    if isinstance(as_of, np.datetime64) and not coarse_or_missing(as_of):
        day = numpy_day(as_of)  # as a member's numpy dates are read
        if day is None:
            raise LawError([f"'as_of' {NO_TIME_OF_DAY_RULE} (got {as_of})"])
        if not np.datetime64(DATE_RANGE[0]) <= day <= np.datetime64(DATE_RANGE[1]):
            raise LawError([f"'as_of' {DATE_RANGE_RULE} (got {day})"])  # item() of year 1e4: int
        return day.item()
    if isinstance(as_of, dt.datetime) and as_of == as_of:  # pandas' NaT is unequal to itself
        rule = timestamp_rule(as_of)
        if rule is not None:
            raise LawError([f"'as_of' {rule} (got {as_of})"])
        return as_of.date()
    if is_plain_date(as_of):  # not a timestamp, not NaT either
        return as_of
    if isinstance(as_of, str) and ISO_DATE.fullmatch(as_of):
        try:
            return dt.date.fromisoformat(as_of)
        except ValueError:
            pass
    raise LawError([f"'as_of' must be a date YYYY-MM-DD (got {as_given(as_of)})"])


def law_provenance(law=None, as_of=None) -> dict:
    """What a result was computed under, for reports: the law files with their SHA-256, in
    the order applied, and the ``as_of`` date used (default today)."""
    return {"as_of": resolve_as_of(as_of).isoformat(), "law": law_in_force(law).provenance()}
