"""Life tables: published SULT and ILT values, survival rules, sources and their errors."""

import re

import numpy as np
import pytest
from conftest import SMALL_SCALE_CSV, exactly, write_sult_csv
from hypothesis import given
from hypothesis import strategies as st

from actuarial import mortality
from actuarial.annuities import AnnuityError, annuity_due, pure_endowment, whole_life_insurance
from actuarial.generational import improvement_scale
from actuarial.mortality import (
    LifeTable,
    MortalityError,
    blend,
    from_csv,
    ilt,
    join,
    scale_rates,
    soa,
    sult,
    table_from_spec,
)

SULT = sult()
ILT = ilt()


# ----------------------------------------------------------------- published values
@pytest.mark.parametrize(
    ("age", "l_x", "q_x"),
    [(55, 97_846.2, 0.001993), (60, 96_634.1, 0.003398), (65, 94_579.7, 0.005915)],
)
def test_sult_l_x_and_q_x_are_the_published_values(age, l_x, q_x):
    # Source: SOA Standard Ultimate Life Table (AMLCR), docs/reference-values.md.
    assert SULT.l(age) == pytest.approx(l_x, abs=0.1)
    assert SULT.q(age) == pytest.approx(q_x, abs=1e-6)


@pytest.mark.parametrize(("age", "q_x"), [(55, 0.00896), (60, 0.01376), (65, 0.02132)])
def test_ilt_q_x_are_the_published_values(age, q_x):
    # Source: Illustrative Life Table, Bowers et al., docs/reference-values.md.
    assert ILT.q(age) == pytest.approx(q_x, abs=1e-5)


def test_sult_runs_from_20_to_120_and_closes_at_120():
    assert (SULT.min_age, SULT.max_age, SULT.omega) == (20, 120, 121)
    assert SULT.q(120) == 1.0
    assert SULT.l(20) == 100_000.0
    assert SULT.l(121) == 0.0


def test_l_takes_the_radix_at_the_first_age():
    assert SULT.l(20, radix=1.0) == 1.0
    assert SULT.l(65, radix=1.0) == pytest.approx(SULT.l(65) / 100_000)


def test_force_of_mortality_is_makehams_law_when_the_table_carries_it():
    assert SULT.force_of_mortality(65) == pytest.approx(0.00022 + 2.7e-6 * 1.124**65, rel=1e-12)


def test_force_of_mortality_estimated_from_q_is_close_to_makehams_law():
    no_law = LifeTable("SULT without its law", 20, SULT.qx)
    ages = np.arange(30, 100)
    estimate, exact = no_law.force_of_mortality(ages), SULT.force_of_mortality(ages)
    # The central estimate is off by about (ln c)^2 / 8 = 0.17% of the Gompertz term.
    assert np.allclose(estimate, exact, rtol=3e-3)


# ----------------------------------------------------------------- survival
def test_survival_is_linear_within_a_year_of_age_under_udd():
    assert SULT.l(55.25) == pytest.approx(0.75 * SULT.l(55) + 0.25 * SULT.l(56), rel=1e-14)


def test_survival_is_geometric_within_a_year_of_age_under_constant_force():
    table = LifeTable("SULT, constant force", 20, SULT.qx, fractional="constant-force")
    p_55 = 1 - SULT.q(55)
    assert table.survival(55, 0.25) == pytest.approx(p_55**0.25, rel=1e-14)
    assert table.survival(55.25, 0.75) == pytest.approx(p_55**0.75, rel=1e-14)


def test_survival_of_zero_years_is_one_and_past_the_end_of_the_table_is_zero():
    assert SULT.survival(57 + 5 / 12, 0) == 1.0
    assert SULT.survival(119.5, [1.5, 10]).tolist() == [0.0, 0.0]


@given(
    age=st.floats(20, 115),
    first=st.floats(0, 10),
    second=st.floats(0, 10),
    rule=st.sampled_from(["udd", "constant-force"]),
)
def test_survival_over_two_periods_is_the_product_of_survivals(age, first, second, rule):
    both = SULT.survival(age, first + second, rule)
    if SULT.survival(age, first, rule) > 0:
        product = SULT.survival(age, first, rule) * SULT.survival(age + first, second, rule)
        assert both == pytest.approx(product, rel=1e-9, abs=1e-300)


def test_fractional_age_assumption_can_be_overridden_per_call():
    table = LifeTable("SULT, constant force", 20, SULT.qx, fractional="constant-force")
    assert table.survival(55.5, 0.5, "udd") == pytest.approx(SULT.survival(55.5, 0.5), rel=1e-14)


def test_curtate_expectation_of_life_is_the_sum_of_survival_probabilities():
    plain_sum = sum(SULT.l(65 + k) for k in range(1, 57)) / SULT.l(65)
    assert SULT.e(65) == pytest.approx(plain_sum, rel=1e-12)


def test_complete_expectation_is_curtate_plus_one_half_under_udd():
    assert SULT.e([20, 65], complete=True) == pytest.approx(SULT.e([20, 65]) + 0.5, rel=1e-12)


