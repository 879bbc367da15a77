"""Ages in completed years and months by the anniversary rule (I-6)."""

import calendar
import datetime as dt

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from actuarial.dates import (
    _INT32_FROM,
    add_months,
    add_years,
    age_in_months,
    as_dates,
    birth_parts,
    format_age,
    period_day,
    year_month_day,
)


def months(years: int, extra_months: int = 0) -> int:
    return 12 * years + extra_months


@pytest.mark.parametrize(
    ("birth", "on", "expected"),
    [
        ("1960-06-15", "2025-06-14", months(64, 11)),  # the day before the 65th birthday
        ("1960-06-15", "2025-06-15", months(65)),  # on the 65th birthday
        ("1960-06-15", "2015-06-14", months(54, 11)),
        ("1960-06-15", "2015-06-15", months(55)),
        ("1960-06-15", "2015-07-14", months(55)),  # a monthly anniversary not yet reached
        ("1960-06-15", "2015-07-15", months(55, 1)),
        ("1960-06-15", "1960-06-15", 0),
    ],
)
def test_age_turns_on_the_anniversary_of_birth(birth, on, expected):
    assert age_in_months(birth, on) == expected


@pytest.mark.parametrize(
    ("on", "expected"),
    [
        ("2025-02-27", months(64, 11)),
        ("2025-02-28", months(65)),  # common year: the birthday is Feb 28
        ("2025-03-01", months(65)),
        ("2024-02-28", months(63, 11)),  # leap year: the birthday is Feb 29
        ("2024-02-29", months(64)),
    ],
)
def test_born_feb_29_turns_a_year_older_on_feb_28_in_common_years(on, expected):
    assert age_in_months("1960-02-29", on) == expected


@pytest.mark.parametrize(
    ("on", "expected"),
    [
        ("2025-02-28", months(64, 11)),  # common year: not yet 65 on Feb 28
        ("2025-03-01", months(65)),
        ("2024-02-29", months(64)),  # leap year: unchanged
    ],
)
def test_born_feb_29_with_the_mar1_reading_turns_a_year_older_on_march_1(on, expected):
    assert age_in_months("1960-02-29", on, "mar1") == expected


@pytest.mark.parametrize(
    ("on", "expected"),
    [
        ("2001-02-27", 0),
        ("2001-02-28", 1),  # February has no 31st: its last day is the anniversary
        ("2000-02-28", 0),
        ("2000-02-29", 1),  # leap February: the 29th is its last day
        ("2001-03-30", 1),
        ("2001-03-31", 2),
        ("2001-04-29", 2),
        ("2001-04-30", 3),  # April has no 31st
    ],
)
def test_born_on_the_31st_has_monthly_anniversaries_on_the_last_day_of_shorter_months(on, expected):
    birth = "2001-01-31" if on.startswith("2001") else "2000-01-31"
    assert age_in_months(birth, on) == expected


def test_the_mar1_reading_changes_nothing_for_other_birthdays():
    births = as_dates(["1960-01-31", "1960-03-01", "1960-02-28", "1961-02-28"])
    on = as_dates(["2025-02-28", "2025-02-28", "2025-02-28", "2025-02-27"])
    np.testing.assert_array_equal(age_in_months(births, on), age_in_months(births, on, "mar1"))


def test_age_in_months_is_vectorized_and_gives_minus_one_for_missing_dates():
    births = as_dates(["1960-06-15", "NaT", "1960-06-15"])
    on = as_dates(["2025-06-15", "2025-06-15", "NaT"])
    np.testing.assert_array_equal(age_in_months(births, on), [months(65), -1, -1])


def test_age_in_months_names_the_valid_leap_day_rules():
    with pytest.raises(
        ValueError, match=r"^'leap_day_birthday' must be in \['feb28', 'mar1'\] \(got 'mar2'\)$"
    ):
        age_in_months("1960-02-29", "2025-02-28", "mar2")


@pytest.mark.parametrize(
    ("birth", "rule", "expected"),
    [
        ("1960-06-15", "feb28", "2025-06-15"),
        ("1960-02-29", "feb28", "2025-02-28"),  # common year: Feb 28 (I-6)
        ("1960-02-29", "mar1", "2025-03-01"),
        ("1964-02-29", "feb28", "2029-02-28"),
        ("1960-01-31", "feb28", "2025-01-31"),
    ],
)
def test_add_years_gives_the_date_an_age_is_reached(birth, rule, expected):
    assert add_years(birth, 65, rule) == np.datetime64(expected)


