"""Inciso (c) reduction factors by actuarial equivalence, derived guides and their review."""

import datetime as dt
import re
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import law_entry
from hypothesis import given, settings
from hypothesis import strategies as st

from actuarial.annuities import annuity_due, pure_endowment
from actuarial.equivalence import (
    SHIPPED_DERIVATIONS,
    EquivalenceError,
    _table_problems,
    compare_factors,
    derive_guide,
    derive_reduction_table,
    early_retirement_factor,
    fit_interest,
    subsidy,
    write_guide,
)
from actuarial.guides import load_guide, load_guides
from actuarial.mortality import LifeTable, ilt, sult

SULT = sult()
ILT = ilt()
GUIDES = Path(__file__).parents[1] / "guides"
GUIDE_MONTHS = np.arange(55 * 12, 65 * 12 + 1)


# ----------------------------------------------------------------- published factors
@pytest.mark.parametrize(
    ("table", "interest", "m", "at_55", "at_60"),
    [
        # Source: docs/reference-values.md, "Actuarially equivalent early-retirement factor".
        (SULT, 0.05, 12, 0.4979, 0.6949),
        (ILT, 0.06, 12, 0.3888, 0.6072),
        (SULT, 0.05, 1, 0.5007, 0.6972),
        (ILT, 0.06, 1, 0.3925, 0.6105),
    ],
    ids=["sult-monthly", "ilt-monthly", "sult-annual", "ilt-annual"],
)
def test_equivalent_factor_at_55_and_60_is_the_published_value(table, interest, m, at_55, at_60):
    factors = early_retirement_factor(table, [55, 60], interest, m=m)
    assert factors.tolist() == [pytest.approx(at_55, abs=1e-4), pytest.approx(at_60, abs=1e-4)]


def test_equivalent_factor_is_deferred_value_over_immediate_value():
    age = 57 + 5 / 12
    deferred = SULT.survival(age, 65 - age) * 1.05 ** -(65 - age) * annuity_due(SULT, 65, 0.05, 12)
    expected = deferred / annuity_due(SULT, age, 0.05, 12)
    assert early_retirement_factor(SULT, age, 0.05) == pytest.approx(expected, rel=1e-13)


@settings(max_examples=40, deadline=None)
@given(interest=st.floats(0.0, 0.1), method=st.sampled_from(["udd", "woolhouse3"]))
def test_inciso_c_factor_is_one_at_normal_retirement_age_and_rises_with_age(interest, method):
    factors = early_retirement_factor(SULT, GUIDE_MONTHS / 12, interest, method=method)
    assert factors[-1] == 1.0
    assert (np.diff(factors) > 0).all()


CONSTANT_FORCE_SULT = LifeTable("SULT, constant force", 20, SULT.qx, fractional="constant-force")


def test_the_equivalent_factor_by_default_is_under_the_tables_own_fractional_ages():
    # Before: the annuities were summed under UDD and the deferral under a constant force.
    table, ages = CONSTANT_FORCE_SULT, np.array([55.25, 60.5, 64.75])
    deferral = pure_endowment(table, ages, 65 - ages, 0.05)
    by_definition = deferral * annuity_due(table, 65, 0.05, 12) / annuity_due(table, ages, 0.05, 12)
    factor = early_retirement_factor(table, ages, 0.05)
    np.testing.assert_allclose(factor, by_definition, rtol=1e-12, atol=0)
    assert (factor == early_retirement_factor(table, ages, 0.05, method="constant-force")).all()
    months = GUIDE_MONTHS[:-1]
    exact = early_retirement_factor(table, months / 12, 0.05, method="constant-force")
    assert (derive_reduction_table(table, 0.05)["factor"].to_numpy()[:-1] == exact.round(6)).all()
    guide = subsidy(table, months, exact.round(6), 0.05)
    assert (guide["equivalent_factor"].to_numpy() == exact).all()
    fit = fit_interest(table, months, exact, bounds=(0.04, 0.06))
    assert fit.interest == pytest.approx(0.05, abs=1e-6)