def test_complete_expectation_integrates_survival_under_constant_force():
    table = LifeTable("SULT, constant force", 20, SULT.qx, fractional="constant-force")
    steps = np.linspace(0, 121 - 57.3, 400_001)
    values = table.survival(57.3, steps)
    trapezoid = float(np.sum((values[1:] + values[:-1]) / 2 * np.diff(steps)))
    assert table.e(57.3, complete=True) == pytest.approx(trapezoid, abs=1e-6)


def direct_complete_expectation(table, age):
    """Independent: sum over each year of age of the integral of t_p_x, one year at a time
    (UDD: l is linear in each year, so the trapezoid is exact)."""
    l_int = [1.0]
    for q in table.qx:
        l_int.append(l_int[-1] * (1 - q))
    whole = int(age)
    s = age - whole
    k = whole - table.min_age
    l_age = l_int[k] * (1 - s * table.qx[k])
    total = (l_age + l_int[k + 1]) / 2 * (1 - s)
    for j in range(k + 1, len(table.qx)):
        total += (l_int[j] + l_int[j + 1]) / 2
    return total / l_age


@pytest.mark.parametrize("table", [SULT, ilt()], ids=["SULT", "ILT"])
def test_complete_expectation_is_the_direct_sum_to_1e_10_at_every_age(table):
    ages = np.concatenate([np.arange(table.min_age, table.max_age + 1), [table.max_age + 0.5]])
    computed = table.e(ages, complete=True)
    for age, value in zip(ages, computed, strict=True):
        assert value == pytest.approx(direct_complete_expectation(table, age), abs=1e-10)


def test_complete_expectation_in_the_last_year_of_sult_is_one_half():
    # Before: e(120) = 0.50714 (two integrals from age 20 subtracted, digits lost)
    assert SULT.e(120, complete=True) == pytest.approx(0.5, abs=1e-12)
    assert SULT.e(120.5, complete=True) == pytest.approx(0.25, abs=1e-12)


def test_table_whose_last_q_is_below_one_gives_survival_within_it_but_no_omega():
    table = LifeTable("short", 60, [0.1, 0.2])
    assert (table.max_age, table.end_age, table.runs_out) == (61, 62, False)
    assert table.survival(60, 2) == pytest.approx(0.9 * 0.8)
    with pytest.raises(MortalityError, match=r"survival beyond 62"):
        table.survival(60, 3)
    message = (
        "table 'short' does not run out: its last age is 61 with q = 0.2 (below 1), so "
        "survival beyond 62 is unknown; use a table that runs out, join one from a later "
        "age, or close this one explicitly (--close-at AGE, Python: table.close_at(AGE))"
    )
    with pytest.raises(MortalityError) as caught:
        table.omega  # noqa: B018
    assert str(caught.value) == message
    with pytest.raises(MortalityError, match="does not run out"):
        table.e(60)


def test_pubg2010_male_employee_table_does_not_run_out_and_is_refused_naming_age_and_q():
    with pytest.raises(
        MortalityError,
        match=r"'PubG-2010 Male Employee' does not run out: "
        r"its last age is 80 with q = 0.0173",
    ):
        soa(3398).e(60, complete=True)


def test_closing_explicitly_sets_q_one_at_the_age_and_says_so():
    table = LifeTable("short", 60, [0.1, 0.2]).close_at(62)
    assert (table.max_age, table.omega, table.qx[-1]) == (62, 63, 1.0)
    assert "closed at 62" in table.name
    assert table.e(60) == pytest.approx(0.9 + 0.9 * 0.8)
    truncated = LifeTable("short", 60, [0.1, 0.2]).close_at(61)
    assert truncated.qx.tolist() == [0.1, 1.0]
    with pytest.raises(MortalityError, match=r"'close_at' must be in \[61, 62\]"):
        LifeTable("short", 60, [0.1, 0.2]).close_at(63)


def test_closing_at_the_first_age_is_refused_as_the_rule_says_min_age_below_the_age():
    # Before: close_at(60) on a table from 60 gave q_60 = 1, no one surviving its first year.
    with pytest.raises(MortalityError) as refused:
        LifeTable("short", 60, [0.1, 0.2]).close_at(60)
    assert str(refused.value) == "'close_at' must be in [61, 62] for table 'short' (got 60)"


def test_closing_a_table_that_runs_out_is_refused_naming_where_it_runs_out():
    # Before: SULT closed at 100 lost its rates from 100 to 119 without a word.
    with pytest.raises(MortalityError) as refused:
        SULT.close_at(100)
    assert str(refused.value) == (
        "'close_at' closes a table that does not run out: table 'SULT' runs out already "
        "(q = 1 at 120) (got 100)"
    )


def test_join_takes_each_table_from_its_age_and_refuses_a_gap():
    joined = table_from_spec("soa:3398+soa:3400@50")
    assert (joined.min_age, joined.max_age, joined.runs_out) == (18, 120, True)
    assert joined.q(49) == soa(3398).q(49)
    assert joined.q(50) == soa(3400).q(50)
    assert (joined.sex, joined.base_year) == ("M", 2010)
    with pytest.raises(MortalityError, match=r"\(ages 18-80\) must cover ages from 81 on"):
        table_from_spec("soa:3400+soa:3398@81")
    above = r"join age 20 must be above 20, the first age of table 'SULT'"
    with pytest.raises(MortalityError, match=above):
        table_from_spec("sult+soa:3400@20")


