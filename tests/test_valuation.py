"""Present values of the annuities: an independent monthly loop, annuity factors, properties."""

import calendar
import datetime as dt
import shutil
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import SMALL_SCALE_CSV, exactly, refused_as_input, write_sult_csv
from hypothesis import given, settings
from hypothesis import strategies as st

from actuarial import valuation
from actuarial.annuities import deferred_annuity_due
from actuarial.cli import cli
from actuarial.generational import Mortality
from actuarial.guides import SHIPPED_GUIDES, load_guides
from actuarial.law.readings import Readings
from actuarial.mortality import MortalityError, sult
from actuarial.valuation import (
    SEX_CODES,
    Basis,
    ValuationError,
    ValuationNote,
    ValuationSummary,
    member_choices,
    run_valuation,
    schedule_steps,
    sensitivities,
    sex_codes,
    value_frame,
)

GUIDES = load_guides(SHIPPED_GUIDES, "illustrative-half-percent-per-month")  # 0.5% a month
SAMPLE_MEMBERS = str(Path(__file__).resolve().parents[1] / "examples" / "members.csv")
PUB_JOINED = "soa:3397+soa:3399@50/soa:3398+soa:3400@50"


def member(member_id, birth, separation, service, compensation, group="general", sex=None):
    row = {
        "member_id": member_id,
        "birth_date": birth,
        "entry_date": "1990-05-01",
        "separation_date": separation,
        "credited_service": service,
        "average_compensation": compensation,
        "group": group,
        "refunded": "false",
    }
    if sex is not None:
        row["sex"] = sex
    return row


# Service at 65 in 2010, $270 a month (1.5% x 18,000 x 12): the $500 minimum from 2013-07-01.
IMMEDIATE_STEPPED = member("A-270", "1945-03-01", "2010-03-01", 12, 18_000)
# Deferred from the 65th birthday (2035-06-15), $1,125 a month, never below the minimum.
DEFERRED_FLAT = member("D-1125", "1970-06-15", "2016-03-01", 15, 60_000)
# Early retirement at 58y3m in 2012: reduced below $500, then lifted on 2013-07-01.
EARLY_STEPPED = member("C-58", "1954-05-10", "2012-08-31", 25, 20_000)
# Police at 52 with 30 years (65% now) and the deferred (d) from 65.
HIGH_RISK = member("B-52", "1962-01-20", "2014-02-28", 30, 45_000, group="police")


# ----------------------------------------------------------------- independent loop
def completed_months(birth: dt.date, on: dt.date) -> int:
    last = calendar.monthrange(on.year, on.month)[1]
    anniversary = min(birth.day, last)
    return (on.year - birth.year) * 12 + on.month - birth.month - (on.day < anniversary)


def plus_months(start: dt.date, k: int) -> dt.date:
    index = start.year * 12 + start.month - 1 + k
    year, month = divmod(index, 12)
    return dt.date(year, month + 1, min(start.day, calendar.monthrange(year, month + 1)[1]))


def plain_present_value(qx, min_age, birth, separation, start, steps, rate):
    """sum over monthly payments k of amount(start + k months) v^((d+k)/12) l(age)/l(A),
    l linear within each year of age, everything by hand."""
    l_integer = [1.0]
    for q in qx:
        l_integer.append(l_integer[-1] * (1 - q))

    def l_at(months):
        whole, part = divmod(months, 12)
        k = whole - min_age
        if k >= len(qx):
            return 0.0
        return l_integer[k] * (1 - part / 12 * qx[k])

    at_separation = completed_months(birth, separation)
    deferral = completed_months(birth, start) - at_separation
    total, k = 0.0, 0
    while l_at(at_separation + deferral + k) > 0:
        paid_on = plus_months(start, k)
        amount = [value for day, value in steps if day <= paid_on][-1]
        survival = l_at(at_separation + deferral + k) / l_at(at_separation)
        total += amount * (1 + rate) ** (-(deferral + k) / 12) * survival
        k += 1
    return total


def valued(rows, basis, **options):
    frame = value_frame(pd.DataFrame(rows), GUIDES, basis, **options)
    return frame.set_index(["member_id", "clause"])


def date(text):
    return dt.date.fromisoformat(text)


@pytest.mark.parametrize("rate", [0.0, 0.045, 0.07])
def test_immediate_stepped_annuity_equals_the_plain_monthly_loop(rate):
    frame = valued([IMMEDIATE_STEPPED], Basis("sult", rate))
    row = frame.loc[("A-270", "a")]
    steps = [(date("2010-03-01"), 270.0), (date("2013-07-01"), 500.0)]
    expected = plain_present_value(
        sult().qx, 20, date("1945-03-01"), date("2010-03-01"), date("2010-03-01"), steps, rate
    )
    assert row["pv_at_separation"] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("sex", ["F", "M", ""])
def test_early_and_deferred_rows_equal_the_plain_loop_on_a_generational_basis(sex):
    basis = Basis("soa:3399/soa:3400", 0.045, improvement="mp-2020")
    frame = valued([{**EARLY_STEPPED, "sex": sex}], basis)
    table = basis.mortality.table({"F": "F", "M": "M", "": None}[sex], 1954)
    birth, separation = date("1954-05-10"), date("2012-08-31")
    early = frame.loc[("C-58", "c")]
    monthly_before = round(early["annual_amount"] / 12 + 1e-9, 2)
    assert monthly_before < 500
    stepped = [(separation, monthly_before), (date("2013-07-01"), 500.0)]
    expected_c = plain_present_value(table.qx, 50, birth, separation, separation, stepped, 0.045)
    assert early["pv_at_separation"] == pytest.approx(expected_c, rel=1e-12)
    deferred = frame.loc[("C-58", "d")]
    start = date("2019-05-10")
    flat = [(start, deferred["monthly_amount"])]
    expected_d = plain_present_value(table.qx, 50, birth, separation, start, flat, 0.045)
    assert deferred["pv_at_separation"] == pytest.approx(expected_d, rel=1e-12)
    assert early["value_over_deferred"] == pytest.approx(expected_c - expected_d, rel=1e-10)


def test_high_risk_row_is_valued_over_the_deferred_row():
    frame = valued([HIGH_RISK], Basis("sult", 0.05))
    high_risk, deferred = frame.loc[("B-52", "b")], frame.loc[("B-52", "d")]
    birth, separation = date("1962-01-20"), date("2014-02-28")
    expected_b = plain_present_value(
        sult().qx,
        20,
        birth,
        separation,
        separation,
        [(separation, high_risk["monthly_amount"])],
        0.05,
    )
    assert high_risk["pv_at_separation"] == pytest.approx(expected_b, rel=1e-12)
    assert high_risk["value_over_deferred"] == pytest.approx(
        expected_b - deferred["pv_at_separation"], rel=1e-12
    )
    assert np.isnan(frame.loc[("B-52", "a")]["pv_at_separation"])
    assert np.isnan(deferred["value_over_deferred"])


@pytest.mark.parametrize("rate", [0.03, 0.05])
def test_flat_deferred_schedule_is_amount_times_12_times_the_deferred_monthly_annuity(rate):
    frame = valued([DEFERRED_FLAT], Basis("sult", rate))
    row = frame.loc[("D-1125", "d")]
    assert row["monthly_amount"] == 1125.0
    at_separation = (45 * 12 + 8) / 12  # 45y8m on 2016-03-01
    deferral = (65 * 12 - (45 * 12 + 8)) / 12
    factor = deferred_annuity_due(sult(), at_separation, deferral, rate, 12)
    assert row["pv_at_separation"] == pytest.approx(1125.0 * 12 * factor, rel=1e-12)