def test_a_guide_derived_by_default_records_the_tables_own_fractional_ages(tmp_path):
    folder = derive_guide(
        tmp_path / "g", CONSTANT_FORCE_SULT, 0.05, guide_id="g", series="g", title="t",
        effective_from="1990-04-01",
    )  # fmt: skip
    guide = load_guide(folder)
    assert guide.basis["fractional_ages"] == "constant-force"
    assert guide.basis["annuity_method"] == (
        "exact sum of the monthly payments, constant force within each year of age"
    )
    assert "; exact sum of the monthly payments, constant force within" in guide.source
    exact = early_retirement_factor(
        CONSTANT_FORCE_SULT, GUIDE_MONTHS / 12, 0.05, method="constant-force"
    )
    np.testing.assert_array_equal(guide.factors[:-1], exact[:-1].round(6))


def test_an_age_or_a_factor_no_float_can_hold_is_refused_naming_it():
    # Before: a raw OverflowError, "int too large to convert to float".
    rule = "must be a number a float can hold, from -1.8e+308 to 1.8e+308 (got -1e+400)"
    with pytest.raises(EquivalenceError, match=f"^'age' {re.escape(rule)}$"):
        early_retirement_factor(SULT, -(10**400), 0.05)
    with pytest.raises(EquivalenceError, match=f"^'factors' {re.escape(rule)}$"):
        fit_interest(SULT, [660, 780], [-(10**400), 1])
    with pytest.raises(EquivalenceError, match=f"^'guide_factors' {re.escape(rule)}$"):
        subsidy(SULT, [660, 780], [-(10**400), 1], 0.05)


@pytest.mark.parametrize(
    ("age_months", "message"),
    [
        ([10**400], "'age_months' must be a number a float can hold, from -1.8e+308 to "
         "1.8e+308 (got 1e+400)"),
        (["660"], "'age_months' must be a number (got '660')"),
    ],
)  # fmt: skip
def test_ages_in_months_no_float_can_hold_or_not_numbers_are_refused_naming_them(
    age_months, message
):
    # Before: numpy's TypeError "loop of ufunc does not support argument 0 of type int".
    with pytest.raises(EquivalenceError) as refused:
        fit_interest(SULT, age_months, [0.5])
    assert str(refused.value) == message


def test_factor_grid_of_ages_by_rates_is_one_call_matching_scalar_calls():
    rates = np.array([0.0, 0.03, 0.05, 0.0625, 0.1])
    grid = early_retirement_factor(SULT, GUIDE_MONTHS[:, None] / 12, rates[None, :])
    for row, months in enumerate(GUIDE_MONTHS[::7]):
        for column, rate in enumerate(rates):
            scalar = early_retirement_factor(SULT, months / 12, rate)
            assert grid[row * 7, column] == pytest.approx(scalar, rel=1e-13)


def test_factor_above_the_normal_retirement_age_is_refused():
    with pytest.raises(
        EquivalenceError, match=r"^'age' must be <= the normal retirement age 65 \(got 65.5\)$"
    ):
        early_retirement_factor(SULT, [60, 65.5], 0.05)


# ----------------------------------------------------------------- reduction tables
def test_derived_table_has_every_month_from_55y0m_to_65y0m_and_is_one_at_65():
    table = derive_reduction_table(SULT, 0.05)
    assert list(table.columns) == ["age_years", "age_months", "factor"]
    assert len(table) == 121
    assert table.iloc[0].tolist() == [55, 0, 0.497896]
    assert table.iloc[-1].tolist() == [65, 0, 1.0]
    assert (table["factor"] == table["factor"].round(6)).all()
    assert table["factor"].is_monotonic_increasing


