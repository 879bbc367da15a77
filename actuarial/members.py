"""Member records: the input fields, their parsing and validation, vectorized.

Fields (one row per member): member_id, birth_date, entry_date, separation_date (ISO
dates), credited_service (decimal years), average_compensation (annual USD), group
(general, police, firefighter) and refunded (true/false). Average compensation and
credited service are inputs (I-8). Invalid rows are not dropped: each gets a message that
names the row, the member, the field, the rule and the value (at most
:data:`~actuarial.shown_text.QUOTE_LIMIT` characters of it).

Member ids are text, compared and written exactly as read: no trimming, no case or Unicode
folding; only an empty cell is a missing id; a whole number is its digits. An id that is
neither (a float, a date, a list: :func:`~actuarial.duplicate_ids.is_id_kind`), begins or
ends with white space, holds a control character or is longer than
:data:`MEMBER_ID_MAX_LENGTH` is an error on its row. Dates are calendar dates within
:data:`DATE_RANGE`; amounts are finite and within :data:`PLAUSIBLE`. These bounds are
checks of the data, not rules of the law.

Text with a lone surrogate ("\\ud800": Python text, which a frame built in Python may hold,
but not Unicode text, which a file holds) is an error on its row: an id must not contain
one; any other field is not a date, a number, a group or an answer. Arrow refuses such
text, so it is looked for only in a column Arrow has refused.
"""

from __future__ import annotations

import datetime as dt
import decimal
import fractions
import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import ClassVar

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from actuarial import arrow_text
from actuarial.dates import (
    age_in_months,
    coarse_or_missing,
    is_plain_date,
    numpy_day,
    period_day,
)
from actuarial.duplicate_ids import (
    DuplicateIds,
    distinct_codes,
    find_duplicates,
    is_id_kind,
    is_id_value,
)
from actuarial.law.conditions import Exact
from actuarial.member_record import (
    DATE_FIELDS,
    DATE_RANGE,
    DATE_RANGE_RULE,
    GROUPS,
    MEMBER_FIELDS,
    MEMBER_ID_MAX_LENGTH,
    NO_TIME_OF_DAY_RULE,
    NO_TIME_ZONE_RULE,
    NUMBER_FIELDS,
    Member,
    MemberDataError,
    MemberFileError,
    check_columns,
    timestamp_rule,
    written_as,
)
from actuarial.shown_text import QUOTE_LIMIT, decimal_shown, decimals_shown, quoted
from actuarial.text_files import DECIMAL_NUMBER

__all__ = [
    "DATE_RANGE",
    "GROUPS",
    "MEMBER_FIELDS",
    "MEMBER_ID_MAX_LENGTH",
    "PLAUSIBLE",
    "WARNING_RULES",
    "WARNING_SEPARATOR",
    "Member",
    "MemberArrays",
    "MemberDataError",
    "MemberFileError",
    "WarningRule",
    "blank_mask",
    "cast_trimmed",
    "check_columns",
    "check_frame",
    "code_frame_ids",
    "frame_id_text",
    "frame_ids",
    "member_warnings",
    "warnings_and_where",
    "parse_member",
    "parse_members",
    "texts_at",
]

_TRUE = ("true", "1", "yes")
_FALSE = ("false", "0", "no")
_DAYS_PER_YEAR = 365.2425
_DATE_BOUNDS = tuple(np.datetime64(day, "D") for day in DATE_RANGE)
# Characters an id must not hold (code points, both ends included): C0 and C1 controls, DEL,
# the line and paragraph separators, matched by Arrow (RE2).
_ID_CONTROL_RANGES = ((0x00, 0x1F), (0x7F, 0x9F), (0x2028, 0x2029))
_ID_CONTROL = "[" + "".join(f"\\x{{{lo:x}}}-\\x{{{hi:x}}}" for lo, hi in _ID_CONTROL_RANGES) + "]"


@dataclass(frozen=True, slots=True)
class Plausible:
    """Bounds of plausible data (data validation, not law): beyond ``*_max``, an error;
    beyond the warning bounds, a warning on the member's results."""

    compensation_max: float = 10_000_000.0  # USD a year: more is an error
    compensation_warn_below: float = 1_000.0  # USD a year: less is a warning
    compensation_warn_above: float = 1_000_000.0  # USD a year: more is a warning
    entry_age_warn_below: int = 16  # years of age at first entry: younger is a warning
    service_excess_warn_years: float = 1 / 12  # credited service beyond entry-to-separation


PLAUSIBLE = Plausible()


@dataclass(frozen=True, slots=True)
class WarningRule:
    """A data-quality warning: the field it is about and its rule. Every message of the rule
    opens with ``'<field>' <rule>`` (then the value), so that counts by rule read it back."""

    field: str
    rule: str

    @property
    def opening(self) -> str:
        return f"'{self.field}' {self.rule}"


# The rules of member_warnings, in the order a member's warnings are listed.
WARNING_RULES = (
    WarningRule("entry_date", f"is before age {PLAUSIBLE.entry_age_warn_below}"),
    WarningRule(
        "credited_service", "is longer than the time from 'entry_date' to 'separation_date'"
    ),
    WarningRule(
        "average_compensation",
        f"is below {PLAUSIBLE.compensation_warn_below:,.0f} a year, the bottom of plausible "
        "amounts",
    ),
    WarningRule(
        "average_compensation",
        f"is above {PLAUSIBLE.compensation_warn_above:,.0f} a year, the top of plausible amounts",
    ),
    WarningRule("separation_date", "is after the payment date (as_of)"),
)
WARNING_SEPARATOR = "; "  # between the warnings of one member (no message holds it)
# Columns of these kinds (pandas.api.types.infer_dtype) hold no text: no cell is blank text.
_NOT_TEXT = ("date", "datetime", "datetime64", "integer", "floating", "boolean", "empty")

# The rules of the member fields, declared once and checked in one place (_validated), on
# the fields of a frame (parse_members) or of one member (parse_member); each problem reads
# "'<field>' <rule> (got <value>)" (see _problem).
_ISO_DATE = "YYYY-MM-DD"  # the one form of a date in text
_REQUIRED = "is required"
_ID_NOT_TEXT = "must be text or a whole number"
_ID_TOO_LONG = f"must be at most {MEMBER_ID_MAX_LENGTH} characters"
_ID_SPACED = "must not begin or end with white space"
_ID_CONTROL_CHARACTERS = "must not contain control characters"
_ID_LONE_SURROGATE = "must not contain lone surrogates"
_ID_NOT_UNIQUE = "must be unique in the file"
_NOT_A_DATE = f"must be a date {_ISO_DATE}"
_DATE_OUTSIDE = DATE_RANGE_RULE
_NOT_A_NUMBER = "must be a number"
_NOT_FINITE = "must be finite"
_NEGATIVE = "must be >= 0"
_NOT_POSITIVE = "must be > 0"
_IMPLAUSIBLE = f"must be at most {PLAUSIBLE.compensation_max:,.0f} a year (a plausibility bound)"
_AFTER_ENTRY = "must be on or before 'entry_date'"
_AFTER_SEPARATION = "must be on or before 'separation_date'"
_LONGER_THAN_LIFE = "must not exceed the member's age at separation"
_GROUP_UNKNOWN = f"must be in {list(GROUPS)}"
_REFUND_UNKNOWN = "must be true or false"


@dataclass(frozen=True, slots=True)
class MemberArrays:
    """Parsed members as numpy arrays, and the error of each invalid row.

    ``error`` (each row's error, ``""`` for a valid row) is made when asked for: an array of
    Python strings a row is made holding the GIL, which the threads evaluating chunks side
    by side would wait for.
    """

    row: np.ndarray  # 1-based data row in the input
    member_id: pa.StringArray  # the ids as text, "" where missing
    birth_date: np.ndarray
    entry_date: np.ndarray
    separation_date: np.ndarray
    credited_service: np.ndarray
    average_compensation: np.ndarray
    group: np.ndarray  # index into GROUPS, -1 if invalid
    refunded: np.ndarray
    invalid: np.ndarray  # the positions of the invalid rows, ascending
    messages: np.ndarray  # the error of each invalid row, in that order (object)
    _valid: np.ndarray = field(init=False, repr=False, compare=False)

    # The values given a row each, the error included.
    ROWS: ClassVar[tuple[str, ...]] = ("row", *MEMBER_FIELDS, "error")

    def __post_init__(self) -> None:  # read several times a chunk: computed once
        valid = np.ones(len(self.row), dtype=bool)
        valid[self.invalid] = False
        object.__setattr__(self, "_valid", valid)

    @property
    def valid(self) -> np.ndarray:
        return self._valid

    @property
    def error(self) -> np.ndarray:
        """Each row's error: field, rule and value of each problem; ``""`` for a valid row."""
        return texts_at(len(self.row), self.invalid, self.messages)

    def __len__(self) -> int:
        return len(self.row)


def texts_at(shape, at, texts) -> np.ndarray:
    """An array of Python strings of ``shape``: ``texts`` at ``at`` (a mask or positions),
    ``""`` elsewhere. Made only when asked for: the parsers and the engine keep the texts."""
    full = np.full(shape, "", dtype=object)
    full[at] = texts
    return full


