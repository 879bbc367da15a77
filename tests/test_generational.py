"""Generational mortality: the projection convention by hand, cohorts vectorized, sexes."""

import re
import warnings

import numpy as np
import pytest
from conftest import SMALL_SCALE_CSV, write_sult_csv
from hypothesis import given, settings
from hypothesis import strategies as st

from actuarial.annuities import annuity_due, deferred_annuity_due, pure_endowment
from actuarial.equivalence import early_retirement_factor
from actuarial.generational import MP_SCALES, Mortality, improvement_scale, project
from actuarial.mortality import LifeTable, MortalityError, soa, sult

FEMALE_RETIREE, MALE_RETIREE = soa(3399), soa(3400)


def raw_scale(table_id):
    """The SOA scale straight from pymort's file, as {(age, year): rate}."""
    from pymort import MortXML

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = MortXML.from_id(table_id).Tables[0].Values["vals"]
    return {(int(a), int(y)): float(v) for (a, y), v in values.items()}


MP2020_MALE = raw_scale(MP_SCALES["mp-2020"]["M"])


def hand_q(table, rates, base, born, age):
    """q_x(base) x prod_{z=base+1}^{B+x} (1 - i) or / prod_{z=B+x+1}^{base} (1 - i), with
    the scale's last (first) year beyond (before) it and the nearest age outside it."""
    years = sorted({y for _, y in rates})
    ages = sorted({a for a, _ in rates})

    def i(x, z):
        return rates[(min(max(x, ages[0]), ages[-1]), min(max(z, years[0]), years[-1]))]

    q = table.q(age)
    reached = born + age
    if reached > base:
        for z in range(base + 1, reached + 1):
            q *= 1 - i(age, z)
    else:
        for z in range(reached + 1, base + 1):
            q /= 1 - i(age, z)
    return q


@pytest.mark.parametrize(
    ("born", "age"),
    [
        (1965, 60),  # 2025: forward, inside the scale's years
        (1990, 70),  # 2060: forward beyond 2036, the last year's rates hold
        (1930, 60),  # 1990: backward
        (1880, 70),  # 1950: backward before 1951, the first year's rates
        (1960, 50),  # 2010: the base year itself, no factor
        (1920, 120),  # age 120, the last age of the scale
    ],
)
def test_generational_q_is_the_hand_product_of_the_scale_factors(born, age):
    projected = Mortality("soa:3400", improvement="mp-2020").table("M", born)
    expected = hand_q(MALE_RETIREE, MP2020_MALE, 2010, born, age)
    assert projected.q(age) == pytest.approx(expected, rel=1e-12)


def test_ages_outside_the_scale_take_the_nearest_ages_rates():
    table = LifeTable("young and old", 15, np.full(111, 0.01).tolist() + [1.0])
    scale = improvement_scale("mp-2020", "M")
    q = project(table, scale, 2010, [1990])[0]
    # age 15 (below the scale's 20) takes age 20's rates; age 125 (above 120) takes 120's
    assert q[0] == pytest.approx(hand_q(table, MP2020_MALE, 2010, 1990, 15), rel=1e-12)
    assert q[0] == pytest.approx(0.01 / np.prod([1 - scale.rate(20, z) for z in range(2006, 2011)]))


def test_a_q_of_1_where_a_table_runs_out_stays_1_under_improvement(tmp_path):
    """ILT runs out at 110, where MP-2020's rates are not 0: the projection 'improved' a
    certain death to q = 0.95 and the basis was refused as a table that does not run out."""
    ilt = Mortality("ilt/ilt", improvement="mp-2020", base_year=2010)
    for sex, born in (("F", 1948), ("M", 1990)):
        table = ilt.table(sex, born)
        assert table.q(110) == 1.0
        assert table.q(109) < 1.0
    assert annuity_due(ilt, 65, 0.05, m=12, cohort=1948, sex="M") > 0
    scale = tmp_path / "narrow.csv"  # ages 50-51: age 120 takes age 51's 1%
    scale.write_text("age,2010,2011\n50,0.01,0.01\n51,0.01,0.01\n")
    projected = Mortality("sult", improvement=f"csv:{scale}", base_year=2010).table(None, 1950)
    assert projected.q(120) == 1.0
    assert projected.q(119) == pytest.approx(sult().q(119) * 0.99**59, rel=1e-12)