def test_the_steps_valued_are_the_engines_schedule():
    from actuarial.engine import evaluate_frame, evaluate_members
    from actuarial.members import parse_members

    frame = pd.DataFrame([IMMEDIATE_STEPPED])
    results = evaluate_members(parse_members(frame), GUIDES)
    dates, amounts = schedule_steps(results)
    present = ~np.isnat(dates[0, 0])
    assert dates[0, 0][present].tolist() == [date("2010-03-01"), date("2013-07-01")]
    assert amounts[0, 0][present].tolist() == [270.0, 500.0]
    schedule = evaluate_frame(frame, GUIDES).set_index("clause").loc["a", "schedule"]
    assert schedule == "2010-03-01 270.00; 2013-07-01 500.00"


def test_a_member_the_table_does_not_cover_gets_an_error_and_the_rest_are_valued():
    frame = valued([DEFERRED_FLAT, IMMEDIATE_STEPPED], Basis("soa:3399/soa:3400", 0.045))
    deferred = frame.loc[("D-1125", "d")]
    assert np.isnan(deferred["pv_at_separation"])
    assert deferred["error"] == (
        "valuation: age at separation 45y8m is below 50, the first age of table "
        "'50% PubG-2010 Female Retiree + 50% PubG-2010 Male Retiree'"
    )
    assert frame.loc[("D-1125", "a")]["error"] == ""  # not eligible: nothing to value
    assert frame.loc[("A-270", "a")]["pv_at_separation"] > 0


@pytest.mark.filterwarnings("error")
def test_a_member_past_a_q_of_one_before_the_tables_last_age_gets_an_error(tmp_path):
    # q_57 = 1: no one is alive from 58 on, although the table goes on to 60. Before, the
    # member at 58y3m had blank values, no error, a warning of a division by zero, and
    # the summary did not count him as not valued.
    path = tmp_path / "ends-early.csv"
    path.write_text("age,qx\n55,0.1\n56,0.2\n57,1\n58,0.3\n59,0.4\n60,1\n")
    frame = valued([EARLY_STEPPED], Basis(f"csv:{path}", 0.05))
    assert frame.loc[("C-58", "c")]["error"] == (
        "valuation: age at separation 58y3m is at or beyond 58, where no one is alive in "
        "table 'ends-early'"
    )
    assert frame["pv_at_separation"].isna().all()


def test_a_joined_basis_covers_the_whole_membership():
    frame = valued([DEFERRED_FLAT, IMMEDIATE_STEPPED], Basis(PUB_JOINED, 0.045))
    assert frame.loc[("D-1125", "d")]["pv_at_separation"] > 0
    assert (frame["error"] == "").all()


def test_sex_picks_the_side_and_an_empty_sex_takes_the_stated_blend():
    rows = [{**DEFERRED_FLAT, "member_id": s or "none", "sex": s} for s in ("F", "M", "")]
    basis = Basis(PUB_JOINED, 0.045)
    frame = valued(rows, basis)
    female, male, blended = (frame.loc[(k, "d")]["pv_at_separation"] for k in ("F", "M", "none"))
    assert female > blended > male
    heavier = valued(rows, Basis(PUB_JOINED, 0.045, female_weight=0.8))
    assert heavier.loc[("none", "d")]["pv_at_separation"] > blended
    assert heavier.loc[("F", "d")]["pv_at_separation"] == female


def test_a_bad_sex_is_an_error_on_that_member_only():
    rows = [{**DEFERRED_FLAT, "sex": "X"}, {**IMMEDIATE_STEPPED, "sex": "f"}]
    frame = valued(rows, Basis(PUB_JOINED, 0.045))
    assert (
        frame.loc[("D-1125", "d")]["error"]
        == "members row 1 (member 'D-1125'): 'sex' must be in ['F', 'M', ''] (got 'X')"
    )
    assert np.isnan(frame.loc[("D-1125", "d")]["pv_at_separation"])
    assert frame.loc[("A-270", "a")]["pv_at_separation"] > 0


def test_a_bad_sex_on_a_member_with_no_eligible_row_is_no_error_and_not_counted(tmp_path):
    # docs/valuation.md: a member with no eligible row has nothing to value. Before, the
    # summary counted him as not valued while no row of the table carried an error.
    refunded = {**DEFERRED_FLAT, "member_id": "R-1", "refunded": "true", "sex": "X"}
    rows = [{**EARLY_STEPPED, "sex": "F"}, refunded, {**DEFERRED_FLAT, "sex": "M"}]
    members, out = tmp_path / "members.csv", tmp_path / "values.csv"
    pd.DataFrame(rows).to_csv(members, index=False)
    basis = Basis(PUB_JOINED, 0.045)
    summary = run_valuation(members, GUIDES, basis, out, with_sensitivities=False)
    table = pd.read_csv(out, keep_default_na=False)
    assert (table["error"] == "").all()
    assert summary.not_valued == 0
    assert "not valued: 0, each one's error says why)" in summary.lines()[0]
    choices = member_choices(refunded, GUIDES, basis)
    assert (choices["error"] == "").all() and not choices["eligible"].any()


def test_every_sensitivity_leaves_out_the_member_with_a_bad_sex_as_the_basis_does():
    # Before, the q x 0.9, q x 1.1 and guide-series scenarios valued him on the blend.
    good = [{**EARLY_STEPPED, "sex": "F"}, {**DEFERRED_FLAT, "sex": "M"}]
    bad = {**EARLY_STEPPED, "member_id": "C-X", "sex": "X"}
    basis = Basis(PUB_JOINED, 0.045)
    series = {"sult": load_guides(SHIPPED_GUIDES, "sult-5pct-monthly")}
    alone = sensitivities(pd.DataFrame(good), GUIDES, basis, series=series)
    with_bad = sensitivities(pd.DataFrame([*good, bad]), GUIDES, basis, series=series)
    pd.testing.assert_frame_equal(with_bad, alone)


def test_a_bad_sex_builds_no_table_so_a_blend_that_does_not_run_out_stops_no_one(tmp_path):
    # The female table ends at 100 (q = 1), SULT goes on: the blend for members of
    # unstated sex has q_100 below 1 and does not run out. Before, a member with a bad sex
    # was valued on that blend before his values were dropped, and the whole valuation was
    # refused: "table '50% female + 50% SULT' does not run out".
    female = write_sult_csv(tmp_path / "female.csv", range(20, 100))
    with female.open("a") as rates:
        rates.write("100,1\n")
    rows = [
        {**DEFERRED_FLAT, "sex": "F"},
        {**DEFERRED_FLAT, "member_id": "M-1", "sex": "M"},
        {**DEFERRED_FLAT, "member_id": "X-1", "sex": "X"},
    ]
    frame = valued(rows, Basis(f"csv:{female}/sult", 0.045))
    assert frame.loc[("X-1", "d")]["error"] == (
        "members row 3 (member 'X-1'): 'sex' must be in ['F', 'M', ''] (got 'X')"
    )
    assert frame.loc[("D-1125", "d")]["pv_at_separation"] > 0
    assert frame.loc[("M-1", "d")]["pv_at_separation"] > 0


def test_a_unisex_basis_does_not_read_sex():
    rows = [{**DEFERRED_FLAT, "sex": "X"}, {**DEFERRED_FLAT, "member_id": "D-2", "sex": "F"}]
    frame = valued(rows, Basis("sult", 0.05))
    assert (frame["error"] == "").all()
    values = frame.xs("d", level="clause")["pv_at_separation"]
    assert values["D-1125"] == values["D-2"] > 0


@pytest.mark.parametrize(
    ("sex", "shown"),
    [(1, "1"), (True, "True"), (2.5, "2.5"), ([1], "[1]"), ("é\x1b", "'é\\x1b'"),
     (b"\xff", "b'\\xff'"), (b"X", "b'X'"), (10**400, "1" + "0" * 79 + "…")],
)  # fmt: skip
def test_a_sex_that_is_not_text_is_shown_as_given(sex, shown):
    frame = pd.DataFrame([{**DEFERRED_FLAT}]).assign(sex=pd.Series([sex]))
    _, errors = sex_codes(frame)
    assert errors.tolist() == [f"members row 1: 'sex' must be in ['F', 'M', ''] (got {shown})"]


