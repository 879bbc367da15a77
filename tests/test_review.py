"""The tables the notebooks show (actuarial.review): they arrange package results, exactly."""

import datetime as dt
import shutil

import numpy as np
import pandas as pd
import pytest
from conftest import HALF_PERCENT_SERIES, law_entry

from actuarial import GuideError, Readings, evaluate_frame, load_guides, load_law, review
from actuarial.batch import read_members
from actuarial.equivalence import early_retirement_factor
from actuarial.guides import SHIPPED_GUIDES, Problem
from actuarial.law import LawNote
from actuarial.mortality import MortalityError, sult
from actuarial.report import EXAMPLE_MEMBERS

SHIPPED_IDS = [
    "illustrative-half-percent-per-month",
    "pub2010-general-unisex-4.5pct",
    "sult-5pct-monthly",
]
WHOLE_AGES = np.arange(55, 66) * 12


@pytest.fixture(scope="module")
def half_percent(half_percent_guides):
    return half_percent_guides.by_id(HALF_PERCENT_SERIES)


# ----------------------------------------------------------------- the statute
def test_clause_functions_name_the_function_of_each_clause():
    table = review.clause_functions()
    assert table["function"].tolist() == [f"actuarial.law.clauses.inciso_{c}" for c in "abcd"]
    assert table.loc[1, "title"] == "Anualidad por servicios de alto riesgo"
    assert table.loc[0, "summary"].startswith("Service annuity at the age of (a)")


def test_interpretations_table_shows_each_switch_with_the_value_in_force():
    table = review.interpretations_table(Readings(deferred_minimum_service=0.0))
    assert table["id"].tolist() == [f"I-{n}" for n in range(1, 10)]
    row = table.set_index("id").loc["I-5"]
    assert (row["switch"], row["value"]) == ("deferred_minimum_service", "0")
    assert table.set_index("id").loc["I-7", "switch"] == "-"


# ----------------------------------------------------------------- guides
def test_guides_in_lists_every_shipped_guide_of_every_series_by_id():
    assert [guide.id for guide in review.guides_in(SHIPPED_GUIDES)] == SHIPPED_IDS


def test_guides_in_reports_the_problems_of_every_broken_guide_at_once(tmp_path):
    for guide_id in SHIPPED_IDS[:2]:
        shutil.copytree(SHIPPED_GUIDES / guide_id, tmp_path / guide_id)
        toml = tmp_path / guide_id / "guide.toml"
        toml.write_text(toml.read_text().replace('status = "illustrative"', 'status = "x"'))
    with pytest.raises(GuideError) as caught:
        review.guides_in(tmp_path)
    assert review.relative_problems(caught.value, tmp_path) == [
        f"{guide_id}/guide.toml:4: 'status' must be in ['adopted', 'illustrative'] (got 'x')"
        for guide_id in SHIPPED_IDS[:2]
    ]


def test_relative_problems_leaves_paths_outside_the_root_as_they_are(tmp_path):
    error = GuideError([Problem("series-a", None, "no guide")])
    assert review.relative_problems(error, tmp_path) == ["series-a: no guide"]


def test_guide_factor_table_reads_each_guide_at_each_age(half_percent):
    table = review.guide_factor_table([half_percent], [55 * 12, 57 * 12 + 5, 65 * 12])
    assert table.index.tolist() == ["55y0m", "57y5m", "65y0m"]
    # 0.5% for each month before 65 (guides/illustrative-half-percent-per-month/guide.toml)
    assert table[half_percent.id].tolist() == pytest.approx([0.40, 0.545, 1.0])


def test_guide_summary_has_one_row_per_guide_with_its_period(half_percent):
    summary = review.guide_summary([half_percent])
    assert summary.loc[half_percent.id, "effective_from"] == "1990-04-01"
    assert summary.loc[half_percent.id, "effective_until"] == "open end"
    assert summary.loc[half_percent.id, "factor_at_55y0m"] == pytest.approx(0.40)


