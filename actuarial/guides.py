"""Actuarial Guides: the reduction tables of inciso (c), loaded as data and validated.

Inciso (c): «... con una reducción actuarial que será calculada a base de las Guías
Actuariales adoptadas por la Junta de Síndicos.»

A guide is a folder ``<guide-id>/`` with ``guide.toml`` (metadata) and ``reduction.csv``
(``age_years,age_months,factor``). Every rule is checked on load; all problems of a set are
reported at once, with file and line, and nothing from a broken set is used.

The files are read with the care of member files, before any parsing
(:mod:`actuarial.text_files`): UTF-8 (a byte-order mark accepted), at most
:data:`GUIDE_FILE_LIMITS` bytes, and a ``guide.toml`` of at most :data:`TOML_MAX_DEPTH`
levels (a dotted key counts one level per part: ``a.b.c = 1`` is depth 3; each array or
inline table one more) and :data:`TOML_MAX_KEYS` keys, so any file is accepted or refused
at once.
"""

from __future__ import annotations

import csv
import datetime as dt
import decimal
import hashlib
import io
import itertools
import math
import numbers
import os
import re
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from actuarial import shipped
from actuarial.dates import format_age, is_plain_date, not_a_date, period_day
from actuarial.law.parameters import DATE_RANGE_RULE, Law, date_outside, law_in_force
from actuarial.output_files import takes_paths
from actuarial.shown_text import as_given, one_line, quoted, shortened, toml_text
from actuarial.text_files import (
    PROBLEMS_SHOWN,
    decimal_number,
    more_problems,
    outside_strings,
    read_text,
    toml_shape_problems,
    unique_files,
    whole_number,
)

__all__ = [
    "DEFAULT_SERIES",
    "SHIPPED_GUIDES",
    "AgeSpan",
    "Guide",
    "GuideError",
    "GuideSet",
    "Problem",
    "load_guide",
    "file_sha256",
    "guides_to_read",
    "holds_guide",
    "guides_held",
    "load_every_guide",
    "load_guides",
    "span_on",
    "check_guides_under",
]

SHIPPED_GUIDES = shipped.GUIDES  # the illustrative guides, package data
# An actuarial reduction on a stated basis (PubG-2010, 4.5%); named in the README.
DEFAULT_SERIES = "pub2010-general-unisex-4.5pct"
STATUSES = ("adopted", "illustrative")


@dataclass(frozen=True, slots=True)
class AgeSpan:
    """The ages a guide's table spans, in months: from the age of inciso (c) (``first``) to
    the age of inciso (a), its normal retirement age, where the factor is 1 (``last``)."""

    first: int
    last: int

    @property
    def normal_retirement_age(self) -> int:
        return self.last // 12

    @property
    def first_label(self) -> str:
        return format_age(self.first)

    @property
    def last_label(self) -> str:
        return format_age(self.last)

    @property
    def label(self) -> str:
        """'55y0m to 65y0m'."""
        return f"{self.first_label} to {self.last_label}"


@takes_paths("law")
def span_on(day: dt.date | None = None, law=None) -> AgeSpan:
    """The ages of a guide in force from ``day`` (today for None): those of ``law`` (a
    :class:`~actuarial.law.Law`, paths of amendment files, or None: the shipped law) on that
    day, or on its first date for a day before it. A later change of those ages binds the
    guides from its date on, not the guides before it."""
    law, day = law_in_force(law), dt.date.today() if day is None else day

    def compute() -> AgeSpan:
        values = law.values_in_force(day)
        return AgeSpan(
            int(values["early_retirement.age"]) * 12, int(values["service_annuity.age"]) * 12
        )

    return law.derived(("guide span", day), compute)  # once per law and day


def check_guides_under(guides: GuideSet, law: Law) -> None:
    """Raise :class:`GuideError` for each guide of ``guides`` whose table does not span the
    ages ``law`` gives it (:func:`span_on` on its first day): guides loaded for a bill that
    moves the ages of (c) or (a), used under another law, would reduce by the wrong ages."""
    problems = [
        Problem(
            _where(guide),
            None,
            f"its table spans {guide.span.label}, the ages of incisos (c) and (a) on "
            f"{guide.effective_from} of the law it was loaded with; the law used here gives "
            f"{wanted.label}: load the guides with the law they are used with "
            "(load_guides(..., law=...); --law)",
        )
        for guide in guides
        if guide.span != (wanted := span_on(guide.effective_from, law))
    ]
    if problems:
        raise GuideError(problems)


def _span_of(meta: dict, law: Law | None) -> AgeSpan:
    """The span of a guide from its metadata under ``law``: on its ``effective_from``, or
    today where that breaks a rule of its own (reported apart)."""
    day = meta.get("effective_from")
    valid = is_plain_date(day) and not date_outside("effective_from", day)
    return span_on(day if valid else None, law)


def bracket(table_ages: np.ndarray, ages) -> tuple[np.ndarray, np.ndarray]:
    """Rows of a table around each age: (row at or below, row at or above); -1 outside.

    On a row both are that row. The one bracketing of guide tables: factors, explanations,
    validation and the guide writer read it.
    """
    ages = np.asarray(ages, dtype=np.int64)
    inside = (ages >= table_ages[0]) & (ages <= table_ages[-1])
    high = np.minimum(np.searchsorted(table_ages, ages, side="left"), len(table_ages) - 1)
    low = np.where(table_ages[high] == ages, high, high - 1)
    return np.where(inside, low, -1), np.where(inside, high, -1)


