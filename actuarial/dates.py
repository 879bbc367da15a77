"""Ages in completed years and months, by the anniversary rule of I-6.

A person reaches an age on the anniversary of birth; in a month without the birth day
(born on the 29th, 30th or 31st) the anniversary is that month's last day, so someone
born on February 29 turns a year older on February 28 in common years. The switch
``leap_day_birthday="mar1"`` moves that anniversary to March 1 instead.
"""

from __future__ import annotations

import datetime as dt
import sys

import numpy as np

from actuarial.shown_text import as_given

__all__ = [
    "LEAP_DAY_RULES",
    "add_months",
    "add_years",
    "age_in_months",
    "as_dates",
    "birth_parts",
    "coarse_or_missing",
    "is_plain_date",
    "format_age",
    "not_a_date",
    "numpy_day",
    "period_day",
    "year_month_day",
]

LEAP_DAY_RULES = ("feb28", "mar1")

_DAYS_IN_MONTH = np.array([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])
# Calendar arithmetic on day numbers (H. Hinnant, "chrono-Compatible Low-Level Date
# Algorithms"): years are counted from March 1, so that a leap day is the last day of its
# year, in 400-year eras of 146,097 days; day 0 of era 0 is 0000-03-01.
_DAYS_PER_ERA = 146_097
_EPOCH_FROM_0000_03_01 = 719_468  # days from 0000-03-01 to 1970-01-01 (datetime64's 0)
# Day numbers whose calendar arithmetic stays within int32 (5 * day_of_year + 2, and the
# era's days, are the largest terms: both far below 2**31 in this range).
_INT32_FROM = 1_024  # fewer dates: checking their bounds costs more than int32 saves
_INT32_DAYS = (-(2**31) + 2 * _DAYS_PER_ERA, 2**31 - 2 * _DAYS_PER_ERA - _EPOCH_FROM_0000_03_01)


def as_dates(values) -> np.ndarray:
    """Return ``values`` as a numpy ``datetime64[D]`` array (NaT kept)."""
    return np.asarray(values, dtype="datetime64[D]")


def is_plain_date(value) -> bool:
    """Whether ``value`` is a date, not a timestamp (a ``datetime`` is a ``date`` too)."""
    return isinstance(value, dt.date) and not isinstance(value, dt.datetime)


def not_a_date(key: str, value, shown: str) -> str:
    """The problem of ``key``, a date in a TOML file (or a guide made in Python), given
    ``value`` (``shown``: as messages quote it): a date written as text, in quotes, is named
    so, with how TOML writes a date."""
    if isinstance(value, str):
        try:
            day = dt.date.fromisoformat(value)
        except ValueError:
            day = None
        if day is not None and day.isoformat() == value:
            return (
                f"'{key}' must be a date YYYY-MM-DD (got the text {shown}: TOML writes a date "
                f"without quotes, {key} = {value})"
            )
    return f"'{key}' must be a date YYYY-MM-DD (got {shown})"


def coarse_or_missing(value: np.datetime64) -> bool:
    """NaT, or a numpy year, month or week: not a day (not its first day either)."""
    return np.isnat(value) or np.datetime_data(value.dtype)[0] in ("Y", "M", "W")


def numpy_day(value: np.datetime64) -> np.datetime64 | None:
    """The day of a numpy datetime64 that is a date (a day, or a timestamp at midnight);
    None for any other (NaT, a year, a month, a week, a time of day). The one reading of a
    member's numpy dates and of ``as_of``."""
    if coarse_or_missing(value):
        return None
    day = value.astype("datetime64[D]")
    return day if day == value else None


def period_day(value) -> np.datetime64 | None:
    """The day of a pandas period of one day (frequency ``D``), as a numpy day (any year,
    beyond Python's dates too); None for any other value, a period of a month, a year, an
    hour or two days too (not a day, nor its first day). The one reading of a member's
    periods and of ``as_of``."""
    pandas = sys.modules.get("pandas")  # a period is made by pandas: none before it is imported
    if pandas is None or not isinstance(value, pandas.Period) or value.freqstr != "D":
        return None
    return np.datetime64(value.ordinal, "D")  # a daily period's ordinal: days from 1970-01-01