def _text(series: pd.Series, text_only: bool | None = None) -> pd.Series:
    """A column as pandas strings (missing kept), whatever it was read as. ``text_only``:
    False when the column is known to hold other values than text (None: look)."""
    if isinstance(series.dtype, pd.StringDtype):
        return series
    if series.dtype == object and text_only is not False:
        strings = _inferred_text(series)
        if strings is not None:
            return pd.Series(pd.arrays.ArrowStringArray(strings), index=series.index)
    values = series.astype(object).where(series.notna(), None)
    if series.dtype == object:  # what pandas cannot write as text (raising) is shown instead
        unwritable = _map_unique(values, _unwritable).astype(bool)
        if unwritable.any():
            values = values.where(~unwritable, values[unwritable].map(_shown_instead))
        digits = [_decimal_digits(value) for value in values]
        values = pd.Series(digits, index=values.index, dtype=object)
    return values.astype("string")


def _decimal_digits(value):
    """A Decimal of no fractional digits as its digits, as Arrow writes a decimal column of
    scale 0 (``Decimal("1E+2")``: 100, where str() writes 1E+2; ``Decimal("-0")``: 0); any
    other value as it is."""
    if isinstance(value, decimal.Decimal) and value.is_finite() and value.as_tuple().exponent >= 0:
        return str(int(value))
    return value


def _unwritable(value) -> bool:
    """Whether pandas raises writing ``value`` as text: bytes that are not UTF-8 (it decodes
    bytes), an int beyond str()'s digits (:func:`_beyond_str`)."""
    return _undecodable(value) or _beyond_str(value)


def _shown_instead(value) -> str:
    """The text of a value pandas cannot write as text: the bytes' repr, or the int named
    (:func:`~actuarial.shown_text.quoted`); never any other value's text."""
    return repr(value) if isinstance(value, bytes) else quoted(value)


def _beyond_str(value) -> bool:
    """Whether ``value`` is an int of more digits than Python writes in decimal: str()
    raises ValueError beyond ``sys.get_int_max_str_digits()`` (a frame built in Python may
    hold one; a file holds none)."""
    if not isinstance(value, int):
        return False
    try:
        str(value)
    except ValueError:
        return True
    return False


def _decoded(value):
    """Bytes as the UTF-8 text they hold (as a Parquet file's binary column is read); bytes
    that are not UTF-8, and every other value, as they are: not text."""
    if isinstance(value, bytes):
        try:
            return value.decode()
        except UnicodeDecodeError:
            return value
    return value


def _undecodable(value) -> bool:
    """Whether ``value`` is bytes that are not UTF-8 text (a value of another kind)."""
    return isinstance(_decoded(value), bytes)


# What Arrow raises for a column it cannot read as text: values of another kind (numbers,
# dates; an int too large for int64), or of a kind it has no text for (periods, intervals,
# lists, a nested Arrow type).
_NOT_ARROW_TEXT = (
    pa.ArrowInvalid,
    pa.ArrowTypeError,
    pa.ArrowNotImplementedError,
    TypeError,
    OverflowError,
)


def _inferred_text(series: pd.Series) -> pa.StringArray | None:
    """An object column as Arrow text when Arrow reads each value as text or missing (None,
    NaN, NA, NaT): one conversion in C, no Python per value, which also tells the kind of
    the values. None for any other column (numbers, bytes, no text at all). Text with a
    lone surrogate raises UnicodeEncodeError."""
    try:
        strings = pa.array(series.to_numpy(), from_pandas=True)
    except _NOT_ARROW_TEXT:
        return None
    return strings if strings.type == pa.string() else None


def _has_lone_surrogate(value) -> bool:
    """Whether ``value`` is text holding a lone surrogate ("\\ud800"): Python text that is
    not Unicode text, which Arrow and UTF-8 refuse."""
    if not isinstance(value, str) or value.isascii():
        return False
    try:
        value.encode()
    except UnicodeEncodeError:
        return True
    return False


def _lone_surrogates_replaced(series: pd.Series, replacement: str | None) -> pd.Series:
    """``series`` with each text holding a lone surrogate replaced by ``replacement``: only
    once Arrow has refused the column (one test per distinct value). Such text is neither
    blank, nor a date, a number, a group or an answer."""
    lone = _map_unique(series, _has_lone_surrogate).astype(bool)
    return series.where(~lone, replacement)


def blank_mask(series: pd.Series) -> np.ndarray:
    """Where a column is missing, or text that is empty once stripped."""
    if not (series.dtype == object or pd.api.types.is_string_dtype(series.dtype)):
        return series.isna().to_numpy()
    # isna() as well: the "str" dtype (pandas 3) answers False, not NA, for a missing value.
    missing = series.isna().to_numpy(dtype=bool)
    if pd.api.types.infer_dtype(series, skipna=True) in _NOT_TEXT:
        return missing  # e.g. the dates of a Parquet file: no text to strip
    try:
        text = _text(series)
    except UnicodeEncodeError:  # text with a lone surrogate (not blank), refused by Arrow
        text = _text(_lone_surrogates_replaced(series, "\ufffd"))
    return missing | text.str.strip().eq("").fillna(True).to_numpy(dtype=bool)


def _arrow_text(series: pd.Series):
    """The column as a trimmed Arrow string array, or None when it is not all text."""
    try:
        array = pa.array(series, type=pa.string(), from_pandas=True)
    except UnicodeEncodeError:  # text with a lone surrogate, refused by Arrow: not a value
        return _arrow_text(_lone_surrogates_replaced(series, None))
    except _NOT_ARROW_TEXT:
        return None
    return pc.utf8_trim_whitespace(array)


def cast_trimmed(text: pa.Array, kind: pa.DataType) -> pa.Array:
    """Trimmed text as ``kind`` (a date or a number), an empty cell missing: how every
    date and number column in text is read. ArrowInvalid when a cell does not cast."""
    return pc.cast(pc.if_else(pc.equal(text, ""), None, text), kind)


def _arrow_strings(series: pd.Series) -> pa.StringArray:
    """A column of text (missing kept) as one Arrow string array (no copy when it is one)."""
    return _one_array(pa.array(series, type=pa.string(), from_pandas=True))


def _held_strings(series: pd.Series) -> pa.Array:
    """The text of a column pandas holds in Arrow (:func:`_arrow_backed_text`) as one array,
    string or large string as it is held: no copy, no cast."""
    return _one_array(pa.array(series.array))


def _one_array(array) -> pa.Array:
    """An Arrow array, or a chunked one's chunks combined."""
    return array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array


# Bytes that may begin or end white space in UTF-8: ASCII space and controls, and the bytes
# of multi-byte characters (and DEL).
_MAY_BE_SPACE = np.zeros(256, dtype=bool)
_MAY_BE_SPACE[:0x21] = _MAY_BE_SPACE[0x7F:] = True


def _edge_may_be_space(texts: pa.StringArray) -> np.ndarray:
    """Where a text's first or last byte may be white space (:data:`_MAY_BE_SPACE`; an empty
    text's neighbours' bytes may say so too): elsewhere no trimming, Arrow's or Python's
    ``strip()``, changes the text."""
    data = arrow_text.data(texts)
    if data.size == 0:
        return np.zeros(len(texts), dtype=bool)
    bounds = arrow_text.offsets(texts)
    first = data.take(bounds[:-1], mode="clip")
    last = data.take(bounds[1:] - 1, mode="clip")
    return _MAY_BE_SPACE.take(first) | _MAY_BE_SPACE.take(last)


def _trimmed_byte_lengths(texts: pa.StringArray, lengths: np.ndarray) -> np.ndarray:
    """Each text's length in UTF-8 bytes once white space is trimmed from both ends
    (``lengths``: before). Trimmed by Arrow only where the first or the last byte may be
    white space (:func:`_edge_may_be_space`)."""
    trimmed = lengths.copy()
    edge = _edge_may_be_space(texts).nonzero()[0]
    if len(edge):
        spaced = pc.utf8_trim_whitespace(texts.take(pa.array(edge)))
        trimmed[edge] = arrow_text.byte_lengths(spaced)
    return trimmed


def _has_control(texts: pa.StringArray) -> np.ndarray:
    """Where a text holds a control character (:data:`_ID_CONTROL`): the regular expression
    runs only on the texts with a byte outside printable ASCII, found on the UTF-8 bytes."""
    found = np.zeros(len(texts), dtype=bool)
    offsets = arrow_text.offsets(texts)
    if len(texts) == 0 or offsets[-1] == offsets[0]:
        return found
    data = arrow_text.data(texts)[offsets[0] : offsets[-1]]
    unusual = ((data < 0x20) | (data >= 0x7F)).nonzero()[0]  # ASCII controls, DEL, UTF-8
    if len(unusual):
        rows = np.unique(offsets.searchsorted(unusual + offsets[0], side="right") - 1)
        matched = pc.match_substring_regex(texts.take(pa.array(rows)), _ID_CONTROL)
        found[rows] = matched.to_numpy(zero_copy_only=False)
    return found