def test_blend_states_its_ages_and_refuses_ages_outside_them():
    blended = table_from_spec("soa:3400,sult:0.5")
    assert "blend of q_x, ages 50-120:" in blended.source
    with pytest.raises(MortalityError, match=r"'age' must be in \[50, 121\) for table '50% "):
        blended.survival(45, 1)


def test_woolhouse_force_in_sults_last_year_is_the_tables_own_udd_force():
    # SULT sets q_120 = 1 although Makeham's law gives q_120 < 1: in that year the force
    # is the table's own under UDD, mu_{120+s} = 1 / (1 - s), not Makeham's formula.
    assert SULT.force_of_mortality([120, 120.5]) == pytest.approx([1.0, 2.0])
    a, b, c = SULT.makeham
    assert SULT.force_of_mortality(119.5) == pytest.approx(a + b * c**119.5)


def _certain_death_at_60(fractional: str = "udd") -> LifeTable:
    """Ages 40-80, q = 0.01 but q_60 = 1 (no one reaches 61) and q_80 = 1."""
    rates = np.full(41, 0.01)
    rates[[20, 40]] = 1.0
    return LifeTable("death at 60", 40, rates, fractional=fractional)


def test_the_force_in_a_year_whose_q_is_one_and_the_year_before_is_the_tables_own():
    # Before: the central estimate -ln p_60 = inf, spread by interpolation into the year
    # from 59: mu at 59.5 and 60 was inf.
    table = _certain_death_at_60()
    mu = table.force_of_mortality([58.5, 59, 59.5, 60, 60.5])
    assert np.isfinite(mu).all()
    # In the years of 59 and 60 the table's own force under UDD, q / (1 - s q).
    assert mu[1:].tolist() == pytest.approx([0.01, 0.01 / (1 - 0.005), 1.0, 2.0], rel=1e-14)
    # The year of 58 ends at the force its next year starts with.
    assert mu[0] == pytest.approx((-np.log(0.99) + 0.01) / 2, rel=1e-14)


def test_the_force_of_a_scaled_table_where_a_q_was_capped_at_one_is_finite():
    scaled, capped = scale_rates(SULT, 1.1)
    assert capped.tolist() == [117, 118, 119]
    mu = scaled.force_of_mortality([116, 116.5, 117, 117.5])
    q_116 = scaled.q(116)
    assert mu.tolist() == pytest.approx([q_116, q_116 / (1 - q_116 / 2), 1.0, 2.0], rel=1e-14)


def test_the_force_in_the_year_before_a_q_of_one_is_the_own_constant_force():
    table = _certain_death_at_60("constant-force")
    assert table.force_of_mortality([59, 59.5]).tolist() == pytest.approx([-np.log(0.99)] * 2)


def test_life_table_rates_cannot_be_changed_after_construction():
    with pytest.raises(ValueError, match="read-only"):
        SULT.qx[0] = 0.5


# ----------------------------------------------------------------- errors
def test_q_outside_the_table_names_the_age():
    with pytest.raises(
        MortalityError,
        match=r"^'age' must be an integer in \[20, 120\] for "
        r"table 'SULT' \(got 19\)$",
    ):
        SULT.q(19)


def test_q_at_a_fractional_age_is_refused():
    with pytest.raises(MortalityError, match=r"\(got 55.5\)$"):
        SULT.q([55, 55.5])


def test_survival_outside_the_table_names_the_age():
    with pytest.raises(
        MortalityError,
        match=r"^'age' must be in \[20, 121\) for table 'SULT' "
        r"\(got 121\)$",
    ):
        SULT.survival(121, 1)


def test_survival_for_a_negative_duration_is_refused():
    with pytest.raises(MortalityError, match=r"^'t' must be >= 0 \(got -1\)$"):
        SULT.survival(60, -1)


@pytest.mark.parametrize(
    ("qx", "message"),
    [
        ([0.1, 1.5], r"^table 'bad': q at age 21 must be in \[0, 1\] \(got 1.5\)$"),
        ([np.nan], r"^table 'bad': q at age 20 must be in \[0, 1\] \(got nan\)$"),
        ([-0.01], r"^table 'bad': q at age 20 must be in \[0, 1\] \(got -0.01\)$"),
        ([], r"^table 'bad': 'qx' must not be empty$"),
        # Two columns of rates (female, male) were read as one table of twice the ages.
        (
            [[0.1, 0.2], [0.3, 1.0]],
            r"^table 'bad': 'qx' must be one rate per age \(got an array of shape \(2, 2\)\)$",
        ),
    ],
)
def test_a_table_with_bad_rates_is_refused_naming_table_age_and_value(qx, message):
    with pytest.raises(MortalityError, match=message):
        LifeTable("bad", 20, qx)


