"""Annuities and insurances: published values, exact m-thly sums, grids and argument errors."""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from actuarial.annuities import (
    MAX_PAYMENTS_PER_YEAR,
    METHODS,
    AnnuityError,
    annuities_due,
    annuity_due,
    check_interest,
    deferred_annuity_due,
    pure_endowment,
    temporary_annuity_due,
    whole_life_insurance,
)
from actuarial.generational import Mortality
from actuarial.mortality import LifeTable, MortalityError, ilt, sult

SULT = sult()
ILT = ilt()
MONTHLY_AGES = 20 + np.arange(1200) / 12  # 20y0m to 119y11m


def brute_force_monthly_annuity(table, age, interest, rule="udd"):
    """sum_k v^(k/12) (k/12)_p_x / 12, with l interpolated by hand within each year of age."""
    l_integer = [1.0]
    for q in table.qx:
        l_integer.append(l_integer[-1] * (1 - q))
    l_integer.append(0.0)

    def l_at(y):
        if y >= table.omega:
            return 0.0
        whole = int(y)
        fraction = y - whole
        start, end = l_integer[whole - table.min_age], l_integer[whole - table.min_age + 1]
        if rule == "udd":
            return (1 - fraction) * start + fraction * end
        return start * (end / start) ** fraction

    v = 1 / (1 + interest)
    total = 0.0
    for k in range(12 * (table.omega - table.min_age + 1)):
        total += v ** (k / 12) * l_at(age + k / 12)
    return total / l_at(age) / 12


# ----------------------------------------------------------------- published values
SULT_AT_5_PERCENT = [
    # Source: SULT at i = 5% (AMLCR, SOA exam LTAM tables), docs/reference-values.md:
    # x, a_x, A_x, 2A_x, 10E_x, 20E_x, a(12) UDD, a(12) Woolhouse 2-term, 3-term
    (55, 16.0599, 0.23524, 0.07483, 0.59342, 0.32819, 15.5965, 15.6015, 15.5973),
    (60, 14.9041, 0.29028, 0.10834, 0.57864, 0.29508, 14.4405, 14.4457, 14.4414),
    (65, 13.5498, 0.35477, 0.15420, 0.55305, 0.24381, 13.0860, 13.0915, 13.0870),
]


@pytest.mark.parametrize(
    ("age", "a_x", "big_a", "big_a_2", "e_10", "e_20", "udd", "woolhouse2", "woolhouse3"),
    SULT_AT_5_PERCENT,
)
def test_sult_annuities_and_insurances_at_5_percent_are_the_published_values(
    age, a_x, big_a, big_a_2, e_10, e_20, udd, woolhouse2, woolhouse3
):
    assert annuity_due(SULT, age, 0.05) == pytest.approx(a_x, abs=1e-4)
    assert whole_life_insurance(SULT, age, 0.05) == pytest.approx(big_a, abs=1e-5)
    assert whole_life_insurance(SULT, age, 0.05, moment=2) == pytest.approx(big_a_2, abs=1e-5)
    assert pure_endowment(SULT, age, 10, 0.05) == pytest.approx(e_10, abs=1e-5)
    assert pure_endowment(SULT, age, 20, 0.05) == pytest.approx(e_20, abs=1e-5)
    assert annuity_due(SULT, age, 0.05, 12, "udd") == pytest.approx(udd, abs=1e-4)
    assert annuity_due(SULT, age, 0.05, 12, "woolhouse2") == pytest.approx(woolhouse2, abs=1e-4)
    assert annuity_due(SULT, age, 0.05, 12, "woolhouse3") == pytest.approx(woolhouse3, abs=1e-4)


def test_sult_a_20_at_5_percent_is_the_published_value():
    # Source: SULT at i = 5%, docs/reference-values.md.
    assert annuity_due(SULT, 20, 0.05) == pytest.approx(19.9664, abs=1e-4)