def test_a_base_year_outside_the_scale_s_years_takes_its_first_or_last_year_s_rates(tmp_path):
    """Pub-2010's rates are for 2010; a plan's scale from 2020 projects them with its 2020
    rates back to 2011 (the convention: before its first year, its first year's), and a
    one-year scale holds for every year. Both were refused for a while, with the typo they
    were meant to catch (201) caught by the years of every date instead."""
    plan = tmp_path / "plan.csv"
    plan.write_text("age,2020,2021\n65,0.02,0.01\n")
    projected = Mortality("soa:3400", improvement=f"csv:{plan}").table(None, 1950)
    # age 65 in 2015: five years of 2020's 2% from 2010
    assert projected.q(65) == pytest.approx(soa(3400).q(65) * 0.98**5, rel=1e-12)
    flat = tmp_path / "flat.csv"
    flat.write_text("age,2000\n65,0.01\n")
    sult_2010 = Mortality("sult", improvement=f"csv:{flat}", base_year=2010).table(None, 1950)
    assert sult_2010.q(65) == pytest.approx(sult().q(65) * 0.99**5, rel=1e-12)


def test_close_at_closes_each_table_of_a_basis_that_does_not_run_out_and_no_other(tmp_path):
    """A FEMALE/MALE basis whose male side ends at 110 without running out: --close-at 110
    closes it and the blend, and leaves the female side (which runs out at 120) as it is;
    refusing the female side had failed every valuation of members with a sex column."""
    open_male = write_sult_csv(tmp_path / "open_male.csv", range(20, 111))
    basis = Mortality(f"soa:3399/csv:{open_male}", close_at=110)
    female, male, either = basis.table("F"), basis.table("M"), basis.table(None)
    assert female.max_age == 120 and female.q(115) == soa(3399).q(115)
    assert (male.max_age, male.q(110)) == (110, 1.0)
    assert (either.max_age, either.q(110)) == (110, 1.0)
    rule = (
        r"^'close_at' closes a table that does not run out: every table of 'soa:3399/soa:3400' "
        r"runs out already \(got 110\)$"
    )
    with pytest.raises(MortalityError, match=rule):
        Mortality("soa:3399/soa:3400", close_at=110)


def test_projection_is_vectorized_over_cohorts_like_one_cohort_at_a_time():
    scale = improvement_scale("mp-2020", "F")
    cohorts = np.arange(1940, 1991, 5)
    together = project(FEMALE_RETIREE, scale, 2010, cohorts)
    for row, born in enumerate(cohorts):
        np.testing.assert_array_equal(
            together[row], project(FEMALE_RETIREE, scale, 2010, [born])[0]
        )


def test_female_and_male_sides_are_projected_by_their_own_scales():
    mortality = Mortality("soa:3399/soa:3400", improvement="mp-2020")
    female, male = mortality.table("F", 1965), mortality.table("M", 1965)
    scale_f, scale_m = improvement_scale("mp-2020", "F"), improvement_scale("mp-2020", "M")
    np.testing.assert_allclose(female.qx, project(FEMALE_RETIREE, scale_f, 2010, [1965])[0])
    np.testing.assert_allclose(male.qx, project(MALE_RETIREE, scale_m, 2010, [1965])[0])
    unisex = mortality.table(None, 1965)
    np.testing.assert_allclose(unisex.qx, 0.5 * female.qx + 0.5 * male.qx, rtol=1e-15)
    weighted = Mortality("soa:3399/soa:3400", improvement="mp-2020", female_weight=0.7)
    np.testing.assert_allclose(
        weighted.table(None, 1965).qx, 0.7 * female.qx + 0.3 * male.qx, rtol=1e-15
    )


def test_joined_sexes_project_each_piece_from_its_own_base_year():
    mortality = Mortality("soa:3397+soa:3399@50/soa:3398+soa:3400@50", improvement="mp-2020")
    male = mortality.table("M", 1970)
    assert (male.min_age, male.max_age, male.runs_out) == (18, 120, True)
    assert male.q(40) == pytest.approx(hand_q(soa(3398), MP2020_MALE, 2010, 1970, 40), rel=1e-12)
    assert male.q(70) == pytest.approx(hand_q(MALE_RETIREE, MP2020_MALE, 2010, 1970, 70), rel=1e-12)


@pytest.mark.parametrize("spec", ["soa:3399 / soa:3400", "soa:3399/ soa:3400", " sult /ilt "])
def test_spaces_around_the_slash_of_a_female_male_spec_are_allowed(spec):
    # As around '+' and ','. Before: "'mortality' weight must be in [0, 1] (got 3400 ...)".
    assert Mortality(spec).sex_distinct


def test_a_male_table_on_the_female_side_is_refused():
    with pytest.raises(MortalityError, match=r"'PubG-2010 Male Retiree' is male but stands on "):
        Mortality("soa:3400/soa:3399")