def test_an_unknown_fractional_age_assumption_is_refused_listing_the_valid_ones():
    with pytest.raises(
        MortalityError,
        match=r"^table 'bad': 'fractional' must be in \['udd', "
        r"'constant-force'\] \(got 'linear'\)$",
    ):
        LifeTable("bad", 20, [1.0], fractional="linear")


# ----------------------------------------------------------------- SOA tables (pymort)
def test_soa_3400_is_the_amount_weighted_pubg2010_male_retiree_table():
    table = soa(3400)
    # Source: mort.soa.org table 3400 (shipped with pymort), q_50 and q_120.
    assert table.name == "PubG-2010 Male Retiree"
    assert "Amount-weighted" in table.source and "table 3400" in table.source
    assert (table.min_age, table.max_age) == (50, 120)
    assert table.q([50, 120]).tolist() == [0.00298, 1.0]


def test_soa_3399_is_the_amount_weighted_pubg2010_female_retiree_table():
    table = soa(3399)
    # Source: mort.soa.org table 3399 (shipped with pymort), q_50.
    assert table.name == "PubG-2010 Female Retiree"
    assert table.q(50) == 0.00222


def test_soa_select_and_ultimate_table_gives_its_ultimate_rates():
    table = soa(1002)  # 2008 VBT Primary Male Non-Smoker ALB: select and ultimate
    assert "(ultimate table)" in table.source and "Ultimate" in table.source


def test_soa_table_not_shipped_names_the_id():
    with pytest.raises(
        MortalityError,
        match=r"^'table_id' must be a mort.soa.org table "
        r"shipped with pymort \(got 999999\)$",
    ):
        soa(999999)


def test_a_table_that_is_a_projection_scale_is_refused_naming_it():
    # Source: mort.soa.org table 912, "Projection Scale I - Female": improvement rates.
    with pytest.raises(MortalityError) as error:
        soa(912)
    assert str(error.value) == (
        "SOA table 912 'Projection Scale I - Female' is a 'Projection Scale' table: "
        "'table_id' must be a mortality table (content type in ['Annuitant Mortality', "
        "'CSO/CET', 'Disabled Lives Mortality', 'Generational Mortality', 'Group Life', "
        "'Healthy Lives Mortality', 'Insured Lives Mortality', 'Population Mortality'])"
    )


@pytest.mark.parametrize(
    ("table_id", "content_type"),
    [
        (2030, "Disability Recovery"),  # 2005 Group Term Life Waiver Study, recovery
        (2530, "Claim Incidence"),  # 2006 Group Term Life waiver incidence
        (2771, "ADB, AD&D"),  # 6th Standard Accident Death Rate: accidents only
        (2755, "Life Table"),  # English Life Table No. 1: the numbers living, l_x
    ],
)
def test_a_table_of_rates_that_are_not_mortality_is_refused_naming_its_content_type(
    table_id, content_type
):
    expected = rf"^SOA table {table_id} '.*' is a '{re.escape(content_type)}' table: 'table_id'"
    with pytest.raises(MortalityError, match=expected):
        soa(table_id)


def test_a_lapse_table_in_a_spec_is_refused_as_the_table_itself_is():
    # Source: mort.soa.org table 750, "1924 Linton Lapse Table A": voluntary terminations.
    with pytest.raises(
        MortalityError,
        match=r"^SOA table 750 '1924 Linton Lapse Table A' is a "
        r"'Termination Voluntary' table",
    ):
        table_from_spec("soa:3399,soa:750:0.5")


@pytest.mark.parametrize(
    "table_id",
    [1002, 3396, 3397, 3398, 3399, 3400, 15003, 1579, 2038],
    # VBT (insured lives), Pub-2010 (annuitant), group life, French insured lives, disabled lives
)
def test_mortality_tables_of_every_kind_the_package_reads_are_accepted(table_id):
    assert soa(table_id).qx.size


def test_soa_table_id_must_be_an_integer():
    with pytest.raises(
        MortalityError,
        match=r"^'table_id' must be an integer SOA table id "
        r"\(got '3400'\)$",
    ):
        soa("3400")


# ----------------------------------------------------------------- CSV and blends
def test_csv_table_is_read_with_its_file_as_source(tmp_path):
    path = tmp_path / "tiny.csv"
    path.write_text("age,qx\n60,0.1\n61,0.2\n62,1\n")
    table = from_csv(path)
    assert (table.name, table.min_age, table.max_age, table.source) == ("tiny", 60, 62, str(path))
    assert table.q([60, 61, 62]).tolist() == [0.1, 0.2, 1.0]


def csv_table_problems(path, text) -> list[str]:
    """The problems :func:`from_csv` reports, one a line, for a table file holding ``text``."""
    path.write_text(text)
    with pytest.raises(MortalityError) as caught:
        from_csv(path)
    return str(caught.value).splitlines()


def test_csv_table_reports_every_bad_row_with_file_and_line(tmp_path):
    path = tmp_path / "bad.csv"
    assert csv_table_problems(path, "age,qx\n60,0.1\n61,abc\n62,1.5\n64,0.3\n65\n") == [
        f"{path} line 3: 'qx' must be a number (got 'abc')",
        f"{path} line 4: 'qx' must be in [0, 1] (got 1.5)",
        f"{path} line 5: 'age' must be 63, the next age (got 64)",
        f"{path} line 6: row must have 2 fields (got 1)",
    ]