def year_month_day(dates) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Year, month (1-12) and day of each date (no NaT), as integer arrays."""
    return tuple(part.astype(np.int64) for part in _parts(as_dates(dates)))


def _parts(dates: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Year, month (1-12) and day (1-31) of ``datetime64[D]`` dates (``civil_from_days``).

    In int32 (twice as fast as int64) when every date is within about 5.8 million years
    of 1970, as every member's date is, and there are many; in int64 otherwise. Fewer than
    :data:`_INT32_FROM` dates are read by numpy's own calendar (its casts to months and
    years): 3 calls instead of 20, a quarter of the time for one member's dates, and
    slower than the arithmetic from about a thousand dates on.
    """
    if dates.size < _INT32_FROM:
        months = dates.astype("datetime64[M]")
        return (
            dates.astype("datetime64[Y]").astype(np.int64) + 1970,
            months.astype(np.int64) % 12 + 1,
            (dates - months).astype(np.int64) + 1,
        )
    days = dates.astype(np.int64)
    if _INT32_DAYS[0] <= days.min() and days.max() <= _INT32_DAYS[1]:
        days = days.astype(np.int32)
    days += _EPOCH_FROM_0000_03_01
    era = days // _DAYS_PER_ERA
    day_of_era = days - era * _DAYS_PER_ERA  # 0 to 146,096
    year_of_era = (
        day_of_era - day_of_era // 1_460 + day_of_era // 36_524 - day_of_era // 146_096
    ) // 365  # 0 to 399
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    month_from_march = (5 * day_of_year + 2) // 153  # 0 = March, ..., 11 = February
    day = day_of_year - (153 * month_from_march + 2) // 5 + 1
    month = np.where(month_from_march < 10, month_from_march + 3, month_from_march - 9)
    year = era * 400 + year_of_era + (month <= 2)
    return year, month, day


def _date(year: np.ndarray, month: np.ndarray, day: np.ndarray) -> np.ndarray:
    """``datetime64[D]`` of year, month and day (``days_from_civil``).

    A day past the end of its month runs on into the next: 2025-02-29 is 2025-03-01.
    Fewer than :data:`_INT32_FROM` dates are made by numpy's own calendar (the month, then
    the days from its first), as :func:`_parts` reads them: 6 calls instead of 15.
    """
    if np.size(year) < _INT32_FROM:
        months = ((year - 1970) * 12 + (month - 1)).astype("datetime64[M]")
        return months.astype("datetime64[D]") + (day - 1)
    year = year - (month <= 2)  # years from March 1
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * ((month + 9) % 12) + 2) // 5 + day - 1
    day_of_era = 365 * year_of_era + year_of_era // 4 - year_of_era // 100 + day_of_year
    days = era * _DAYS_PER_ERA + day_of_era - _EPOCH_FROM_0000_03_01
    return days.astype("datetime64[D]")


def _days_in_month(year: np.ndarray, month: np.ndarray) -> np.ndarray:
    """Number of days in ``month`` (1-12) of ``year`` (Gregorian calendar)."""
    leap_year = (year % 4 == 0) & ((year % 100 != 0) | (year % 400 == 0))
    return _DAYS_IN_MONTH[month - 1] + ((month == 2) & leap_year)


