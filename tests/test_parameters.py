"""Dated statute parameters: the coverage window and the $500 minimum, with their sources."""

import datetime as dt

import numpy as np
import pytest

from actuarial.parameters import coverage_window, minimum_monthly_pension


def test_coverage_window_is_first_entry_from_april_1_1990_until_the_end_of_1999():
    # Source: docs/readings.md I-1; data/parameters.toml [coverage].
    window = coverage_window()
    assert window.first_entry_on_or_after == dt.date(1990, 4, 1)
    assert window.first_entry_before == dt.date(2000, 1, 1)
    assert "766d" in window.source


@pytest.mark.parametrize(
    ("payment_date", "expected_usd"),
    [
        ("1990-04-01", 0.0),  # first date of the schedule: no minimum before Ley 3-2013
        ("2013-06-30", 0.0),
        ("2013-07-01", 500.0),  # Ley 3-2013: «efectivo el, 1ro de julio de 2013»
        ("2040-01-01", 500.0),
    ],
)
def test_minimum_monthly_pension_is_500_from_july_1_2013(payment_date, expected_usd):
    assert minimum_monthly_pension().amount_on([payment_date])[0] == expected_usd


def test_minimum_monthly_pension_schedule_carries_its_sources():
    values = minimum_monthly_pension().values
    assert [value.effective_from for value in values] == [dt.date(1990, 4, 1), dt.date(2013, 7, 1)]
    assert "Ley 3-2013" in values[-1].source


def test_minimum_monthly_pension_is_vectorized_and_keeps_missing_dates_missing():
    amounts = minimum_monthly_pension().amount_on(
        np.array(["2013-06-30", "NaT", "2013-07-01"], dtype="datetime64[D]")
    )
    assert amounts[0] == 0.0
    assert np.isnan(amounts[1])
    assert amounts[2] == 500.0


def test_minimum_monthly_pension_before_its_first_date_raises_instead_of_returning_nothing():
    with pytest.raises(
        ValueError,
        match=r"^minimum pension: no value in force on 1990-03-31 "
        r"\(the schedule starts on 1990-04-01\)$",
    ):
        minimum_monthly_pension().amount_on(["1995-01-01", "1990-03-31"])