def test_monthly_udd_annuity_is_alpha_times_annual_minus_beta_at_integer_ages():
    # Source: UDD constants at 5%, alpha(12) = 1.00020, beta(12) = 0.46651
    # (docs/reference-values.md).
    i, m = 0.05, 12
    d = i / (1 + i)
    i_m, d_m = m * ((1 + i) ** (1 / m) - 1), m * (1 - (1 + i) ** (-1 / m))
    alpha, beta = i * d / (i_m * d_m), (i - i_m) / (i_m * d_m)
    assert (alpha, beta) == (pytest.approx(1.00020, abs=1e-5), pytest.approx(0.46651, abs=1e-5))
    ages = np.arange(20, 121)
    expected = alpha * annuity_due(SULT, ages, i) - beta
    assert np.allclose(annuity_due(SULT, ages, i, 12), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    ("age", "q_x", "a_x", "thousand_a", "udd"),
    [
        # Source: ILT at i = 6%, Bowers et al., docs/reference-values.md.
        (55, 0.00896, 12.2758, 305.14, 11.8111),
        (60, 0.01376, 11.1454, 369.13, 10.6804),
        (65, 0.02132, 9.8969, 439.80, 9.4316),
    ],
)
def test_ilt_annuities_and_insurances_at_6_percent_are_the_published_values(
    age, q_x, a_x, thousand_a, udd
):
    assert ILT.q(age) == pytest.approx(q_x, abs=1e-5)
    assert annuity_due(ILT, age, 0.06) == pytest.approx(a_x, abs=1e-4)
    assert 1000 * whole_life_insurance(ILT, age, 0.06) == pytest.approx(thousand_a, abs=1e-2)
    assert annuity_due(ILT, age, 0.06, 12) == pytest.approx(udd, abs=1e-4)


def test_ilt_other_published_values_at_6_percent():
    # Source: ILT at i = 6%, docs/reference-values.md (a(12)_60 to five decimals: Finan).
    assert pure_endowment(ILT, 55, 10, 0.06) == pytest.approx(0.48686, abs=1e-5)
    assert 1000 * whole_life_insurance(ILT, 30, 0.06) == pytest.approx(102.4835, abs=1e-4)
    assert annuity_due(ILT, 60, 0.06, 12) == pytest.approx(10.68036, abs=1e-5)


# ----------------------------------------------------------------- exact m-thly sums
@pytest.mark.parametrize("age", [55, 57 + 5 / 12, 64 + 11 / 12, 118.5])
@pytest.mark.parametrize("interest", [0.0, 0.05, 0.1])
def test_monthly_udd_annuity_is_the_plain_sum_of_monthly_payments(age, interest):
    expected = brute_force_monthly_annuity(SULT, age, interest)
    assert annuity_due(SULT, age, interest, 12, "udd") == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("age", [55, 57 + 5 / 12, 118.5])
def test_monthly_constant_force_annuity_is_the_plain_sum_of_monthly_payments(age):
    expected = brute_force_monthly_annuity(SULT, age, 0.05, "constant-force")
    actual = annuity_due(SULT, age, 0.05, 12, "constant-force")
    assert actual == pytest.approx(expected, rel=1e-12)


@settings(max_examples=50, deadline=None)
@given(age=st.floats(20, 119), interest=st.floats(0, 0.1), m=st.sampled_from([2, 4, 12]))
def test_exact_m_thly_annuity_satisfies_the_one_year_recursion(age, interest, m):
    # a(m)_x = sum_{r<m} v^(r/m) (r/m)_p_x / m + v p_x a(m)_{x+1}, for any fractional x.
    v = 1 / (1 + interest)
    first_year = sum(v ** (r / m) * SULT.survival(age, r / m) for r in range(m)) / m
    rest = (
        0.0
        if age + 1 >= 121
        else v * SULT.survival(age, 1) * annuity_due(SULT, age + 1, interest, m)
    )
    assert annuity_due(SULT, age, interest, m) == pytest.approx(first_year + rest, rel=1e-10)