def test_a_sex_in_utf8_bytes_is_the_text_it_holds():
    # As every field reads bytes; before, bytes that are not UTF-8 ended in a traceback.
    frame = pd.DataFrame([{**DEFERRED_FLAT, "member_id": f"S-{i}"} for i in range(4)])
    codes, errors = sex_codes(frame.assign(sex=pd.Series([b"F", b" m ", "F", None])))
    assert codes.tolist() == [SEX_CODES.index(s) for s in ("F", "M", "F", "")]
    assert errors.tolist() == ["", "", "", ""]


def test_a_table_that_does_not_run_out_is_refused_unless_closed():
    with pytest.raises(MortalityError, match="'PubG-2010 Male Employee' does not run out"):
        valued([DEFERRED_FLAT], Basis("soa:3398", 0.045))
    closed = valued([DEFERRED_FLAT], Basis("soa:3398", 0.045, close_at=81))
    assert closed.loc[("D-1125", "d")]["pv_at_separation"] > 0


def test_the_basis_records_itself():
    basis = Basis("soa:3399/soa:3400", 0.045, improvement="mp-2020")
    assert basis.as_dict() == {
        "mortality": "soa:3399/soa:3400",
        "female_weight": 0.5,
        "improvement": "mp-2020",
        "base_years": [2010],  # Pub-2010's own: before, recorded nowhere
        "interest": 0.045,
        "payments": "monthly in advance, for life, from the start date",
        "fractional_ages": "udd",
        "time": "whole months from the age at separation in completed months (I-6)",
    }
    for rate, shown in ((-1, "-1"), (float("inf"), "inf"), (float("nan"), "nan")):
        rule = rf"^'interest' must be a finite rate > -1 \(got {shown}\)$"
        with pytest.raises(ValuationError, match=rule):
            Basis("sult", rate)
    with pytest.raises(ValuationError, match=r"^'interest' must be a number \(got '0.045'\)$"):
        Basis("sult", "0.045")


# ----------------------------------------------------------------- properties
ROWS = [IMMEDIATE_STEPPED, DEFERRED_FLAT, EARLY_STEPPED, HIGH_RISK]


@settings(max_examples=20, deadline=None)
@given(rate=st.floats(-0.02, 0.12), step=st.floats(0.001, 0.05))
def test_values_decrease_with_interest(rate, step):
    low = valued(ROWS, Basis("sult", rate))["pv_at_separation"]
    high = valued(ROWS, Basis("sult", rate + step))["pv_at_separation"]
    known = low.notna()
    assert (high[known] < low[known]).all()


@settings(max_examples=10, deadline=None)
@given(rate=st.floats(0.0, 0.02), extra=st.floats(0.002, 0.02))
def test_values_increase_with_improvement(tmp_path_factory, rate, extra):
    folder = tmp_path_factory.mktemp("scales")
    values = []
    for improvement in (rate, rate + extra):
        path = folder / f"flat-{improvement}.csv"
        path.write_text(
            "age,2011\n" + "".join(f"{a},{improvement if a < 120 else 0}\n" for a in range(18, 121))
        )
        basis = Basis(PUB_JOINED, 0.045, improvement=f"csv:{path}")
        values.append(valued(ROWS, basis)["pv_at_separation"])
    known = values[0].notna()
    assert known.sum() == 6
    assert (values[1][known] > values[0][known]).all()


def test_mp2020_values_exceed_the_static_base_table():
    static = valued(ROWS, Basis(PUB_JOINED, 0.045))["pv_at_separation"]
    projected = valued(ROWS, Basis(PUB_JOINED, 0.045, improvement="mp-2020"))["pv_at_separation"]
    known = static.notna()
    assert (projected[known] > static[known]).all()


# ----------------------------------------------------------------- sensitivities, CLI
def test_sensitivities_move_the_way_they_must_and_name_capped_ages():
    frame = pd.DataFrame(ROWS)
    table = sensitivities(
        frame,
        GUIDES,
        Basis("sult", 0.05),
        series={"sult": load_guides(SHIPPED_GUIDES, "sult-5pct-monthly")},
    )
    by = table.set_index("scenario")
    assert (
        by.loc["interest +1pp", "pv_d"] < by.loc["basis", "pv_d"] < by.loc["interest -1pp", "pv_d"]
    )
    assert by.loc["q x 1.1", "pv_d"] < by.loc["basis", "pv_d"] < by.loc["q x 0.9", "pv_d"]
    assert by.loc["q x 1.1", "note"].startswith("q capped at 1 at ages ")
    assert by.loc["q x 0.9", "note"] == "no q capped"
    # the (c) member on the SULT 5% equivalent guide gets a higher factor than 0.5%/month
    assert by.loc["series sult", "pv_c"] > by.loc["basis", "pv_c"]
    assert by.loc["series sult", "subsidy_change"] == pytest.approx(
        by.loc["series sult", "total_subsidy"] - by.loc["basis", "total_subsidy"]
    )


def test_every_scenario_totals_the_rows_the_basis_values_and_says_what_it_left_out(make_guide):
    # The guide in force ends before C-58 separates: its (c) row is not valued on the basis.
    # Before, the guide-series scenario valued it and called the difference a change of
    # subsidy (the cost of adopting that series), comparing different rows.
    until = "effective_from = 1990-04-01\neffective_until = 2012-01-01"
    ended = make_guide(
        "ended", toml=lambda text: text.replace("effective_from = 1990-04-01", until)
    )
    guides = load_guides(ended.parent, "ended")
    basis_frame = value_frame(pd.DataFrame(ROWS), guides, Basis("sult", 0.05))
    early = basis_frame.set_index(["member_id", "clause"]).loc[("C-58", "c")]
    assert early["error"].startswith("no Actuarial Guide of series 'ended' is in force")
    table = sensitivities(pd.DataFrame(ROWS), guides, Basis("sult", 0.05), series={"half": GUIDES})
    by = table.set_index("scenario")
    assert by.loc["series half", "note"] == "1 row not valued on the basis is left out"
    assert by.loc["series half", "pv_c"] == by.loc["basis", "pv_c"] == 0
    assert by.loc["series half", "subsidy_change"] == 0


def test_the_summary_counts_the_eligible_rows_not_valued_and_each_has_its_error(
    make_guide, tmp_path
):
    # Before, an eligible row with no guide in force (or a bad sex) was simply missing
    # from the totals: no line of the summary counted it.
    until = "effective_from = 1990-04-01\neffective_until = 2012-01-01"
    ended = make_guide(
        "ended", toml=lambda text: text.replace("effective_from = 1990-04-01", until)
    )
    members, out = tmp_path / "members.csv", tmp_path / "values.csv"
    rows = [*ROWS, {**DEFERRED_FLAT, "member_id": "X-1", "sex": "X"}]
    pd.DataFrame(rows).to_csv(members, index=False)
    guides = load_guides(ended.parent, "ended")
    summary = run_valuation(members, guides, Basis(PUB_JOINED, 0.05), out, with_sensitivities=False)
    table = pd.read_csv(out, keep_default_na=False)
    not_valued = table[table["eligible"] & (table["pv_at_separation"] == "")]
    assert list(zip(not_valued["member_id"], not_valued["clause"], strict=True)) == [
        ("C-58", "c"),
        ("X-1", "d"),
    ]
    assert (not_valued["error"] != "").all()
    assert "eligible rows not valued: 2 (each row's error says why)" in summary.lines()