def test_derive_then_fit_recovers_the_interest_rate_within_a_hundredth_of_a_percent():
    table = derive_reduction_table(SULT, 0.0625)
    months = table["age_years"] * 12 + table["age_months"]
    fit = fit_interest(SULT, months, table["factor"])
    assert fit.interest == pytest.approx(0.0625, abs=1e-4)
    assert fit.max_abs_deviation < 1e-6  # about the rounding to 6 decimals (5e-7)
    assert len(fit.deviations) == 120  # the row at 65y0m is 1 by definition and left out
    assert list(fit.deviations.columns) == [
        "age_years",
        "age_months",
        "guide_factor",
        "equivalent_factor",
        "difference",
    ]


def test_fit_of_a_guide_on_another_table_reports_its_deviations():
    table = derive_reduction_table(ILT, 0.06)
    months = table["age_years"] * 12 + table["age_months"]
    fit = fit_interest(SULT, months, table["factor"])
    assert 0 < fit.interest < 0.2 and fit.rmse > 0
    assert fit.max_abs_deviation == pytest.approx(fit.deviations["difference"].abs().max())


def test_a_fit_inside_its_bounds_does_not_say_the_best_rate_lies_beyond_them():
    table = derive_reduction_table(SULT, 0.0625)
    months = table["age_years"] * 12 + table["age_months"]
    assert fit_interest(SULT, months, table["factor"]).beyond is None


@pytest.mark.parametrize(
    ("factor_at_55", "beyond", "bound"),
    [
        # A factor of 1 at 55 asks for a rate below 0: f(55) on SULT is 0.69 at 0%.
        (1.0, "below", 0.0),
        # A factor near 0 at 55 asks for a rate above 20%: f(55) on SULT is 0.05 at 20%.
        (0.0001, "above", 0.2),
    ],
)
def test_a_fit_whose_best_rate_lies_beyond_its_bounds_says_which_bound(factor_at_55, beyond, bound):
    fit = fit_interest(SULT, [660, 780], [factor_at_55, 1.0])
    assert fit.beyond == beyond
    assert fit.interest == pytest.approx(bound, abs=1e-6)


def test_a_fit_says_its_best_rate_lies_beyond_a_bound_even_just_beyond_it():
    # Derived at -0.001%: the fit printed 0.0000% (the bound) as the rate the guide implies,
    # a step of 0.01 point beyond the bound fitting worse than the bound itself.
    table = derive_reduction_table(SULT, -0.00001)
    months = table["age_years"] * 12 + table["age_months"]
    assert fit_interest(SULT, months, table["factor"]).beyond == "below"


def test_fit_needs_one_factor_per_age():
    message = r"^'factors' must have one value per age \(3\) \(got shape \(2,\)\)$"
    with pytest.raises(EquivalenceError, match=message):
        fit_interest(SULT, [660, 661, 662], [0.5, 0.6])


def test_fit_needs_a_factor_at_every_age():
    message = r"^'factors' must be a number at every age \(got nan at 55y1m\)$"
    with pytest.raises(EquivalenceError, match=message):
        fit_interest(SULT, [660, 661, 662], [0.5, np.nan, 0.6])


def test_comparison_puts_the_largest_difference_first():
    compared = compare_factors([660, 720, 780], [0.40, 0.70, 1.0], [0.50, 0.69, 1.0])
    assert compared["age_years"].tolist() == [55, 60, 65]
    assert compared["difference"].tolist() == pytest.approx([-0.10, 0.01, 0.0])
    reversed_order = compare_factors([660, 720, 780], [0.50, 0.70, 1.0], [0.40, 0.50, 1.0])
    assert reversed_order["age_years"].tolist() == [60, 55, 65]


def test_subsidy_is_the_excess_factor_times_the_monthly_annuity_at_retirement():
    equivalent = early_retirement_factor(SULT, np.array([55, 60, 65]), 0.05)
    guide = np.array([0.40, 0.75, 1.0])  # 0.5% a month: 0.40 at 55; a generous 0.75 at 60
    frame = subsidy(SULT, [660, 720, 780], guide, 0.05)
    assert frame["equivalent_factor"].tolist() == pytest.approx(equivalent.tolist())
    expected = (guide - equivalent) * annuity_due(SULT, [55, 60, 65], 0.05, 12)
    assert frame["subsidy_value"].tolist() == pytest.approx(expected.tolist())
    assert frame["subsidy_value"].iloc[0] < 0 < frame["subsidy_value"].iloc[1]
    assert frame["ratio"].iloc[2] == 1.0 and frame["subsidy_value"].iloc[2] == 0.0


