"""Member records: the input fields, their parsing and validation, vectorized.

Fields (one row per member): member_id, birth_date, entry_date, separation_date (ISO
dates), credited_service (decimal years), average_compensation (annual USD), group
(general, police, firefighter) and refunded (true/false). Average compensation and
credited service are inputs (I-8). Invalid rows are not dropped: each gets a message that
names the row, the member, the field, the rule and the value.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from actuarial.duplicate_ids import duplicated_ids

__all__ = [
    "GROUPS",
    "MEMBER_FIELDS",
    "Member",
    "MemberArrays",
    "MemberDataError",
    "MemberFileError",
    "blank_mask",
    "check_columns",
    "parse_members",
]

MEMBER_FIELDS = (
    "member_id",
    "birth_date",
    "entry_date",
    "separation_date",
    "credited_service",
    "average_compensation",
    "group",
    "refunded",
)
GROUPS = ("general", "police", "firefighter")
HIGH_RISK_GROUPS = ("police", "firefighter")
_TRUE = ("true", "1", "yes")
_FALSE = ("false", "0", "no")
_DAYS_PER_YEAR = 365.2425
# Columns of these kinds (pandas.api.types.infer_dtype) hold no text: no cell is blank text.
_NOT_TEXT = ("date", "datetime", "datetime64", "integer", "floating", "boolean", "empty")


class MemberDataError(ValueError):
    """A member's data breaks a rule (field, rule and value in the message)."""


class MemberFileError(ValueError):
    """A member file cannot be used at all (unreadable, or a required column missing)."""


@dataclass(frozen=True, slots=True)
class Member:
    """One member, with Python values (see :data:`MEMBER_FIELDS`)."""

    member_id: str
    birth_date: dt.date
    entry_date: dt.date
    separation_date: dt.date
    credited_service: float
    average_compensation: float
    group: str = "general"
    refunded: bool = False

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class MemberArrays:
    """Parsed members as numpy arrays; ``error`` is ``""`` for a valid row."""

    row: np.ndarray  # 1-based data row in the input
    member_id: pd.Series  # strings, "" where missing
    birth_date: np.ndarray
    entry_date: np.ndarray
    separation_date: np.ndarray
    credited_service: np.ndarray
    average_compensation: np.ndarray
    group: np.ndarray  # index into GROUPS, -1 if invalid
    refunded: np.ndarray
    error: np.ndarray

    @property
    def valid(self) -> np.ndarray:
        return self.error == ""

    def __len__(self) -> int:
        return len(self.row)


def check_columns(columns, source: str) -> None:
    """Raise :class:`MemberFileError` naming every required column that is missing."""
    missing = [name for name in MEMBER_FIELDS if name not in set(columns)]
    if missing:
        raise MemberFileError(
            f"{source}: missing required column(s) {missing} (required: {list(MEMBER_FIELDS)})"
        )


def _text(series: pd.Series) -> pd.Series:
    """A column as pandas strings (missing kept), whatever it was read as."""
    if isinstance(series.dtype, pd.StringDtype):
        return series
    return series.astype(object).where(series.notna(), None).astype("string")


def blank_mask(series: pd.Series) -> np.ndarray:
    """Where a column is missing, or text that is empty once stripped."""
    if not (series.dtype == object or pd.api.types.is_string_dtype(series.dtype)):
        return series.isna().to_numpy()
    # isna() as well: the "str" dtype (pandas 3) answers False, not NA, for a missing value.
    missing = series.isna().to_numpy(dtype=bool)
    if pd.api.types.infer_dtype(series, skipna=True) in _NOT_TEXT:
        return missing  # e.g. the dates of a Parquet file: no text to strip
    return missing | _text(series).str.strip().eq("").fillna(True).to_numpy(dtype=bool)