def _timestamp_problems(series: pd.Series) -> list[tuple[np.ndarray, str]]:
    """Rows of a column holding timestamps that are not calendar dates, and the rule broken.

    A timestamp at midnight without a time zone is a date; a time zone or a time of day
    would be converted silently (to the UTC day, or truncated), so it is an error.
    """
    present = series.notna().to_numpy(dtype=bool)
    if isinstance(series.dtype, pd.DatetimeTZDtype):
        return [(present, NO_TIME_ZONE_RULE)]
    if pd.api.types.is_datetime64_any_dtype(series.dtype):
        values = series.to_numpy()
        return [(present & (values != values.astype("datetime64[D]")), NO_TIME_OF_DAY_RULE)]
    if series.dtype == object and len(series):
        kinds = _map_unique(series, _timestamp_kind)
        return [(kinds == kind, rule) for kind, rule in enumerate(_TIMESTAMP_RULES) if rule]
    return []


# The rule a timestamp given as a date breaks, by its kind (_timestamp_kind, its index
# here): kind 0, not a timestamp or one at midnight without a time zone (a date), none.
_TIMESTAMP_RULES = (None, NO_TIME_ZONE_RULE, NO_TIME_OF_DAY_RULE)


def _timestamp_kind(value) -> int:
    """The kind of ``value`` given as a date: the index in :data:`_TIMESTAMP_RULES` of the
    rule it breaks (``member_record.timestamp_rule``; a numpy datetime64 has no time zone,
    only a time of day), 0 for none."""
    rule = None
    if isinstance(value, dt.datetime | pd.Timestamp):
        rule = timestamp_rule(value)
    elif isinstance(value, np.datetime64) and not coarse_or_missing(value):
        rule = None if numpy_day(value) is not None else NO_TIME_OF_DAY_RULE
    return _TIMESTAMP_RULES.index(rule)


def _parse_dates(series: pd.Series) -> np.ndarray:
    """ISO dates (YYYY-MM-DD) as datetime64[D]; NaT where missing or unparseable, or a
    timestamp with a time zone or a time of day (see :func:`_timestamp_problems`)."""
    if isinstance(series.dtype, pd.DatetimeTZDtype):
        return np.full(len(series), np.datetime64("NaT"), "datetime64[D]")
    if pd.api.types.is_datetime64_any_dtype(series.dtype):
        values = series.to_numpy()
        days = values.astype("datetime64[D]")
        return np.where(values == days, days, np.datetime64("NaT"))
    kind = pd.api.types.infer_dtype(series, skipna=True)
    if kind == "date":  # datetime.date objects
        dates = pa.array(series, type=pa.date32(), from_pandas=True)
        return dates.to_numpy(zero_copy_only=False).astype("datetime64[D]")
    text = _arrow_text(series)
    if text is None:  # other values, text among them or not (a frame built in Python)
        text_at = _text_at(series)
        days = _map_unique(series.where(~text_at, None), _day).astype("datetime64[D]")
        if text_at.any():  # the text read as any text column is: one rule for each value
            days[text_at] = _parse_dates(series[text_at].astype(object))
        return days
    try:  # fast path: every value is an exact date YYYY-MM-DD or missing
        exact_dates = cast_trimmed(text, pa.date32())
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


def _day(value) -> np.datetime64:
    """A date, a timestamp at midnight without a time zone (numpy's too), or a period of one
    day, as its day; NaT for any other value that is not text."""
    if isinstance(value, pd.Period):  # one of a day is that day; a month, a year... no day
        day = period_day(value)
        return np.datetime64("NaT", "D") if day is None else day
    if isinstance(value, dt.datetime | pd.Timestamp):
        if timestamp_rule(value) is not None:
            return np.datetime64("NaT", "D")
        return np.datetime64(value.date(), "D")
    if isinstance(value, dt.date):
        return np.datetime64(value, "D")
    if isinstance(value, np.datetime64):  # a numpy date, or a timestamp at midnight
        day = numpy_day(value)
        return np.datetime64("NaT", "D") if day is None else day
    return np.datetime64("NaT", "D")


def _dates(series: pd.Series):
    """:func:`_parse_dates`, :func:`blank_mask` and :func:`_timestamp_problems` of a date
    column; for timestamps without a time zone (a typed frame), from one conversion."""
    series = _pandas_datetimes(series)
    if pd.api.types.is_datetime64_dtype(series.dtype):
        values = series.to_numpy()
        unit, count = np.datetime_data(values.dtype)
        per_day = np.timedelta64(1, "D") // np.timedelta64(count, unit)  # ticks a day
        ticks = values.view(np.int64)
        days = ticks // per_day  # integer division by a constant: fast
        missing = ticks == np.iinfo(np.int64).min  # NaT
        midnight = days * per_day == ticks
        midnight &= ~missing
        parsed = np.where(midnight, days, np.iinfo(np.int64).min).view("datetime64[D]")
        return parsed, missing, [(~missing & ~midnight, NO_TIME_OF_DAY_RULE)]
    return _parse_dates(series), blank_mask(series), _timestamp_problems(series)


def _pandas_datetimes(series: pd.Series) -> pd.Series:
    """A pandas Arrow column of dates or timestamps as pandas' own datetime64 (with its time
    zone, if any), NaT where missing (numpy cannot take its missing values); any other
    column as it is."""
    if not isinstance(series.dtype, pd.ArrowDtype):
        return series
    kind = series.dtype.pyarrow_dtype
    if pa.types.is_date(kind):
        return series.astype("datetime64[s]")
    if pa.types.is_timestamp(kind):
        zone = kind.tz
        return series.astype(pd.DatetimeTZDtype(kind.unit, zone) if zone else f"M8[{kind.unit}]")
    return series


def _parse_numbers(series: pd.Series) -> np.ndarray:
    """Decimal numbers as float64; NaN where missing or unparseable. Only real numbers are
    numbers: not True and False (1 and 0 years or dollars), durations, dates or complex
    numbers (which pandas would turn into their ticks or their real part)."""
    if pd.api.types.is_bool_dtype(series.dtype) or getattr(series.dtype, "kind", "O") in "mMc":
        return np.full(len(series), np.nan)
    if pd.api.types.is_numeric_dtype(series.dtype):
        narrow = _narrow_float(series.dtype)
        if narrow is not None:
            return decimals_shown(series.to_numpy(dtype=narrow, na_value=np.nan))
        return series.to_numpy(dtype=float, na_value=np.nan)
    text = _arrow_text(series)
    if text is not None:
        return _text_numbers(text)
    # Other values, text among them or not (a frame built in Python), each read as itself
    # (pandas would read a period as its ordinal).
    text_at = _text_at(series)
    others = series.astype(object)
    # Only real numbers among the values (see above), one by one: True == 1 and
    # hash(True) == hash(1), so grouping equal values would not do.
    not_real = [
        isinstance(value, bool | np.bool_) or not isinstance(value, _REAL_NUMBERS)
        for value in others.to_numpy()
    ]
    others = others.where(~np.array(not_real, dtype=bool), None)  # text among them too
    others = others.map(_as_float)  # what pandas does not read, or not without an error
    numbers = pd.to_numeric(others, errors="coerce").to_numpy(float, na_value=np.nan, copy=True)
    if text_at.any():  # the text read as any text column is: one rule for each value
        numbers[text_at] = _text_numbers(_arrow_text(series[text_at].astype(object)))
    return numbers


def _narrow_float(dtype) -> np.dtype | None:
    """The numpy float type of a float column narrower than float64 (numpy, pandas' masked
    or Arrow's float32 and float16); None for any other."""
    if not pd.api.types.is_float_dtype(dtype):
        return None
    kind = np.dtype(getattr(dtype, "numpy_dtype", dtype))
    return kind if kind.itemsize < 8 else None


# The values of a column of Python objects read as numbers (text is read as text; the
# booleans, which are ints, are not numbers).
_REAL_NUMBERS = (int, float, decimal.Decimal, fractions.Fraction, np.integer, np.floating)


def _as_float(value):
    """A Python int or Fraction (25 7/12 years: Fraction(307, 12)) as the float nearest it,
    infinite when too large for one (pandas reads no Fraction, and fails on such an int);
    a float32 or float16 as the decimal it shows (:func:`~actuarial.shown_text.decimal_shown`);
    any other value as it is."""
    if isinstance(value, np.floating):
        return decimal_shown(value)
    if not isinstance(value, int | fractions.Fraction) or isinstance(value, bool):
        return value
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


# The text Arrow casts to float64 (fast_float's grammar), in two kinds: decimal numbers,
# cast at once (the numbers of every file: text_files.DECIMAL_NUMBER), and named values
# (infinity, NaN), each distinct text cast alone.
_NAMED_NUMBER = r"(?i)^[+-]?(inf|infinity|nan(\([0-9a-z_]*\))?)$"


def _text_at(series: pd.Series) -> np.ndarray:
    """Where a column that is not all text holds text: read as text columns are."""
    return _map_unique(series, lambda value: isinstance(_decoded(value), str)).astype(bool)