def _broadcast(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """``np.broadcast_arrays``, which costs a few microseconds, only where the arrays'
    shapes differ: the engine's are equal."""
    shape = np.shape(arrays[0])
    if all(np.shape(array) == shape for array in arrays[1:]):
        return tuple(np.asarray(array) for array in arrays)
    return tuple(np.broadcast_arrays(*arrays))


def _anniversary_day(birth_day, on_year, birth_month, on_month, leap_day_birthday):
    """Day of the month ``on_year``-``on_month`` on which an anniversary of a birth on
    ``birth_day`` of ``birth_month`` falls (I-6): the birth day, or the month's last day
    when the month is shorter; under the "mar1" reading, February 29 in a common year is
    day 29 of February (March 1), so in such a February the anniversary is not reached.

    Every month has 28 days and every month but February 30: only births after the 28th
    in a February, and births on the 31st, are looked at.
    """
    birth_day, on_year, birth_month, on_month = _broadcast(
        birth_day, on_year, birth_month, on_month
    )
    may_be_short = (birth_day > 28) & ((on_month == 2) | (birth_day == 31))
    at = may_be_short.reshape(-1).nonzero()[0]
    if not len(at):
        return birth_day
    day = np.array(birth_day)
    birth, year, month = (a.reshape(-1)[at] for a in (birth_day, on_year, on_month))
    last_day = _days_in_month(year, month)
    moved = np.minimum(birth, last_day)
    if leap_day_birthday == "mar1":
        leap_day = (birth_month.reshape(-1)[at] == 2) & (birth == 29)
        moved = np.where(leap_day & (month == 2) & (last_day == 28), 29, moved)
    day.reshape(-1)[at] = moved
    return day


def birth_parts(birth) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Year, month and day of each birth date (NaT read as 1970-01-01), for
    :func:`age_in_months` and :func:`add_years` on the same births (computed once)."""
    birth = as_dates(birth)
    return _parts(np.where(np.isnat(birth), np.datetime64("1970-01-01"), birth))


def age_in_months(birth, on, leap_day_birthday: str = "feb28", parts=None) -> np.ndarray:
    """Completed months of age on date ``on`` for a person born on ``birth`` (I-6).

    Vectorized over numpy date arrays; NaT in either gives -1. ``parts``: the
    :func:`birth_parts` of ``birth``, when already known.
    """
    if leap_day_birthday not in LEAP_DAY_RULES:
        raise ValueError(
            f"'leap_day_birthday' must be in {list(LEAP_DAY_RULES)} "
            f"(got {as_given(leap_day_birthday)})"
        )
    birth, on = _broadcast(as_dates(birth), as_dates(on))
    missing = np.isnat(birth) | np.isnat(on)
    birth = np.where(missing, np.datetime64("1970-01-01"), birth)
    on = np.where(missing, np.datetime64("1970-01-01"), on)
    birth_year, birth_month, birth_day = _parts(birth) if parts is None else parts
    on_year, on_month, on_day = _parts(on)
    months = (on_year - birth_year) * 12 + (on_month - birth_month)
    months -= on_day < _anniversary_day(
        birth_day, on_year, birth_month, on_month, leap_day_birthday
    )
    return np.where(missing, -1, months)


def add_years(birth, years: int, leap_day_birthday: str = "feb28", parts=None) -> np.ndarray:
    """The date on which a person born on ``birth`` reaches ``years`` of age (I-6).
    ``parts``: the :func:`birth_parts` of ``birth``, when already known."""
    birth = as_dates(birth)
    missing = np.isnat(birth)
    birth_year, birth_month, birth_day = birth_parts(birth) if parts is None else parts
    year = birth_year + years
    # The birthday is the anniversary in the birth month; day 29 of a common February
    # (the "mar1" reading) runs on into March 1.
    day = _anniversary_day(birth_day, year, birth_month, birth_month, leap_day_birthday)
    result = _date(year, birth_month, day)
    return np.where(missing, np.datetime64("NaT"), result)


def add_months(dates, months) -> np.ndarray:
    """The date ``months`` calendar months after each date, on the same day of the month or
    the month's last day when it is shorter (2016-01-31 + 1 month = 2016-02-29)."""
    dates = as_dates(dates)
    months = np.asarray(months, dtype=np.int64)
    dates, months = np.broadcast_arrays(dates, months)
    missing = np.isnat(dates)
    year, month, day = _parts(np.where(missing, np.datetime64("1970-01-01"), dates))
    index = year * 12 + (month - 1) + months
    new_year, new_month = index // 12, index % 12 + 1
    result = _date(new_year, new_month, np.minimum(day, _days_in_month(new_year, new_month)))
    return np.where(missing, np.datetime64("NaT"), result)


def format_age(months) -> str:
    """``'57y5m'`` for 689 months."""
    months = int(months)
    return f"{months // 12}y{months % 12}m"