def test_subsidy_refuses_a_basis_whose_equivalent_factor_is_zero_rather_than_divide_by_it():
    rule = (
        r"^the equivalent factor is 0 at 55y0m \(interest 1e\+300 discounts the annuity "
        r"deferred to the normal retirement age to nothing\): no ratio to it$"
    )
    with pytest.raises(EquivalenceError, match=rule):
        subsidy(SULT, [660, 720, 780], [0.4, 0.7, 1.0], 1e300)


# ----------------------------------------------------------------- guide files
def derived_ilt_6pct(tmp_path, effective_from="1990-04-01"):
    """The guide derived on ILT at 6% from ``effective_from``, as loaded."""
    folder = derive_guide(
        tmp_path / "ilt-6pct",
        ILT,
        0.06,
        guide_id="ilt-6pct",
        series="ilt-6pct",
        title="ILT at 6%",
        effective_from=effective_from,
    )
    return load_guide(folder)


def test_derived_guide_loads_with_the_guide_loader(tmp_path):
    guide = derived_ilt_6pct(tmp_path)
    assert guide.effective_from == dt.date(1990, 4, 1)
    assert guide.basis["interest_rate"] == 0.06
    assert guide.basis["payment_timing"] == "monthly in advance (m = 12)"
    assert guide.factor([720]) == pytest.approx(0.6072, abs=1e-4)  # README, ILT 6% at 60


@pytest.mark.parametrize(
    ("effective_from", "first", "last"), [("2029-12-31", 55, 65), ("2030-01-01", 50, 67)]
)
def test_a_derived_guide_spans_the_ages_in_force_on_its_first_day(
    tmp_path, law_toml_changed, effective_from, first, last
):
    """With law.toml's ages of (c) and (a) changed from 2030, a guide derived for 2030 had
    the rows of today's 55 to 65, which its own first day refuses."""
    law_toml_changed(
        law_entry("early_retirement.age", "2030-01-01", 50, "years"),
        law_entry("service_annuity.age", "2030-01-01", 67, "years"),
    )
    guide = derived_ilt_6pct(tmp_path, effective_from)
    assert guide.normal_retirement_age == last
    assert (guide.age_months[0], guide.age_months[-1]) == (first * 12, last * 12)
    assert guide.basis["ages"] == f"every month from {first}y0m to {last}y0m"
    assert f"x = {first}y0m to {last}y0m by month" in guide.source


@pytest.mark.parametrize(
    ("m", "method", "payments"),
    [
        (1, "udd", "exact sum of the annual payments"),
        (4, "constant-force", "exact sum of the payments 4 times a year"),
        (12, "udd", "exact sum of the monthly payments"),
    ],
)
def test_a_derived_guide_states_the_payments_it_summed(tmp_path, m, method, payments):
    # Every m was "exact sum of the monthly payments" in annuity_method and source.
    folder = derive_guide(
        tmp_path / "g", SULT, 0.05, guide_id="g", series="g", title="t",
        effective_from="1990-04-01", m=m, method=method,
    )  # fmt: skip
    guide = load_guide(folder)
    assert guide.basis["annuity_method"].startswith(payments + ", ")
    assert f"; {payments}, " in guide.source
    assert ("monthly" in guide.source) == (m == 12)