@pytest.mark.parametrize("interest", [0.0, 0.05, 0.1])
def test_monthly_methods_agree_within_about_a_hundredth_at_ages_20_to_85(interest):
    ages = MONTHLY_AGES[MONTHLY_AGES <= 85]
    exact = annuity_due(SULT, ages, interest, 12, "udd")
    # Woolhouse 2-term drops (m^2-1)/(12m^2)(delta + mu) = 0.08 x (delta + mu): up to 0.0125.
    assert np.abs(annuity_due(SULT, ages, interest, 12, "woolhouse2") - exact).max() < 0.0125
    assert np.abs(annuity_due(SULT, ages, interest, 12, "woolhouse3") - exact).max() < 0.01
    assert np.abs(annuity_due(SULT, ages, interest, 12, "constant-force") - exact).max() < 0.015


def test_annual_annuity_is_the_same_for_every_method_on_a_udd_table():
    for method in ("udd", "woolhouse2", "woolhouse3"):
        assert annuity_due(SULT, 60.25, 0.05, 1, method) == annuity_due(SULT, 60.25, 0.05)


# ----------------------------------------------------------------- vectors and grids
@pytest.mark.parametrize("method", METHODS)
def test_grid_of_1200_monthly_ages_by_100_rates_is_one_call_matching_column_calls(method):
    rates = np.linspace(0.0, 0.1, 100)
    ages = MONTHLY_AGES if method != "constant-force" else MONTHLY_AGES[::10]
    grid = annuity_due(SULT, ages[:, None], rates[None, :], 12, method)
    assert grid.shape == (len(ages), 100)
    for column in (0, 37, 99):
        by_rate = annuity_due(SULT, ages, rates[column], 12, method)
        assert np.allclose(grid[:, column], by_rate, rtol=1e-13, atol=0)


@pytest.mark.parametrize("method", ["udd", "woolhouse2", "woolhouse3"])
@pytest.mark.parametrize("interest", [0.0, 0.045, 0.1])
def test_vector_of_1200_monthly_ages_equals_scalar_calls(method, interest):
    vector = annuity_due(SULT, MONTHLY_AGES, interest, 12, method)
    scalars = [float(annuity_due(SULT, age, interest, 12, method)) for age in MONTHLY_AGES]
    assert np.allclose(vector, scalars, rtol=1e-13, atol=0)


@pytest.mark.parametrize("method", METHODS)
def test_annuities_on_shared_rates_equal_one_call_per_array_of_ages(method):
    rates = np.array([[0.03, 0.05, 0.03, 0.0]])  # a repeated rate, and zero
    arrays = [np.array([[55.0], [57 + 5 / 12], [119.9]]), 65, np.array([20, 64.99, 80.5, 120.5])]
    shared = annuities_due(SULT, arrays, rates, 12, method)
    for ages, value in zip(arrays, shared, strict=True):
        alone = annuity_due(SULT, ages, rates, 12, method)
        assert value.shape == alone.shape == np.broadcast_shapes(np.shape(ages), rates.shape)
        assert np.array_equal(value, alone)


def test_annuities_on_shared_rates_check_every_array_of_ages():
    with pytest.raises(MortalityError, match=r"'age' must be in \[20, 121\).*got 121"):
        annuities_due(SULT, [55, 121], 0.05, 12)


def test_pure_endowment_and_deferred_annuity_broadcast_like_scalar_calls():
    ages, years, rates = np.array([55, 57 + 5 / 12]), np.array([[10], [7.5]]), 0.05
    deferred = deferred_annuity_due(SULT, ages, years, rates, 12)
    for row, n in enumerate(years[:, 0]):
        for column, x in enumerate(ages):
            assert deferred[row, column] == deferred_annuity_due(SULT, x, n, rates, 12)