def test_a_table_without_a_base_year_needs_one_and_a_contradiction_is_refused(tmp_path):
    scale = tmp_path / "flat.csv"
    scale.write_text("age,2000,2001\n60,0.01,0.01\n61,0.01,0.01\n")
    with pytest.raises(MortalityError, match=r"table 'SULT' does not state the year of its rates"):
        Mortality("sult", improvement=f"csv:{scale}")
    assert Mortality("sult", improvement=f"csv:{scale}", base_year=2000).generational
    with pytest.raises(MortalityError, match=r"'base_year' 2000 contradicts table 'PubG-2010"):
        Mortality("soa:3400", improvement="mp-2020", base_year=2000)


def test_a_female_weight_or_a_base_year_that_would_change_nothing_is_refused_not_dropped():
    # Before, both were accepted, not applied, and left out of the basis as recorded.
    with pytest.raises(MortalityError) as refused:
        Mortality("sult", female_weight=0.9)
    assert str(refused.value) == (
        "'female_weight' weighs the sides of a FEMALE/MALE spec; 'sult' has one (got 0.9)"
    )
    with pytest.raises(MortalityError) as refused:
        Mortality("soa:3399/soa:3400", base_year=1990)
    assert str(refused.value) == (
        "'base_year' is the year of the rates an improvement scale projects: it needs "
        "'improvement' (got 1990)"
    )
    assert Mortality("sult", female_weight=0.5).as_dict() == {"mortality": "sult"}


@pytest.mark.parametrize(
    ("year", "shown"),
    [(10**26, "100000000000000000000000000"), (-(10**9), "-1000000000"), (0, "0"),
     (10_000, "10000"), (True, "True"), (2000.0, "2000.0"), ("2000", "'2000'"),
     (201, "201"), (1899, "1899"), (2101, "2101")],
)  # fmt: skip
def test_a_base_year_is_a_whole_year_from_1900_to_2100(tmp_path, year, shown):
    # Before, 10**26 overflowed and -10**9 asked for a billion years of projection.
    scale = tmp_path / "flat.csv"
    scale.write_text("age,2000,2001\n60,0.01,0.01\n61,0.01,0.01\n")
    rule = rf"^'base_year' must be a year from 1900 to 2100 \(got {re.escape(shown)}\)$"
    with pytest.raises(MortalityError, match=rule):
        Mortality("sult", improvement=f"csv:{scale}", base_year=year)
    assert Mortality("sult", improvement=f"csv:{scale}", base_year=np.int64(2000)).generational


def test_a_scale_rate_no_float_can_hold_is_refused_naming_the_scale():
    # Before: a raw OverflowError, "int too large to convert to float".
    from actuarial.generational import ImprovementScale

    with pytest.raises(MortalityError) as refused:
        ImprovementScale("huge", 50, 2010, [[0.01, 10**400]])
    assert str(refused.value) == (
        "scale 'huge': 'rates' must be a number a float can hold, from -1.8e+308 to 1.8e+308 "
        "(got 1e+400)"
    )


def test_a_csv_scale_is_age_by_calendar_year_and_applies_to_both_sexes(tmp_path):
    scale = tmp_path / "flat.csv"
    scale.write_text(SMALL_SCALE_CSV)
    mortality = Mortality("soa:3399/soa:3400", improvement=f"csv:{scale}")
    # born 1950, age 65 in 2015: factor (1 - 0.02)(1 - 0.01)^3 (2012's rate from 2013 on)
    assert mortality.table("F", 1950).q(65) == pytest.approx(
        FEMALE_RETIREE.q(65) * 0.98 * 0.99**4, rel=1e-12
    )


def csv_scale_problems(scale, text) -> list[str]:
    """The problems a CSV improvement scale holding ``text`` is refused for, one a line."""
    scale.write_text(text)
    with pytest.raises(MortalityError) as caught:
        improvement_scale(f"csv:{scale}")
    return str(caught.value).splitlines()


def test_a_csv_scale_reports_every_bad_cell_with_file_and_line(tmp_path):
    scale = tmp_path / "bad.csv"
    assert csv_scale_problems(scale, "age,2011,2012\n20,0.02,x\n22,1.5,0.01\n") == [
        f"{scale} line 2: improvement in 2012 must be in (-1, 1) (got 'x')",
        f"{scale} line 3: 'age' must be 21, the next age (got 22)",
        f"{scale} line 3: improvement in 2011 must be in (-1, 1) (got '1.5')",
    ]