def test_a_derived_guide_whose_factors_round_to_zero_names_the_interest_and_is_not_written(
    tmp_path,
):
    # At 500% the equivalent factor on SULT is 1.6e-08 at 55y0m, below 5e-07 up to 57y0m: 0 at
    # the 6 decimals of a guide, which must be above 0.
    with pytest.raises(EquivalenceError) as raised:
        derive_guide(
            tmp_path / "g",
            SULT,
            5.0,
            guide_id="g",
            series="g",
            title="g",
            effective_from="1990-04-01",
        )
    assert str(raised.value) == (
        "interest 5 discounts the annuity deferred to the normal retirement age to almost "
        "nothing: the equivalent factor is 1.59528e-08 at 55y0m, 0 at the 6 decimals of a "
        "guide, whose factors must be in (0, 1] (and 23 more month(s))"
    )
    assert not (tmp_path / "g").exists()


def test_the_interest_that_discounts_to_nothing_is_named_with_every_digit():
    # Shown with :g (6 significant digits), 5.0000001 read "interest 5" and 1.23456789e300
    # "interest 1.23457e+300": show_rate, as every other message shows a rate.
    with pytest.raises(EquivalenceError, match=r"^interest 5\.0000001 discounts the annuity "):
        derive_reduction_table(SULT, 5.0000001)
    with pytest.raises(EquivalenceError, match=r"\(interest 1\.23456789e\+300 discounts the "):
        subsidy(SULT, [660, 720, 780], [0.4, 0.7, 1.0], 1.23456789e300)


@pytest.mark.parametrize(
    ("interest", "shown"), [(0.0123456789, "1.23456789"), (-0.0, "0"), (0.07, "7")]
)
def test_a_derived_guide_states_its_interest_with_every_digit_and_no_minus_zero(
    tmp_path, interest, shown
):
    guide = load_guide(
        derive_guide(
            tmp_path / "g",
            SULT,
            interest,
            guide_id="g",
            series="g",
            title="g",
            effective_from="1990-04-01",
        )
    )
    assert f"; interest {shown}% a year;" in guide.source
    assert str(guide.basis["interest_rate"]) == repr(interest + 0.0)


def test_guide_text_with_quotes_and_backslashes_survives_toml(tmp_path):
    title = 'The "A" guide \\ tab\there, 1990–2000'
    write_guide(
        tmp_path / "odd",
        guide_id="odd",
        series="odd",
        title=title,
        source="test",
        effective_from=dt.date(1990, 4, 1),
        effective_until=dt.date(1999, 12, 31),
        table_df=derive_reduction_table(SULT, 0.05),
        basis={"note": "line one\nline two\x7f", "count": 3, "rate": 1e-05},
    )
    meta = tomllib.loads((tmp_path / "odd" / "guide.toml").read_text(encoding="utf-8"))
    assert meta["title"] == title
    assert meta["effective_until"] == dt.date(1999, 12, 31)
    assert meta["basis"] == {"note": "line one\nline two\x7f", "count": 3, "rate": 1e-05}


def test_guide_with_broken_rules_is_refused_listing_every_problem_and_not_written(tmp_path):
    table = derive_reduction_table(SULT, 0.05)
    table.loc[3, "factor"] = 0.4
    with pytest.raises(EquivalenceError) as caught:
        write_guide(
            tmp_path / "folder",
            guide_id="other",
            series="s",
            title="t",
            source="s",
            effective_from="1990-04-01",
            table_df=table,
            basis={},
            status="final",
        )
    assert str(caught.value).splitlines() == [
        "'factor' must not decrease with age (from 0.503263 at 55y2m to 0.4 at 55y3m)",
        "'guide_id' must equal the folder name 'folder' (got 'other')",
        "'status' must be in ['illustrative', 'adopted'] (got 'final')",
    ]
    assert not (tmp_path / "folder").exists()


@pytest.mark.parametrize(
    ("title", "problem"),
    [
        ("t" * 70_000, ": larger than the limit of 65,536 bytes for guide.toml"),
        ("t", ": 'effective_until' must be on or after 'effective_from' 2030-01-01 "
              "(got 2020-01-01)"),
    ],
)  # fmt: skip
def test_a_guide_the_loader_would_refuse_is_not_written_and_its_problems_name_its_files(
    title, problem, tmp_path
):
    # Rules of the guide loader that write_guide does not check itself: checked on the
    # files about to be written, which are then not written.
    arguments = dict(guide_id="late", series="s", title=title, source="s", basis={})
    dates = dict(effective_from="2030-01-01", effective_until="2020-01-01")
    table = derive_reduction_table(SULT, 0.05)
    with pytest.raises(EquivalenceError) as caught:
        write_guide(tmp_path / "late", **arguments, **dates, table_df=table)
    assert str(caught.value).splitlines() == [f"{tmp_path / 'late'}{problem}"]  # not written
    assert list(tmp_path.iterdir()) == []