# ----------------------------------------------------------------- a guide against equivalence
def test_equivalence_table_matches_the_published_sult_5pct_factors(half_percent):
    table = review.equivalence_table(half_percent, {"SULT 5%": ["sult", 0.05]}, WHOLE_AGES)
    assert table.columns.tolist() == ["guide", "SULT 5%"]
    # Source: docs/reference-values.md, equivalent factor SULT 5%: 0.4979 at 55, 0.6949 at 60.
    assert table.loc["55y0m", "SULT 5%"] == pytest.approx(0.4979, abs=1e-4)
    assert table.loc["60y0m", "SULT 5%"] == pytest.approx(0.6949, abs=1e-4)
    assert table["guide"].tolist() == pytest.approx(half_percent.factor(WHOLE_AGES).tolist())


def test_implied_interest_of_the_sult_derived_guide_is_five_percent():
    derived = load_guides(SHIPPED_GUIDES, "sult-5pct-monthly").by_id("sult-5pct-monthly")
    fits = review.implied_interest(derived, {"SULT": "sult"})
    assert fits.loc["SULT", "implied_interest"] == pytest.approx(0.05, abs=1e-4)
    assert fits.loc["SULT", "max_abs_deviation"] < 1e-6


def test_implied_interest_names_the_age_where_a_fixed_reduction_departs_most(half_percent):
    fits = review.implied_interest(half_percent, {"SULT": "sult"})
    assert fits.loc["SULT", "worst_age"] == "55y0m"
    assert fits.loc["SULT", "implied_interest"] == pytest.approx(0.0608, abs=1e-4)


def test_implied_interest_of_a_guide_that_fits_best_below_the_rates_searched_is_blank(
    half_percent,
):
    # 3% a year before 65 (0.7 at 55, 0.85 at 60) is above SULT's equivalent factors even at
    # 0% (0.691 at 55, 0.818 at 60): only a negative rate comes near it. The page said 0.00%.
    import dataclasses

    three_percent = dataclasses.replace(
        half_percent, age_months=np.array([660, 780]), factors=np.array([0.7, 1.0])
    )
    fits = review.implied_interest(three_percent, {"SULT": "sult"})
    assert np.isnan(fits.loc["SULT", "implied_interest"])


def test_factor_grid_equals_the_factor_computed_one_cell_at_a_time():
    table = sult()
    grid = review.factor_grid(table, [55 * 12, 60 * 12 + 6], [0.03, 0.05])
    assert grid.columns.tolist() == ["3%", "5%"]
    for age_label, age in (("55y0m", 55.0), ("60y6m", 60.5)):
        for rate_label, rate in (("3%", 0.03), ("5%", 0.05)):
            expected = float(early_retirement_factor(table, age, rate))
            assert grid.loc[age_label, rate_label] == pytest.approx(expected, rel=1e-12)


def test_scale_mortality_multiplies_q_and_caps_it_at_one():
    table = sult()
    heavier = review.scale_mortality(table, 3.0)
    assert heavier.q(60) == pytest.approx(3 * table.q(60))
    assert heavier.qx.max() == 1.0
    assert heavier.name == "SULT x 3"


def test_scale_mortality_refuses_a_scale_that_is_not_positive():
    with pytest.raises(MortalityError, match=r"^'scale' must be a number > 0 \(got 0\)$"):
        review.scale_mortality(sult(), 0)


def test_mortality_sensitivity_at_scale_one_is_the_table_itself():
    table = sult()
    frame = review.mortality_sensitivity(table, [55 * 12, 64 * 12], 0.05, [0.8, 1.0])
    assert frame.columns.tolist() == ["q x 0.8", "q x 1"]
    assert frame["q x 1"].tolist() == pytest.approx(
        early_retirement_factor(table, np.array([55.0, 64.0]), 0.05).tolist(), rel=1e-12
    )
    assert (frame["q x 0.8"] > frame["q x 1"]).all()  # more survivors, smaller reduction


# ----------------------------------------------------------------- a membership
MEMBERS = pd.DataFrame(
    {
        "member_id": ["A-65", "BAD", "OUT", "P-58"],
        "birth_date": ["1948-07-01", "1960-01-01", "1950-01-01", "1963-05-20"],
        "entry_date": ["1990-07-02", "1990-07-02", "1989-01-01", "1990-06-01"],
        "separation_date": ["2013-07-01", "2015-01-01", "2016-01-01", "2021-09-15"],
        "credited_service": ["10", "-1", "26", "31"],
        "average_compensation": ["12000", "30000", "30000", "42000"],
        "group": ["general", "general", "general", "police"],
        "refunded": ["false", "false", "false", "false"],
    }
)