def test_a_csv_scale_s_numbers_are_plain_decimal_numbers_as_in_member_files(tmp_path):
    """float() read '0.0_2' as 0.02 and '٠.٠١' as 0.01; the header's years were matched by
    \\d, which takes any script's digits ('٢٠١١' was the year 2011)."""
    scale = tmp_path / "spelled.csv"
    assert csv_scale_problems(scale, "age,2011,2012\n20,0.0_2, 0.01 \n21,٠.٠١,nan\n") == [
        f"{scale} line 2: improvement in 2011 must be in (-1, 1) (got '0.0_2')",
        f"{scale} line 3: improvement in 2011 must be in (-1, 1) (got '٠.٠١')",
        f"{scale} line 3: improvement in 2012 must be in (-1, 1) (got 'nan')",
    ]
    assert csv_scale_problems(scale, "age,٢٠١١\n20,0.01\n") == [
        f"{scale} line 1: header must be age,<year>,<year>,... (got 'age,٢٠١١')"
    ]


@pytest.mark.parametrize("name", ["mp-2099", "csv:", " csv: "])  # csv: alone is no path
def test_an_unknown_scale_lists_the_valid_ones(name):
    with pytest.raises(MortalityError, match=r"'improvement' must be in \['mp-2014', "):
        Mortality("soa:3400", improvement=name)


def test_generational_mortality_needs_a_cohort():
    mortality = Mortality("soa:3399/soa:3400", improvement="mp-2020")
    with pytest.raises(MortalityError, match=r"needs a cohort \(year of birth\)"):
        annuity_due(mortality, 65, 0.05, 12)


def test_annuities_are_vectorized_over_cohorts_as_over_ages_and_rates():
    mortality = Mortality("soa:3399/soa:3400", improvement="mp-2020")
    cohorts = np.array([1950, 1960, 1970])[:, None, None]
    ages = np.array([55.0, 60.25, 65.0])[None, :, None]
    rates = np.array([0.03, 0.05])[None, None, :]
    grid = annuity_due(mortality, ages, rates, 12, cohort=cohorts)
    assert grid.shape == (3, 3, 2)
    for c, born in enumerate(cohorts.ravel()):
        table = mortality.table(None, int(born))
        for a, age in enumerate(ages.ravel()):
            for r, rate in enumerate(rates.ravel()):
                one = annuity_due(table, age, rate, 12)
                assert grid[c, a, r] == pytest.approx(one, rel=1e-14)
    endowment = pure_endowment(mortality, 55.0, 10.0, 0.05, cohort=[1950, 1970])
    deferred = deferred_annuity_due(mortality, 55.0, 10.0, 0.05, 12, cohort=[1950, 1970])
    factor = early_retirement_factor(mortality, 55.0, 0.05, cohort=[1950, 1970])
    at_55 = annuity_due(mortality, 55.0, 0.05, 12, cohort=[1950, 1970])
    np.testing.assert_allclose(factor, deferred / at_55, rtol=1e-12)
    assert (endowment[1] > endowment[0]) and (deferred[1] > deferred[0])


def test_without_improvement_a_basis_gives_the_sult_published_values():
    # SULT at 5%: a(12)_65 UDD = 13.0860, 10E_55 = 0.59342 (docs/reference-values.md)
    mortality = Mortality("sult")
    assert annuity_due(mortality, 65, 0.05, 12) == pytest.approx(13.0860, abs=5e-5)
    assert pure_endowment(mortality, 55, 10, 0.05, cohort=1970) == pytest.approx(0.59342, abs=5e-6)


@settings(max_examples=25, deadline=None)
@given(
    low=st.floats(0.0, 0.03),
    extra=st.floats(0.001, 0.03),
    age=st.integers(50, 90),
)
def test_annuities_increase_with_improvement(tmp_path_factory, low, extra, age):
    folder = tmp_path_factory.mktemp("scale")
    values = []
    for rate in (low, low + extra):
        path = folder / f"flat-{rate}.csv"
        # 0 at 120, as in the MP scales: q_120 = 1 projected stays 1 (the table runs out)
        rows = "".join(f"{a},{rate if a < 120 else 0}\n" for a in range(20, 121))
        path.write_text("age,2011\n" + rows)
        mortality = Mortality("soa:3399/soa:3400", improvement=f"csv:{path}")
        values.append(annuity_due(mortality, age, 0.05, 12, cohort=1960))
    assert values[1] > values[0]


def test_mp2020_raises_annuity_values_of_later_cohorts():
    mortality = Mortality("soa:3399/soa:3400", improvement="mp-2020")
    static = annuity_due(Mortality("soa:3399/soa:3400"), 65, 0.045, 12)
    values = annuity_due(mortality, 65, 0.045, 12, cohort=np.arange(1950, 1981, 10))
    assert (np.diff(values) > 0).all() and values[0] > static