def test_add_years_lands_on_feb_29_when_the_year_is_leap():
    assert add_years("1960-02-29", 64) == np.datetime64("2024-02-29")
    assert add_years("1960-02-29", 64, "mar1") == np.datetime64("2024-02-29")


def test_add_years_agrees_with_age_in_months():
    births = as_dates(["1960-02-29", "1960-01-31", "1971-12-31", "1965-06-15"])
    for rule in ("feb28", "mar1"):
        birthday = add_years(births, 65, rule)
        np.testing.assert_array_equal(age_in_months(births, birthday, rule), months(65))
        np.testing.assert_array_equal(
            age_in_months(births, birthday - np.timedelta64(1, "D"), rule), months(64, 11)
        )


def test_add_years_keeps_missing_birth_dates_missing():
    result = add_years(as_dates(["NaT", "1960-06-15"]), 65)
    assert np.isnat(result[0])
    assert result[1] == np.datetime64("2025-06-15")


@pytest.mark.parametrize(("age", "text"), [(689, "57y5m"), (780, "65y0m"), (659, "54y11m")])
def test_format_age_shows_years_and_months(age, text):
    assert format_age(age) == text


# ------------------------------------------------------------------ against the calendar module
def _calendar_age(birth: dt.date, on: dt.date, rule: str) -> int:
    """Completed months by the anniversary rule, one date at a time with :mod:`calendar`."""
    last_day = calendar.monthrange(on.year, on.month)[1]
    anniversary = min(birth.day, last_day)
    if rule == "mar1" and (birth.month, birth.day, on.month, last_day) == (2, 29, 2, 28):
        anniversary = 29  # March 1: not reached in February
    whole = (on.year - birth.year) * 12 + on.month - birth.month
    return whole - (on.day < anniversary)


DATES = st.dates(dt.date(1800, 1, 1), dt.date(2300, 12, 31))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(DATES, DATES), min_size=1, max_size=40),
    st.sampled_from(["feb28", "mar1"]),
)
def test_age_in_months_agrees_with_the_calendar_module(pairs, rule):
    births = np.array([b for b, _ in pairs], dtype="datetime64[D]")
    ons = np.array([o for _, o in pairs], dtype="datetime64[D]")
    expected = [_calendar_age(b, o, rule) for b, o in pairs]
    assert age_in_months(births, ons, rule).tolist() == expected
    assert age_in_months(births, ons, rule, birth_parts(births)).tolist() == expected
    assert [int(age_in_months(b, o, rule)) for b, o in zip(births, ons, strict=True)] == expected


@pytest.mark.parametrize("rule", ["feb28", "mar1"])
def test_age_on_every_last_day_of_a_month_for_births_on_the_28th_to_31st(rule):
    births = [dt.date(1960, month, day) for month in (1, 2, 3) for day in (28, 29, 30, 31)
              if day <= calendar.monthrange(1960, month)[1]]  # fmt: skip
    ons = [dt.date(year, month, day) for year in (2023, 2024) for month in range(1, 13)
           for day in range(27, calendar.monthrange(year, month)[1] + 1)]  # fmt: skip
    pairs = [(b, o) for b in births for o in ons]
    got = age_in_months(
        np.array([b for b, _ in pairs], dtype="datetime64[D]"),
        np.array([o for _, o in pairs], dtype="datetime64[D]"),
        rule,
    )
    assert got.tolist() == [_calendar_age(b, o, rule) for b, o in pairs]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.dates(dt.date(1, 1, 1), dt.date(9999, 12, 31)), min_size=1, max_size=50))