@pytest.mark.parametrize("rate", [-0.995, -0.99])
def test_an_interest_minus_one_point_at_or_below_minus_one_is_not_valued_and_says_so(rate):
    # Before, the whole valuation ended in a traceback from the annuities.
    table = sensitivities(pd.DataFrame(ROWS), GUIDES, Basis("sult", rate)).set_index("scenario")
    below = table.loc["interest -1pp"]
    assert below.drop("note").isna().all()
    assert (
        below["note"] == f"not valued: 'interest' must be a finite rate > -1 (got {rate - 0.01:g})"
    )
    others = table.drop(index="interest -1pp")
    assert np.isfinite(others.drop(columns="note").to_numpy(float)).all()
    assert (others.loc[["basis", "interest +1pp"], "note"] == "").all()


@pytest.mark.filterwarnings("error")
def test_a_rate_whose_values_pass_the_largest_float_is_refused_not_left_blank(tmp_path):
    # Before: every eligible row blank, no error, 'not valued: 0', totals $0.00 (0 rows).
    with pytest.raises(ValuationError) as refused:
        valued(ROWS, Basis("sult", -0.999999))
    assert str(refused.value) == (
        "'interest' -0.999999 is too close to -1 for table 'SULT': the value at age 45.6667 "
        "passes the largest float (1.8e+308)"
    )
    # Each member's (d) 1.0001e308 is a float, their total is not: it is refused too.
    members = tmp_path / "members.csv"
    pd.DataFrame([EARLY_STEPPED, {**EARLY_STEPPED, "member_id": "C-2"}]).to_csv(
        members, index=False
    )
    rate = -0.9999916575
    alone = valued([EARLY_STEPPED], Basis("sult", rate))["pv_at_separation"]
    assert alone.max() == pytest.approx(1.0001e308, rel=1e-4)
    with pytest.raises(ValuationError) as refused:
        run_valuation(members, GUIDES, Basis("sult", rate), tmp_path / "v.csv")
    assert str(refused.value) == (
        "'interest' -0.9999916575 is too close to -1: a total passes the largest float (1.8e+308)"
    )


@pytest.mark.filterwarnings("error")
def test_a_sensitivity_whose_values_pass_the_largest_float_alone_is_not_valued():
    table = sensitivities(pd.DataFrame(ROWS), GUIDES, Basis("sult", -0.98999))
    by = table.set_index("scenario")
    assert by.loc["interest -1pp", "note"] == (
        "not valued: 'interest' -0.99999 is too close to -1 for table 'SULT': the value at "
        "age 45.6667 passes the largest float (1.8e+308)"
    )
    assert by.loc["interest -1pp"].drop("note").isna().all()
    assert np.isfinite(by.drop(index="interest -1pp").drop(columns="note").to_numpy(float)).all()


def test_a_generational_basis_describes_the_base_year_of_its_tables():
    basis = Basis("soa:3399/soa:3400", 0.045, improvement="mp-2020")
    assert basis.describe().endswith(
        "generational, improvement mp-2020; base year 2010 (the tables' own); interest 4.5%; "
        "monthly, UDD"
    )


def test_a_huge_rate_is_described_as_given_not_as_inf():
    assert Basis("sult", 1e308).describe() == "mortality sult; interest 1e+310%; monthly, UDD"
    assert Basis("sult", 0.045).describe() == "mortality sult; interest 4.5%; monthly, UDD"
    assert Basis("sult", -0.5).describe() == "mortality sult; interest -50%; monthly, UDD"
    assert Basis("sult", -0.0).describe() == "mortality sult; interest 0%; monthly, UDD"


def test_a_basis_takes_numpys_numbers_as_its_interest():
    # Before, np.int64(0) and np.float32 were refused as "not a number".
    for rate, read in ((np.int64(0), 0), (np.float32(0.045), 0.045), (np.float64(0.045), 0.045)):
        basis = Basis("sult", rate)
        assert type(basis.interest) is float and basis.interest == read  # float32: as shown
    assert Basis("sult", np.float32(0.045)).describe() == Basis("sult", 0.045).describe()
    # A Decimal was refused as "'interest' must be a number (got Decimal('0.045'))".
    assert Basis("sult", Decimal("0.045")).interest == 0.045
    with pytest.raises(ValuationError, match=r"^'interest' must be a finite rate > -1 \(got "):
        Basis("sult", Decimal("NaN"))
    assert Basis("sult", np.int64(0)).describe() == Basis("sult", 0.0).describe()
    for refused in (True, np.bool_(True), "0.045", None):
        with pytest.raises(ValuationError, match=r"^'interest' must be a number"):
            Basis("sult", refused)


@pytest.mark.parametrize(
    ("rate", "shown"),
    [(10**400, "1e+400"), (-(10**400), "-1e+400"), (Decimal("1e400"), "1e+400"),
     (Fraction(10**400, 3), "3.33333e+399")],
    ids=["int", "negative int", "Decimal", "Fraction"],
)  # fmt: skip
def test_a_rate_no_float_can_hold_is_refused_naming_it(rate, shown):
    # Before: a raw OverflowError "int too large to convert to float" (a Decimal: "got inf").
    with pytest.raises(ValuationError) as refused:
        Basis("sult", rate)
    assert str(refused.value) == (
        f"'interest' must be a number a float can hold, from -1.8e+308 to 1.8e+308 (got {shown})"
    )


def test_the_summary_counts_one_row_as_a_row():
    # Before: "(1 rows)".
    summary = ValuationSummary(basis={}, subsidy_rows=1)
    summary.valued_rows.update(a=1, b=2, c=0)
    lines = summary.lines()
    assert "(a) $0.00 (1 row); (b) $0.00 (2 rows); (c) $0.00 (0 rows)" in lines[1]
    assert lines[2].endswith("$0.00 (1 row)")
    summary.totals["b"], summary.total_subsidy = -1_234.5, -210_990.18
    lines = summary.lines()
    assert "(b) -$1,234.50 (2 rows)" in lines[1] and ": -$210,990.18 (1 row)" in lines[2]


def test_the_summary_shows_a_scenario_not_valued_empty_and_a_change_of_nothing_as_zero(
    tmp_path,
):
    # docs/valuation.md: its totals are empty. Before, they were printed NaN; and a change
    # of -1e-12 was printed -0.00.
    members = tmp_path / "members.csv"
    pd.DataFrame(ROWS).to_csv(members, index=False)
    summary = run_valuation(members, GUIDES, Basis("sult", -0.995), tmp_path / "v.csv")
    lines = summary.lines()
    below = next(line for line in lines if line.strip().startswith("interest -1pp"))
    assert below.split() == [
        "interest", "-1pp", "not", "valued:", "'interest'", "must", "be", "a", "finite",
        "rate", ">", "-1", "(got", "-1.005)",
    ]  # fmt: skip
    assert "NaN" not in "\n".join(lines)
    tiny = pd.DataFrame({"scenario": ["basis"], "subsidy_change": [-1e-12]})
    assert ValuationSummary(basis={}, sensitivities=tiny).lines()[-1].split() == ["basis", "0.00"]


def test_the_basis_records_the_files_of_its_mortality_with_their_sha256(tmp_path):
    # Before, a CSV table or scale was recorded by its path alone: not which rates.
    import hashlib
    import json

    import pyarrow.parquet as pq

    table = write_sult_csv(tmp_path / "table.csv")
    digest = hashlib.sha256(table.read_bytes()).hexdigest()
    members, out = tmp_path / "members.csv", tmp_path / "values.parquet"
    pd.DataFrame(ROWS).to_csv(members, index=False)
    basis = Basis(f"csv:{table}", 0.05)
    as_of = dt.date(2026, 7, 1)
    summary = run_valuation(members, GUIDES, basis, out, as_of=as_of, with_sensitivities=False)
    metadata = pq.read_schema(out).metadata
    recorded = json.loads(metadata[b"actuarial.basis"])
    assert recorded["files"] == [{"file": str(table), "sha256": digest}]
    # As the batch: the member file and the date asked for (before, neither was recorded).
    assert metadata[b"actuarial.members"] == b"members.csv"
    assert metadata[b"actuarial.as_of"] == b"2026-07-01"
    assert f"mortality: {table} sha256 {digest}" in summary.lines()
    assert "files" not in Basis("sult", 0.05).as_dict()