# ----------------------------------------------------------------- deferred and temporary
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(("age", "years"), [(55, 10), (57 + 5 / 12, 7 + 7 / 12), (100, 30)])
def test_deferred_monthly_annuity_is_pure_endowment_times_monthly_annuity_at_x_plus_n(
    method, age, years
):
    fractional = method if method in ("udd", "constant-force") else None
    endowment = pure_endowment(SULT, age, years, 0.05, fractional)
    at_start = annuity_due(SULT, age + years, 0.05, 12, method) if age + years < 121 else 0.0
    deferred = deferred_annuity_due(SULT, age, years, 0.05, 12, method)
    assert deferred == pytest.approx(endowment * at_start, rel=1e-12, abs=1e-300)


def test_deferred_monthly_udd_annuity_is_not_the_annual_formula():
    # Under UDD n|a(12)_x = alpha n|a_x - beta nE_x; the known bug drops nE_x from the beta
    # term, which understates 10|a(12)_55 by beta (1 - 10E_55) = 0.19.
    deferred = deferred_annuity_due(SULT, 55, 10, 0.05, 12)
    # Source: 10E_55 = 0.59342 and a(12)_65 = 13.0860, SULT 5% (docs/reference-values.md);
    # product to 1e-4.
    assert deferred == pytest.approx(0.59342 * 13.0860, abs=1e-4)
    annual, endowment = deferred_annuity_due(SULT, 55, 10, 0.05), pure_endowment(SULT, 55, 10, 0.05)
    assert deferred == pytest.approx(1.00020 * annual - 0.46651 * endowment, abs=1e-4)
    buggy = 1.00020 * annual - 0.46651
    assert deferred - buggy == pytest.approx(0.46651 * (1 - 0.59342), abs=1e-4)


def test_temporary_plus_deferred_annuity_is_the_whole_life_annuity():
    ages = np.array([55, 57 + 5 / 12, 64 + 11 / 12])
    temporary = temporary_annuity_due(SULT, ages, 10, 0.05, 12)
    deferred = deferred_annuity_due(SULT, ages, 10, 0.05, 12)
    assert np.allclose(temporary + deferred, annuity_due(SULT, ages, 0.05, 12), rtol=1e-14)


def test_temporary_annuity_of_one_year_annual_is_one_payment():
    assert temporary_annuity_due(SULT, 60, 1, 0.05) == pytest.approx(1.0, rel=1e-14)


def test_deferred_annuity_beyond_the_end_of_the_table_is_zero():
    assert deferred_annuity_due(SULT, 100, 30, 0.05, 12) == 0.0


def test_second_moment_insurance_is_the_insurance_at_the_doubled_force_of_interest():
    at_doubled = whole_life_insurance(SULT, 60, 1.05**2 - 1)
    assert whole_life_insurance(SULT, 60, 0.05, moment=2) == pytest.approx(at_doubled, rel=1e-14)


def test_insurance_at_zero_interest_is_certain_to_pay_one():
    assert whole_life_insurance(SULT, [20, 57 + 5 / 12], 0.0).tolist() == [1.0, 1.0]


# ----------------------------------------------------------------- errors
@pytest.mark.parametrize(("interest", "shown"), [(-2, "-2"), (-1, "-1"), ([0.05, np.nan], "nan"),
                                                ([np.inf], "inf"), (-np.inf, "-inf")])  # fmt: skip
def test_interest_not_finite_or_at_or_below_minus_one_is_refused(interest, shown):
    rule = rf"^'interest' must be a finite rate > -1 \(got {shown}\)$"
    with pytest.raises(AnnuityError, match=rule):
        annuity_due(SULT, 60, interest)
    with pytest.raises(AnnuityError, match=rule):
        check_interest(interest)


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda huge: annuity_due(SULT, 60, huge), "interest"),
        (lambda huge: annuity_due(SULT, 60, [0.05, huge], 12, "woolhouse3"), "interest"),
        (lambda huge: deferred_annuity_due(SULT, 60, huge, 0.05), "n"),
        (lambda huge: pure_endowment(SULT, 60, huge, 0.05), "n"),
        (lambda huge: temporary_annuity_due(SULT, 60, 5, huge), "interest"),
        (lambda huge: whole_life_insurance(SULT, 60, huge), "interest"),
    ],
)
def test_a_number_no_float_can_hold_is_refused_naming_its_field(call, field):
    # Before: a raw OverflowError, "int too large to convert to float".
    with pytest.raises(AnnuityError) as refused:
        call(10**400)
    assert str(refused.value) == (
        f"'{field}' must be a number a float can hold, from -1.8e+308 to 1.8e+308 (got 1e+400)"
    )