def test_a_row_refused_for_its_shape_or_age_does_not_make_the_next_age_an_error(tmp_path):
    # Line 3 (age 61, a third field) was refused, then line 4 was said to need age 61 too.
    path = tmp_path / "bad.csv"
    text = "age,qx\n60,0.1\n61,0.2,x\n62,0.3\n6_3,0.4\n64,0.5\n66,1\n"
    assert csv_table_problems(path, text) == [
        f"{path} line 3: row must have 2 fields (got 3)",
        f"{path} line 5: 'age' must be an integer (got '6_3')",
        f"{path} line 7: 'age' must be 65, the next age (got 66)",
    ]


def test_csv_table_numbers_are_plain_decimal_numbers_as_in_member_files(tmp_path):
    """float() and int() read '0.2_5' as 0.25, '٠.٥' as 0.5, '6_4' as 64 and 'infinity' as a
    number: none is a decimal number as a member file's cells are."""
    path = tmp_path / "spelled.csv"
    text = "age,qx\n60, 0.1 \n61,0.2_5\n62,infinity\n63,٠.٥\n6_4,1\n"
    assert csv_table_problems(path, text) == [
        f"{path} line 3: 'qx' must be a number (got '0.2_5')",
        f"{path} line 4: 'qx' must be a number (got 'infinity')",
        f"{path} line 5: 'qx' must be a number (got '٠.٥')",
        f"{path} line 6: 'age' must be an integer (got '6_4')",
    ]


def test_a_csv_of_rates_gives_ages_from_0_to_200(tmp_path):
    # Before, -1 was a first age, and 99999999999999999999 made a table whose valuation
    # said "'age' must be in [99999999999999999999, 100000000000000000000) ... (got 1e+20)".
    table = tmp_path / "ages.csv"
    scale = tmp_path / "scale.csv"
    scale.write_text("age,2011\n-1,0.01\n")
    assert csv_table_problems(table, "age,qx\n-1,0.1\n201,0.2\n99999999999999999999,1\n") == [
        f"{table} line 2: 'age' must be in [0, 200] (got -1)",
        f"{table} line 3: 'age' must be in [0, 200] (got 201)",
        f"{table} line 4: 'age' must be in [0, 200] (got 99999999999999999999)",
    ]
    with pytest.raises(MortalityError, match=r"line 2: 'age' must be in \[0, 200\] \(got -1\)$"):
        improvement_scale(f"csv:{scale}")
    assert from_csv(write_sult_csv(tmp_path / "sult.csv")).max_age == 120


def test_a_csv_table_s_error_lists_twenty_problems_and_counts_the_others(tmp_path):
    """A hostile file (16 MB of bad rows, a field of 100,000 characters) gives an error of
    bounded size: each value cut to what a message quotes, the problems after 20 counted."""
    path = tmp_path / "bad.csv"
    rows = [f"{age},{'9' * 100_000 if age == 20 else 'abc'}" for age in range(20, 1_020)]
    path.write_text("age,qx\n" + "\n".join(rows) + "\n")
    with pytest.raises(MortalityError) as caught:
        from_csv(path)
    lines = str(caught.value).splitlines()
    assert lines[0] == f"{path} line 2: 'qx' must be in [0, 1] (got {'9' * 80}…)"
    assert len(lines) == 21
    assert lines[1] == f"{path} line 3: 'qx' must be a number (got 'abc')"
    assert lines[-1] == "... and 980 more problem(s)"
    assert len(str(caught.value)) < 5_000