def test_a_mortality_file_gone_before_its_sha256_is_recorded_is_an_error_not_a_traceback(
    tmp_path,
):
    table = write_sult_csv(tmp_path / "table.csv")
    basis = Basis(f"csv:{table}", 0.05)
    table.unlink()
    with pytest.raises(ValuationError) as refused:
        basis.as_dict()
    assert str(refused.value) == (
        f"{table}: the mortality read this file, which cannot be read now to record its "
        "SHA-256 (No such file or directory)"
    )


def test_value_command_writes_rows_and_prints_totals_and_sensitivities(tmp_path):
    members = tmp_path / "members.csv"
    rows = [{**row, "sex": ""} for row in ROWS] + [
        {
            **DEFERRED_FLAT,
            "member_id": "young",
            "birth_date": "1990-01-01",
            "separation_date": "2032-01-01",
            "sex": "F",
        }
    ]
    pd.DataFrame(rows).to_csv(members, index=False)
    out = tmp_path / "values.csv"
    result = CliRunner().invoke(
        cli,
        [
            "value",
            str(members),
            "--mortality",
            "soa:3399/soa:3400",
            "--improvement",
            "mp-2020",
            "--interest",
            "0.045",
            "--out",
            str(out),
            "--as-of",
            "2026-01-01",
        ],
    )
    assert result.exit_code == 0, result.output
    written = pd.read_csv(out)
    assert len(written) == 4 * len(rows)
    assert list(written.columns[-2:]) == ["pv_at_separation", "value_over_deferred"]
    lines = result.output.splitlines()
    assert lines[0].startswith("basis: mortality soa:3399/soa:3400; female/male; members of")
    # Before: "not valued, the basis does not cover them", of members whose sex is not F or
    # M as well as of those beyond the basis.
    assert "not valued: 2, each one's error says why)" in lines[1]
    assert lines[2].startswith("present value at separation by clause: (a) $")
    assert lines[3].startswith("total subsidy, (b) and (c) over (d): $")
    assert any(line.split()[:1] == ["q"] or "q x 1.1" in line for line in lines)
    assert any("series sult-5pct-monthly" in line for line in lines)


def test_value_command_refuses_a_table_that_does_not_run_out_in_one_line(tmp_path):
    members = tmp_path / "members.csv"
    pd.DataFrame(ROWS).to_csv(members, index=False)
    result = CliRunner().invoke(
        cli,
        [
            "value",
            str(members),
            "--mortality",
            "soa:3398",
            "--interest",
            "0.045",
            "--out",
            str(tmp_path / "v.csv"),
        ],
    )
    assert result.exit_code == 1
    assert result.stderr.startswith("error: table 'PubG-2010 Male Employee' does not run out")
    assert not (tmp_path / "v.csv").exists()


def test_an_annuity_that_starts_where_the_basis_has_no_one_alive_is_said_to_be_worth_0():
    # PubG-2010 male employees closed at 60: no one reaches 61, so (d), from 65, is worth
    # nothing. Before: $0.00 and a row counted as valued, without a word.
    with pytest.warns(ValuationNote) as noted:
        frame = valued([DEFERRED_FLAT], Basis("soa:3398", 0.045, close_at=60))
    assert frame.loc[("D-1125", "d")]["pv_at_separation"] == 0.0
    assert [str(note.message) for note in noted] == [
        "table 'PubG-2010 Male Employee, closed at 60' has no one alive from age 61: 1 row "
        "of inciso (d), whose annuity starts at 65y0m, is valued at $0.00"
    ]


def test_the_value_command_warns_of_annuities_that_start_where_no_one_is_alive(tmp_path):
    members = tmp_path / "members.csv"
    early = {**DEFERRED_FLAT, "member_id": "D-2", "birth_date": "1971-01-31"}
    pd.DataFrame([DEFERRED_FLAT, early, EARLY_STEPPED]).to_csv(members, index=False)
    args = ["value", members, "--mortality", "soa:3398", "--close-at", "60"]
    args += ["--interest", "0.045", "--out", tmp_path / "v.csv"]
    result = CliRunner().invoke(cli, [str(arg) for arg in args])
    assert result.exit_code == 0, result.output
    # Once, for the basis: not again for each sensitivity.
    assert result.stderr.splitlines() == [
        "warning: valuation: table 'PubG-2010 Male Employee, closed at 60' has no one alive "
        "from age 61: 3 rows of inciso (d), whose annuities start at 65y0m, are valued at $0.00"
    ]


@pytest.mark.parametrize(
    ("mortality", "close_at", "message"),
    [
        ("soa:3398", "18", "'close_at' must be in [19, 81] for table 'PubG-2010 Male Employee' "
         "(got 18)"),
        ("sult", "100", "'close_at' closes a table that does not run out: table 'SULT' runs out "
         "already (q = 1 at 120) (got 100)"),
    ],
)  # fmt: skip
def test_the_value_command_refuses_a_closing_age_outside_the_rule(
    mortality, close_at, message, tmp_path
):
    # Before: both were accepted; SULT lost its rates from 100 on without a word.
    args = ["value", SAMPLE_MEMBERS, "--mortality", mortality, "--close-at", close_at]
    out = tmp_path / "v.csv"
    result = CliRunner().invoke(cli, [*args, "--interest", "0.05", "--out", str(out)])
    assert result.exit_code == 2 and not out.exists()
    assert result.stderr.splitlines()[-1] == (
        f"Error: Invalid value for '--mortality' / '--close-at': {message}"
    )


def test_improvement_needs_no_cohort_in_a_valuation_each_member_brings_one():
    mortality = Mortality("soa:3399/soa:3400", improvement="mp-2020")
    frame = valued([EARLY_STEPPED], Basis(mortality, 0.045))
    assert frame.loc[("C-58", "c")]["pv_at_separation"] > 0