def test_interest_just_above_minus_one_is_a_rate():
    assert check_interest(-0.999).tolist() == -0.999
    assert np.isfinite(annuity_due(SULT, 60, -0.5))


@pytest.mark.parametrize(
    ("m", "shown"),
    [(0, "0"), (1.5, "1.5"), (True, "True"), ("12", "'12'"), (MAX_PAYMENTS_PER_YEAR + 1, "366")],
)
def test_payments_per_year_must_be_a_whole_number_up_to_daily(m, shown):
    rule = rf"^'m' must be a whole number of payments a year from 1 to 365 \(got {shown}\)$"
    with pytest.raises(AnnuityError, match=rule):
        annuity_due(SULT, 60, 0.05, m)


@pytest.mark.parametrize(
    ("cohort", "shown"),
    [(10**22, "10000000000000000000000"), (-(10**22), "-10000000000000000000000"), (0, "0"),
     (10_000, "10000"), (1960.5, "1960.5"), ("1960", "'1960'"), (np.nan, "nan"), (True, "True"),
     ([1960, 0], "0")],
)  # fmt: skip
def test_a_cohort_is_a_whole_year_of_birth_from_1_to_9999(cohort, shown):
    projected = Mortality("soa:3399", "mp-2020")
    rule = rf"^'cohort' must be whole years of birth from 1 to 9999 \(got {re.escape(shown)}\)$"
    with pytest.raises(AnnuityError, match=rule):
        annuity_due(projected, 60, 0.05, 12, cohort=cohort)


def test_cohorts_at_both_ends_of_the_years_are_valued_or_refused_by_the_table():
    projected = Mortality("soa:3399", "mp-2020")
    assert np.isfinite(annuity_due(projected, 60, 0.05, 12, cohort=9999))
    assert np.isfinite(annuity_due(projected, 60, 0.05, 12, cohort=[1960, 9999])).all()
    with pytest.raises(MortalityError, match="gives q above 1 at age 50 for the cohort born in 1"):
        annuity_due(projected, 60, 0.05, 12, cohort=1)


def test_daily_payments_are_the_most_and_near_the_continuous_annuity():
    daily = annuity_due(SULT, 60, 0.05, MAX_PAYMENTS_PER_YEAR)
    monthly = annuity_due(SULT, 60, 0.05, 12)
    assert MAX_PAYMENTS_PER_YEAR == 365
    assert daily < monthly  # paid later on average
    assert monthly - daily == pytest.approx((365 - 12) / (2 * 12 * 365), rel=0.02)


def test_unknown_method_is_refused_listing_the_valid_ones():
    with pytest.raises(
        AnnuityError,
        match=r"^'method' must be in \[None, 'udd', 'constant-force', 'woolhouse2', "
        r"'woolhouse3'\] \(got 'exact'\)$",
    ):
        annuity_due(SULT, 60, 0.05, 12, "exact")


def test_age_outside_the_table_is_refused_naming_the_age():
    with pytest.raises(
        MortalityError,
        match=r"^'age' must be in \[20, 121\) for table 'SULT' "
        r"\(got 130\)$",
    ):
        annuity_due(SULT, [60, 130], 0.05)
    assert issubclass(MortalityError, ValueError) and issubclass(AnnuityError, ValueError)


def test_negative_deferral_is_refused():
    with pytest.raises(AnnuityError, match=r"^'n' must be >= 0 \(got -1\)$"):
        deferred_annuity_due(SULT, 60, -1, 0.05)