def test_year_month_day_agrees_with_datetime(days):
    """Whether read by numpy's calendar (a few dates) or by the arithmetic (many)."""
    expected = [(d.year, d.month, d.day) for d in days]
    for times in (1, -(-_INT32_FROM // len(days))):
        year, month, day = year_month_day(np.array(days * times, dtype="datetime64[D]"))
        assert list(zip(year.tolist(), month.tolist(), day.tolist(), strict=True)) == (
            expected * times
        )


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-(10**12), 10**12), min_size=1, max_size=20))
def test_year_month_day_of_far_dates_is_the_same_however_many_are_read(days):
    """Far outside int32's range: numpy's calendar (a few dates) and the int64 arithmetic
    (many) agree."""
    dates = np.array(days, dtype="datetime64[D]")
    many = np.resize(dates, max(_INT32_FROM, len(days)))
    few_parts = [part.tolist() for part in year_month_day(dates)]
    many_parts = [part[: len(days)].tolist() for part in year_month_day(many)]
    assert few_parts == many_parts


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.dates(dt.date(1, 1, 1), dt.date(9000, 12, 31)), min_size=1, max_size=20),
    st.integers(0, 900),
    st.sampled_from(["feb28", "mar1"]),
)
def test_dates_are_made_the_same_however_many_are_made(days, count, rule):
    """A birthday, and a date some months later, made by numpy's calendar (a few dates) or
    by the arithmetic (many): the same day, a day past the month's end run on alike."""
    dates = np.array(days, dtype="datetime64[D]")
    many = np.resize(dates, max(_INT32_FROM, len(days)))
    assert add_years(dates, count % 100, rule).tolist() == (
        add_years(many, count % 100, rule)[: len(days)].tolist()
    )
    assert add_months(dates, count).tolist() == add_months(many, count)[: len(days)].tolist()


def _calendar_birthday(birth: dt.date, years: int, rule: str) -> dt.date:
    year = birth.year + years
    if (birth.month, birth.day) == (2, 29) and not calendar.isleap(year):
        return dt.date(year, 2, 28) if rule == "feb28" else dt.date(year, 3, 1)
    return birth.replace(year=year)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.dates(dt.date(1800, 1, 1), dt.date(2200, 12, 31)), min_size=1, max_size=30),
    st.integers(0, 100),
    st.sampled_from(["feb28", "mar1"]),
)
def test_add_years_agrees_with_the_calendar_module(births, years, rule):
    got = add_years(np.array(births, dtype="datetime64[D]"), years, rule)
    assert got.astype(object).tolist() == [_calendar_birthday(b, years, rule) for b in births]
    parts = birth_parts(np.array(births, dtype="datetime64[D]"))
    assert (add_years(np.array(births, dtype="datetime64[D]"), years, rule, parts) == got).all()
    assert add_years(np.datetime64(births[0], "D"), years, rule).astype(object) == (
        _calendar_birthday(births[0], years, rule)
    )


@pytest.mark.parametrize(
    ("value", "day"),
    [
        (pd.Period("2016-03-01", "D"), np.datetime64("2016-03-01")),
        (pd.Period("1970-01-01", "D"), np.datetime64("1970-01-01")),
        (pd.Period(year=12000, month=1, day=1, freq="D"), np.datetime64("12000-01-01")),
        (pd.Period("2016-03", "M"), None),  # not a day, nor its first day
        (pd.Period("2016", "Y"), None),
        (pd.Period("2016-03-01 00:00", "h"), None),
        (pd.Period("2016-03-01", "2D"), None),
        (dt.date(2016, 3, 1), None),  # no period: read by the other rules
        ("2016-03-01", None),
    ],
)
def test_a_period_of_one_day_is_that_day_and_no_other_period_is_a_day(value, day):
    assert period_day(value) == day


def test_add_months_ends_on_the_last_day_of_a_shorter_month():
    # As its docstring says: 2016-01-31 + 1 month is 2016-02-29, not March.
    starts = np.array(["2016-01-31", "2015-01-31", "2016-03-31", "2025-08-31"], "datetime64[D]")
    assert add_months(starts, [1, 1, -1, 1]).tolist() == [
        dt.date(2016, 2, 29), dt.date(2015, 2, 28), dt.date(2016, 2, 29), dt.date(2025, 9, 30),
    ]  # fmt: skip


def test_2100_is_a_common_year_as_every_century_not_divisible_by_400():
    # Member dates run to 2100-12-31: the century rule is reached.
    born, on = np.array(["1960-01-31"], "datetime64[D]"), np.array(["2100-02-28"], "datetime64[D]")
    assert age_in_months(born, on).tolist() == [140 * 12 + 1]  # 140y1m on February's last day
    assert add_months(np.array(["2100-01-31"], "datetime64[D]"), 1).tolist() == [
        dt.date(2100, 2, 28)
    ]