@pytest.fixture(scope="module")
def results(half_percent_guides):
    return evaluate_frame(MEMBERS, half_percent_guides, source="members.csv")


def test_membership_counts_account_for_every_row(results):
    assert review.membership_counts(results).to_dict() == {
        "members read": 4,
        "invalid rows": 1,
        "rows with warnings": 0,
        "valid members": 3,
        "covered by Chapter 2": 2,
        "not covered (I-1)": 1,
    }


def test_clause_summary_adds_up_the_clause_rows(results):
    summary = review.clause_summary(results)
    assert summary["eligible"].to_dict() == {"a": 1, "b": 1, "c": 1, "d": 1}
    # 1.5% x 12,000 x 10 = 1,800 a year, 150 a month, lifted to 500 from 2013-07-01.
    # P-58: (b) 75% x 42,000 / 12 = 2,625; (d) 1.5% x 42,000 x 31 / 12 = 1,627.50;
    # (c) 19,530 x (1 - 0.005 x 81) / 12 = 968.36.
    assert summary["monthly_total"].to_dict() == pytest.approx(
        {"a": 500.00, "b": 2_625.00, "c": 968.36, "d": 1_627.50}, abs=0.005
    )
    assert summary["lifted_by_minimum"].to_dict() == {"a": 1, "b": 0, "c": 0, "d": 0}
    assert summary.loc["a", "minimum_topup_total"] == pytest.approx(350.00, abs=0.005)
    assert summary["errors"].sum() == 0


def test_lifted_by_minimum_shows_the_amount_before_the_top_up(results):
    lifted = review.lifted_by_minimum(results)
    assert lifted.to_dict("records") == [
        {
            "row": 1,
            "member_id": "A-65",
            "clause": "a",
            "monthly_before_minimum": 150.00,
            "minimum_topup": 350.00,
            "monthly_amount": 500.00,
        }
    ]


def test_invalid_rows_give_row_member_and_message(results):
    invalid = review.invalid_rows(results)
    assert invalid.to_dict("records") == [
        {
            "row": 2,
            "member_id": "BAD",
            "error": "members.csv row 2 (member 'BAD'): 'credited_service' must be >= 0 (got -1)",
        }
    ]


def test_benefits_by_clause_has_one_column_per_clause(results):
    benefits = review.benefits_by_clause(results)
    assert benefits.columns.tolist() == [f"inciso ({c})" for c in "abcd"]
    assert benefits["inciso (b)"].dropna().tolist() == [2_625.00]


def test_clause_summary_of_an_evaluation_as_of_a_later_date_keeps_the_minimum(
    half_percent_guides,
):
    later = evaluate_frame(
        MEMBERS, half_percent_guides, as_of=dt.date(2025, 7, 1), source="members.csv"
    )
    assert review.clause_summary(later).loc["a", "monthly_total"] == pytest.approx(500.00)


# ----------------------------------------------------------------- data-quality warnings
# Each row breaks the rules named beside it (members.WARNING_RULES); as of 2026-06-01.
WARNED = pd.DataFrame(
    {
        "member_id": ["YOUNG", "LOW", "RICH", "LATE", "CLEAN", "BAD"],
        "birth_date": ["1960-01-01"] * 6,
        "entry_date": ["1975-06-01", "1995-01-01", "1995-01-01", "1995-01-01", "1995-01-01",
                       "1995-01-01"],
        "separation_date": ["2025-01-01"] * 3 + ["2026-07-01", "2025-01-01", "2025-01-01"],
        "credited_service": ["30", "40", "30", "30", "30", "-1"],
        "average_compensation": ["40000", "800", "2000000", "40000", "40000", "800"],
        "group": ["general"] * 6,
        "refunded": ["false"] * 6,
    }
)  # fmt: skip
WARNED_AS_OF = dt.date(2026, 6, 1)


@pytest.fixture(scope="module")
def warned_results(half_percent_guides):
    return evaluate_frame(WARNED, half_percent_guides, as_of=WARNED_AS_OF, source="members.csv")