def test_csv_table_needs_the_header_age_qx(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("x,q\n60,0.1\n")
    with pytest.raises(MortalityError, match=r"line 1: header must be age,qx \(got 'x,q'\)$"):
        from_csv(path)


# Both CSV files of rates a user gives are read by mortality.csv_rows: (read, kind, a good file).
CSV_RATE_FILES = [
    pytest.param(from_csv, "life table", "age,qx\n60,0.1\n61,1\n", id="life-table"),
    pytest.param(
        lambda path: improvement_scale(f"csv:{path}"),
        "improvement scale",
        SMALL_SCALE_CSV,
        id="improvement-scale",
    ),
]


@pytest.mark.parametrize(("read", "kind", "good"), CSV_RATE_FILES)
def test_a_csv_of_rates_that_cannot_be_read_is_one_error_naming_the_file(
    read, kind, good, tmp_path
):
    folder, missing = tmp_path / "folder.csv", tmp_path / "missing.csv"
    folder.mkdir()
    unreadable = f"{folder}: {kind}: cannot read (Is a directory)"
    with pytest.raises(MortalityError, match=exactly(unreadable)):
        read(folder)
    with pytest.raises(
        MortalityError, match=exactly(f"{missing}: {kind}: cannot read (No such file or directory)")
    ):
        read(missing)


@pytest.mark.parametrize(("read", "kind", "good"), CSV_RATE_FILES)
def test_a_csv_of_rates_is_utf8_with_or_without_a_byte_order_mark_and_bounded(
    read, kind, good, tmp_path, monkeypatch
):
    plain, marked, latin = (tmp_path / name for name in ("plain.csv", "marked.csv", "latin.csv"))
    plain.write_bytes(good.encode())
    marked.write_bytes(b"\xef\xbb\xbf" + good.encode())  # as a spreadsheet saves it
    first, second = read(plain), read(marked)
    assert np.array_equal(getattr(first, "qx", None), getattr(second, "qx", None))
    assert np.array_equal(getattr(first, "rates", None), getattr(second, "rates", None))
    text = good.replace("0.1", "0.1\xe9", 1).replace("0.01", "0.01\xe9", 1)
    latin.write_bytes(text.encode("latin-1"))
    offset = text.encode("latin-1").index(b"\xe9")
    line = text[:offset].count("\n") + 1
    with pytest.raises(
        MortalityError,
        match=exactly(
            f"{latin} line {line}: {kind}: not UTF-8 text (byte 0xe9 at offset {offset}); "
            "save the file as UTF-8"
        ),
    ):
        read(latin)
    limit = len(good) - 1  # one byte too few
    monkeypatch.setattr(mortality, "CSV_RATES_LIMIT", limit)
    article = {"life table": "a", "improvement scale": "an"}[kind]
    larger = f"{plain}: {kind}: larger than the limit of {limit:,} bytes for {article} {kind}"
    with pytest.raises(MortalityError, match=exactly(larger)):
        read(plain)


def test_unisex_blend_averages_q_on_the_common_ages_and_names_the_weights():
    male, female = soa(3400), soa(3399)
    unisex = blend(male, female, 0.5)
    assert unisex.name == "50% PubG-2010 Male Retiree + 50% PubG-2010 Female Retiree"
    assert (unisex.min_age, unisex.max_age) == (50, 120)
    assert unisex.q(50) == pytest.approx((0.00298 + 0.00222) / 2, rel=1e-12)
    assert "table 3400" in unisex.source and "table 3399" in unisex.source


def test_blend_uses_only_the_ages_both_tables_have():
    mixed = blend(SULT, soa(3399), 0.25)
    assert (mixed.min_age, mixed.max_age) == (50, 120)
    assert mixed.q(60) == pytest.approx(0.25 * SULT.q(60) + 0.75 * soa(3399).q(60), rel=1e-12)


def test_blend_weight_must_be_between_zero_and_one():
    with pytest.raises(MortalityError, match=r"^'weight_a' must be in \[0, 1\] \(got 1.2\)$"):
        blend(SULT, ILT, 1.2)


# ----------------------------------------------------------------- table_from_spec
@pytest.mark.parametrize(
    ("spec", "name"),
    [
        ("sult", "SULT"),
        ("ilt", "ILT"),
        ("soa:3400", "PubG-2010 Male Retiree"),
        ("soa:3400,soa:3399:0.5", "50% PubG-2010 Male Retiree + 50% PubG-2010 Female Retiree"),
        ("soa:3400:0.3,soa:3399", "30% PubG-2010 Male Retiree + 70% PubG-2010 Female Retiree"),
    ],
)
def test_table_from_spec_names_the_table_or_the_blend(spec, name):
    assert table_from_spec(spec).name == name


def test_table_from_spec_blend_weights_the_rates():
    blended = table_from_spec("soa:3400,soa:3399:0.25")
    ages = np.arange(55, 66)
    expected = 0.75 * soa(3400).q(ages) + 0.25 * soa(3399).q(ages)
    np.testing.assert_allclose(blended.q(ages), expected, rtol=0, atol=1e-15)


def test_table_from_spec_reads_a_csv_table(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text("age,qx\n60,0.01\n61,0.02\n62,1\n")
    assert table_from_spec(f"csv:{path}").q(61) == pytest.approx(0.02)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("foo", "'mortality' table must be in ['sult', 'ilt', 'soa:<id>', 'csv:<path>']"),
        ("soa:x", "(got 'soa:x')"),
        ("csv:", "(got 'csv:')"),  # no path: not the folder "."
        ("csv::0.5,sult", "(got 'csv::0.5')"),
        ("sult,ilt", "'mortality' blend must state a weight"),
        ("soa:3400,soa:3399:2", "'mortality' weight must be in [0, 1] (got 2"),
        ("soa:3400:0.6,soa:3399:0.6", "'mortality' blend weights must sum to 1"),
        ("sult:0.5", "'mortality' weight of a single table must be 1"),
        ("sult,ilt,soa:3400", "'mortality' must be one table or a blend of two"),
    ],
)
def test_table_from_spec_rejects_bad_specs_with_the_rule(spec, message):
    with pytest.raises(MortalityError, match=re.escape(message)):
        table_from_spec(spec)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("sult+ilt@²", "'mortality' join must give each later table its first age"),
        ("sult+ilt@٦٠", "'mortality' join must give each later table its first age"),
        ("sult+ilt@" + "9" * 5000, "'mortality' join must give each later table its first age"),
        ("soa:³", "(got 'soa:³')"),
        ("soa:٣٤٠٠", "(got 'soa:٣٤٠٠')"),
        ("soa:" + "9" * 5000, "'mortality' table must be in"),
        ("soa:" + "9" * 4000, "'table_id' must be a mort.soa.org table shipped with pymort"),
    ],
    ids=["superscript-age", "arabic-indic-age", "5000-digit-age", "superscript-id",
         "arabic-indic-id", "5000-digit-id", "4000-digit-id"],
)  # fmt: skip
def test_the_ages_and_ids_of_a_spec_are_ascii_digits_as_in_files(spec, message):
    # str.isdigit took them: '²' then raised ValueError from int() (a traceback), '٦٠' was
    # read as 60 and '٣٤٠٠' as table 3400; 5000 digits passed int()'s limit, and an id of
    # 4000 made a file name too long (OSError).
    with pytest.raises(MortalityError, match=re.escape(message)):
        table_from_spec(spec)