def _arrow_text(series: pd.Series):
    """The column as a trimmed Arrow string array, or None when it is not all text."""
    try:
        array = pa.array(series, type=pa.string(), from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    return pc.utf8_trim_whitespace(array)


def _parse_dates(series: pd.Series) -> np.ndarray:
    """ISO dates (YYYY-MM-DD) as datetime64[D]; NaT where missing or unparseable."""
    if pd.api.types.is_datetime64_any_dtype(series.dtype):
        return series.to_numpy().astype("datetime64[D]")
    if pd.api.types.infer_dtype(series, skipna=True) == "date":  # datetime.date objects
        dates = pa.array(series, type=pa.date32(), from_pandas=True)
        return dates.to_numpy(zero_copy_only=False).astype("datetime64[D]")
    text = _arrow_text(series)
    if text is not None:
        try:  # fast path: every value is an exact date YYYY-MM-DD or missing
            exact_dates = pc.cast(pc.if_else(pc.equal(text, ""), None, text), pa.date32())
            return exact_dates.to_numpy(zero_copy_only=False).astype("datetime64[D]")
        except pa.ArrowInvalid:
            pass
        parsed = pc.strptime(text, format="%Y-%m-%d", unit="s", error_is_null=True)
        # strptime rolls impossible days over (2020-02-30 -> 03-01): keep exact dates only.
        shaped = pc.match_substring_regex(text, r"^\d{4}-\d{2}-\d{2}$")
        day = pc.cast(pc.if_else(shaped, pc.utf8_slice_codeunits(text, 8, 10), None), pa.int64())
        exact = pc.fill_null(pc.and_(shaped, pc.equal(pc.day(parsed), day)), False)
        parsed = pc.if_else(exact, parsed, None)
        return parsed.to_numpy(zero_copy_only=False).astype("datetime64[D]")
    parsed = pd.to_datetime(series.astype(object), format="%Y-%m-%d", errors="coerce")
    return parsed.to_numpy().astype("datetime64[D]")


def _parse_numbers(series: pd.Series) -> np.ndarray:
    """Decimal numbers as float64; NaN where missing or unparseable."""
    if pd.api.types.is_bool_dtype(series.dtype):
        return np.full(len(series), np.nan)
    if pd.api.types.is_numeric_dtype(series.dtype):
        return series.to_numpy(dtype=float, na_value=np.nan)
    text = _arrow_text(series)
    if text is not None:
        try:  # fast path: every value is a number or missing
            numbers = pc.cast(pc.if_else(pc.equal(text, ""), None, text), pa.float64())
            return numbers.to_numpy(zero_copy_only=False)
        except pa.ArrowInvalid:
            pass
    numbers = pd.to_numeric(series, errors="coerce").to_numpy(float, na_value=np.nan, copy=True)
    if series.dtype == object:  # True and False among numbers: not 1 and 0 years or dollars
        # One by one: True == 1 and hash(True) == hash(1), so grouping equal values would not do.
        boolean = [isinstance(value, bool | np.bool_) for value in series.to_numpy()]
        numbers[np.array(boolean, dtype=bool)] = np.nan
    return numbers


def _map_unique(series: pd.Series, mapping) -> np.ndarray:
    """Apply ``mapping`` to each distinct value once (fast on large columns)."""
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    mapped = np.array([mapping(value) for value in uniques] + [mapping(None)])
    return mapped[np.where(codes >= 0, codes, len(uniques))]


def _group_code(value) -> int:
    if isinstance(value, str) and value.strip().lower() in GROUPS:
        return GROUPS.index(value.strip().lower())
    return -1


def _refund_code(value) -> int:
    if isinstance(value, bool | np.bool_):
        return int(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _TRUE:
            return 1
        if text in _FALSE:
            return 0
    if isinstance(value, int | np.integer | float | np.floating) and value in (0, 1):
        return int(value)  # 1/0, also as floats (a Parquet integer column with nulls)
    return -1


class _Pair:
    """Two date columns shown as ``first > second`` for one row, on demand."""

    def __init__(self, first, second):
        self.first, self.second = first, second

    def __getitem__(self, index):
        return _Literal(f"{self.first[index]} > {self.second[index]}")


class _Literal(str):
    """Text shown as it is in a message (no quotes)."""


def _at(values, index):
    value = values.iloc[index] if isinstance(values, pd.Series) else values[index]
    return None if value is pd.NA else value


def _shown(value) -> str:
    if isinstance(value, _Literal):
        return str(value)
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "missing"
    if isinstance(value, str):
        return repr(value)
    return str(value)


def parse_members(
    frame: pd.DataFrame,
    source: str = "members",
    first_row: int = 1,
    duplicated: np.ndarray | None = None,
) -> MemberArrays:
    """Parse and validate a frame of members; every row is kept, invalid ones with a message.

    ``duplicated`` marks rows whose member_id appears more than once in the whole input,
    as :func:`~actuarial.duplicate_ids.duplicated_ids` finds them (found here when the
    frame is the whole input).
    """
    check_columns(frame.columns, source)
    frame = frame.reset_index(drop=True)
    count = len(frame)
    rows = np.arange(first_row, first_row + count)
    problems: list[tuple[np.ndarray, str, object]] = []  # (mask, message template, values)

    def flag(mask, field, rule, values=None):
        problems.append((np.asarray(mask, dtype=bool), field, rule, values))

    ids = _text(frame["member_id"])  # converted once: the blank check and messages reuse it
    id_text = ids.fillna("")
    id_blank = blank_mask(ids)
    flag(id_blank, "member_id", "is required")
    if duplicated is None:
        duplicated = duplicated_ids(lambda: [ids])
    # A blank id is "required"; several blank ids are not also "not unique".
    flag(duplicated & ~id_blank, "member_id", "must be unique in the file", id_text)

    dates = {}
    for name in ("birth_date", "entry_date", "separation_date"):
        blank = blank_mask(frame[name])
        dates[name] = _parse_dates(frame[name])
        flag(blank, name, "is required")
        flag(
            ~blank & np.isnat(dates[name]),
            name,
            "must be a date YYYY-MM-DD",
            frame[name],
        )
    numbers = {}
    for name in ("credited_service", "average_compensation"):
        blank = blank_mask(frame[name])
        numbers[name] = _parse_numbers(frame[name])
        flag(blank, name, "is required")
        flag(~blank & np.isnan(numbers[name]), name, "must be a number", frame[name])
    service, compensation = numbers["credited_service"], numbers["average_compensation"]
    flag(np.isinf(service), "credited_service", "must be finite", service)
    flag(service < 0, "credited_service", "must be >= 0", service)
    flag(
        ~(compensation > 0) & ~np.isnan(compensation),
        "average_compensation",
        "must be > 0",
        compensation,
    )
    flag(np.isinf(compensation), "average_compensation", "must be finite", compensation)

    birth, entry, separation = dates["birth_date"], dates["entry_date"], dates["separation_date"]
    flag(
        birth > entry,
        "birth_date",
        "must be on or before 'entry_date'",
        _Pair(birth, entry),
    )
    flag(
        entry > separation,
        "entry_date",
        "must be on or before 'separation_date'",
        _Pair(entry, separation),
    )
    life_years = (separation - birth).astype("timedelta64[D]").astype(float) / _DAYS_PER_YEAR
    flag(
        np.isfinite(service) & (service > life_years) & ~np.isnat(separation) & ~np.isnat(birth),
        "credited_service",
        "must not exceed the member's age at separation",
        service,
    )

    group = _map_unique(frame["group"], _group_code) if count else np.zeros(0, int)
    blank = blank_mask(frame["group"])
    flag((group < 0) & ~blank, "group", f"must be in {list(GROUPS)}", frame["group"])
    flag(blank, "group", "is required")
    refunded = _map_unique(frame["refunded"], _refund_code) if count else np.zeros(0, int)
    blank = blank_mask(frame["refunded"])
    flag((refunded < 0) & ~blank, "refunded", "must be true or false", frame["refunded"])
    flag(blank, "refunded", "is required")

    error = np.full(count, "", dtype=object)
    bad = np.zeros(count, dtype=bool)
    for mask, *_ in problems:
        bad |= mask
    for index in np.flatnonzero(bad):
        messages = [
            f"'{field}' {rule}" + ("" if values is None else f" (got {_shown(_at(values, index))})")
            for mask, field, rule, values in problems
            if mask[index]
        ]
        who = f"member {id_text.iloc[index]!r}" if not id_blank[index] else "no member_id"
        error[index] = f"{source} row {rows[index]} ({who}): " + "; ".join(messages)
    return MemberArrays(
        row=rows,
        member_id=id_text.reset_index(drop=True),
        birth_date=birth,
        entry_date=entry,
        separation_date=separation,
        credited_service=service,
        average_compensation=compensation,
        group=np.asarray(group, dtype=np.int64),
        refunded=np.asarray(refunded) == 1,
        error=error,
    )


def member_frame(member) -> pd.DataFrame:
    """A one-row frame from a :class:`Member` or a mapping of member fields."""
    if isinstance(member, Member):
        record = member.as_dict()
    elif isinstance(member, Mapping):
        record = dict(member)
    else:
        raise MemberDataError(
            f"member must be a Member or a mapping of {list(MEMBER_FIELDS)} "
            f"(got {type(member).__name__})"
        )
    missing = [name for name in MEMBER_FIELDS if name not in record]
    if missing:
        raise MemberDataError(f"member: missing field(s) {missing}")
    values = {}
    for name in MEMBER_FIELDS:
        value = record[name]
        if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
            value = value.isoformat()
        values[name] = [value]
    return pd.DataFrame(values, dtype=object)