def test_warnings_by_rule_counts_the_members_each_rule_flags(warned_results):
    table = review.warnings_by_rule(warned_results)
    assert table.to_dict("list") == {
        "field": ["entry_date", "credited_service", "average_compensation",
                  "average_compensation", "separation_date", ""],
        "rule": [
            "is before age 16",
            "is longer than the time from 'entry_date' to 'separation_date'",
            "is below 1,000 a year, the bottom of plausible amounts",
            "is above 1,000,000 a year, the top of plausible amounts",
            "is after the payment date (as_of)",
            "any rule",
        ],
        # LOW breaks two rules and is one member; BAD is invalid: an error, no warning.
        "members": [1, 1, 1, 1, 1, 4],
    }  # fmt: skip


def test_warnings_by_rule_of_a_file_without_warnings_is_all_zero(results):
    assert review.warnings_by_rule(results)["members"].tolist() == [0] * 6


def test_every_warning_message_opens_with_its_rule_and_no_rule_opens_another():
    from actuarial.members import WARNING_RULES, WARNING_SEPARATOR

    openings = [rule.opening for rule in WARNING_RULES]
    assert len(set(openings)) == len(openings)
    assert not any(a != b and b.startswith(a) for a in openings for b in openings)
    assert not any(WARNING_SEPARATOR in opening for opening in openings)


def test_membership_counts_and_clause_summary_count_rows_with_warnings(warned_results):
    counts = review.membership_counts(warned_results)
    assert (counts["invalid rows"], counts["rows with warnings"]) == (1, 4)
    summary = review.clause_summary(warned_results)
    eligible = warned_results.loc[warned_results["eligible"]]
    expected = eligible.loc[eligible["warnings"] != ""].groupby("clause", observed=True).size()
    assert summary["warnings"].to_dict() == {
        clause: int(expected.get(clause, 0)) for clause in "abcd"
    }
    assert summary["warnings"].sum() > 0


def test_the_numbers_asked_before_the_law_are_those_paid_from_its_first_date():
    """A report --as-of 1985-01-01 stopped at the numbers of its prose and its readings:
    'minimum_monthly_pension' has no value in force then. No annuity is paid before the
    law's first date (1990-04-01), so the numbers are those paid from it."""
    first = dt.date(1990, 4, 1)
    for before in (first - dt.timedelta(days=1), dt.date(1985, 1, 1), "1985-01-01"):
        assert review.law_numbers(None, before) == review.law_numbers(None, first)
        assert review.readings_in_force(None, None, before) == review.readings_in_force(
            None, None, first
        )
    # Later dates are read as they are: the minimum of 2013-07-01 from that day on.
    assert review.law_numbers(None, "2013-06-30")["minimum"] == "$0"
    assert review.law_numbers(None, "2013-07-01")["minimum"] == "$500"


def test_the_minimum_is_paid_from_the_date_its_amount_began_not_from_a_restatement(tmp_path):
    # minimum_from was 2020-01-01, the date of an entry restating the $500 of 2013-07-01.
    bill = tmp_path / "bill.toml"
    bill.write_text(law_entry("minimum_monthly_pension", "2020-01-01", 500, "USD a month"))
    numbers = review.law_numbers(bill, "2026-01-01")
    assert (numbers["minimum"], numbers["minimum_from"]) == ("$500", "2013-07-01")
    assert review.law_numbers(bill) == review.law_numbers(None)


# --------------------------------------------------------------------- amendments
def test_amendment_entries_are_the_files_entries_with_what_the_shipped_law_holds(tmp_path):
    first, second = tmp_path / "first.toml", tmp_path / "second.toml"
    first.write_text(
        law_entry("minimum_monthly_pension", "2027-01-01", 600, "USD a month")
        + law_entry("early_retirement.minimum_service", "1985-01-01", 20, "years")
    )
    second.write_text(law_entry("deferred.age", "2030-07-01", 67, "years"))
    with pytest.warns(LawNote, match="never in force"):  # 1985: before the shipped law
        entries = review.amendment_entries(load_law(first, second))
    assert entries.loc[1, "shipped value"] == ""  # the shipped law holds none on that date
    assert list(entries.columns) == [
        "parameter", "effective_from", "value", "unit", "read on", "shipped value",
        "takes effect", "file",
    ]  # fmt: skip
    assert entries.to_dict("records") == [
        {"parameter": "minimum_monthly_pension", "effective_from": dt.date(2027, 1, 1),
         "value": "$600.00", "unit": "USD a month", "read on": "payment date",
         "shipped value": "$500.00", "takes effect": "yes", "file": "first.toml"},
        {"parameter": "early_retirement.minimum_service", "effective_from": dt.date(1985, 1, 1),
         "value": "20", "unit": "years", "read on": "separation date",
         "shipped value": "",
         "takes effect": "never (replaced on or before 1990-04-01, the law's first date)",
         "file": "first.toml"},
        {"parameter": "deferred.age", "effective_from": dt.date(2030, 7, 1), "value": "67",
         "unit": "years", "read on": "separation date", "shipped value": "65",
         "takes effect": "yes", "file": "second.toml"},
    ]  # fmt: skip
    assert review.amendment_entries(None).empty  # the shipped law adds nothing to itself