def _text_numbers(text: pa.Array) -> np.ndarray:
    """Trimmed text as decimal numbers, as Arrow casts text to float64; NaN where the text
    is empty or not a number. Each text is read alone, whatever the others hold."""
    try:  # fast path: every value is a number or missing
        return cast_trimmed(text, pa.float64()).to_numpy(zero_copy_only=False)
    except pa.ArrowInvalid:
        pass
    text = pc.if_else(pc.equal(text, ""), None, text)
    numbers = np.full(len(text), np.nan)
    for pattern in (DECIMAL_NUMBER, _NAMED_NUMBER):
        kind = pc.fill_null(pc.match_substring_regex(text, pattern), False)
        at = kind.to_numpy(zero_copy_only=False)
        if not at.any():
            continue
        texts = text.filter(kind)
        try:
            numbers[at] = pc.cast(texts, pa.float64()).to_numpy(zero_copy_only=False)
        except pa.ArrowInvalid:  # not all of the kind: each distinct text alone
            distinct = pc.unique(texts)
            numbers[at] = np.array([_text_number(value) for value in distinct.to_pylist()])[
                pc.index_in(texts, distinct).to_numpy(zero_copy_only=False)
            ]
    return numbers


def _text_number(text: str) -> float:
    """One text as Arrow casts it to float64; NaN when it does not."""
    try:
        return pc.cast(pa.array([text]), pa.float64())[0].as_py()
    except pa.ArrowInvalid:
        return np.nan