def test_insurance_moment_must_be_a_positive_integer():
    with pytest.raises(AnnuityError, match=r"^'moment' must be a positive integer \(got 0\)$"):
        whole_life_insurance(SULT, 60, 0.05, moment=0)


def test_constant_force_table_values_its_annual_annuity_geometrically():
    table = LifeTable("SULT, constant force", 20, SULT.qx, fractional="constant-force")
    # Integer ages agree (summed by constant force, as the table says, and under UDD).
    assert annuity_due(table, 60, 0.05) == pytest.approx(annuity_due(SULT, 60, 0.05), rel=1e-14)
    plain = sum(1.05**-k * table.survival(60.5, k) for k in range(61))
    assert annuity_due(table, 60.5, 0.05, 1, "woolhouse2") == pytest.approx(plain, rel=1e-12)


CONSTANT_FORCE_SULT = LifeTable("SULT, constant force", 20, SULT.qx, fractional="constant-force")


@pytest.mark.parametrize("age", [55, 60.25, 64.5, 100.75])
def test_an_annuity_by_default_is_the_exact_sum_under_the_tables_own_fractional_ages(age):
    # Before: the default method was "udd" whatever the table said, while survival, pure
    # endowments and insurances took the table's own assumption.
    table = CONSTANT_FORCE_SULT
    for m in (1, 12):
        own = annuity_due(table, age, 0.05, m, "constant-force")
        assert annuity_due(table, age, 0.05, m) == own
        assert annuities_due(table, [age], 0.05, m)[0] == own
    assert annuity_due(SULT, age, 0.05, 12) == annuity_due(SULT, age, 0.05, 12, "udd")


@pytest.mark.parametrize("age", [55, 60.25, 64.5])
def test_on_a_constant_force_table_the_identities_hold_with_the_defaults(age):
    table, v = CONSTANT_FORCE_SULT, 1 / 1.05
    # n|a = nE_x * a_{x+n}
    deferred = deferred_annuity_due(table, age, 10.5, 0.05, m=12)
    product = pure_endowment(table, age, 10.5, 0.05) * annuity_due(table, age + 10.5, 0.05, 12)
    assert deferred == pytest.approx(product, rel=1e-12, abs=0)
    # a_{x:n} + n|a = a_x
    temporary = temporary_annuity_due(table, age, 10.5, 0.05, m=12)
    whole = annuity_due(table, age, 0.05, m=12)
    assert temporary + deferred == pytest.approx(whole, rel=1e-12, abs=0)
    # A_x = 1 - d a_x (annual)
    insurance = whole_life_insurance(table, age, 0.05)
    assert insurance == pytest.approx(1 - (1 - v) * annuity_due(table, age, 0.05), rel=1e-12)


def test_the_default_method_on_a_generational_basis_is_each_cohorts_tables_own():
    basis = Mortality("soa:3399", improvement="mp-2020")
    for cohort in (1950, 1970):
        table = basis.table(None, cohort)
        assert annuity_due(basis, 60.25, 0.05, 12, cohort=cohort) == annuity_due(
            table, 60.25, 0.05, 12, table.fractional
        )


def test_woolhouse3_in_the_last_year_of_a_table_uses_its_own_force_and_is_finite():
    # SULT's last year (q_120 = 1): a_120 = 1 and, under UDD, mu_120 = q_120 = 1.
    value = annuity_due(SULT, 120, 0.05, 12, "woolhouse3")
    delta = np.log(1.05)
    assert value == pytest.approx(1 - 11 / 24 - 143 / 1728 * (delta + 1.0), rel=1e-12)
    no_law = LifeTable("SULT without its law", 20, SULT.qx)
    assert np.isfinite(annuity_due(no_law, [119.5, 120, 120.5], 0.05, 12, "woolhouse3")).all()