def test_factors_outside_0_1_are_refused_naming_the_first_month_and_counting_the_rest():
    table = derive_reduction_table(SULT, 0.05)
    table.loc[[5, 7, 9], "factor"] = [0.0, 1.5, float("nan")]
    problems = _table_problems(table, 55, 65)
    assert problems[0] == "'factor' must be in (0, 1] (got 0 at 55y5m, and 2 more month(s))"


def test_guide_table_must_run_from_55y0m_to_65y0m():
    with pytest.raises(
        EquivalenceError,
        match=r"^'table_df' rows must be every month from "
        r"55y0m to 65y0m in order$",
    ):
        write_guide(
            Path("unused"),
            guide_id="unused",
            series="s",
            title="t",
            source="s",
            effective_from="1990-04-01",
            table_df=pd.DataFrame(
                {"age_years": [55, 65], "age_months": [0, 0], "factor": [0.5, 1.0]}
            ),
            basis={},
        )


def test_shipped_derived_guides_are_reproduced_by_rederiving(tmp_path):
    for guide_id, derive in SHIPPED_DERIVATIONS.items():
        derive(tmp_path / guide_id)
        for name in ("guide.toml", "reduction.csv"):
            shipped = (GUIDES / guide_id / name).read_bytes()
            assert (tmp_path / guide_id / name).read_bytes() == shipped, f"{guide_id}/{name}"


def test_shipped_pub2010_guide_states_its_tables_weighting_blend_and_interest():
    guide = load_guide(GUIDES / "pub2010-general-unisex-4.5pct")
    assert guide.basis["interest_rate"] == 0.045
    assert "table 3400" in guide.basis["mortality_source"]
    assert "table 3399" in guide.basis["mortality_source"]
    assert "Amount-weighted" in guide.basis["mortality_source"]
    assert guide.basis["mortality"] == "50% PubG-2010 Male Retiree + 50% PubG-2010 Female Retiree"
    assert guide.status == "illustrative"


def test_a_guide_whose_period_overlaps_a_sibling_of_its_series_is_not_written(tmp_path):
    # `guides derive --out my/g2 --series s` beside my/g1 (series s, from 1990 on) wrote g2:
    # then every command on my/ failed, "period of 'g2' ... overlaps 'g1'".
    guides = tmp_path / "my"
    table = derive_reduction_table(SULT, 0.05)
    common = dict(title="t", source="s", table_df=table, basis={})
    first = dict(effective_from="1990-04-01", effective_until="2019-12-31")
    write_guide(guides / "g1", guide_id="g1", series="s", **first, **common)
    with pytest.raises(EquivalenceError) as caught:
        write_guide(guides / "g2", guide_id="g2", series="s", effective_from="2019-12-31", **common)
    assert str(caught.value) == (
        f"{guides / 'g2'}: series 's': period of 'g2' (from 2019-12-31) overlaps 'g1' "
        f"(1990-04-01 to 2019-12-31)\n"
        f"{guides / 'g2'}: not written: {guides} would no longer load; give the guide a "
        "period apart from the other guides of series 's', another series or another folder"
    )
    assert sorted(path.name for path in guides.iterdir()) == ["g1"]
    # The day after, another series, or the same guide written again (replaced): written.
    write_guide(guides / "g2", guide_id="g2", series="s", effective_from="2020-01-01", **common)
    write_guide(guides / "g3", guide_id="g3", series="t", effective_from="1990-04-01", **common)
    again = dict(effective_from="2020-01-01", replace=True)
    write_guide(guides / "g2", guide_id="g2", series="s", **again, **common)
    assert [g.id for g in load_guides(guides, "s")] == ["g1", "g2"]