# ----------------------------------------------------------------- the files a table read
def test_a_csv_table_records_its_file_and_every_table_made_from_it_keeps_it(tmp_path):
    low = write_sult_csv(tmp_path / "low.csv", range(20, 70))
    high = write_sult_csv(tmp_path / "high.csv", range(60, 121))
    assert from_csv(low).files == (low,)
    assert SULT.files == () and ILT.files == () and soa(3400).files == ()
    joined = join([from_csv(low), from_csv(high)], [65])
    assert joined.files == (low, high)
    assert blend(from_csv(high), SULT, 0.5).files == (high,)
    assert blend(joined, from_csv(low), 0.5).files == (low, high)  # each file once
    assert join([SULT, from_csv(low)], [40]).close_at(60).files == (low,)
    assert scale_rates(joined, 1.1)[0].files == (low, high)
    assert table_from_spec(f"csv:{low}+csv:{high},sult:0.5@65").files == (low, high)


@pytest.mark.parametrize(("read", "kind", "good"), CSV_RATE_FILES)
def test_a_pipe_in_place_of_a_csv_of_rates_once_checked_is_refused_without_waiting_on_it(
    read, kind, good, tmp_path, monkeypatch
):
    import os
    import threading

    from actuarial import text_files

    pipe = tmp_path / "rates.csv"
    os.mkfifo(pipe)
    checks = [None]  # the first check saw a file: the pipe took its place before the open
    checked = text_files.not_a_file
    monkeypatch.setattr(
        text_files, "not_a_file", lambda path: checks.pop() if checks else checked(path)
    )
    errors = []

    def read_the_pipe():
        try:
            read(pipe)
        except MortalityError as error:
            errors.append(str(error))

    reader = threading.Thread(target=read_the_pipe, daemon=True)
    reader.start()
    reader.join(10)
    waiting = reader.is_alive()
    if waiting:  # a writer opens the pipe and closes it: the reader gets an empty file
        os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
        reader.join()
    assert not waiting
    assert errors == [f"{pipe}: {kind}: cannot read (a named pipe, not a file)"]


# ----------------------------------------------------------------- rates near -1, long tables
def plain_annuity_due(table, age, rate):
    """sum_k v^k l_{x+k} / l_x by hand, in exact-enough floats (annual, integer age)."""
    l_integer = [1.0]
    for q in table.qx:
        l_integer.append(l_integer[-1] * (1 - q))
    start = age - table.min_age
    return sum(
        (1 + rate) ** -k * l_integer[start + k] / l_integer[start]
        for k in range(len(l_integer) - start)
    )


@pytest.mark.filterwarnings("error")
def test_an_annuity_near_minus_one_percent_is_its_sum_not_nan():
    # At -99.91% a year on SULT v^k passes the largest float only at a k where no one is
    # alive; before, inf x 0 made the UDD annuity NaN while constant force gave its value.
    table = sult()
    value = annuity_due(table, 60, -0.9991)
    assert value == pytest.approx(plain_annuity_due(table, 60, -0.9991), rel=1e-12)
    assert annuity_due(table, 60, -0.9991, method="constant-force") == pytest.approx(value)
    assert pure_endowment(table, 60, 70, -0.9991) == 0.0  # no one is alive at 130


@pytest.mark.filterwarnings("error")
def test_an_annuity_that_passes_the_largest_float_is_refused_naming_rate_age_and_table():
    # Before: NaN, silently, with warnings of overflow.
    message = (
        "'interest' -0.9999999 is too close to -1 for table 'SULT': the value at age 60 "
        "passes the largest float (1.8e+308)"
    )
    for method in ("udd", "constant-force"):
        with pytest.raises(AnnuityError, match=f"^{re.escape(message)}$"):
            annuity_due(sult(), [110, 60], -0.9999999, 12, method)
    with pytest.raises(AnnuityError, match="value at age 20 passes the largest float"):
        pure_endowment(sult(), 20, 100, -0.9999999)