def test_an_entry_never_in_force_is_marked_so_among_the_amendment_entries(tmp_path):
    # It was listed as any other, though the LawNote says it never takes effect.
    bill = tmp_path / "bill.toml"
    bill.write_text(
        law_entry("deferred.age", "1980-01-01", 60, "years")
        + law_entry("deferred.age", "2030-01-01", 67, "years")
    )
    with pytest.warns(LawNote, match="never in force"):
        entries = review.amendment_entries(bill)
    assert entries[["effective_from", "value", "takes effect"]].to_dict("records") == [
        {"effective_from": dt.date(1980, 1, 1), "value": "60",
         "takes effect": "never (replaced on or before 1990-04-01, the law's first date)"},
        {"effective_from": dt.date(2030, 1, 1), "value": "67", "takes effect": "yes"},
    ]  # fmt: skip


def test_a_bills_numbers_are_shown_as_written_never_rounded(tmp_path):
    # A page's float format (two places) showed a rate of 0.0175 as 0.02, and the prose's
    # "{:g}" cut a rate or a service to six digits and a minimum of $550.50 to "$550".
    bill = tmp_path / "bill.toml"
    bill.write_text(
        law_entry("minimum_monthly_pension", "2027-01-01", 550.5, "USD a month")
        + law_entry("service_annuity.rate", "2027-01-01", 0.0123456789, "rate")
        + law_entry("early_retirement.minimum_service", "2027-01-01", 20.1234567, "years")
        + law_entry("coverage.first_entry_before", "2027-01-01", "2001-01-01", "date")
    )
    entries = review.amendment_entries(bill)
    assert list(entries["value"]) == ["$550.50", "1.23456789%", "20.1234567", "2001-01-01"]
    assert list(entries["shipped value"]) == ["$500.00", "1.5%", "25", "2000-01-01"]
    numbers = review.law_numbers(bill, "2027-01-01")
    assert (numbers["minimum"], numbers["minimum_cents"]) == ("$550.50", "$550.50")
    assert (numbers["rate_a"], numbers["service_c"]) == ("1.23456789%", "20.1234567")
    shipped = review.law_numbers(None, "2013-07-01")
    assert (shipped["minimum"], shipped["minimum_cents"], shipped["rate_a"]) == (
        "$500",
        "$500.00",
        "1.5%",
    )


def test_a_bill_that_lowers_the_minimum_is_counted_as_losses(half_percent_guides, tmp_path):
    bill = tmp_path / "lower.toml"
    bill.write_text(law_entry("minimum_monthly_pension", "2020-01-01", 400, "USD a month"))
    members = read_members(EXAMPLE_MEMBERS)
    as_of = dt.date(2026, 6, 1)
    before = evaluate_frame(members, half_percent_guides, as_of=as_of)
    after = evaluate_frame(members, half_percent_guides, as_of=as_of, law=load_law(bill))
    changes = review.law_comparison(before, after)
    summary = review.gains_by_clause(changes)
    # By hand: a row the $500 minimum lifted loses its top-up, down to $400 at most.
    lifted = before.loc[before["minimum_topup"] > 0]
    assert len(lifted) > 0 and len(changes) == len(lifted)
    assert summary["rows_losing"].to_dict() == {
        clause: int((lifted["clause"].astype(str) == clause).sum()) for clause in "abcd"
    }
    assert summary["rows_gaining"].sum() == summary["newly_eligible"].sum() == 0
    assert summary["no_longer_eligible"].sum() == 0
    loss = -lifted["minimum_topup"].clip(upper=100.0).sum()
    assert summary["monthly_gain_total"].sum() == pytest.approx(loss, abs=0.005)