def test_value_command_writes_parquet_recording_the_basis_and_never_overwrites_its_input(tmp_path):
    import json

    import pyarrow.parquet as pq

    members = tmp_path / "members.csv"
    pd.DataFrame(ROWS).to_csv(members, index=False)
    out = tmp_path / "values.parquet"
    args = ["--mortality", "sult", "--interest", "0.05", "--no-sensitivities"]
    result = CliRunner().invoke(cli, ["value", str(members), *args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "sensitivities" not in result.output
    metadata = pq.read_schema(out).metadata
    assert json.loads(metadata[b"actuarial.basis"])["interest"] == 0.05
    assert json.loads(metadata[b"actuarial.basis"])["mortality"] == "sult"
    assert len(pd.read_parquet(out)) == 4 * len(ROWS)
    before = members.read_bytes()
    again = CliRunner().invoke(cli, ["value", str(members), *args, "--out", str(members)])
    assert again.exit_code == 1
    assert again.stderr == refused_as_input(members)
    assert members.read_bytes() == before
    wrong = CliRunner().invoke(
        cli, ["value", str(members), *args, "--out", str(tmp_path / "v.txt")]
    )
    assert wrong.exit_code == 1
    assert "the output file must end in one of ['.csv', '.parquet', '.pq']" in wrong.stderr


@pytest.mark.parametrize(
    "read",
    [
        "a CSV table of a female/male spec",
        "a CSV table of a join",
        "a CSV improvement scale",
        "a guide file",
        "a guide file of another series read beside the guides",
        "a law file",
        "a guide file of the sensitivities' shipped series",
    ],
)
def test_value_command_never_overwrites_any_file_it_read(tmp_path, make_guide, monkeypatch, read):
    from actuarial import valuation

    members = tmp_path / "members.csv"
    pd.DataFrame(ROWS).to_csv(members, index=False)
    victim = tmp_path / "read.csv"  # the file read, given as --out
    args = ["--mortality", "sult", "--no-sensitivities"]
    if read == "a CSV table of a female/male spec":
        args = ["--mortality", f"sult/csv:{write_sult_csv(victim)}", "--no-sensitivities"]
    elif read == "a CSV table of a join":
        low = write_sult_csv(tmp_path / "low.csv", range(20, 70))
        write_sult_csv(victim, range(60, 121))
        args = ["--mortality", f"csv:{low}+csv:{victim}@65", "--no-sensitivities"]
    elif read == "a CSV improvement scale":
        victim.write_text(SMALL_SCALE_CSV, encoding="utf-8")
        args = ["--mortality", "sult", "--base-year", "2010", "--improvement", f"csv:{victim}"]
        args += ["--no-sensitivities"]  # projected, q_120 stays 1: the table runs out
    elif read == "a guide file":
        victim = make_guide("g") / "reduction.csv"
        args += ["--guides", str(victim.parent)]
    elif read == "a guide file of another series read beside the guides":
        make_guide("used")
        victim = make_guide("other") / "reduction.csv"
        args += ["--guides", str(tmp_path / "guides"), "--series", "used"]
    elif read == "a law file":
        bill = Path(__file__).resolve().parents[1] / "examples" / "bill-2027.toml"
        shutil.copy(bill, victim)  # a law file named .csv is read all the same
        args += ["--law", str(victim)]
    else:  # stand-ins for the shipped series, which a failing test must not replace
        shipped = make_guide("shipped") / "reduction.csv"
        monkeypatch.setattr(
            valuation, "shipped_series", lambda: {"shipped": load_guides(shipped.parent)}
        )
        victim, args = shipped, ["--mortality", "sult"]
    before = victim.read_bytes()
    result = CliRunner().invoke(
        cli, ["value", str(members), *args, "--interest", "0.05", "--out", str(victim)]
    )
    assert result.exit_code == 1, result.output
    assert result.stderr == refused_as_input(victim)
    assert victim.read_bytes() == before


def test_sensitivity_of_q_times_1_1_names_the_capped_ages_on_sult():
    table = sensitivities(pd.DataFrame(ROWS), GUIDES, Basis("sult", 0.05))
    note = table.set_index("scenario").loc["q x 1.1", "note"]
    # SULT q_x x 1.1 passes 1 from some age below 120 to 119 (q_120 = 1 stays 1)
    first = int(note.removeprefix("q capped at 1 at ages ").split("-")[0])
    capped = [age for age in range(20, 120) if 1.1 * sult().q(age) > 1]
    assert note == f"q capped at 1 at ages {capped[0]}-{capped[-1]}" and first == capped[0]


def test_a_sensitivity_that_leaves_no_one_alive_where_annuities_start_says_so(tmp_path):
    # q_64 = 0.95: times 1.1 it is capped at 1, so under "q x 1.1" no one reaches 65 and
    # (d), from 65, is worth $0.00; on the basis 5% reach it. Before, the scenario's total
    # fell without a word beside "q capped at 1 at ages 64, 120".
    rates = {age: 0.95 if age == 64 else 1.0 if age == 120 else 0.01 for age in range(20, 121)}
    table = tmp_path / "steep.csv"
    table.write_text("age,qx\n" + "".join(f"{a},{q}\n" for a, q in rates.items()))
    frame = sensitivities(pd.DataFrame([DEFERRED_FLAT]), GUIDES, Basis(f"csv:{table}", 0.05))
    notes = frame.set_index("scenario")["note"]
    assert notes["q x 1.1"] == (
        "q capped at 1 at ages 64; table 'steep x 1.1' has no one alive from age 65: 1 "
        "row of inciso (d), whose annuity starts at 65y0m, is valued at $0.00"
    )
    assert notes["basis"] == notes["interest +1pp"] == ""
    assert notes["q x 0.9"] == "no q capped"


def test_a_membership_valued_at_once_equals_each_member_valued_alone():
    basis = Basis(PUB_JOINED, 0.045, improvement="mp-2020")
    rows = [{**row, "sex": sex} for row, sex in zip(ROWS, ["F", "M", "", "F"], strict=True)]
    together = valued(rows, basis)["pv_at_separation"]
    for row in rows:
        alone = valued([row], basis)["pv_at_separation"]
        for key, value in alone.items():
            assert together[key] == pytest.approx(value, rel=1e-14, nan_ok=True)


def test_an_amendments_step_is_valued_when_it_occurs():
    # Under the example bill the $500 minimum becomes $600 on 2027-01-01: three steps.
    from pathlib import Path

    from actuarial.law import load_law

    bill = load_law(Path(__file__).resolve().parent.parent / "examples" / "bill-2027.toml")
    frame = value_frame(pd.DataFrame([IMMEDIATE_STEPPED]), GUIDES, Basis("sult", 0.045), law=bill)
    row = frame.set_index("clause").loc["a"]
    assert row["schedule"] == "2010-03-01 270.00; 2013-07-01 500.00; 2027-01-01 600.00"
    steps = [
        (date("2010-03-01"), 270.0),
        (date("2013-07-01"), 500.0),
        (date("2027-01-01"), 600.0),
    ]
    expected = plain_present_value(
        sult().qx, 20, date("1945-03-01"), date("2010-03-01"), date("2010-03-01"), steps, 0.045
    )
    assert row["pv_at_separation"] == pytest.approx(expected, rel=1e-12)


def test_high_risk_under_i9_switched_is_deferred_to_the_55th_birthday():
    from actuarial import Readings

    waits = Readings(high_risk_waits_for_age=True)
    frame = value_frame(pd.DataFrame([HIGH_RISK]), GUIDES, Basis("sult", 0.05), readings=waits)
    row = frame.set_index("clause").loc["b"]
    start = date("2017-01-20")  # the 55th birthday; 75% of 45,000 / 12 = 2,812.50 a month
    assert (row["start_date"].date(), row["monthly_amount"]) == (start, 2812.5)
    birth, separation = date("1962-01-20"), date("2014-02-28")
    expected = plain_present_value(sult().qx, 20, birth, separation, start, [(start, 2812.5)], 0.05)
    assert row["pv_at_separation"] == pytest.approx(expected, rel=1e-12)


def test_sex_is_read_from_any_member_file_as_its_member_columns_are(tmp_path):
    """The column ``sex`` is found by the member files' own header reading (quoted names,
    a byte order mark) and read by their reader, in CSV and Parquet (dictionary-coded)."""
    rows = [{**row, "sex": sex} for row, sex in zip(ROWS, ["F", "M", "", "F"], strict=True)]
    frame = pd.DataFrame(rows)
    basis, as_of = Basis(PUB_JOINED, 0.045, improvement="mp-2020"), dt.date(2026, 7, 1)
    plain = tmp_path / "plain.csv"
    frame.to_csv(plain, index=False)
    quoted = tmp_path / "quoted.csv"  # every name quoted, one holding a comma, then a BOM
    text = frame.assign(**{"note, kept apart": "x"}).to_csv(index=False, quoting=1)
    quoted.write_text("\ufeff" + text, encoding="utf-8")
    parquet = tmp_path / "coded.parquet"
    frame.assign(sex=frame["sex"].astype("category")).to_parquet(parquet, index=False)
    outputs = []
    for members in (plain, quoted, parquet):
        out = tmp_path / f"{members.stem}-values.csv"
        run_valuation(members, GUIDES, basis, out, as_of=as_of, with_sensitivities=False)
        outputs.append(pd.read_csv(out, keep_default_na=False))
    assert (outputs[0]["error"] == "").all()
    for other in outputs[1:]:
        pd.testing.assert_frame_equal(other, outputs[0])
    # Each member valued on its own side, as from the frame itself, not on the blend.
    read = pd.to_numeric(outputs[0]["pv_at_separation"]).to_numpy(float)
    expected = value_frame(frame, GUIDES, basis, as_of=as_of)["pv_at_separation"]
    np.testing.assert_allclose(read, expected.to_numpy(float), rtol=1e-12)
    blended = value_frame(frame.assign(sex=""), GUIDES, basis, as_of=as_of)["pv_at_separation"]
    assert not np.allclose(read, blended.to_numpy(float), equal_nan=True)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_value_writes_the_batch_rows_and_columns_as_the_batch_writes_them(tmp_path, suffix):
    # The value file was pandas' own: True/False, no defused formula ('=HYPERLINK(1)' as
    # written), an int32 row, timestamps for dates, and other metadata than the batch's.
    import json

    import pyarrow.parquet as pq

    members = tmp_path / "members.csv"
    rows = [{**row, "member_id": f"=HYPERLINK({number})"} for number, row in enumerate(ROWS)]
    pd.DataFrame(rows).to_csv(members, index=False)
    dates = ["--as-of", "2026-06-01"]
    batch_out, value_out = tmp_path / f"batch{suffix}", tmp_path / f"value{suffix}"
    batch = CliRunner().invoke(cli, ["batch", str(members), "--out", str(batch_out), *dates])
    value = CliRunner().invoke(
        cli,
        ["value", str(members), "--out", str(value_out), *dates, "--mortality", "sult"]
        + ["--interest", "0.05", "--no-sensitivities"],
    )
    assert (batch.exit_code, value.exit_code) == (0, 0), batch.output + value.output
    if suffix == ".csv":
        batch_lines = batch_out.read_text(encoding="utf-8").splitlines()
        value_lines = value_out.read_text(encoding="utf-8").splitlines()
        assert len(value_lines) == len(batch_lines)
        pairs = zip(value_lines, batch_lines, strict=True)
        assert [line[: len(batch_line)] for line, batch_line in pairs] == batch_lines
        assert '"\'=HYPERLINK(0)"' in value_lines[1]
        return
    batch_schema, value_schema = pq.read_schema(batch_out), pq.read_schema(value_out)
    assert value_schema.names[: len(batch_schema)] == batch_schema.names
    assert value_schema.types[: len(batch_schema)] == batch_schema.types
    shared = set(batch_schema.metadata)
    assert shared < set(value_schema.metadata)
    assert {key: value_schema.metadata[key] for key in shared} == batch_schema.metadata
    assert json.loads(value_schema.metadata[b"actuarial.basis"])["mortality"] == "sult"
    table = pq.read_table(value_out).select(batch_schema.names)
    assert table.equals(pq.read_table(batch_out))


@pytest.mark.parametrize(
    "as_dates",
    [
        lambda column: pd.to_datetime(column).dt.to_period("D"),  # pd.to_datetime: NaT
        lambda column: pd.to_datetime(column).dt.to_period("D").astype(object),
        lambda column: pd.to_datetime(column).dt.to_period("D").astype("category"),
    ],
    ids=["period", "periods as objects", "categorical periods"],
)
def test_subsidy_by_age_reads_the_dates_the_engine_valued(as_dates):
    # The ages were those of pd.to_datetime(errors="coerce"): a period of one day, a date
    # to the engine, was NaT, and every subsidy fell under the age -1.
    from actuarial.valuation import subsidy_by_age

    basis = Basis("sult", 0.045)
    members = pd.DataFrame(ROWS)
    expected = subsidy_by_age(value_frame(members, GUIDES, basis), members)
    assert list(expected.index) == [52, 58]  # HIGH_RISK (b) and EARLY_STEPPED (c)
    given = members.assign(
        **{name: as_dates(members[name]) for name in ("birth_date", "separation_date")}
    )
    values = value_frame(given, GUIDES, basis)
    pd.testing.assert_frame_equal(subsidy_by_age(values, given), expected)


def test_one_members_sex_is_read_from_any_mapping_and_as_given():
    # Only a dict's sex was read: a mapping of another kind was valued on the blend of an
    # unstated sex, and a sex in a list was unpacked by pandas and read as its item.
    from types import MappingProxyType

    from actuarial.valuation import member_present_values

    basis = Basis(PUB_JOINED, 0.045)
    female = member_present_values(EARLY_STEPPED | {"sex": "F"}, GUIDES, basis)
    unstated = member_present_values(EARLY_STEPPED, GUIDES, basis)
    assert female["c"] != unstated["c"]
    proxy = MappingProxyType(EARLY_STEPPED | {"sex": "F"})
    assert member_present_values(proxy, GUIDES, basis) == female
    with pytest.raises(ValuationError, match=r"'sex' must be in .* \(got \['F'\]\)"):
        member_present_values(EARLY_STEPPED | {"sex": ["F"]}, GUIDES, basis)


def test_one_member_that_cannot_be_valued_is_an_error_not_none():
    # member_present_values gave {'': None} for invalid data and None (not eligible) for a
    # clause the basis does not cover; break_even_interest then raised KeyError: 'c', and
    # choices_by_interest gave an empty table.
    from actuarial import evaluate
    from actuarial.members import MemberDataError
    from actuarial.valuation import (
        break_even_interest,
        choices_by_interest,
        member_present_values,
    )

    basis = Basis("sult", 0.045)
    invalid = EARLY_STEPPED | {"birth_date": "1954-02-30"}
    with pytest.raises(MemberDataError) as expected:
        evaluate(invalid, GUIDES)
    calls = [
        lambda: member_present_values(invalid, GUIDES, basis),
        lambda: member_choices(invalid, GUIDES, basis),
        lambda: break_even_interest(invalid, GUIDES, basis),
        lambda: choices_by_interest(invalid, GUIDES, basis, [0.05]),
    ]
    for call in calls:
        with pytest.raises(MemberDataError) as raised:
            call()
        assert str(raised.value) == str(expected.value)
    bad_sex = EARLY_STEPPED | {"sex": "X"}
    with pytest.raises(ValuationError, match=r"row 1 \(member 'C-58'\): 'sex' must be in"):
        member_present_values(bad_sex, GUIDES, Basis(PUB_JOINED, 0.045))
    uncovered = Basis("soa:3399/soa:3400", 0.045)  # from age 50; (d) at separation, 46
    young = member("D-46", "1970-06-15", "2016-09-01", 15, 60_000)
    with pytest.raises(ValuationError, match="below 50, the first age of table"):
        member_present_values(young, GUIDES, uncovered)


def test_one_members_helpers_name_an_argument_they_cannot_take():
    # break_even_interest(early="z") raised KeyError: 'z', choices_by_interest of one rate
    # TypeError: 'float' object is not iterable (of ["x"], could not convert string to
    # float), and Basis(None, ...) AttributeError: 'NoneType' object has no attribute.
    from actuarial.valuation import break_even_interest, choices_by_interest

    basis = Basis("sult", 0.045)
    message = "'early' must be in ['a', 'b', 'c', 'd'] (got 'z')"
    with pytest.raises(ValueError, match=exactly(message)):
        break_even_interest(EARLY_STEPPED, GUIDES, basis, early="z")
    one = choices_by_interest(EARLY_STEPPED, GUIDES, basis, 0.05)
    assert one.equals(choices_by_interest(EARLY_STEPPED, GUIDES, basis, [0.05]))
    with pytest.raises(ValuationError, match="'interest' must be"):
        choices_by_interest(EARLY_STEPPED, GUIDES, basis, ["x"])
    message = "'mortality' must be a spec (text) or a Mortality (got None)"
    with pytest.raises(ValuationError, match=exactly(message)):
        Basis(None, 0.045)


def test_one_members_choices_and_break_even_take_the_date_readings_and_law_of_a_valuation():
    # Both valued under today's law, the default readings and today's date whatever the
    # valuation around them read: a bill or a reading could not be costed member by member.
    from pathlib import Path

    from actuarial import Readings
    from actuarial.law import load_law
    from actuarial.valuation import (
        break_even_interest,
        choices_by_interest,
        member_present_values,
    )

    bill = load_law(Path(__file__).resolve().parent.parent / "examples" / "bill-2027.toml")
    context = dict(as_of=date("2026-06-01"), readings=Readings(minimum_applies_to="a"))
    basis = Basis("sult", 0.045)
    for law in (None, bill):
        table = choices_by_interest(EARLY_STEPPED, GUIDES, basis, [0.03, 0.05], **context, law=law)
        for rate in (0.03, 0.05):
            alone = member_present_values(
                EARLY_STEPPED, GUIDES, basis.with_interest(rate), **context, law=law
            )
            assert table.loc[rate].to_dict() == {c: v for c, v in alone.items() if v is not None}
    defaults = choices_by_interest(EARLY_STEPPED, GUIDES, basis, [0.05])
    assert not defaults.equals(choices_by_interest(EARLY_STEPPED, GUIDES, basis, [0.05], **context))
    rate = break_even_interest(EARLY_STEPPED, GUIDES, basis, **context, law=bill)
    assert rate is not None and rate != break_even_interest(EARLY_STEPPED, GUIDES, basis)
    at_rate = basis.with_interest(rate)
    at = member_present_values(EARLY_STEPPED, GUIDES, at_rate, **context, law=bill)
    assert at["c"] == pytest.approx(at["d"], rel=1e-8)


def test_a_sex_column_given_twice_is_refused_not_one_of_them_chosen():
    # As a required column given twice: it raised AttributeError: 'DataFrame' object has
    # no attribute 'dtype'.
    from actuarial.members import MemberFileError

    rows = pd.DataFrame([EARLY_STEPPED | {"sex": "F"}])
    twice = pd.concat([rows, pd.DataFrame({"sex": ["M"]})], axis=1)
    message = "members: column 'sex' given more than once"
    with pytest.raises(MemberFileError, match=exactly(message)):
        value_frame(twice, GUIDES, Basis(PUB_JOINED, 0.045))


def test_a_member_file_whose_sex_column_is_given_twice_is_refused(tmp_path):
    # The file's first sex column was read, silently.
    from actuarial.members import MemberFileError

    members = tmp_path / "members.csv"
    rows = pd.DataFrame([EARLY_STEPPED | {"sex": "F"}])
    pd.concat([rows, pd.DataFrame({"sex": ["M"]})], axis=1).to_csv(members, index=False)
    message = f"{members}: column 'sex' given more than once"
    with pytest.raises(MemberFileError, match=exactly(message)):
        run_valuation(members, GUIDES, Basis(PUB_JOINED, 0.045), tmp_path / "out.csv")
    assert not (tmp_path / "out.csv").exists()


BASIS = Basis("sult", 0.05)
FRAME = pd.DataFrame([EARLY_STEPPED])
VALUATION_CALLS = {
    "value_frame": lambda g, b, r: value_frame(FRAME, g, b, readings=r),
    "member_present_values": lambda g, b, r: valuation.member_present_values(
        EARLY_STEPPED, g, b, readings=r
    ),
    "member_choices": lambda g, b, r: member_choices(EARLY_STEPPED, g, b, readings=r),
    "sensitivities": lambda g, b, r: sensitivities(FRAME, g, b, readings=r),
    "break_even_interest": lambda g, b, r: valuation.break_even_interest(
        EARLY_STEPPED, g, b, readings=r
    ),
    "choices_by_interest": lambda g, b, r: valuation.choices_by_interest(
        EARLY_STEPPED, g, b, [0.04], readings=r
    ),
}


@pytest.mark.parametrize("call", VALUATION_CALLS)
@pytest.mark.parametrize(
    ("guides", "basis", "readings", "message"),
    [
        (
            GUIDES,
            BASIS,
            {},
            "'readings' must be an actuarial.Readings, e.g. Readings(**mapping) (got dict {})",
        ),
        (
            GUIDES,
            BASIS,
            {"minimum_applies_to": "a"},
            "'readings' must be an actuarial.Readings, "
            "e.g. Readings(**mapping) (got dict {'minimum_applies_to': 'a'})",
        ),
        (
            "guides",
            BASIS,
            None,
            "'guides' must be the guides of one series, from "
            "actuarial.load_guides (got str 'guides')",
        ),
        (
            GUIDES,
            "sult",
            None,
            "'basis' must be an actuarial.Basis, e.g. Basis('sult', 0.045) (got str 'sult')",
        ),
        (
            GUIDES,
            None,
            None,
            "'basis' must be an actuarial.Basis, e.g. Basis('sult', 0.045) (got None)",
        ),
    ],  # fmt: skip
    ids=["empty-readings", "readings-mapping", "guides-path", "basis-spec", "no-basis"],
)
def test_every_valuation_names_guides_basis_or_readings_of_the_wrong_kind(
    call, guides, basis, readings, message
):
    # value_frame(..., readings={}) valued on the default readings without a word; a
    # mapping of switches, a folder of guides or a spec for the basis raised AttributeError.
    with pytest.raises(TypeError) as error:
        VALUATION_CALLS[call](guides, basis, readings)
    assert str(error.value) == message


@pytest.mark.parametrize("weight", [True, False])
def test_a_bool_is_no_female_weight(weight):
    # Basis(..., female_weight=True) was taken as 100% female; interest=True and
    # base_year=True were refused.
    with pytest.raises(
        MortalityError, match=rf"^'female_weight' must be in \[0, 1\] \(got {weight}\)$"
    ):
        Basis("soa:3399/soa:3400", 0.05, female_weight=weight)


@pytest.mark.parametrize("bounds", [(0.25, -0.05), (-0.05, np.inf), (-2, 0.2), (0.05, 0.05)])
def test_break_even_interest_names_bounds_it_cannot_search(bounds):
    # Reversed bounds reached scipy's brentq ("f(a) and f(b) must have different signs" or
    # worse); -2 raised on a rate no basis can take, naming it, not the bound given.
    with pytest.raises(ValuationError) as error:
        valuation.break_even_interest(EARLY_STEPPED, GUIDES, Basis("sult", 0.05), bounds=bounds)
    assert str(error.value) == (
        "'bounds' must be two interest rates (low, high), low < high, each finite and above "
        f"-100% (got {bounds!r})"
    )


def test_subsidy_by_age_reads_ages_by_the_readings_given():
    # A police officer born on February 29 separates on 2015-02-28: 55 by the default
    # reading (I-6), 54y11m if the birthday is March 1 in common years; the ages grouped
    # must be those of the readings the members were valued under.
    from actuarial.valuation import subsidy_by_age

    officer = {
        "member_id": "P-1", "birth_date": "1960-02-29", "entry_date": "1990-06-01",
        "separation_date": "2015-02-28", "credited_service": 30.0,
        "average_compensation": 48_000.0, "group": "police", "refunded": False,
    }  # fmt: skip
    members, mar1 = pd.DataFrame([officer]), Readings(leap_day_birthday="mar1")
    values = value_frame(members, GUIDES, Basis("sult", 0.05), readings=mar1)
    # 54y11m: (b) at 65% (65% x 48,000 = 31,200 a year), and no (c) before 55.
    assert values.loc[values["clause"] == "b", "annual_amount"].item() == 31_200.0
    assert list(subsidy_by_age(values, members, readings=mar1).index) == [54]


def test_the_totals_leave_the_value_over_d_of_d_itself_blank():
    # (d) is what (b) and (c) are measured over: its own value over (d) is no number, not 0.
    totals = valuation.totals_by_clause(
        value_frame(pd.DataFrame(ROWS), GUIDES, Basis("sult", 0.045))
    )
    assert totals.loc["d", "rows_valued"] > 0 and pd.isna(totals.loc["d", "value_over_deferred"])
    assert totals.loc[["b", "c"], "value_over_deferred"].notna().all()