class _Unhashable:
    """A value that cannot be hashed (a list, a dict, a signaling NaN): of no kind a member
    field holds, so every rule reads it as such; each one distinct."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


# The kinds (pandas.api.types.infer_dtype, missing values skipped) of a column of objects
# that may hold a Decimal: only such a column is looked through for a signaling NaN.
_MAY_HOLD_DECIMALS = ("decimal", "mixed", "mixed-integer")


def _signaling_nans_replaced(series: pd.Series) -> pd.Series:
    """A column with each signaling NaN (``Decimal("sNaN")``) standing in as an
    :class:`_Unhashable`, which every rule reads as a value of no kind a field holds: pandas
    cannot tell whether one is missing (``isna`` raises InvalidOperation) and Arrow reads it
    as missing. Its message quotes it as given. A typed column, or one of objects that holds
    no Decimal (one look at the kind of its values), is returned as it is."""
    if series.dtype != object or (
        pd.api.types.infer_dtype(series, skipna=True) not in _MAY_HOLD_DECIMALS
    ):
        return series
    values = series.to_numpy()
    signaling = [
        position
        for position, value in enumerate(values)
        if isinstance(value, decimal.Decimal) and value.is_snan()
    ]
    if not signaling:
        return series
    values = values.copy()
    for position in signaling:
        values[position] = _Unhashable(values[position])
    return pd.Series(values, index=series.index, dtype=object)


def _hashable(value) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _distinct(series: pd.Series) -> tuple[np.ndarray, object]:
    """The distinct values of a column (an index in its dtype), and each row's index into
    them followed by None (a missing value's index is ``len(uniques)``); a value that cannot
    be hashed stands for itself as an :class:`_Unhashable` (the index is then of objects).
    Equal values of different kinds (True, 1, 1.0, 1+0j) are distinct (:func:`_by_kind`)."""
    try:
        codes, uniques = pd.factorize(series, use_na_sentinel=True)
    except (TypeError, pa.ArrowNotImplementedError):  # unhashable values, or nested Arrow ones
        values = series.to_numpy(dtype=object)
        stand_ins = [value if _hashable(value) else _Unhashable(value) for value in values]
        series = pd.Series(stand_ins, dtype=object)
        codes, uniques = pd.factorize(series, use_na_sentinel=True)
    if series.dtype == object and (
        pd.api.types.infer_dtype(series, skipna=True) not in _EQUAL_ONLY_OF_ONE_KIND
    ):
        codes, uniques = _by_kind(series, codes)
    return np.where(codes >= 0, codes, len(uniques)), uniques


# The kinds (pandas.api.types.infer_dtype, missing values skipped) of a column of objects
# whose equal values every field reads alike: text, bools (numpy's too), ints, floats...
# In any other (ints and floats, numbers and bools, datetime64 of a day and of a month),
# equal values may be of kinds read differently: an id 7 and 7.0, a refund 1 and 1+0j.
_EQUAL_ONLY_OF_ONE_KIND = frozenset(
    ("string", "bytes", "empty", "boolean", "integer", "floating", "decimal", "date", "datetime")
)


def _kind(value):
    """The kind of a value: its type, or a numpy scalar's dtype (its unit: a datetime64 of
    a month equals that of its first day)."""
    return value.dtype if isinstance(value, np.generic) else type(value)


def _by_kind(series: pd.Series, codes: np.ndarray) -> tuple[np.ndarray, pd.Index]:
    """The codes of a column's values by value and kind (``codes``: by value alone, -1 where
    missing), and the first value of each: equal values of different kinds apart."""
    values = series.to_numpy(dtype=object)
    kinds, kind_names = pd.factorize(pd.Series(list(map(_kind, values)), dtype=object))
    present = np.flatnonzero(codes >= 0)
    pairs = codes[present].astype(np.int64) * len(kind_names) + kinds[present]
    pair_codes, _ = pd.factorize(pairs)  # in order of first appearance
    _, first = np.unique(pair_codes, return_index=True)
    by_kind = np.full(len(values), -1, dtype=np.intp)
    by_kind[present] = pair_codes
    return by_kind, pd.Index(values[present[first]], dtype=object)


def _map_unique(series: pd.Series, mapping) -> np.ndarray:
    """Apply ``mapping`` to each distinct value once (fast on large columns)."""
    index, uniques = _distinct(series)
    return np.array([mapping(value) for value in uniques] + [mapping(None)])[index]


def _arrow_backed_text(series: pd.Series) -> bool:
    """Whether a column is pandas text held by Arrow (pandas 3's ``str``, ``string[pyarrow]``)."""
    return isinstance(series.dtype, pd.StringDtype) and series.dtype.storage == "pyarrow"


def _map_unique_blank(series: pd.Series, mapping, longest: int) -> tuple[np.ndarray, np.ndarray]:
    """``mapping`` of each value and :func:`blank_mask`, both on each distinct value once.

    ``longest``: the most characters of a text ``mapping`` accepts once stripped (-1 for any
    longer text). A longer text without white space at its ends is read no further: it is
    neither accepted nor blank (a column of long texts is not hashed, nor made Python text).
    """
    if series.dtype == bool:  # numpy booleans (a typed frame): never missing
        values = series.to_numpy()
        mapped = np.array([mapping(np.False_), mapping(np.True_)], dtype=np.int64)
        return mapped[values.view(np.uint8)], np.zeros(len(values), dtype=bool)
    if _arrow_backed_text(series):
        # Arrow strings (a typed frame): coded and blanked by Arrow, mapped in Python.
        strings = _held_strings(series)
        # More UTF-8 bytes than 4 a character: more characters than ``longest``.
        read = arrow_text.byte_lengths(strings) <= 4 * longest
        read |= _edge_may_be_space(strings) | ~arrow_text.present(strings)  # a null: blank
        mapped_rows = np.full(len(strings), -1, dtype=np.int64)
        blank_rows = np.zeros(len(strings), dtype=bool)
        rows = slice(None) if read.all() else np.flatnonzero(read)  # the usual case: all
        coded = (strings if read.all() else strings.take(pa.array(rows))).dictionary_encode()
        texts = coded.dictionary
        mapped = np.array([mapping(v) for v in texts.to_pylist()] + [mapping(None)], np.int64)
        blank = pc.equal(pc.utf8_trim_whitespace(texts), "").to_numpy(zero_copy_only=False)
        blank = np.append(blank, True)
        index = pc.fill_null(coded.indices, len(texts)).to_numpy(zero_copy_only=False)
        mapped_rows[rows], blank_rows[rows] = mapped[index], blank[index]
        return mapped_rows, blank_rows
    index, uniques = _distinct(series)
    mapped = [mapping(_decoded(value)) for value in uniques] + [mapping(None)]
    mapped = np.array(mapped, dtype=np.int64)
    # In the column's dtype (object when unhashable values stand for themselves).
    blank = np.append(blank_mask(pd.Series(uniques)), True)
    return mapped[index], blank[index]


def _id_text(series: pd.Series) -> tuple[pd.Series, np.ndarray, np.ndarray]:
    """Member ids as text exactly as read, where an id is not text: a value of a kind that
    holds no id (:func:`~actuarial.duplicate_ids.is_id_kind`, by its Arrow type), and where
    it is an int beyond str()'s digits (:func:`_beyond_str`): a whole number, but longer than
    any id, whose digits are not written. Neither has text (missing).

    Integers become their digits ("7", never "7.0"). A float column cannot hold every id
    (2^53 + 1 is stored as 2^53), so a decimal number is refused, not converted; so is a
    date, a time, a list...
    """
    not_text, beyond_str = np.zeros((2, len(series)), dtype=bool)
    if series.dtype != object:  # a typed column: its Arrow type tells
        kind = _arrow_kind(series)
        if kind is None:  # no one Arrow type (complex numbers, a sparse column): each value
            return _id_text(series.astype(object))
        if is_id_kind(kind):
            return _text(series), not_text, beyond_str
        not_text = series.notna().to_numpy(dtype=bool)
        return pd.Series(pd.NA, index=series.index, dtype="string"), not_text, beyond_str
    if not len(series):
        return _text(series), not_text, beyond_str
    strings = _inferred_text(series)
    if strings is not None:  # text and missing values only: the usual case
        text = pd.Series(pd.arrays.ArrowStringArray(strings), index=series.index)
        return text, not_text, beyond_str
    kinds = _map_unique(series, lambda value: 2 if _beyond_str(value) else int(_not_an_id(value)))
    not_text, beyond_str = (kinds == 1) & series.notna().to_numpy(dtype=bool), kinds == 2
    if not_text.any() or beyond_str.any():
        series = series.where(~(not_text | beyond_str), None)
    return _text(series, text_only=False), not_text, beyond_str


def _arrow_kind(series: pd.Series) -> pa.DataType | None:
    """The Arrow type of a typed column (read from none of its values), or None."""
    try:
        if isinstance(series.dtype, np.dtype):
            return pa.from_numpy_dtype(series.dtype)
        return pa.array(series.array[:0], from_pandas=True).type
    except _NOT_ARROW_TEXT:
        return None


def _not_an_id(value) -> bool:
    """Whether ``value`` is of a kind that holds no id: of an Arrow type that is none
    (:func:`~actuarial.duplicate_ids.is_id_kind`), or of no Arrow type. Text in bytes is
    text; an int of any size (beyond Arrow's too) is a whole number."""
    value = _decoded(value)
    if is_id_value(value):
        return False
    try:
        return not is_id_kind(pa.scalar(value).type)
    except (*_NOT_ARROW_TEXT, ValueError):  # ValueError: NaT, which is missing anyway
        return True


@dataclass(frozen=True, slots=True)
class FrameIds:
    """The member ids of a whole frame in memory: each row's id as text and, once coded
    (:func:`code_frame_ids`), each row's code into the distinct id texts (first seen,
    first coded; a missing id is the text "") and the repeated ids."""

    text: pa.Array  # each row's id as text (null: missing, not text, a lone surrogate)
    not_text: np.ndarray  # where the id is not text (a decimal number, a date...): an error
    beyond_str: np.ndarray  # where it is an int beyond str()'s digits: an error (too long)
    duplicates: DuplicateIds  # none found yet until coded
    codes: np.ndarray | None = None
    texts: pd.Series | None = None
    lone_surrogate: np.ndarray | None = None  # where the id holds one (an error); None: nowhere


def frame_id_text(ids: pd.Series) -> FrameIds:
    """The ids of a whole frame as text, not yet coded (no repeated id known)."""
    lone_surrogate = None
    ids = _signaling_nans_replaced(ids)
    try:
        text, not_text, beyond_str = _id_text(ids)
        strings = _arrow_strings(text)
    except UnicodeEncodeError:  # ids with a lone surrogate, refused by Arrow: no text (an error)
        lone_surrogate = _map_unique(ids, _has_lone_surrogate).astype(bool)
        text, not_text, beyond_str = _id_text(ids.where(~lone_surrogate, None))
        strings = _arrow_strings(text)
    none = DuplicateIds.none(len(ids))
    return FrameIds(strings, not_text, beyond_str, none, lone_surrogate=lone_surrogate)


def code_frame_ids(ids: FrameIds) -> FrameIds:
    """Code the ids of a whole frame once and find the repeated ones: when a 64-bit hash
    of each id proves them distinct (the usual case), each id is its own code; otherwise
    one hash table (in C) codes them.

    The same answer as :func:`~actuarial.duplicate_ids.find_duplicates`, which reads a
    file in bounded memory: missing ids, ids that are not text and ids longer than
    :data:`MEMBER_ID_MAX_LENGTH` are never repeated (each is an error of its own).
    """
    text = pc.fill_null(ids.text, "")  # a missing id is the text ""
    codes, distinct = distinct_codes(text)
    texts = pd.Series(pd.arrays.ArrowStringArray(distinct))
    if codes is None:  # the usual case: the ids are the distinct texts, in order
        codes = np.arange(len(text), dtype=np.int32 if len(text) < 2**31 else np.int64)
        return replace(ids, duplicates=DuplicateIds.none(len(codes)), codes=codes, texts=texts)
    short = pc.less_equal(pc.utf8_length(ids.text), MEMBER_ID_MAX_LENGTH)
    counted = pc.fill_null(short, False).to_numpy(zero_copy_only=False) & ~ids.not_text
    counts = np.bincount(codes[counted], minlength=len(distinct))
    repeated = counted & (counts[codes] > 1)
    rows = np.flatnonzero(repeated)
    duplicates = DuplicateIds.none(len(codes))  # the texts repeated may all be errors anyway
    if len(rows):
        group = np.full(len(codes), -1, dtype=np.int64)
        rows = rows[np.argsort(codes[rows], kind="stable")]  # grouped by id, each ascending
        groups = np.split(rows, np.flatnonzero(np.diff(codes[rows])) + 1)
        for number, members in enumerate(groups):
            group[members] = number
        duplicates = DuplicateIds(repeated, group, tuple(groups))
    return replace(ids, duplicates=duplicates, codes=codes, texts=texts)


def frame_ids(ids: pd.Series) -> FrameIds:
    """:func:`code_frame_ids` of :func:`frame_id_text`."""
    return code_frame_ids(frame_id_text(ids))


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
    if isinstance(value, _REAL_NUMBERS) and value in (0, 1):
        # 1/0, also as floats (a Parquet integer column with nulls) and as a Decimal or a
        # Fraction (a decimal column), as numbers are read
        return int(value)
    return -1


class _Pair:
    """Two date columns shown as ``first > second`` for one row, on demand."""

    def __init__(self, first, second):
        self.first, self.second = first, second

    def __getitem__(self, index):
        return _Literal(f"{self.first[index]} > {self.second[index]}")


class _Literal(str):
    """Text shown as it is in a message (no quotes)."""


class _Note(_Literal):
    """Text shown in parentheses after the rule, without "got"."""


# The kinds of a column of values a message may quote.
_COLUMNS = (pd.Series, np.ndarray, pa.Array)


def _at(values, index):
    if isinstance(values, pa.Array):
        return values[index].as_py()
    value = values.iloc[index] if isinstance(values, pd.Series) else values[index]
    return None if value is pd.NA else value


def _rows_of(values, rows: np.ndarray) -> list:
    """The values at ``rows`` as Python objects (pandas timestamps kept, NA as None), for a
    message: Arrow text cut after ``QUOTE_LIMIT + 1`` characters (a message quotes at most
    ``QUOTE_LIMIT``, then an ellipsis), so that long fields are not made Python text."""
    if isinstance(values, pd.Series) and _arrow_backed_text(values):
        values = _held_strings(values)
    if isinstance(values, pa.Array):
        picked = values.take(pa.array(rows, pa.int64()))
        if pa.types.is_string(picked.type) or pa.types.is_large_string(picked.type):
            picked = pc.utf8_slice_codeunits(picked, 0, QUOTE_LIMIT + 1)
        return picked.to_pylist()
    if isinstance(values, pd.Series):
        picked = values.iloc[rows]
        if picked.dtype == object or isinstance(picked.dtype, pd.DatetimeTZDtype):
            return [None if v is pd.NA else v for v in picked.tolist()]
        if pd.api.types.is_datetime64_any_dtype(picked.dtype):
            return list(picked)  # Timestamps, as a message shows them
        return [None if v is pd.NA else v for v in picked.astype(object).tolist()]
    return list(values[rows])


def _shown(value, whole: bool = False) -> str:
    """A value as a message quotes it: at most QUOTE_LIMIT characters, then an ellipsis.
    ``whole``: a number of a number field that is whole is shown as one (-1 as a CSV cell
    wrote it, 2**62 in its digits), not as the float it was read as (-1.0, 4.6e+18)."""
    if isinstance(value, _Literal):
        return str(value)
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "missing"
    if isinstance(value, np.datetime64):  # its day when it is a date, else all of it
        day = numpy_day(value)
        return str(value if day is None else day)
    if isinstance(value, pd.Timestamp | dt.datetime):
        return str(value)
    if whole and isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        return str(int(value))
    return quoted(value)


def _value_note(values, index, whole: bool = False) -> str:
    if values is None:
        return ""
    value = _at(values, index)
    return f" ({value})" if isinstance(value, _Note) else f" (got {_shown(value, whole)})"


class _Length:
    """The length of each text, shown with its first characters."""

    def __init__(self, texts: pa.StringArray):
        self.texts = texts

    def __getitem__(self, index):
        return _Literal(f"{len(_at(self.texts, index)):,} characters")


class _OtherRows:
    """The other rows of a duplicated id, shown as 1-based rows (at most a few)."""

    SHOWN = 5

    def __init__(self, duplicates: DuplicateIds, offset: int, first_row: int):
        self.duplicates, self.offset, self.first_row = duplicates, offset, first_row

    def __getitem__(self, index):
        others, total = self.duplicates.other_rows(self.offset + index, self.SHOWN)
        shown = ", ".join(f"{row + 1:,}" for row in others.tolist())
        more = f" and {total - len(others):,} more" if total > len(others) else ""
        rows = "row" if total == 1 else "rows"
        return _Note(f"also on {rows} {shown}{more}")


def _problem(field: str, rule: str, note: str) -> str:
    """One problem of a row: ``'<field>' <rule> (got <value>)``."""
    return f"'{field}' {rule}{note}"


def _who(blank_id: bool, not_text_id: bool, raw_id, id_text: str) -> str:
    """The member a message is about: its id as given (``raw_id`` where it has no text: a
    decimal number, a date, a lone surrogate...), or "no member_id"."""
    if blank_id:
        return "no member_id"
    if not_text_id:
        return f"member {_shown(raw_id)}"
    return f"member {quoted(id_text)}"


def _row_error(source: str, row: int, who: str, problems: list[str]) -> str:
    """The error of an invalid row: where, who, and every problem it has."""
    return f"{source} row {row} ({who}): " + "; ".join(problems)


def parse_members(
    frame: pd.DataFrame,
    source: str = "members",
    first_row: int = 1,
    duplicates: DuplicateIds | None = None,
    ids: FrameIds | None = None,
) -> MemberArrays:
    """Parse and validate a frame of members; every row is kept, invalid ones with a message.

    ``duplicates`` are the rows whose member_id appears more than once in the whole input
    (:func:`~actuarial.duplicate_ids.find_duplicates`, rows counted from the input's first
    data row, row 1); found here when the frame is the whole input. ``ids``: the
    :func:`frame_ids` of a whole frame this frame is rows of (from ``first_row``), whose
    text and repeated ids are read instead.
    """
    check_frame(frame)
    check_columns(frame.columns, source)
    frame = frame.reset_index(drop=True)
    sparse = [name for name in MEMBER_FIELDS if isinstance(frame[name].dtype, pd.SparseDtype)]
    if sparse:  # the same values, read dense (numpy reads no Sparse type): never the input's
        frame = frame.assign(**{name: frame[name].sparse.to_dense() for name in sparse})
    count = len(frame)
    if ids is None:
        ids = frame_id_text(frame["member_id"])  # once: the checks and messages reuse it
        first = 0
    else:
        first = first_row - 1
        duplicates = ids.duplicates
    text = ids.text.slice(first, count)
    lone_surrogate = ids.lone_surrogate
    if lone_surrogate is not None:
        lone_surrogate = lone_surrogate[first : first + count]
    if duplicates is None:  # the frame is the whole input
        duplicates, offset = find_duplicates(lambda: [text], MEMBER_ID_MAX_LENGTH), 0
    else:
        offset = first_row - 1
    fields = _Fields(
        given={name: frame[name] for name in MEMBER_FIELDS},
        id_text=text,
        not_text=ids.not_text[first : first + count],
        beyond_str=ids.beyond_str[first : first + count],
        lone_surrogate=lone_surrogate,
        duplicated=duplicates.mask[offset : offset + count],
        other_rows=_OtherRows(duplicates, offset, first_row),
    )
    read = {name: _signaling_nans_replaced(frame[name]) for name in _BLANK_FIELDS}
    for name in DATE_FIELDS:
        fields.values[name], fields.blank[name], fields.timestamps[name] = _dates(read[name])
    for name in NUMBER_FIELDS:
        fields.blank[name] = blank_mask(read[name])
        fields.values[name] = _parse_numbers(read[name])
    coded = (("group", _group_code, GROUPS), ("refunded", _refund_code, _TRUE + _FALSE))
    for name, code, accepted in coded:
        fields.values[name], fields.blank[name] = _map_unique_blank(
            read[name], code, max(map(len, accepted))
        )
    return _validated(fields, source, first_row)


def check_frame(frame) -> None:
    """Members in a frame are a pandas DataFrame: anything else (a list of records, a dict
    of columns, one member's Series) is a TypeError naming what was given."""
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(
            "'members_df' must be a pandas DataFrame, e.g. pandas.DataFrame(records) "
            f"(got {type(frame).__name__})"
        )


@dataclass(slots=True)
class _Fields:
    """The member fields as read, from a frame's columns (:func:`parse_members`) or from one
    member's values (:func:`parse_member`), before any rule is checked (:func:`_validated`).

    ``values``: the dates (datetime64[D], NaT where not a date), the numbers (NaN where not
    a number), the group and the answer to refunded (codes, -1 where unknown); ``blank``:
    where each is missing or blank text; ``timestamps``: per date field, the timestamps that
    are not dates and the rule each breaks. ``given``: each field's values as given, which
    messages quote (a pandas Series, or an array of objects).
    """

    given: dict[str, object]  # a column each, or one member's values
    id_text: pa.Array  # null where the id is missing or not text
    not_text: np.ndarray  # where the id is not text (a decimal number, a date...)
    beyond_str: np.ndarray  # where the id is an int beyond str()'s digits (no text either)
    lone_surrogate: np.ndarray | None  # where the id holds one; None: nowhere
    duplicated: np.ndarray  # where the id is repeated in the whole input
    other_rows: object  # the other rows of a repeated id, shown in its message
    values: dict[str, np.ndarray] = field(default_factory=dict)
    blank: dict[str, np.ndarray] = field(default_factory=dict)
    timestamps: dict[str, list] = field(default_factory=dict)


_GIVEN = object()  # a problem shows the field's value as given (_Fields.given)
_STACKED_ROWS = 64  # up to this many rows, the masks are stacked to find the invalid rows


def _any_row(masks) -> np.ndarray:
    """Where any of ``masks`` (boolean arrays over the same rows) is set: stacked for a few
    rows (fewer numpy calls), one after another for many (no copy of every mask)."""
    masks = list(masks)
    count = len(masks[0])
    if count <= _STACKED_ROWS:
        return np.logical_or.reduce(np.concatenate(masks).reshape(len(masks), count))
    found = np.zeros(count, dtype=bool)
    for mask in masks:
        found |= mask
    return found


def _validated(fields: _Fields, source: str, first_row: int) -> MemberArrays:
    """The rules of the member fields, checked on ``fields`` read from ``source``: every
    row kept, each invalid one with a message naming the row, the member, and each field,
    rule and value (the one implementation, for a frame and for one member).

    Each rule is flagged where a cheap mask finds it, ``unless`` another rule flags the row
    instead (a blank date is "required", not also "not a date"). The exceptions are only
    worked out when some row breaks a rule: a rule's rows are a subset of its mask's, so
    where no mask finds any, no rule is broken.
    """
    count = len(fields.not_text)
    rows = np.arange(first_row, first_row + count)
    # (mask, field, rule, values, unless): unless() gives the rows another rule has instead.
    problems: list[tuple[np.ndarray, str, str, object, Callable | None]] = []

    def flag(mask, field, rule, values=None, unless=None):  # mask: a boolean array
        problems.append((mask, field, rule, values, unless))

    not_text, lone_surrogate = fields.not_text, fields.lone_surrogate
    # The id has no text (null) where it is not text, is an int beyond str()'s digits or
    # holds a lone surrogate.
    no_text = not_text | fields.beyond_str
    if lone_surrogate is not None:
        no_text |= lone_surrogate
    arrow_ids = fields.id_text
    if arrow_ids.null_count:
        arrow_ids = pc.fill_null(arrow_ids, "")
    # Trimming only removes characters: an id is blank or spaced by its length in bytes.
    length = arrow_text.byte_lengths(arrow_ids)
    trimmed_length = _trimmed_byte_lengths(arrow_ids, length)
    # Only an empty cell (or white space alone) is a missing id: no token ("NA") is one.
    blank_text = trimmed_length == 0

    @functools.cache  # asked by up to three rules, only when some row breaks one
    def id_blank():
        return blank_text & ~no_text

    flag(blank_text, "member_id", _REQUIRED, unless=lambda: no_text)
    flag(not_text, "member_id", _ID_NOT_TEXT, _GIVEN)
    if lone_surrogate is not None:
        flag(lone_surrogate, "member_id", _ID_LONE_SURROGATE, _GIVEN)
    too_long = length > MEMBER_ID_MAX_LENGTH  # in bytes: then counted in characters
    if too_long.any():
        characters = pc.utf8_length(arrow_ids.filter(too_long)).to_numpy(zero_copy_only=False)
        too_long[too_long] = characters > MEMBER_ID_MAX_LENGTH
    flag(too_long, "member_id", _ID_TOO_LONG, _Length(arrow_ids))
    flag(fields.beyond_str, "member_id", _ID_TOO_LONG, _GIVEN)  # its digits are not written
    flag(
        trimmed_length != length,
        "member_id",
        _ID_SPACED,
        arrow_ids,
        unless=lambda: id_blank() | too_long,
    )
    flag(
        _has_control(arrow_ids),
        "member_id",
        _ID_CONTROL_CHARACTERS,
        arrow_ids,
        unless=lambda: too_long,
    )
    # A blank id is "required"; several blank ids are not also "not unique".
    flag(fields.duplicated, "member_id", _ID_NOT_UNIQUE, fields.other_rows, unless=id_blank)

    for name in DATE_FIELDS:
        dates, blank = fields.values[name], fields.blank[name]
        flag(blank, name, _REQUIRED)
        timestamps = fields.timestamps[name]
        for mask, rule in timestamps:
            flag(mask, name, rule, _GIVEN, unless=lambda blank=blank: blank)
        flag(
            np.isnat(dates),
            name,
            _NOT_A_DATE,
            _GIVEN,  # a timestamp says why instead
            unless=lambda blank=blank, timestamps=timestamps: np.logical_or.reduce(
                [blank, *(mask for mask, _ in timestamps)]
            ),
        )
        flag((dates < _DATE_BOUNDS[0]) | (dates > _DATE_BOUNDS[1]), name, _DATE_OUTSIDE, dates)
    for name in NUMBER_FIELDS:
        blank = fields.blank[name]
        flag(blank, name, _REQUIRED)
        flag(
            np.isnan(fields.values[name]),
            name,
            _NOT_A_NUMBER,
            _GIVEN,
            unless=lambda blank=blank: blank,
        )
    service = fields.values["credited_service"]
    compensation = fields.values["average_compensation"]
    # An infinite value, as given: 1e400 in a file, or an int too large for a float, is
    # read as inf; -inf is only "not finite", not also negative.
    service_infinite, compensation_infinite = np.isinf(service), np.isinf(compensation)
    flag(service_infinite, "credited_service", _NOT_FINITE, _GIVEN)
    flag(service < 0, "credited_service", _NEGATIVE, service, unless=lambda: service_infinite)
    flag(
        compensation <= 0,
        "average_compensation",
        _NOT_POSITIVE,
        compensation,
        unless=lambda: compensation_infinite,
    )  # NaN: not a number
    flag(compensation_infinite, "average_compensation", _NOT_FINITE, _GIVEN)
    flag(
        compensation > PLAUSIBLE.compensation_max,
        "average_compensation",
        _IMPLAUSIBLE,
        compensation,
        unless=lambda: compensation_infinite,
    )

    birth, entry, separation = (fields.values[name] for name in DATE_FIELDS)
    flag(birth > entry, "birth_date", _AFTER_ENTRY, _Pair(birth, entry))
    flag(entry > separation, "entry_date", _AFTER_SEPARATION, _Pair(entry, separation))
    life_years = (separation - birth).astype("timedelta64[D]").astype(float) / _DAYS_PER_YEAR
    flag(
        service > life_years,
        "credited_service",
        _LONGER_THAN_LIFE,
        service,
        unless=lambda: ~np.isfinite(service) | np.isnat(separation) | np.isnat(birth),
    )

    group, refunded = fields.values["group"], fields.values["refunded"]
    flag(group < 0, "group", _GROUP_UNKNOWN, _GIVEN, unless=lambda: fields.blank["group"])
    flag(fields.blank["group"], "group", _REQUIRED)
    flag(refunded < 0, "refunded", _REFUND_UNKNOWN, _GIVEN, unless=lambda: fields.blank["refunded"])
    flag(fields.blank["refunded"], "refunded", _REQUIRED)

    bad = _any_row(problem[0] for problem in problems)
    if bad.any():  # the rules' own rows, and the rows that break one
        problems = [
            (mask if unless is None else mask & ~unless(), *rest)
            for mask, *rest, unless in problems
        ]
        bad = _any_row(problem[0] for problem in problems)
    bad_rows = bad.nonzero()[0]
    errors = np.empty(len(bad_rows), dtype=object)
    if bad_rows.size:
        # Per invalid row, the problems it has; the values of the rows that have each as
        # Python objects, by position among the invalid rows (one conversion per problem,
        # not one pandas lookup per cell, nor one of every invalid row for every problem).
        hits = np.array([mask[bad_rows] for mask, *_ in problems], dtype=bool).T
        shown_values = []
        for number, (_, name, _, values) in enumerate(problems):
            if values is _GIVEN:
                values = _column(fields.given[name])
            if isinstance(values, _COLUMNS):
                hit = np.flatnonzero(hits[:, number])
                values = dict(zip(hit.tolist(), _rows_of(values, bad_rows[hit]), strict=True))
            shown_values.append(values)
        ids = _rows_of(arrow_ids, bad_rows)
        blank_id = id_blank()
        raw_ids = _rows_of(_column(fields.given["member_id"]), bad_rows)
        for position, index in enumerate(bad_rows):
            messages = []
            for number in np.flatnonzero(hits[position]):
                _, field_name, rule, values = problems[number]
                whole = field_name in NUMBER_FIELDS  # -1 as written, not -1.0
                if values is _GIVEN or isinstance(values, _COLUMNS):
                    note = _value_note(shown_values[number], position, whole)
                else:
                    note = _value_note(values, index, whole)
                messages.append(_problem(field_name, rule, note))
            who = _who(blank_id[index], no_text[index], raw_ids[position], ids[position])
            errors[position] = _row_error(source, rows[index], who, messages)
    return MemberArrays(
        row=rows,
        member_id=arrow_ids,
        birth_date=birth,
        entry_date=entry,
        separation_date=separation,
        credited_service=service,
        average_compensation=compensation,
        group=np.asarray(group, dtype=np.int64),
        refunded=np.asarray(refunded) == 1,
        invalid=bad_rows,
        messages=errors,
    )


# ------------------------------------------------------------------------ one member
# The one-member parser reads the values people pass in Python (text, numbers, booleans,
# dates, timestamps, None and NaN) field by field, as parse_members reads a column of them,
# into arrays of one; _validated then checks the rules, as it does for a frame. Anything
# else (pandas' NA and NaT, numpy dates, Decimal, a number in text that Arrow cannot read,
# ...) is left to parse_members on the member's one-row frame: the same answer, at a
# frame's cost.
_ASCII_SPACE = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f "  # the ASCII characters Arrow trims
_ISO_PART_LENGTHS = tuple(len(part) for part in _ISO_DATE.split("-"))
_EPOCH_ORDINAL = dt.date(1970, 1, 1).toordinal()  # datetime64's day 0
_DAYS_PER_400_YEARS = 146_097
_EXACT_INTEGERS = 2**53  # an integer beyond this is left to parse_members
_NUMBER_CHARACTERS = frozenset("0123456789+-.eE")
_NOT_A_DAY = np.iinfo(np.int64).min  # NaT as a day number
_BLANK_FIELDS = (*DATE_FIELDS, *NUMBER_FIELDS, "group", "refunded")  # _Fields.blank
_TRUE_ONE = np.ones(1, dtype=bool)
_TRUE_ONE.flags.writeable = False


class _IsoDate:
    """A date given as a ``datetime.date``: read as its ISO text, as a file would hold it."""

    __slots__ = ("day_number", "text")

    def __init__(self, date: dt.date):
        self.text = date.isoformat()
        self.day_number = date.toordinal() - _EPOCH_ORDINAL

    def __str__(self) -> str:
        return self.text


_PYTHON_VALUES = (str, bool, int, float, dt.date, dt.datetime, pd.Timestamp, type(None), _IsoDate)
_NUMPY_VALUES = (np.bool_, np.integer, np.floating)


class _LeftToFrame(Exception):
    """A value the one-member parser leaves to :func:`parse_members`."""


def _checked(value):
    """``value`` if the one-member parser reads its type, else :class:`_LeftToFrame`
    (text that is not Unicode, with a lone surrogate, too: Arrow refuses it)."""
    if type(value) is str and _has_lone_surrogate(value):
        raise _LeftToFrame
    if type(value) in _PYTHON_VALUES or isinstance(value, _NUMPY_VALUES):
        return value
    raise _LeftToFrame


def _missing(value) -> bool:
    """None or NaN: a missing value (pandas.isna on the values the parser reads)."""
    return value is None or (isinstance(value, float | np.floating) and value != value)


def _trimmed(text: str) -> str:
    """``text`` without white space at its ends, as Arrow trims it (the frame parser)."""
    stripped = text.strip(_ASCII_SPACE)
    if not stripped or (stripped[0] < "\x80" and stripped[-1] < "\x80"):
        return stripped
    return pc.utf8_trim_whitespace(pa.scalar(text, pa.string())).as_py()


def _blank(value) -> bool:
    """What :func:`blank_mask` says of a column holding ``value`` alone."""
    return _missing(value) or (isinstance(value, str) and _trimmed(value) == "")


def _iso_day(text: str) -> int | None:
    """The day number (days since 1970-01-01) of an exact date ``YYYY-MM-DD`` in ASCII
    digits, year 0000 included (as Arrow reads a date32); None for any other text."""
    parts = text.split("-", len(_ISO_PART_LENGTHS) - 1)
    if tuple(map(len, parts)) != _ISO_PART_LENGTHS:
        return None
    digits = "".join(parts)
    if not (digits.isascii() and digits.isdigit()):
        return None
    year, month, day = map(int, parts)
    try:  # year 0 has the calendar of year 400, 146,097 days later
        date = dt.date(year or 400, month, day)
    except ValueError:
        return None
    return date.toordinal() - _EPOCH_ORDINAL - (0 if year else _DAYS_PER_400_YEARS)


def _number(value) -> float:
    """A number field's value as parse_members reads it (NaN: missing or not a number)."""
    if _missing(value) or isinstance(value, bool | np.bool_):
        return np.nan
    if isinstance(value, int | np.integer):
        if abs(int(value)) > _EXACT_INTEGERS:
            raise _LeftToFrame
        return float(value)
    if isinstance(value, float | np.floating):
        return decimal_shown(value)
    if isinstance(value, str):
        text = _trimmed(value)
        if text == "":
            return np.nan
        try:
            return pc.cast(pa.scalar(text, pa.string()), pa.float64()).as_py()
        except pa.ArrowInvalid:
            # parse_members then asks pandas, which reads ASCII digits, signs, a point and an
            # exponent only: text with any other character is surely not a number.
            if not set(text) <= _NUMBER_CHARACTERS:
                return np.nan
    raise _LeftToFrame


def parse_member(member, source: str = "member", first_row: int = 1) -> MemberArrays:
    """Parse and validate one member (a :class:`Member` or a mapping), without a frame.

    Its values are read in Python, then checked by the rules :func:`parse_members` checks
    (:func:`_validated`): the same messages and :class:`MemberArrays` (of length 1) as
    :func:`parse_members` on the member's one-row frame (:func:`member_frame`); a member is
    unique in its own input.
    """
    values = _member_values(member)
    try:
        return _parse_one(values, source, first_row)
    except _LeftToFrame:
        return parse_members(member_frame(member), source=source, first_row=first_row)


def _parse_one(values: list, source: str, row: int) -> MemberArrays:
    """One member's fields read in Python (:data:`MEMBER_FIELDS`' values, in order), then
    :func:`_validated`."""
    read = dict(zip(MEMBER_FIELDS, map(_checked, values), strict=True))
    # A date is given as its ISO text, as a file holds it (and as member_frame gives it).
    given = {name: value.text if type(value) is _IsoDate else value for name, value in read.items()}
    # member_id: text kept exactly as given; a whole number as its digits.
    member_id = given["member_id"]
    not_text_id = not _missing(member_id) and _not_an_id(member_id)
    if not_text_id or _missing(member_id):
        id_text = None
    elif is_id_value(member_id) and not _beyond_str(member_id):
        id_text = str(member_id)
    else:
        raise _LeftToFrame
    fields = _Fields(
        given=given,
        id_text=arrow_text.one_text(id_text),
        not_text=np.array([not_text_id]),
        beyond_str=np.zeros(1, dtype=bool),  # left to the frame parser (above)
        lone_surrogate=None,  # left to the frame parser (_checked)
        duplicated=np.zeros(1, dtype=bool),  # a member is unique in its own input
        other_rows=None,
    )
    days = []
    for name in DATE_FIELDS:
        value, day, kind = read[name], None, 0
        if type(value) is _IsoDate:  # a date given as a date: its ISO text is exact
            day = value.day_number
        elif isinstance(value, str):
            day = _iso_day(_trimmed(value))
        elif isinstance(value, dt.datetime):
            kind = _timestamp_kind(value)
            if kind == 0:
                day = value.date().toordinal() - _EPOCH_ORDINAL
        elif not _missing(value):
            raise _LeftToFrame
        days.append(_NOT_A_DAY if day is None else day)
        fields.timestamps[name] = [(_TRUE_ONE, _TIMESTAMP_RULES[kind])] if kind else []
    group, refunded = given["group"], given["refunded"]
    codes = (_group_code(group), -1 if _missing(refunded) else _refund_code(refunded))
    # Each field's value an array of one (a row of an array of all: fewer numpy calls).
    for names, values in (
        (DATE_FIELDS, np.array(days, "datetime64[D]")),
        (NUMBER_FIELDS, np.array([_number(given[name]) for name in NUMBER_FIELDS])),
        (("group", "refunded"), np.array(codes)),
    ):
        fields.values.update(zip(names, values.reshape(-1, 1), strict=True))
    blank = [_blank(given[name]) for name in _BLANK_FIELDS]
    fields.blank.update(zip(_BLANK_FIELDS, np.array(blank).reshape(-1, 1), strict=True))
    return _validated(fields, source, row)


def _column(values) -> object:
    """A field's values as given (:attr:`_Fields.given`) as a column: one member's value
    alone in an array of objects (as given: a list or a tuple is not unpacked)."""
    if isinstance(values, _COLUMNS):
        return values
    array = np.empty(1, dtype=object)
    array[0] = values
    return array


def member_warnings(members: MemberArrays, payment_date: dt.date | None = None) -> np.ndarray:
    """Data-quality warnings per member: possible but suspicious facts ("" where none).
    See :func:`warnings_and_where`."""
    return texts_at(len(members), *warnings_and_where(members, payment_date))


def warnings_and_where(
    members: MemberArrays, payment_date: dt.date | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Where a member has data-quality warnings (possible but suspicious facts), and the
    warnings of each such member, in order: ``(where, warnings)`` (:func:`member_warnings`:
    one text a member).

    Each names the field, the rule and the value: entry into the System before age
    :attr:`Plausible.entry_age_warn_below`; credited service longer than the time from entry
    to separation (it may include purchased service: a warning, not an error); separation
    after the payment date; compensation beyond the warning bounds of :data:`PLAUSIBLE`.
    Invalid rows get none (their error says what is wrong).
    """
    valid = members.valid
    # The age at entry, where it may be young: 366 days a year is an upper bound.
    young_limit = np.timedelta64(366 * PLAUSIBLE.entry_age_warn_below, "D")
    young = ((members.entry_date - members.birth_date) < young_limit).nonzero()[0]
    entry_age = np.full(len(members), -1, dtype=np.int64)
    if len(young):
        entry_age[young] = age_in_months(members.birth_date[young], members.entry_date[young])
    elapsed_years = (members.separation_date - members.entry_date).astype("timedelta64[D]").astype(
        float
    ) / _DAYS_PER_YEAR
    compensation = members.average_compensation
    entry, service, below, above, late = WARNING_RULES
    found: list[tuple[WarningRule, np.ndarray, callable]] = [
        (
            entry,
            (entry_age >= 0) & (entry_age < 12 * PLAUSIBLE.entry_age_warn_below),
            lambda i: (
                f"(got {members.entry_date[i]}, at age {entry_age[i] // 12}y{entry_age[i] % 12}m)"
            ),
        ),
        (
            service,
            members.credited_service > elapsed_years + PLAUSIBLE.service_excess_warn_years,
            lambda i: (
                f"(got {members.credited_service[i]:.2f} against {elapsed_years[i]:.2f} "
                "years, purchased service?)"
            ),
        ),
        (
            below,
            compensation < PLAUSIBLE.compensation_warn_below,
            lambda i: f"(got {Exact(compensation[i]):,.2f})",
        ),  # as the explanation shows it
        (
            above,
            compensation > PLAUSIBLE.compensation_warn_above,
            lambda i: f"(got {Exact(compensation[i]):,.2f})",
        ),
    ]
    if payment_date is not None:
        payment = np.datetime64(payment_date, "D")
        found.append(
            (
                late,
                members.separation_date > payment,
                lambda i: f"{payment} (got {members.separation_date[i]})",
            )
        )
    any_warning = np.zeros(len(members), dtype=bool)
    for _, mask, _ in found:
        any_warning |= mask
    any_warning &= valid
    warned = any_warning.nonzero()[0]
    texts = np.empty(len(warned), dtype=object)
    for position, index in enumerate(warned):
        texts[position] = WARNING_SEPARATOR.join(
            f"{rule.opening} {detail(index)}" for rule, mask, detail in found if mask[index]
        )
    return any_warning, texts


def _member_values(member) -> list:
    """The values of :data:`MEMBER_FIELDS` of a :class:`Member` or a mapping, in order; a
    date (not a timestamp) as an :class:`_IsoDate` (its ISO text, as a file would hold it),
    but the member_id's (a date is no id: an error)."""
    if isinstance(member, Member):
        record = {name: getattr(member, name) for name in MEMBER_FIELDS}
    elif isinstance(member, Mapping):
        record = member
    else:
        raise MemberDataError(
            f"member must be a Member or a mapping of {list(MEMBER_FIELDS)} "
            f"(got {type(member).__name__})"
        )
    missing = [name for name in MEMBER_FIELDS if name not in record]
    if missing:
        keys = [str(key) for key in record]
        raise MemberDataError(f"member: missing field(s) {missing}" + written_as(missing, keys))
    values = [record[name] for name in MEMBER_FIELDS]
    return [
        _IsoDate(value) if name != "member_id" and is_plain_date(value) else value
        for name, value in zip(MEMBER_FIELDS, values, strict=True)
    ]


def member_frame(member) -> pd.DataFrame:
    """A one-row frame from a :class:`Member` or a mapping of member fields."""
    values = [str(v) if type(v) is _IsoDate else v for v in _member_values(member)]
    return pd.DataFrame(
        {name: [value] for name, value in zip(MEMBER_FIELDS, values, strict=True)}, dtype=object
    )