def test_a_bill_that_defers_or_opens_a_clause_lists_every_row_it_changes(
    half_percent_guides, tmp_path
):
    # Deferred annuities from 67, not 65: the same monthly amount, two years later; early
    # retirement from 50: rows newly eligible for which the guide has no factor (no amount).
    members = read_members(EXAMPLE_MEMBERS)
    as_of = dt.date(2026, 6, 1)
    before = evaluate_frame(members, half_percent_guides, as_of=as_of)
    for parameter, value, since in [
        ("deferred.age", 67, "1990-04-01"),
        ("early_retirement.age", 50, "2000-01-01"),  # after the guides' first day: still theirs
    ]:
        bill = tmp_path / f"{parameter}.toml"
        bill.write_text(law_entry(parameter, since, value, "years"))
        after = evaluate_frame(members, half_percent_guides, as_of=as_of, law=load_law(bill))
        changes = review.law_comparison(before, after)
        summary = review.gains_by_clause(changes)
        # By hand: every row whose eligibility, start date or amount differs, and no other.
        differs = (
            (before["eligible"] != after["eligible"])
            | (
                before["start_date"].fillna(pd.Timestamp(0))
                != after["start_date"].fillna(pd.Timestamp(0))
            )
            | (before["monthly_amount"].fillna(-1) != after["monthly_amount"].fillna(-1))
        )
        assert differs.sum() > 0 and len(changes) == differs.sum()
        assert list(changes["row"]) == list(before.loc[differs, "row"])
        if parameter == "deferred.age":  # the same amounts, paid from the 67th birthday
            later = (
                before["eligible"]
                & after["eligible"]
                & (after["start_date"] > before["start_date"])
            )
            assert summary.loc["d", "rows_starting_later"] == later.sum() > 0
            assert summary["rows_starting_earlier"].sum() == 0
            moved = changes.loc[changes["eligible_before"] & changes["eligible_after"]]
            years = (moved["start_date_after"] - moved["start_date_before"]).dt.days / 365.25
            assert ((years > 1.99) & (years < 2.01)).all()
        else:  # newly eligible for (c) below 55, with no factor in the guide: no amount
            new = changes.loc[changes["eligible_after"] & ~changes["eligible_before"]]
            assert summary.loc["c", "newly_eligible"] == len(new) > 0
            assert new["monthly_amount_after"].isna().all()


def test_gains_and_losses_of_eligibility_are_counted_by_clause():
    comparison = pd.DataFrame(
        {
            "clause": ["a", "c", "c", "d", "d", "d"],
            "eligible_before": [True, False, True, True, True, False],
            "eligible_after": [True, True, False, True, True, False],
            "start_date_before": pd.to_datetime(
                ["2020-01-01", None, "2020-01-01", "2030-05-01", "2030-05-01", None]
            ),
            "start_date_after": pd.to_datetime(
                ["2020-01-01", "2027-03-01", None, "2030-05-01", "2032-05-01", None]
            ),
            "gain": [10.0, 600.0, -550.25, -1.0, 0.0, 0.0],
        }
    )
    summary = review.gains_by_clause(comparison)
    assert summary.to_dict("index") == {
        "a": {"rows_gaining": 1, "rows_losing": 0, "newly_eligible": 0,
              "no_longer_eligible": 0, "rows_starting_later": 0, "rows_starting_earlier": 0,
              "monthly_gain_total": 10.0},
        "b": {"rows_gaining": 0, "rows_losing": 0, "newly_eligible": 0,
              "no_longer_eligible": 0, "rows_starting_later": 0, "rows_starting_earlier": 0,
              "monthly_gain_total": 0.0},
        "c": {"rows_gaining": 1, "rows_losing": 1, "newly_eligible": 1,
              "no_longer_eligible": 1, "rows_starting_later": 0, "rows_starting_earlier": 0,
              "monthly_gain_total": 49.75},
        "d": {"rows_gaining": 0, "rows_losing": 1, "newly_eligible": 0,
              "no_longer_eligible": 0, "rows_starting_later": 1, "rows_starting_earlier": 0,
              "monthly_gain_total": -1.0},
    }  # fmt: skip