def test_woolhouse3_before_a_q_of_one_within_a_table_is_finite_and_near_the_exact_sum():
    # SULT's q x 1.1 caps q at 1 at 117-119; a table with q_60 = 1. Before: "'interest' 0.05
    # is too close to -1 ... passes the largest float", the force of mortality being inf.
    rates = np.full(41, 0.01)
    rates[[20, 40]] = 1.0
    mid = LifeTable("death at 60", 40, rates)
    scaled = LifeTable("SULT x 1.1", 20, np.minimum(np.where(SULT.qx == 1, 1, SULT.qx * 1.1), 1))
    for table, ages in ((scaled, [116.5, 117, 117.5]), (mid, [59.5, 60, 60.5])):
        woolhouse = annuity_due(table, ages, 0.05, 12, "woolhouse3")
        exact = annuity_due(table, ages, 0.05, 12, "udd")
        assert np.isfinite(woolhouse).all()
        assert np.abs(woolhouse - exact).max() < 0.25  # an approximation, where death is near


def test_woolhouse3_deferred_past_a_q_of_one_within_a_table_is_zero():
    # No one reaches 61: the annuity deferred to 65 is worth nothing (before: the force of
    # mortality was asked for at 65, where no one is alive, and refused).
    rates = np.full(41, 0.01)
    rates[[20, 40]] = 1.0
    mid = LifeTable("death at 60", 40, rates)
    assert deferred_annuity_due(mid, 50, 15, 0.05, 12, "woolhouse3") == 0.0


def test_woolhouse3_where_a_constant_force_is_infinite_says_so_and_not_the_interest():
    table = LifeTable("SULT, constant force", 20, SULT.qx, fractional="constant-force")
    with pytest.raises(AnnuityError) as refused:
        annuity_due(table, [119, 120], 0.05, 12, "woolhouse3")
    assert str(refused.value) == (
        "'method' woolhouse3 needs a finite force of mortality (got inf at age 120: table "
        "'SULT, constant force' has q = 1 at 120 under a constant force); use an exact method "
        "['udd', 'constant-force']"
    )


def test_a_value_not_finite_at_a_rate_of_zero_or_more_never_blames_the_rate():
    # At i >= 0 each payment is worth at most its amount: no rate takes a value past the
    # largest float. Before, every value not finite was "'interest' 0.05 is too close to -1".
    from actuarial.annuities import _check_finite

    with pytest.raises(AnnuityError) as refused:
        _check_finite(np.array([1.0, np.inf]), SULT, [60, 61], [0.05, 0.05])
    assert str(refused.value) == (
        "table 'SULT': the value at age 61 and 'interest' 0.05 must be a finite number (got inf)"
    )


def test_annuities_refuse_a_table_that_does_not_run_out():
    with pytest.raises(MortalityError, match=r"'short' does not run out: its last age is 61"):
        annuity_due(LifeTable("short", 60, [0.1, 0.2]), 60, 0.05, 12)


@pytest.mark.parametrize("rate", [-0.9, -0.5, 0.0, 0.05, 0.5, 3.0])
def test_the_sums_from_the_end_are_those_summed_age_by_age(monkeypatch, rate):
    # Summed age by age in Python (safe near -1), every grid call took 2.4x as long; the
    # sums are now one cumulative sum where the powers of v stay far from overflow.
    from actuarial import annuities

    table, log_v = sult(), -np.log1p(np.array([rate, 0.04]))
    at_once = annuities._tail_sums(table, log_v)
    monkeypatch.setattr(annuities, "_SAFE_EXPONENT", 0.0)  # every age in turn
    np.testing.assert_allclose(at_once, annuities._tail_sums(table, log_v), rtol=1e-13)


@pytest.mark.parametrize("interest", [5.0, 17.0, 30.0])
def test_an_annuity_where_few_are_alive_at_a_high_rate_is_the_plain_sum_not_zero(interest):
    # q = 0.9 from 50 to 199 (l_190 = 6e-142) at 1700%: each term v^k l_k of the sums from
    # the end fell below the smallest float, and the annuity-due at 190, whose first payment
    # is certain, came out 0.
    rates = np.full(201, 0.9)
    rates[:50], rates[-1] = 0.01, 1.0
    table = LifeTable("few alive", 0, rates)
    v, alive = 1 / (1 + interest), table._l_unit
    for age in (100, 150, 190):
        plain = sum(v**k * alive[age + k] / alive[age] for k in range(201 - age))
        assert annuity_due(table, age, interest) == pytest.approx(plain, rel=1e-12)