def test_an_insurance_whose_moment_takes_the_rate_past_the_largest_float_says_so():
    # Before: NaN with a warning of overflow (then: "'interest' inf is too close to -1").
    with pytest.raises(AnnuityError) as refused:
        whole_life_insurance(sult(), 60, [0.05, 1e200], moment=2)
    assert str(refused.value) == (
        "'interest' 1e+200 at 'moment' 2: (1 + i)^2 - 1 passes the largest float (1.8e+308)"
    )


@pytest.mark.filterwarnings("error")
def test_no_one_is_alive_after_a_q_of_1_before_the_last_age_and_asking_there_is_refused():
    # q_56 = 1: no one reaches 57, although the table goes on to 58. Before, survival and
    # the expectation of life at 57 were NaN (0/0, with a warning), annuities 0.
    table = LifeTable("ends early", 55, [0.1, 1.0, 0.5, 1.0])
    assert table.alive_end == 57 and sult().alive_end == 121
    refused = r"^'age' must be in \[55, 57\) for table 'ends early' \(got 57\)$"
    for ask in (
        lambda: table.survival(57, 1),
        lambda: table.e(57),
        lambda: annuity_due(table, 57, 0.05),
        lambda: pure_endowment(table, 57, 1, 0.05),
    ):
        with pytest.raises(MortalityError, match=refused):
            ask()
    assert table.e(55) == pytest.approx(0.9)  # 1_p_55 = 0.9, 2_p_55 = 0


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda huge: SULT.q(huge), "age"),
        (lambda huge: SULT.l(huge), "age"),
        (lambda huge: SULT.survival(huge, 1), "age"),
        (lambda huge: SULT.survival(60, huge), "t"),
        (lambda huge: SULT.e([60, huge]), "age"),
        (lambda huge: SULT.force_of_mortality(huge), "age"),
        (lambda huge: annuity_due(SULT, huge, 0.05), "age"),
        (lambda huge: scale_rates(SULT, huge), "factor"),
    ],
)
def test_an_age_or_a_number_no_float_can_hold_is_refused_naming_it(call, field):
    # Before: a raw OverflowError, "int too large to convert to float".
    with pytest.raises(MortalityError) as refused:
        call(10**400)
    assert str(refused.value) == (
        f"'{field}' must be a number a float can hold, from -1.8e+308 to 1.8e+308 (got 1e+400)"
    )


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda huge: SULT.q(huge), "age"),
        (lambda huge: SULT.survival(60, huge), "t"),
        (lambda huge: annuity_due(SULT, huge, 0.05), "age"),
        (lambda huge: annuity_due(SULT, np.array([60, huge]), 0.05), "age"),
    ],
)
def test_a_long_double_no_float_can_hold_is_refused_naming_it_not_read_as_inf(call, field):
    # Before: cast to inf, "'age' must be in [20, 121) for table 'SULT' (got inf)".
    with pytest.raises(MortalityError) as refused:
        call(np.longdouble("1e400"))
    assert str(refused.value) == (
        f"'{field}' must be a number a float can hold, from -1.8e+308 to 1.8e+308 (got 1e+400)"
    )


def test_a_rate_no_float_can_hold_or_no_number_in_a_table_is_refused_naming_the_table():
    # Before: a raw OverflowError, and numpy's "could not convert string to float".
    with pytest.raises(MortalityError) as refused:
        LifeTable("huge", 20, [0.1, 10**400])
    assert str(refused.value) == (
        "table 'huge': 'qx' must be a number a float can hold, from -1.8e+308 to 1.8e+308 "
        "(got 1e+400)"
    )
    with pytest.raises(MortalityError, match=r"^table 'text': 'qx' must be a number \(got 'a'\)$"):
        LifeTable("text", 20, [0.1, "a"])


def test_a_rate_below_minus_one_is_shown_with_every_digit():
    with pytest.raises(AnnuityError, match=r"\(got -1.0000001\)$"):  # before: got -1
        annuity_due(sult(), 60, -1.0000001)


def test_a_long_table_takes_memory_in_proportion_to_its_ages():
    # A CSV table of 200,000 ages (3 MB, under the size limit) asked for 298 GiB: the
    # table kept l_{n+k} for every pair of ages. 5,000 ages asked for 400 MB.
    import tracemalloc

    tracemalloc.start()
    table = LifeTable("long", 0, np.append(np.full(4_999, 1e-4), 1.0))
    annuity_due(table, [0, 2_500], 0.05)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 20 * 2**20


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: mortality.blend(sult(), "ilt", 0.5),
            "'table_b' must be a LifeTable, e.g. actuarial.mortality.ilt() (got str 'ilt')",
        ),
        (lambda: mortality.blend(sult(), ilt(), True), "'weight_a' must be in [0, 1] (got True)"),
        (lambda: mortality.from_csv(None), "'path' must be a CSV file's path (got None)"),
        (lambda: mortality.from_csv(5), "'path' must be a CSV file's path (got 5)"),
    ],  # fmt: skip
)
def test_a_table_function_names_an_argument_of_the_wrong_kind(call, message):
    # blend(sult(), "ilt", 0.5) raised AttributeError, True blended 100%, from_csv(None) raised
    # pathlib's TypeError.
    with pytest.raises(MortalityError) as error:
        call()
    assert str(error.value) == message