# ------------------------------------------------------------------ the files a basis reads
@pytest.fixture
def tables(tmp_path):
    """SULT as CSV tables: ``low`` (ages 20-69), ``high`` (60-120), ``a``, ``b``, ``c``
    (20-120) and ``colon`` (20-120; a ':' in its name, as a weight is written)."""
    paths = {
        "low": write_sult_csv(tmp_path / "low.csv", range(20, 70)),
        "high": write_sult_csv(tmp_path / "high.csv", range(60, 121)),
    }
    for name in ("a", "b", "c"):
        paths[name] = write_sult_csv(tmp_path / f"{name}.csv")
    paths["colon"] = write_sult_csv(tmp_path / "x:1.csv")
    return paths


@pytest.mark.parametrize(
    ("spec", "read"),
    [
        ("sult", []),
        ("soa:3399/soa:3400", []),  # pymort's data, not a file of the user's
        ("csv:{a}", ["a"]),
        ("csv:{colon}", ["colon"]),
        ("csv:{a},csv:{b}:0.25", ["a", "b"]),  # a blend, the second weighted
        ("csv:{a}:0.5,csv:{colon}:0.5", ["a", "colon"]),  # both weighted, a ':' in a name
        ("sult,csv:{b}:0.5", ["b"]),
        ("csv:{low}+csv:{high}@65", ["low", "high"]),  # a join by age
        ("csv:{low}+csv:{a},csv:{b}:0.5@60+csv:{c}@90", ["low", "a", "b", "c"]),  # join of blends
        ("csv:{a}/csv:{b}", ["a", "b"]),  # female/male
        ("soa:3399/csv:{b}", ["b"]),
        ("csv:{low}+csv:{high}@65/csv:{a},csv:{c}:0.5", ["low", "high", "a", "c"]),
        ("csv:{a}/csv:{a}", ["a"]),  # one file read twice is listed once
    ],
)
def test_a_basis_lists_every_csv_table_of_its_spec_and_only_those(tables, spec, read):
    mortality = Mortality(spec.format(**tables))
    assert mortality.files == tuple(tables[name] for name in read)
    # scaling (a sensitivity) keeps them: the same files were read
    assert mortality.scaled(1.1).files == mortality.files


def test_a_closed_basis_lists_the_files_of_the_table_it_closes(tables):
    low = tables["low"]  # ages 20-69: does not run out
    assert Mortality(f"csv:{low}", close_at=60).files == (low,)


def test_a_generational_basis_lists_its_tables_and_its_csv_scale(tables, tmp_path):
    scale = tmp_path / "flat.csv"
    scale.write_text(SMALL_SCALE_CSV)
    spec = "csv:{low}+csv:{high}@65/csv:{a}".format(**tables)
    mortality = Mortality(spec, improvement=f"csv:{scale}", base_year=2010)
    assert mortality.files == (tables["low"], scale, tables["high"], tables["a"])
    assert improvement_scale(f"csv:{scale}").files == (scale,)
    assert improvement_scale("mp-2020", "F").files == ()  # pymort's data
    by_mp = Mortality("soa:3399/csv:{b}".format(**tables), improvement="mp-2020", base_year=2010)
    assert by_mp.files == (tables["b"],)


def test_a_basis_valid_for_the_cohort_asked_is_not_refused_for_a_cohort_no_one_asked(tmp_path):
    # Base year 2030; age 60 improves 99% a year in 2021-2025. Born 1960, age 60 is 2020,
    # five such years before the base: q_60 / 0.01^5 > 1. Born 1965, age 60 is 2025, after
    # them: q as the base table's. Building the basis refused it for the cohort of 1960.
    table = write_sult_csv(tmp_path / "table.csv")
    years = range(2021, 2031)
    rows = [
        f"{age}," + ",".join("0.99" if age == 60 and year <= 2025 else "0" for year in years)
        for age in (59, 60, 61)
    ]
    scale = tmp_path / "scale.csv"
    scale.write_text("age," + ",".join(map(str, years)) + "\n" + "\n".join(rows) + "\n")
    mortality = Mortality(f"csv:{table}", f"csv:{scale}", base_year=2030)
    assert set(mortality.files) == {table, scale}
    np.testing.assert_array_equal(mortality.table(None, 1965).qx, sult_rates(table))
    with pytest.raises(
        MortalityError, match=r"gives q above 1 at age 60 for the cohort born in 1960 "
    ):
        mortality.table(None, 1960)


def sult_rates(path):
    from actuarial.mortality import from_csv

    return from_csv(path).qx