def _whole_months(where: str, age_months) -> np.ndarray:
    """Ages in months as int64. A fraction of a month, NaN, an infinite or an int64-overflowing
    value, or a value that is no number (text, a date, a duration, a bool, a complex) is
    refused, naming the first one as given: never cut off, wrapped or read as months."""
    ages = _as_array(age_months)
    if ages.dtype.kind in "iu" and np.can_cast(ages.dtype, np.int64):  # the engine's ages
        return ages.astype(np.int64, copy=False)
    if ages.dtype.kind == "f":
        bad = ~(np.abs(ages) < _INT64_LIMIT) | (ages != np.round(ages))  # NaN, inf too
        wrong = f"{ages[bad].flat[0]:g}" if bad.any() else None
        whole = ages
    elif ages.dtype.kind in "Ou":  # objects, uint64: value by value, as Python values
        given = ages.ravel().tolist()
        whole = [_whole_month(value) for value in given]
        wrong = next(
            (quoted(value) for value, read in zip(given, whole, strict=True) if read is None),
            None,
        )
    else:  # no kind of number (text, dates, durations, bools, complex): the first value
        whole, wrong = ages.ravel()[:0], None
        if ages.size:
            first = ages.ravel()[0]
            wrong = str(first) if ages.dtype.kind in "mM" else quoted(first.item())
    if wrong is not None:
        message = f"'age_months' must be whole months, e.g. 689 for 57y5m (got {wrong})"
        raise GuideError([Problem(where, None, message)])
    return np.asarray(whole, dtype=np.int64).reshape(ages.shape)


_INT64_LIMIT = 2**63


def _as_array(values) -> np.ndarray:
    """``values`` as a numpy array; of objects when numpy has no kind for them all (an int
    beyond int64 among others, rows of different lengths), not an error."""
    try:
        return np.asarray(values)
    except (OverflowError, ValueError):
        return np.asarray(values, dtype=object)


def _whole_month(value) -> int | None:
    """A value as a whole number of months within int64, or None: an int (not a bool), or
    a float or Decimal without a fraction; never text, a date, a duration or a complex."""
    if isinstance(value, bool | np.bool_ | np.timedelta64):  # numpy's durations are ints
        return None
    if isinstance(value, decimal.Decimal):
        if not value.is_finite() or value.adjusted() > 20:  # NaN, sNaN, inf; beyond int64
            return None
    elif not isinstance(value, numbers.Real):  # numpy's integers and floats are Real
        return None
    try:
        whole = int(value)
    except (OverflowError, TypeError, ValueError):  # inf, NaN
        return None
    return whole if whole == value and -_INT64_LIMIT <= whole < _INT64_LIMIT else None


@dataclass(frozen=True, slots=True)
class Interpolation:
    """A way of reading a guide between its rows (the ``interpolation`` of guide.toml)."""

    name: str
    every_month: bool  # the table must have a row for every month
    en: str
    es: str

    def factors(self, table_ages, table_factors, ages, scale: int = 0) -> np.ndarray:
        """Factors at ``ages`` (months); NaN outside the table (or off its rows, for exact).

        ``scale``: 10^d where every factor of the table is a decimal of d places
        (:func:`decimal_scale`; 0 if not). Between rows the factor is then the float nearest
        the exact value, as the decimals give it: 0.425 at 5 months from 0.40 to 0.46, not
        0.42500000000000004.
        """
        low, high = bracket(table_ages, ages)
        inside = low >= 0
        low, high = np.where(inside, low, 0), np.where(inside, high, 0)
        if self.every_month:
            return np.where(inside & (low == high), table_factors[low], np.nan)
        ages = np.asarray(ages, dtype=np.int64)
        span = np.where(low == high, 1, table_ages[high] - table_ages[low])
        after = ages - table_ages[low]
        if scale:  # (F_low (span - k) + F_high k) / (span 10^d): exact, then one rounding
            decimals = np.round(table_factors * scale)
            numerator = decimals[low] * (span - after) + decimals[high] * after
            return np.where(inside, numerator / (span * float(scale)), np.nan)
        slope = (table_factors[high] - table_factors[low]) / span
        return np.where(inside, slope * after + table_factors[low], np.nan)

    def describe(self, lang: str) -> str:
        return self.es if lang == "es" else self.en


def decimal_scale(ages: np.ndarray, factors: np.ndarray) -> int:
    """10^d for the fewest places d (at most 12) that write every factor exactly as its float
    reads, and that keep a row's integer times the widest gap between rows exact in a
    float; 0 when there are none."""
    widest = int(np.diff(ages).max()) if len(ages) > 1 else 1
    for places in range(13):
        scale = 10**places
        if scale * widest * max(1.0, float(np.max(factors, initial=0.0))) >= 2**53:
            return 0
        if np.array_equal(np.round(factors * scale) / scale, factors):
            return scale
    return 0


INTERPOLATIONS = {
    method.name: method
    for method in (
        Interpolation("exact", True, "a row for every month", "una fila por mes"),
        Interpolation("monthly-linear", False, "linear by month", "lineal por mes"),
    )
}


def _is_interpolation(value) -> bool:
    """Whether ``value`` names a method of :data:`INTERPOLATIONS`; a value that cannot be
    hashed (a TOML array or table, a list) names none, and is not a TypeError."""
    try:
        return value in INTERPOLATIONS
    except TypeError:
        return False


REQUIRED_KEYS = (
    "id",
    "series",
    "title",
    "status",
    "effective_from",
    "normal_retirement_age",
    "interpolation",
    "source",
)
OPTIONAL_KEYS = ("adopted_by", "adopted_on", "effective_until", "basis")
# The one field's name a basis may hold too: the age a derivation's factors reach 1 at (the
# guide's own is read above [basis]); any other field's name there is a field misplaced.
BASIS_MAY_STATE = ("normal_retirement_age",)
CSV_HEADER = ["age_years", "age_months", "factor"]
# Limits checked before parsing (a guide.toml has about 20 keys of depth 2, a reduction.csv
# at most 122 lines).
GUIDE_FILE_LIMITS = {"guide.toml": 64 * 1024, "reduction.csv": 64 * 1024}  # bytes
TOML_MAX_DEPTH = 6
TOML_MAX_KEYS = 200
SHOWN_PERIODS = 3  # a "no guide" message lists the periods of at most this many guides