def test_a_guide_is_not_written_over_a_folder_of_guides_whose_guides_it_would_hide(tmp_path):
    # `guides derive --out my-guides` wrote my-guides/guide.toml: the folder was then one
    # guide, and `batch --guides my-guides --series jcs` said 'series' must be in ['my-guides'].
    guides = tmp_path / "my-guides"
    table = derive_reduction_table(SULT, 0.05)
    common = dict(title="t", source="s", effective_from="1990-04-01", table_df=table, basis={})
    write_guide(guides / "jcs", guide_id="jcs", series="jcs", **common)
    with pytest.raises(EquivalenceError) as caught:
        write_guide(guides, guide_id="my-guides", series="s", **common)
    assert str(caught.value) == (
        f"{guides}: a folder of guides (jcs), not a guide's own folder: write the guide into "
        f"a folder of its own, such as {guides / 'my-guides'}"
    )
    assert sorted(path.name for path in guides.iterdir()) == ["jcs"]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: derive_reduction_table(sult(), 0.05, earliest_age=70),
            "'earliest_age' must be below the normal retirement age 65 (got 70)",
        ),
        (
            lambda: derive_reduction_table(sult(), 0.05, earliest_age=55.5),
            "'earliest_age' must be a whole number of years (got 55.5)",
        ),
        (
            lambda: derive_reduction_table(sult(), 0.05, normal_retirement_age=65.5),
            "'normal_retirement_age' must be a whole number of years (got 65.5)",
        ),
        (
            lambda: derive_reduction_table(sult(), 0.05, earliest_age=True),
            "'earliest_age' must be a whole number of years (got True)",
        ),
        (
            lambda: derive_reduction_table(sult(), [0.05, 0.06]),
            "'interest' must be one rate: a table is derived on one basis (got [0.05, 0.06])",
        ),
        (
            lambda: early_retirement_factor(sult(), 60, 0.05, normal_retirement_age=None),
            "'normal_retirement_age' must be a number (got None)",
        ),
        (
            lambda: early_retirement_factor(sult(), 60, 0.05, normal_retirement_age="65"),
            "'normal_retirement_age' must be a number (got '65')",
        ),
        (
            lambda: early_retirement_factor(sult(), 60, 0.05, normal_retirement_age=[65, 66]),
            "'normal_retirement_age' must be one age (got [65, 66])",
        ),
    ],  # fmt: skip
)
def test_a_derivation_names_the_argument_it_cannot_take(call, message):
    # earliest_age=70 raised IndexError, 55.5 made rows of float ages from 55y6m, two rates
    # a numpy broadcast error, normal_retirement_age=None a TypeError from a comparison.
    with pytest.raises(EquivalenceError) as error:
        call()
    assert str(error.value) == message


def test_a_table_whole_in_floats_is_the_table_of_those_whole_ages():
    assert derive_reduction_table(sult(), 0.05, 65.0, earliest_age=55.0).equals(
        derive_reduction_table(sult(), 0.05)
    )


@pytest.mark.parametrize(
    "bounds", [(0.2, 0.0), (0.0, np.inf), (-2, 0.2), (0.05, 0.05), (True, 0.2), 0.05, (0, 0.1, 0.2)]
)
def test_fit_interest_names_bounds_it_cannot_search(bounds):
    # (0.2, 0.0) and (0, inf) raised scipy's errors; (-2, 0.2) named a rate the search tried
    # ("'interest' must be a finite rate > -1 (got -1.15967477524977)"), not the bound.
    months = np.arange(660, 781)
    with pytest.raises(EquivalenceError) as error:
        fit_interest(sult(), months, 1 - 0.005 * (780 - months), bounds=bounds)
    assert str(error.value) == (
        "'bounds' must be two interest rates (low, high), low < high, each finite and above "
        f"-100% (got {bounds!r})"
    )