@pytest.mark.parametrize(
    ("age", "interest", "error", "message"),
    [
        ("65", 0.05, MortalityError, "'age' must be a number (got '65')"),
        (None, 0.05, MortalityError, "'age' must be a number (got None)"),
        ([65, "66"], 0.05, MortalityError, "'age' must be a number (got '66')"),
        (True, 0.05, MortalityError, "'age' must be a number (got True)"),
        (65, "0.05", AnnuityError, "'interest' must be a number (got '0.05')"),
        (65, "5%", AnnuityError, "'interest' must be a number (got '5%')"),
        (65, None, AnnuityError, "'interest' must be a number (got None)"),
    ],
)
def test_an_age_or_a_rate_that_is_no_number_is_refused_naming_it(age, interest, error, message):
    # "65" and "0.05" were read as numbers without a word (a Basis refuses them), None as
    # NaN ("got nan"), and "5%" ended in numpy's "could not convert string to float".
    with pytest.raises(error, match=f"^{re.escape(message)}$"):
        annuity_due(SULT, age, interest)


def test_numbers_of_every_kind_are_still_ages_and_rates():
    from decimal import Decimal
    from fractions import Fraction

    expected = annuity_due(SULT, 65, 0.05)
    for age, interest in [(np.int64(65), np.float64(0.05)), (65.0, Fraction(1, 20)),
                          (np.array([65]), [0.05]), (Decimal(65), Decimal("0.05"))]:  # fmt: skip
        assert np.allclose(annuity_due(SULT, age, interest), expected, rtol=1e-15)


@settings(max_examples=60, deadline=None)
@given(
    ages=st.lists(st.floats(20, 120.99), min_size=1, max_size=4),
    younger=st.floats(20, 120.99),
    beyond=st.floats(121, 200),
    rate=st.sampled_from([-0.5, 0.0, 0.035, 0.05, 3.0, 17.0]),
    method=st.sampled_from([None, "woolhouse2", "woolhouse3"]),
)
def test_the_sums_from_the_youngest_age_change_no_value(ages, younger, beyond, rate, method):
    # The tail sums start at the youngest age asked (a grid from 55 on SULT skips 35 of its
    # 103 ages): an annuity is the same to the last bit whether a younger age is asked
    # beside it or not; a deferred annuity that starts beyond the table's end is 0.
    table, ages = sult(), np.array(ages)
    alone = annuity_due(table, ages[:, None], [rate], 12, method)
    beside = annuity_due(table, np.append(ages, younger)[:, None], [rate], 12, method)
    assert np.array_equal(alone, beside[:-1])
    assert deferred_annuity_due(table, 20.0, [beyond - 20.0], rate, 12, method)[0] == 0.0


def test_on_one_table_a_cohort_broadcasts_and_is_checked_as_on_a_generational_basis():
    # cohort=[1950, 1960] on a LifeTable gave one value, not two; "abc" and sex "X" passed.
    table = sult()
    one = annuity_due(table, 60, 0.05)
    assert np.array_equal(annuity_due(table, 60, 0.05, cohort=[1950, 1960]), [one, one])
    assert annuity_due(table, [60, 61], 0.05, cohort=1950).shape == (2,)
    with pytest.raises(AnnuityError, match=r"^'cohort' must be whole years of birth .*'abc'"):
        annuity_due(table, 60, 0.05, cohort="abc")
    with pytest.raises(AnnuityError, match=r"^'sex' must be in \['F', 'M', None\] \(got 'X'\)$"):
        annuity_due(table, 60, 0.05, sex="X")
    with pytest.raises(AnnuityError, match=r"^'table' must be a LifeTable or a basis's Mortal"):
        annuity_due("sult", 60, 0.05)