@takes_paths("path")
def file_sha256(path: Path) -> str:
    """SHA-256 of a file, read in blocks (provenance of guides and member files)."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class GuideError(ValueError):
    """A guide or set of guides breaks a rule; ``problems`` lists every one."""

    def __init__(self, problems):
        self.problems = list(problems)
        lines = _listed(self.problems)
        count = len(self.problems)
        head = f"{count} problem(s) in the Actuarial Guides:" if count > 1 else ""
        super().__init__("\n".join([head, *lines]) if head else lines[0])


def _listed(problems) -> list[str]:
    """Each problem's line, but of a file's first :data:`PROBLEMS_SHOWN` only: the others
    are counted on a line after them (3,000 repeated rows are not 3,000 lines)."""
    counts = Counter(problem.path for problem in problems)
    lines, seen = [], Counter()
    for problem in problems:
        seen[problem.path] += 1
        if seen[problem.path] <= PROBLEMS_SHOWN:
            lines.append(str(problem))
        if seen[problem.path] == PROBLEMS_SHOWN < counts[problem.path]:
            lines.append(f"{problem.path}: {more_problems(counts[problem.path])}")
    return lines


@dataclass(frozen=True, slots=True)
class Problem:
    """Where a rule is broken (file and line, when there is one) and which rule."""

    path: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


@dataclass(frozen=True, slots=True)
class Guide:
    """One Actuarial Guide: metadata and its reduction table by age in months."""

    id: str
    series: str
    title: str
    status: str
    effective_from: dt.date
    effective_until: dt.date | None
    normal_retirement_age: int
    interpolation: str
    source: str
    adopted_by: str | None
    adopted_on: dt.date | None
    basis: dict = field(hash=False, compare=False)
    age_months: np.ndarray = field(repr=False, hash=False, compare=False)
    factors: np.ndarray = field(repr=False, hash=False, compare=False)
    path: Path | None = field(default=None, compare=False)
    # The law whose ages its table spans (a Law, or paths of amendment files; None: the
    # shipped law), held as a Law: the one it was checked against.
    law: Law | None = field(default=None, repr=False, compare=False)
    _name: str = field(init=False, repr=False, compare=False)  # the id as messages name it
    _scale: int = field(init=False, repr=False, compare=False)  # its factors' decimal_scale

    def __post_init__(self) -> None:
        """Every rule :func:`load_guide` checks, on the values given (a guide made in
        Python, or by ``dataclasses.replace``), by the same functions and with the same
        messages; all problems at once. The table is then held as numpy arrays, and a
        folder given as text as a Path (as :func:`load_guide` gives it), and a date given as
        a pandas period of one day as that day (:func:`~actuarial.dates.period_day`, as a
        member's dates and ``as_of`` are read)."""
        if isinstance(self.path, str | os.PathLike):
            object.__setattr__(self, "path", Path(self.path))
        if self.law is not None:
            object.__setattr__(self, "law", law_in_force(self.law))
        for key in DATE_KEYS:
            day = period_day(getattr(self, key))
            held = None if day is None else day.item()  # an int beyond Python's dates
            if isinstance(held, dt.date):
                object.__setattr__(self, key, held)
        problems, table = _guide_problems(self)
        if problems:
            raise GuideError(problems)
        object.__setattr__(self, "age_months", table[0])
        object.__setattr__(self, "factors", table[1])
        object.__setattr__(self, "_name", one_line(self.id))
        object.__setattr__(self, "_scale", decimal_scale(table[0], table[1]))

    @property
    def span(self) -> AgeSpan:
        """The ages its table spans: its first row's to its last's, the normal retirement age."""
        return AgeSpan(int(self.age_months[0]), int(self.age_months[-1]))

    def factor(self, age_months) -> np.ndarray:
        """Reduction factor at exact ages in months, within the table, by the guide's method.

        ``"exact"`` reads the row of that month (NaN where the table has none);
        ``"monthly-linear"`` interpolates linearly by month between rows.
        """
        ages = _whole_months(self._name, age_months)
        return self.method.factors(self.age_months, self.factors, ages, self._scale)

    @property
    def method(self) -> Interpolation:
        """The guide's interpolation method (see :data:`INTERPOLATIONS`)."""
        return INTERPOLATIONS[self.interpolation]

    def bracket(self, age_months: int) -> tuple[int, int]:
        """The rows a factor at ``age_months`` is read from (equal on a row)."""
        low, high = bracket(self.age_months, [age_months])
        return int(low[0]), int(high[0])

    def in_force_on(self, date: dt.date) -> bool:
        """Whether the guide is in force on ``date`` (both ends inclusive)."""
        return self.effective_from <= date and (
            self.effective_until is None or date <= self.effective_until
        )

    @property
    def files(self) -> tuple[Path, ...]:
        """The guide's files, read by :func:`load_guide` (none for a guide made in memory)."""
        if self.path is None:
            return ()
        return tuple(self.path / name for name in GUIDE_FILE_LIMITS)

    def sha256(self) -> dict[str, str]:
        """SHA-256 of the guide's files, for provenance."""
        return {file.name: file_sha256(file) for file in self.files}

    def table(self):
        """The reduction table as a DataFrame (age_years, age_months, factor)."""
        import pandas as pd

        return pd.DataFrame(
            {
                "age_years": self.age_months // 12,
                "age_months": self.age_months % 12,
                "factor": self.factors,
            }
        )


@dataclass(frozen=True, slots=True)
class GuideSet:
    """The guides of one series, in date order; picks the guide in force on a date.

    ``files``: every file read to load them (its guides' files, and those of the other
    series' guides that :func:`load_guides` read and validated beside them).
    """

    series: str
    guides: tuple[Guide, ...]
    files: tuple[Path, ...] = field(default=(), compare=False)
    # Set once the guides are checked: the series as messages name it, and each guide's
    # first and last day in force, in date order (read on every look-up).
    _name: str = field(init=False, repr=False, compare=False)
    _periods: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Its arguments checked as a :class:`Guide` checks its fields (a series, a tuple or a
        list of Guide objects, a tuple or a list of paths), every problem at once; then its
        guides: of its series, their periods apart."""
        problems = _guide_set_problems(self.series, self.guides, self.files)
        if problems:
            raise GuideError(problems)
        object.__setattr__(self, "_name", one_line(self.series))  # as user text is shown
        own = (file for guide in self.guides for file in guide.files)
        object.__setattr__(self, "files", unique_files([*self.files, *own]))
        if not self.guides:
            raise GuideError([Problem(self._name, None, "a series needs at least one guide")])
        problems = [
            Problem(
                _where(guide),
                None,
                f"series {quoted(self.series)}: guide {quoted(guide.id)} is of series "
                f"{quoted(guide.series)}",
            )
            for guide in self.guides
            if guide.series != self.series
        ]
        ordered = sorted(self.guides, key=lambda g: g.effective_from)
        problems += overlap_problems(
            self.series,
            [Period(g.id, g.effective_from, g.effective_until, _where(g)) for g in ordered],
        )
        if problems:
            raise GuideError(problems)
        object.__setattr__(self, "guides", tuple(ordered))
        starts = np.array([g.effective_from for g in ordered], dtype="datetime64[D]")
        ends = [g.effective_until or dt.date(9999, 12, 31) for g in ordered]
        object.__setattr__(self, "_periods", (starts, np.array(ends, dtype="datetime64[D]")))

    def __iter__(self):
        return iter(self.guides)

    def __len__(self) -> int:
        return len(self.guides)

    def by_id(self, guide_id: str) -> Guide:
        """The guide with that id; the error lists the ids there are."""
        for guide in self.guides:
            if guide.id == guide_id:
                return guide
        raise GuideError(
            [
                Problem(
                    self._name,
                    None,
                    f"no guide {quoted(guide_id)} (guides: {[g.id for g in self]})",
                )
            ]
        )

    def index_in_force(self, dates) -> np.ndarray:
        """Index of the guide in force on each date, -1 where none is."""
        dates = np.asarray(dates, dtype="datetime64[D]")
        starts, ends = self._periods
        index = starts.searchsorted(dates, side="right") - 1
        safe = np.maximum(index, 0)  # from -1 to the last guide
        covered = (index >= 0) & (dates <= ends[safe]) & ~np.isnat(dates)
        return np.where(covered, safe, -1)

    def factors(self, dates, age_months) -> tuple[np.ndarray, np.ndarray]:
        """Reduction factor and guide index for each (separation date, age) pair."""
        index = self.index_in_force(dates)
        age_months = _whole_months(self._name, age_months)
        result = np.full(index.shape, np.nan)
        for position, guide in enumerate(self.guides):
            chosen = index == position
            if chosen.any():
                result[chosen] = guide.factor(age_months[chosen])
        return result, index

    def in_force_on(self, date: dt.date) -> Guide:
        """The guide in force on ``date``; an error names the date when none is."""
        index = int(self.index_in_force(np.array([date], dtype="datetime64[D]"))[0])
        if index < 0:
            raise GuideError([Problem(self._name, None, self.no_guide_message(date))])
        return self.guides[index]

    def no_guide_message(self, date) -> str:
        """Why no guide applies on ``date``: the periods, or the nearest ones when there are
        many (a short message whatever the number of guides)."""
        return self.no_guide_messages(np.array([date], dtype="datetime64[D]"))[0]

    def no_guide_messages(self, dates) -> list[str]:
        """:meth:`no_guide_message` for each date, the guides' periods prepared once."""

        def period(guide):
            until = guide.effective_until or "open end"
            return f"{quoted(guide.id)} {guide.effective_from} to {until}"

        head = f"no Actuarial Guide of series {quoted(self.series)} is in force on"
        dates = np.asarray(dates, dtype="datetime64[D]")
        if len(self.guides) <= SHOWN_PERIODS:
            periods = ", ".join(period(g) for g in self)
            return [f"{head} {day} ({periods})" for day in dates]
        before = self._periods[0].searchsorted(dates, side="right") - 1
        messages = []
        for day, last in zip(dates, before, strict=True):
            nearest = [f"last before: {period(self.guides[last])}"] if last >= 0 else []
            if last + 1 < len(self.guides):
                nearest.append(f"next after: {period(self.guides[last + 1])}")
            summary = f"{len(self.guides):,} guides; " + "; ".join(nearest)
            messages.append(f"{head} {day} ({summary})")
        return messages


# The keys a guide's period is read from: valid, they place it beside the others of its
# series (whatever else of the guide is broken).
PERIOD_KEYS = {"id", "series", "effective_from", "effective_until"}


class Period(NamedTuple):
    """A guide's period in force, and where the guide is (its problems' place)."""

    id: str
    effective_from: dt.date
    effective_until: dt.date | None
    where: str


def overlap_problems(series: str, periods) -> list[Problem]:
    """A problem for each :class:`Period` of ``series`` that overlaps an earlier one."""
    ordered = sorted(periods, key=lambda period: period.effective_from)

    def end(period: Period) -> dt.date:
        return period.effective_until or dt.date.max

    # Each guide against the earlier one that ends last, not only the one just before:
    # two short guides inside a long one both overlap it.
    problems = []
    latest = ordered[0] if ordered else None
    for later in ordered[1:]:
        earlier, latest = latest, max(latest, later, key=end)
        if end(earlier) >= later.effective_from:
            until = earlier.effective_until or "open end"
            problems.append(
                Problem(
                    later.where,
                    None,
                    f"series {quoted(series)}: period of {quoted(later.id)} (from "
                    f"{later.effective_from}) overlaps {quoted(earlier.id)} "
                    f"({earlier.effective_from} to {until})",
                )
            )
    return problems


def _where(guide: Guide) -> str:
    """Where a guide's problems are: its folder, or (a guide made in Python, of no folder or
    of a path that is none) its id shown on one line (:func:`~actuarial.shown_text.one_line`)."""
    return str(guide.path) if isinstance(guide.path, Path) else one_line(guide.id)


def _guide_set_problems(series, guides, files) -> list[Problem]:
    """The problems of a :class:`GuideSet`'s arguments, each named by the series: a series
    that is no text, guides or files that are not a tuple or a list (of Guide objects, of
    paths), each value named as given with what is expected."""
    where = one_line(series)
    problems = [Problem(where, None, message) for _, message in _text_problems({"series": series})]
    for name, given, kinds, expected in (
        ("guides", guides, Guide, "a tuple of Guide objects"),
        ("files", files, str | os.PathLike, "a tuple of paths"),
    ):
        rule = f"'{name}' must be {expected}"
        if not isinstance(given, tuple | list):
            problems.append(Problem(where, None, f"{rule} (got {quoted(given)})"))
            continue
        problems.extend(
            Problem(where, None, f"{rule} (got {quoted(item)} at position {position})")
            for position, item in enumerate(given, 1)
            if not isinstance(item, kinds)
        )
    return problems


def _read_guide_file(path: Path, problems: list[Problem]) -> str | None:
    """A guide file's text, or None with a problem: too large, unreadable or not UTF-8."""
    text, found = read_text(path, GUIDE_FILE_LIMITS[path.name], path.name)
    problems.extend(Problem(str(path), problem.line, problem.message) for problem in found)
    return text


_TABLE_HEADER = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(?:#.*)?$")


def _line_of_key(text: str, key: str) -> int | None:
    """The line of ``key = ...`` (bare or quoted: ``"key" =``, ``'key' =``) at the top of
    guide.toml, or of ``name = ...`` in its table for ``table.name`` (``basis.rate``); never
    a line inside a multi-line string or another table. A key written as a table of its own
    (``[extra]``) is found at its header."""
    table, _, name = key.rpartition(".")
    assignment = re.compile(
        rf"^\s*(?:{re.escape(name)}|\"{re.escape(name)}\"|'{re.escape(name)}')\s*="
    )
    current, header = "", None
    for number, line in outside_strings(text):
        if (found := _TABLE_HEADER.match(line)) is not None:
            current = found[1].strip("\"'")
            if current == key and header is None:
                header = number
            continue
        if current == table and assignment.match(line):
            return number
    return header


def _check_metadata(
    folder: Path, text: str, problems: list[Problem], law: Law | None
) -> tuple[dict | None, set]:
    """guide.toml's values (None when it cannot be read as TOML) and the keys whose rules
    they break under ``law`` (None: the shipped law), each problem added to ``problems``."""
    toml_path = folder / "guide.toml"
    shape = toml_shape_problems(text, TOML_MAX_DEPTH, TOML_MAX_KEYS)
    if shape:
        problems.extend(Problem(str(toml_path), item.line, item.message) for item in shape)
        return None, set()
    try:
        meta = tomllib.loads(text)
    except (RecursionError, ValueError) as error:  # TOMLDecodeError is a ValueError
        line = re.search(r"line (\d+)", str(error))
        problems.append(
            Problem(
                str(toml_path),
                int(line.group(1)) if line else None,
                f"not valid TOML: {shortened(str(error), 200)}",
            )
        )
        return None, set()

    broken = set()
    for key, message in _metadata_problems(meta, law, named_folder(folder).name):
        problems.append(Problem(str(toml_path), _line_of_key(text, key), message))
        broken.add(key)
    return meta, broken


TEXT_KEYS = ("id", "series", "title", "source", "adopted_by")  # each a non-empty string
DATE_KEYS = ("effective_from", "effective_until", "adopted_on")  # each a date


def _text_problems(values: dict) -> list[tuple[str, str]]:
    """The key and message of each of ``values`` (of :data:`TEXT_KEYS`) that is not a
    non-empty string: the one rule of a guide's text fields and of a GuideSet's series."""
    return [
        (key, f"'{key}' must be a non-empty string (got {quoted(values[key])})")
        for key in TEXT_KEYS
        if key in values and not (isinstance(values[key], str) and values[key].strip())
    ]


def _as_written(value) -> str:
    """A value of guide.toml as a message quotes it: an array or a table as TOML writes it
    (``[2021-01-01]``, not ``[datetime.date(2021, 1, 1)]``), cut; anything else quoted."""
    if isinstance(value, list | dict):
        return shortened(toml_text(value))
    return quoted(value)


def _metadata_problems(
    meta: dict, law: Law | None, folder_name: str | None = None
) -> list[tuple[str, str]]:
    """The rules of a guide's metadata, on its values (read from guide.toml, or the fields
    of a :class:`Guide`), its ages those of ``law`` (None: the shipped law): the key and the
    message of each rule broken, in order. The id must equal ``folder_name`` when the guide
    is read from a folder."""
    problems: list[tuple[str, str]] = []

    def report(key: str, message: str) -> None:
        problems.append((key, message))

    for key in REQUIRED_KEYS:
        if key not in meta:
            report(key, f"'{key}' is required")
    for key in meta:
        if key not in REQUIRED_KEYS + OPTIONAL_KEYS:
            report(
                key,
                f"'{key}' is not a guide field (fields: {sorted(REQUIRED_KEYS + OPTIONAL_KEYS)})",
            )
    problems.extend(_text_problems(meta))
    if isinstance(meta.get("id"), str) and not meta["id"].isprintable():  # a line break, ...
        shown = quoted(meta["id"])
        report("id", f"'id' must be printable text, without control characters (got {shown})")
    elif (
        isinstance(meta.get("id"), str)
        and meta["id"].strip()
        and (meta["id"] != meta["id"].strip() or meta["id"].startswith("."))
    ):  # a guide's folder: hidden folders are not read as guides
        report(
            "id",
            f"'id' must not begin or end with white space, nor begin with '.' (got "
            f"{quoted(meta['id'])})",
        )
    name = folder_name  # None: a guide made in Python, of no folder
    if name is not None and isinstance(meta.get("id"), str) and meta["id"] != name:
        report("id", f"'id' must equal the folder name '{name}' (got {quoted(meta['id'])})")
    if "status" in meta and meta["status"] not in STATUSES:
        report("status", f"'status' must be in {list(STATUSES)} (got {quoted(meta['status'])})")
    if "interpolation" in meta and not _is_interpolation(meta["interpolation"]):
        report(
            "interpolation",
            f"'interpolation' must be in {list(INTERPOLATIONS)} "
            f"(got {quoted(meta['interpolation'])})",
        )
    nra, span = meta.get("normal_retirement_age"), _span_of(meta, law)
    if "normal_retirement_age" in meta and (
        not isinstance(nra, numbers.Integral)  # a whole number's type (numpy's too)
        or isinstance(nra, bool | np.bool_)  # not True
        or nra != span.normal_retirement_age
    ):
        report(
            "normal_retirement_age",
            f"'normal_retirement_age' must be {span.normal_retirement_age}, the age of inciso "
            f"(a) (got {as_given(nra)})",
        )
    for key in DATE_KEYS:
        value = meta.get(key)
        if (day := period_day(value)) is not None:  # of a Guide: a day beyond Python's dates
            report(key, f"'{key}' {DATE_RANGE_RULE} (got {day})")
        elif value is not None and not is_plain_date(value):
            report(key, not_a_date(key, value, _as_written(value)))
        elif value is not None and (outside := date_outside(key, value)):
            report(key, outside)
    start, end = meta.get("effective_from"), meta.get("effective_until")
    if is_plain_date(start) and is_plain_date(end) and end < start:  # a datetime is reported above
        report(
            "effective_until",
            f"'effective_until' must be on or after 'effective_from' {start} (got {end})",
        )
    if meta.get("status") == "adopted":
        for key in ("adopted_by", "adopted_on"):
            if key not in meta:
                report("status", f"'{key}' is required when 'status' is 'adopted'")
    if "basis" in meta and not isinstance(meta["basis"], dict):
        report("basis", f"'basis' must be a table (got {quoted(meta['basis'])})")
    for key in meta.get("basis", {}) if isinstance(meta.get("basis"), dict) else ():
        if key in REQUIRED_KEYS + OPTIONAL_KEYS and key not in BASIS_MAY_STATE:  # not read
            report(
                f"basis.{key}",
                f"'{key}' is a field of the guide, written under [basis], where it is part of "
                "the basis and not read: write it above [basis]",
            )
    return problems


def _is_there(path: Path, problems: list[Problem]) -> bool | None:
    """Whether ``path`` exists; None, with the problem, when that cannot be known (a folder
    that may not be searched: even the question raises PermissionError)."""
    try:
        return path.exists()
    except OSError as error:
        problems.append(Problem(str(path), None, f"cannot read ({error.strerror})"))
        return None


@takes_paths("folder")
def guides_held(folder) -> list[str]:
    """The folders in ``folder`` that hold a guide (a ``guide.toml``), by name; none when
    ``folder`` is no folder."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    return sorted(path.name for path in folder.iterdir() if (path / "guide.toml").is_file())


@takes_paths("folder")
def holds_guide(folder) -> bool:
    """Whether ``folder`` holds a guide, as :func:`load_guide` asks it: its guide.toml is
    there (a folder or a pipe in its place too: loading it says what it is); True when that
    cannot be known (a folder that may not be searched), so that loading it says why."""
    return _is_there(Path(folder) / "guide.toml", []) is not False


def _check_table(folder: Path, interpolation, span: AgeSpan, problems: list[Problem]):
    csv_path = folder / "reduction.csv"
    there = _is_there(csv_path, problems)
    if not there:  # else read: a folder or a pipe is named as such
        if there is False:
            problems.append(Problem(str(csv_path), None, "reduction.csv is missing"))
        return None
    where = str(csv_path)
    text = _read_guide_file(csv_path, problems)
    if text is None:
        return None
    try:
        return _check_rows(where, text, interpolation, span, problems)
    except csv.Error as error:  # e.g. a NUL byte
        problems.append(Problem(where, None, f"not a readable CSV file ({error})"))
        return None


def _check_rows(where: str, text: str, interpolation, span: AgeSpan, problems: list[Problem]):
    rows: list[tuple[int, int, float]] = []  # (age in months, line, factor)
    reported: set[int] = set()  # ages whose row was rejected for its factor
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, None)
    if [h.strip() for h in header or []] != CSV_HEADER:
        problems.append(
            Problem(
                where,
                1,
                f"header must be {','.join(CSV_HEADER)} (got {quoted(','.join(header or []))})",
            )
        )
        return None
    for record in reader:
        line = reader.line_num
        if not record or all(not cell.strip() for cell in record):
            continue
        if len(record) != 3:
            problems.append(Problem(where, line, f"row must have 3 fields (got {len(record)})"))
            continue
        years, months = whole_number(record[0]), whole_number(record[1])
        if years is None or months is None:
            problems.append(
                Problem(
                    where,
                    line,
                    "'age_years' and 'age_months' must be "
                    f"integers (got {quoted(record[0])}, {quoted(record[1])})",
                )
            )
            continue
        if not 0 <= months <= 11:
            problems.append(Problem(where, line, f"'age_months' must be in [0, 11] (got {months})"))
            continue
        age = years * 12 + months
        factor, problem = _row_problem(age, record[2], span)
        if problem is not None:
            problems.append(Problem(where, line, problem))
            if factor is not None:  # the row is there: no "must have a row" for it as well
                reported.add(age)
            continue
        rows.append((age, line, factor))
    found, table = _table_problems(rows, reported, interpolation, span, "line")
    problems.extend(Problem(where, line, message) for line, message in found)
    return table


def _row_problem(age: int, factor, span: AgeSpan) -> tuple[float | None, str | None]:
    """A table row's rules: its age (in months) within the guide's ``span``, its factor a number
    in (0, 1] (``factor`` as written in the file, or as given). The factor read, and the
    message of the rule broken or None; the factor is NaN when only the factor is wrong (the
    row is there) and None when the age is."""
    if not span.first <= age <= span.last:
        shown = f"[{span.first_label}, {span.last_label}]"
        return None, f"age must be in {shown} (got {age // 12}y{age % 12}m)"
    not_a_number = f"'factor' must be a number (got {quoted(factor)})"
    if isinstance(factor, bool | np.bool_):  # float() reads True as 1.0
        return math.nan, not_a_number
    if isinstance(factor, str | bytes | bytearray | memoryview):  # text, as float() reads it
        read = _decimal_text(factor)  # a plain decimal number, as written in a file
        if read is None:
            return math.nan, not_a_number
    else:
        try:
            read = float(factor)
        except OverflowError:  # an int beyond float: a number, not in (0, 1]
            read = math.inf
        except (TypeError, ValueError):
            return math.nan, not_a_number
    if not (math.isfinite(read) and 0 < read <= 1):
        shown = shortened(factor) if isinstance(factor, str) else quoted(factor)  # as written
        if read == 0 and isinstance(factor, str) and decimal.Decimal(factor.strip()) > 0:
            shown += ", which a float reads as 0"  # below the smallest float: 1e-400
        return math.nan, f"'factor' must be in (0, 1] (got {shown})"
    return read, None


def _decimal_text(text) -> float | None:
    """The number a factor given as text holds, read as reduction.csv's
    (:func:`~actuarial.text_files.decimal_number`); bytes as UTF-8, as the file is read."""
    if isinstance(text, str):
        return decimal_number(text)
    try:
        return decimal_number(bytes(text).decode("utf-8"))
    except UnicodeDecodeError:
        return None


def _table_problems(rows, reported: set[int], interpolation, span: AgeSpan, place: str):
    """The rules of a guide's table as a whole, on its valid rows ``(age in months, where,
    factor)``, ``where`` the row's line in reduction.csv or its row in a :class:`Guide`
    (``place``: "line" or "row"); ``reported``: the ages whose row has a wrong factor.
    The ``(where, message)`` of each rule broken, and the table (ages, factors) by age."""
    problems: list[tuple[int | None, str]] = []
    seen: dict[int, int] = {}
    for index, (age, line, _factor) in enumerate(rows):
        label = f"{age // 12}y{age % 12}m"
        if age in seen:
            problems.append((line, f"duplicate age {label} (first on {place} {seen[age]})"))
            continue
        seen[age] = line
        if index and age < rows[index - 1][0]:
            problems.append(
                (
                    line,
                    f"rows must be in ascending age order ({label} "
                    f"follows {place} {rows[index - 1][1]})",
                )
            )
    # Each factor against the one of the age before it, whatever the order of the rows: a
    # decrease is reported with the rows out of order, not only once they are sorted.
    by_age_order = sorted((age, line, factor) for age, line, factor in rows if seen[age] == line)
    for (_, before_line, before), (age, line, factor) in itertools.pairwise(by_age_order):
        if factor < before:
            problems.append(
                (
                    line,
                    f"'factor' must not decrease with age ({factor} at "
                    f"{age // 12}y{age % 12}m < {before} on {place} {before_line})",
                )
            )
    ages = {age for age, *_ in rows} | reported
    if span.first not in ages:
        problems.append((None, f"the table must have a row for {span.first_label}"))
    by_age = {age: (line, factor) for age, line, factor in rows}
    if span.last not in ages:
        problems.append((None, f"the table must have a row for {span.last_label}"))
    elif span.last in by_age and by_age[span.last][1] != 1.0:
        line, factor = by_age[span.last]
        problems.append((line, f"'factor' must be 1 at {span.last_label} (got {factor})"))
    if _is_interpolation(interpolation) and INTERPOLATIONS[interpolation].every_month:
        missing = [a for a in range(span.first, span.last + 1) if a not in ages]
        if missing:
            shown = ", ".join(format_age(a) for a in missing[:5])
            more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
            problems.append(
                (
                    None,
                    f"interpolation '{interpolation}' needs every month from "
                    f"{span.label}; missing {shown}{more}",
                )
            )
    ordered = sorted(by_age)
    table = (np.array(ordered, dtype=np.int64), np.array([by_age[a][1] for a in ordered]))
    return problems, table


def _guide_problems(guide: Guide) -> tuple[list[Problem], tuple | None]:
    """The problems of a :class:`Guide` by the rules of :func:`load_guide` (its metadata,
    each row, the table), each named by the guide (and the row: 1-based); and its table."""
    no_path = guide.path is not None and not isinstance(guide.path, Path)
    where = _where(guide)
    meta = {
        key: getattr(guide, key)
        for key in (*REQUIRED_KEYS, *OPTIONAL_KEYS)
        if getattr(guide, key) is not None
    }
    found = _metadata_problems(meta, guide.law)
    problems = [Problem(where, None, message) for _, message in found]
    if no_path:  # guide.files would raise TypeError
        message = f"'path' must be the guide's folder (a path) or None (got {quoted(guide.path)})"
        problems.append(Problem(where, None, message))
    ages, factors = _as_array(guide.age_months), np.asarray(guide.factors, dtype=object)
    if ages.ndim != 1 or factors.ndim != 1 or len(ages) != len(factors):
        problems.append(
            Problem(
                where,
                None,
                "'age_months' and 'factors' must be one-dimensional, of one length "
                f"(got shapes {ages.shape} and {factors.shape})",
            )
        )
        return problems, None
    try:
        ages = _whole_months(where, ages)
    except GuideError as error:
        problems.extend(error.problems)
        return problems, None
    rows, reported, span = [], set(), _span_of(meta, guide.law)
    for row, (age, given) in enumerate(zip(ages.tolist(), factors, strict=True), 1):
        factor, problem = _row_problem(age, given, span)
        if problem is not None:
            problems.append(Problem(where, None, f"row {row}: {problem}"))
            if factor is not None:
                reported.add(age)
            continue
        rows.append((age, row, factor))
    found, table = _table_problems(rows, reported, guide.interpolation, span, "row")
    problems.extend(
        Problem(where, None, message if row is None else f"row {row}: {message}")
        for row, message in found
    )
    return problems, table


def named_folder(folder) -> Path:
    """``folder`` by a path whose name is its own, the guide's id: ``.`` and ``..`` (no name
    of their own) as the folder they lead to."""
    folder = Path(folder)
    return Path(os.path.realpath(folder)) if folder.name in ("", "..") else folder


def check_guide(
    folder: Path, problems: list[Problem], periods: dict | None = None, law: Law | None = None
) -> Guide | None:
    """The guide in ``folder`` under ``law`` (its ages; None: the shipped law), or None with
    its problems added to ``problems``; ``periods`` (series -> :class:`Period` list) gets its
    period wherever its guide.toml states one, even when some other rule of the guide is
    broken (an overlap is then reported too)."""
    toml_path = folder / "guide.toml"
    there = _is_there(toml_path, problems)
    if not there:  # else read: a folder or a pipe is named as such
        if there is False:  # its table's problems too, all at once (the ages of today's law)
            problems.append(Problem(str(toml_path), None, "guide.toml is missing"))
            _check_table(folder, None, _span_of({}, law), problems)
        return None
    before = len(problems)
    text = _read_guide_file(toml_path, problems)
    meta, broken = (None, set()) if text is None else _check_metadata(folder, text, problems, law)
    if periods is not None and meta is not None and not broken & PERIOD_KEYS:
        periods.setdefault(meta["series"], []).append(
            Period(meta["id"], meta["effective_from"], meta.get("effective_until"), str(folder))
        )
    read = meta or {}
    table = _check_table(folder, read.get("interpolation"), _span_of(read, law), problems)
    if meta is None or table is None or len(problems) > before:
        return None
    return Guide(
        id=meta["id"],
        series=meta["series"],
        title=meta["title"],
        status=meta["status"],
        effective_from=meta["effective_from"],
        effective_until=meta.get("effective_until"),
        normal_retirement_age=meta["normal_retirement_age"],
        interpolation=meta["interpolation"],
        source=meta["source"],
        adopted_by=meta.get("adopted_by"),
        adopted_on=meta.get("adopted_on"),
        basis=dict(meta.get("basis", {})),
        age_months=table[0],
        factors=table[1],
        path=folder,
        law=law,
    )


@takes_paths("folder", "law")
def load_guide(folder, law=None) -> Guide:
    """Load and validate one guide folder, its ages those of ``law`` (paths of amendment
    files or a Law; None: the shipped law); raises :class:`GuideError` listing every
    problem."""
    problems: list[Problem] = []
    guide = check_guide(Path(folder), problems, law=law_in_force(law))
    if problems:
        raise GuideError(problems)
    return guide


@takes_paths("path", "law")
def load_every_guide(path, law=None) -> list[Guide]:
    """Every guide under ``path`` (a guide folder or a folder of guides), of every series,
    their ages those of ``law`` (as :func:`load_guide`).

    Every guide is validated completely, and the guides of each series must not overlap in
    time; any problem anywhere raises :class:`GuideError` listing all of them, and nothing
    is returned.
    """
    path, law = Path(path), law_in_force(law)
    if not path.is_dir():
        what = "not a folder of Actuarial Guides" if path.exists() else "no such folder"
        raise GuideError([Problem(str(path), None, what)])
    problems: list[Problem] = []
    try:
        if holds_guide(path):
            folders = [path]
        else:
            children = sorted(child for child in path.iterdir() if not child.name.startswith("."))
            folders = [child for child in children if child.is_dir()]
            for child in children:  # a guide folder linked from where nothing is (any more)
                if child.is_symlink() and not child.exists():
                    target = os.readlink(child)
                    problems.append(
                        Problem(
                            str(child),
                            None,
                            f"a link that leads to no file or folder (its target: {target})",
                        )
                    )
    except OSError as error:
        raise GuideError([Problem(str(path), None, f"cannot read ({error.strerror})")]) from error
    periods: dict[str, list[Period]] = {}
    guides = [guide for folder in folders if (guide := check_guide(folder, problems, periods, law))]
    for series, stated in periods.items():
        problems += overlap_problems(series, stated)
    if problems:
        raise GuideError(problems)
    if not guides:
        raise GuideError(
            [
                Problem(
                    str(path),
                    None,
                    "no guide found (a guide is a folder with guide.toml and reduction.csv)",
                )
            ]
        )
    return guides


@takes_paths("path")
def guides_to_read(path=None, series: str | None = None) -> tuple[Path, str | None]:
    """The folder and series a command reads (``--guides``, ``--series``): as given; with no
    folder, the shipped guides, in :data:`DEFAULT_SERIES` unless a series is named (``""``
    too: a series no guide has, refused by :func:`load_guides` as with a folder, never read
    as the default)."""
    if path is None:
        return SHIPPED_GUIDES, DEFAULT_SERIES if series is None else series
    if not isinstance(path, str | os.PathLike):  # Path(5) would say "expected str, bytes..."
        raise TypeError(f"'path' must be a folder of guides (a path) (got {as_given(path)})")
    return Path(path), series


@takes_paths("path", "law")
def load_guides(path=None, series: str | None = None, law=None) -> GuideSet:
    """Load a guide folder, or every guide in a folder of guides, as one series; with no
    folder, the shipped guides, as the commands read them (:func:`guides_to_read`). Their
    tables span the ages of ``law`` (paths of amendment files or a Law; None: the shipped
    law) on their ``effective_from``: guides for a bill that changes the ages of (c) or (a)
    are loaded with it.

    Every guide is validated completely; any problem anywhere raises :class:`GuideError`
    listing all of them, and nothing is returned. With several series present, ``series``
    must name one (the error lists them).
    """
    path, series = guides_to_read(path, series)
    guides = load_every_guide(path, law)
    present = sorted({g.series for g in guides})
    if series is None:
        if len(present) > 1:
            raise GuideError(
                [
                    Problem(
                        str(path),
                        None,
                        f"several series present, name one with series= / --series: {present}",
                    )
                ]
            )
        series = present[0]
    if series not in present:
        raise GuideError(
            [Problem(str(path), None, f"'series' must be in {present} (got {quoted(series)})")]
        )
    return GuideSet(
        series,
        tuple(g for g in guides if g.series == series),
        files=tuple(file for guide in guides for file in guide.files),
    )
