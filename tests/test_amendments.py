"""Members evaluated under an amendment of the law, payment dates and schedules, reading I-9,
the registries (clauses, result columns) and the status of the guide used."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import warnings

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from conftest import FROM_START, law_entry

from actuarial import review, shipped
from actuarial.batch import OUTPUT_SCHEMA, read_members, run_batch
from actuarial.cli import cli
from actuarial.engine import COLUMNS, RESULT_COLUMNS, ClauseResult, evaluate, evaluate_frame
from actuarial.guides import DEFAULT_SERIES, SHIPPED_GUIDES, GuideError, load_guides
from actuarial.law import LawError, LawNote, load_law, shipped_law
from actuarial.law.clauses import (
    CLAUSES,
    D_BEFORE_AGE,
    D_BEFORE_SERVICE,
    register_clause,
    unregister_clause,
)
from actuarial.law.conditions import Clause, ClauseOutcome, Condition, Wording, render
from actuarial.law.notes import law_notes
from actuarial.law.readings import Readings

AS_OF = dt.date(2027, 6, 1)
USD = "USD a month"
EXAMPLE_BILL = shipped.EXAMPLES / "bill-2027.toml"

# A bill: $600 minimum from 2027, early retirement with 20 years, and 2% a year of service,
# for separations (and payments) from 2027-01-01.
BILL = """
[[minimum_monthly_pension]]
effective_from = 2027-01-01
value = 600
unit = "USD a month"
source = "Test bill"

[[early_retirement.minimum_service]]
effective_from = 2027-01-01
value = 20
unit = "years"
source = "Test bill"

[[service_annuity.rate]]
effective_from = 2027-01-01
value = 0.02
unit = "rate"
source = "Test bill"
"""

# Separates in 2027 at 58y8m with 21 years at $24,000: (c) only under the bill.
EARLY = {
    "member_id": "E-1",
    "birth_date": "1968-06-15",
    "entry_date": "1995-01-02",
    "separation_date": "2027-03-01",
    "credited_service": 21.0,
    "average_compensation": 24_000.0,
    "group": "general",
    "refunded": False,
}
# Separates in 2010 at 65 with 12 years at $18,000: 1.5% x 18,000 x 12 / 12 = 270 a month.
SMALL = {
    "member_id": "S-1",
    "birth_date": "1945-03-01",
    "entry_date": "1992-01-15",
    "separation_date": "2010-03-01",
    "credited_service": 12.0,
    "average_compensation": 18_000.0,
    "group": "general",
    "refunded": False,
}


@pytest.fixture
def bill(tmp_path):
    path = tmp_path / "bill.toml"
    path.write_text(BILL, encoding="utf-8")
    return path


def test_a_member_under_the_bill_gets_the_amended_amounts(half_percent_guides, bill):
    result = evaluate(EARLY, half_percent_guides, as_of=AS_OF, law=bill)
    early = result.clause("c")
    # 58y8m: factor 1 - 0.005 x 76 = 0.62; 2% x 24,000 x 21 x 0.62 = 6,249.60 a year,
    # 520.80 a month, lifted to the $600 minimum: top-up 79.20.
    assert early.eligible and early.reduction_factor == pytest.approx(0.62)
    assert (early.annual_amount, early.monthly_amount, early.minimum_topup) == (
        6_249.60,
        600.00,
        79.20,
    )
    assert early.schedule == "2027-03-01 600.00"
    deferred = result.clause("d")  # 2% x 24,000 x 21 = 10,080 a year from the 65th birthday
    assert (deferred.annual_amount, deferred.monthly_amount) == (10_080.00, 840.00)
    # Under the law in force the same member has no (c): 25 years are needed.
    today = evaluate(EARLY, half_percent_guides, as_of=AS_OF)
    assert not today.clause("c").eligible
    assert today.clause("c").reason == "inciso (c): not eligible: credited service below 25 years"
    assert today.clause("d").annual_amount == 7_560.00  # 1.5% x 24,000 x 21


def test_reasons_and_explanations_state_the_amended_values_and_none_of_the_old(
    half_percent_guides, bill
):
    result = evaluate(EARLY, half_percent_guides, as_of=AS_OF, law=bill)
    assert result.clause("c").reason == (
        "inciso (c): eligible: no refund of contributions; age at separation 55 or older; "
        "age at separation below 65; credited service 20 years or more"
    )
    english = "\n".join(result.explanation)
    spanish = "\n".join(
        evaluate(EARLY, half_percent_guides, as_of=AS_OF, law=bill, lang="es").explanation
    )
    assert "  ✓ credited service 21.00 >= 20 years" in english
    assert "the $600.00 minimum in force on 2027-06-01 adds $79.20 a month (I-4)" in english
    assert "the monthly minimum in force on the payment date ($600.00)" in english  # I-4
    assert "  ✓ servicio acreditado 21.00 >= 20 años" in spanish
    assert "la pensión mínima de $600.00 vigente el 2027-06-01 añade $79.20 al mes (I-4)" in spanish
    assert "la pensión mínima mensual vigente en la fecha de pago ($600.00)" in spanish
    for text in (english, spanish, *(c.reason for c in result.clauses)):
        for old in ("$500", ">= 25 ", "25 years", "25 años"):
            assert old not in text
    assert f"bill.toml (sha256 {load_law(bill).files[1].sha256})" in english


def test_a_member_not_covered_is_told_the_window_in_force_on_the_separation_date(
    half_percent_guides, tmp_path
):
    """Coverage is judged by the window in force on the separation date (I-1): the reason
    and the explanation state that window, in both languages and in the table, not the
    window of the law's first date."""
    window = tmp_path / "window.toml"
    window.write_text(
        "[[coverage.first_entry_before]]\neffective_from = 2005-01-01\nvalue = 1998-01-01\n"
        'unit = "date"\nsource = "Test bill"\n',
        encoding="utf-8",
    )
    later = {**EARLY, "entry_date": "1999-01-01", "separation_date": "2015-06-30"}
    result = evaluate(later, half_percent_guides, as_of=AS_OF, law=window)
    assert not result.covered
    reason = result.clause("a").reason
    assert reason.startswith("not covered by Chapter 2 (I-1): first entry on or after 1998-01-01")
    english = "\n".join(result.explanation)
    spanish = "\n".join(
        evaluate(later, half_percent_guides, as_of=AS_OF, law=window, lang="es").explanation
    )
    assert "first entry 1999-01-01 is outside [1990-04-01, 1998-01-01)" in english
    assert "[1990-04-01, 1998-01-01)" in spanish
    table = evaluate_frame(pd.DataFrame([later]), half_percent_guides, as_of=AS_OF, law=window)
    assert table["reason"].astype(str).tolist() == [c.reason for c in result.clauses]
    for text in (english, spanish, reason):
        assert "2000-01-01" not in text
    # Separated before the amendment: the window of the time, which covers a 1999 entry.
    earlier = {**later, "separation_date": "2004-06-30"}
    assert evaluate(earlier, half_percent_guides, as_of=AS_OF, law=window).covered


# Separates in 2016 at 45 with 12 years at $14,000: (d) from 2035, 1.5% x 14,000 x 12 / 12
# = 210 a month, lifted to the minimum of its payment date.
DEFERRED = {
    **SMALL,
    "member_id": "D-1",
    "birth_date": "1970-06-15",
    "entry_date": "1991-01-02",
    "separation_date": "2016-03-01",
    "average_compensation": 14_000.0,
}


def _i4_line(result) -> str:
    return next(line for line in result.explanation if line.lstrip().startswith("I-4 "))


@pytest.mark.parametrize(
    ("as_of", "english", "spanish"),
    [
        (
            dt.date(2026, 6, 1),
            "($500.00; $600.00 from 2027-01-01)",
            "($500.00; $600.00 desde el 2027-01-01)",
        ),
        (
            dt.date(2026, 12, 31),
            "($500.00; $600.00 from 2027-01-01)",
            "($500.00; $600.00 desde el 2027-01-01)",
        ),
        (dt.date(2027, 1, 1), "($600.00)", "($600.00)"),
    ],
)
def test_the_minimum_reading_states_each_later_minimum_a_later_payment_may_get(
    half_percent_guides, bill, as_of, english, spanish
):
    """I-4 takes the minimum in force on each annuity's payment date: a deferred annuity
    paid after an amendment of the minimum gets the amended one, so the reading states it."""
    texts = {
        lang: _i4_line(evaluate(DEFERRED, half_percent_guides, as_of=as_of, law=bill, lang=lang))
        for lang in ("en", "es")
    }
    assert f"the monthly minimum in force on the payment date {english} on every" in texts["en"]
    assert f"vigente en la fecha de pago {spanish} en toda" in texts["es"]
    if as_of < dt.date(2027, 1, 1):  # (d) is paid from 2035: the amended minimum
        deferred = evaluate(DEFERRED, half_percent_guides, as_of=as_of, law=bill).clause("d")
        assert (deferred.monthly_amount, deferred.minimum_topup) == (600.00, 390.00)
    shipped = _i4_line(evaluate(DEFERRED, half_percent_guides, as_of=as_of))
    assert "on the payment date ($500.00) on every" in shipped


def test_a_minimum_restated_at_its_amount_is_no_later_minimum(half_percent_guides, amendment):
    # The I-4 reading listed "$500.00 from 2020-01-01" as a minimum a later payment may get,
    # though $500 has been in force since 2013-07-01: a restatement is not a change.
    restated = amendment(law_entry("minimum_monthly_pension", "2020-01-01", 500, USD))
    with_600 = amendment(
        law_entry("minimum_monthly_pension", "2020-01-01", 500, USD),
        law_entry("minimum_monthly_pension", "2027-01-01", 600, USD),
        name="later.toml",
    )
    as_of = dt.date(2015, 1, 1)
    line = _i4_line(evaluate(DEFERRED, half_percent_guides, as_of=as_of, law=restated))
    assert "on the payment date ($500.00) on every" in line
    line = _i4_line(evaluate(DEFERRED, half_percent_guides, as_of=as_of, law=with_600))
    assert "on the payment date ($500.00; $600.00 from 2027-01-01) on every" in line
    small = evaluate(SMALL, half_percent_guides, as_of=AS_OF, law=restated).clause("a")
    assert small.schedule == "2010-03-01 270.00; 2013-07-01 500.00"


def test_the_schedule_lists_each_change_of_the_minimum_after_the_start(half_percent_guides, bill):
    shipped = evaluate(SMALL, half_percent_guides, as_of=AS_OF).clause("a")
    assert shipped.schedule == "2010-03-01 270.00; 2013-07-01 500.00"
    assert (shipped.monthly_amount, shipped.minimum_topup) == (500.00, 230.00)
    amended = evaluate(SMALL, half_percent_guides, as_of=AS_OF, law=bill).clause("a")
    assert amended.schedule == "2010-03-01 270.00; 2013-07-01 500.00; 2027-01-01 600.00"
    assert (amended.monthly_amount, amended.minimum_topup) == (600.00, 330.00)
    assert amended.annual_amount == 3_240.00  # the rate of the separation date: 1.5%
    # Paid on the start date: the minimum is judged then.
    at_start = evaluate(SMALL, half_percent_guides, as_of=FROM_START, law=bill).clause("a")
    assert (at_start.monthly_amount, at_start.minimum_topup) == (270.00, 0.00)
    assert evaluate(SMALL, half_percent_guides, as_of=AS_OF).clause("b").schedule is None


def test_an_amount_above_every_minimum_has_one_schedule_entry(half_percent_guides, member):
    result = evaluate(member(), half_percent_guides, as_of=AS_OF)
    assert result.clause("a").schedule == "2025-06-15 1200.00"


def test_the_schedule_column_is_empty_where_not_eligible(half_percent_guides, bill):
    table = evaluate_frame(pd.DataFrame([SMALL, EARLY]), half_percent_guides, as_of=AS_OF, law=bill)
    assert table.loc[~table["eligible"], "schedule"].eq("").all()
    assert table.loc[table["eligible"], "schedule"].str.match(r"^\d{4}-\d\d-\d\d \d+\.\d\d").all()


def test_as_of_defaults_to_the_day_the_results_are_asked_for(half_percent_guides, member):
    before = dt.date.today()
    result = evaluate(member(), half_percent_guides)
    assert result.as_of in {before, dt.date.today()}  # the two differ across midnight only
    assert f"Payment date: the later of {result.as_of} (as of)" in "\n".join(result.explanation)


def test_explicit_as_of_gives_the_results_of_a_payment_on_that_date(half_percent_guides):
    before = evaluate(SMALL, half_percent_guides, as_of=dt.date(2013, 6, 30)).clause("a")
    after = evaluate(SMALL, half_percent_guides, as_of=dt.date(2013, 7, 1)).clause("a")
    assert (before.monthly_amount, after.monthly_amount) == (270.00, 500.00)


# ------------------------------------------------------------------------------ I-9
POLICE = {
    "member_id": "P-1",
    "birth_date": "1970-01-01",
    "entry_date": "1991-01-01",
    "separation_date": "2021-06-01",  # 51y5m
    "credited_service": 30.4,
    "average_compensation": 60_000.0,
    "group": "police",
    "refunded": False,
}


def test_i9_by_default_65_percent_from_separation_before_55(half_percent_guides):
    result = evaluate(POLICE, half_percent_guides, as_of=AS_OF).clause("b")
    assert (result.annual_amount, result.start_date) == (39_000.00, dt.date(2021, 6, 1))
    assert result.reason.endswith("; age at separation below 55: 65% of average compensation")


def test_i9_switched_75_percent_from_the_55th_birthday(half_percent_guides):
    readings = Readings(high_risk_waits_for_age=True)
    result = evaluate(POLICE, half_percent_guides, as_of=AS_OF, readings=readings)
    high_risk = result.clause("b")
    assert (high_risk.annual_amount, high_risk.start_date) == (45_000.00, dt.date(2025, 1, 1))
    assert high_risk.reason.endswith(
        "; age at separation below 55: 75% of average compensation from age 55 (I-9)"
    )
    assert (
        "  75% of average compensation from the 55th birthday (I-9; age at separation below 55)"
        in (result.explanation)
    )
    assert result.readings.label() == "high_risk_waits_for_age=True"


@pytest.mark.parametrize("waits", [False, True])
def test_i9_at_55_both_readings_pay_75_percent_from_separation(half_percent_guides, waits):
    at_55 = {**POLICE, "separation_date": "2025-01-01"}
    result = evaluate(
        at_55, half_percent_guides, as_of=AS_OF, readings=Readings(high_risk_waits_for_age=waits)
    ).clause("b")
    assert (result.annual_amount, result.start_date) == (45_000.00, dt.date(2025, 1, 1))


def test_i9_reads_the_age_from_the_law(half_percent_guides, tmp_path):
    bill = tmp_path / "age.toml"
    bill.write_text(
        '[[high_risk.age]]\neffective_from = 2020-01-01\nvalue = 50\nunit = "years"\n'
        'source = "Test bill"\n',
        encoding="utf-8",
    )
    result = evaluate(POLICE, half_percent_guides, as_of=AS_OF, law=bill).clause("b")
    assert result.annual_amount == 45_000.00  # 51y5m is past the amended age of 50
    assert result.reason.endswith("; age at separation 50 or older: 75% of average compensation")


def test_i9_switch_on_the_command_line():
    args = ["evaluate", "--birth-date", "1970-01-01", "--entry-date", "1991-01-01"]
    args += ["--separation-date", "2021-06-01", "--service", "30.4", "--compensation", "60000"]
    args += ["--group", "police", "--as-of", "2027-06-01", "--json"]
    runner = CliRunner()
    default = json.loads(runner.invoke(cli, args).stdout)
    switched = json.loads(runner.invoke(cli, [*args, "--high-risk-waits-for-age"]).stdout)
    assert default["clauses"][1]["annual_amount"] == 39_000.00
    assert switched["clauses"][1]["annual_amount"] == 45_000.00
    assert switched["clauses"][1]["start_date"] == "2025-01-01"


# ------------------------------------------------------------------- guides and the law
def test_a_law_that_lets_c_reach_an_age_outside_the_guide_gets_an_error_on_that_row(
    half_percent_guides, tmp_path
):
    bill = tmp_path / "fifty.toml"
    bill.write_text(
        '[[early_retirement.age]]\neffective_from = 2020-01-01\nvalue = 50\nunit = "years"\n'
        'source = "Test bill"\n',
        encoding="utf-8",
    )
    young = {
        **EARLY,
        "birth_date": "1970-01-01",
        "separation_date": "2022-03-01",
        "credited_service": 26.0,
    }
    result = evaluate(young, half_percent_guides, as_of=AS_OF, law=bill)
    early = result.clause("c")
    assert early.eligible and early.reduction_factor is None and early.monthly_amount is None
    assert early.schedule is None  # no amount, no schedule
    assert early.error == (
        "age at separation 52y2m is outside the table of guide "
        "'illustrative-half-percent-per-month' (55y0m to 65y0m): no reduction factor"
    )
    assert result.clause("d").error is None


def test_the_default_series_is_an_actuarial_reduction_on_a_stated_basis():
    guides = load_guides(SHIPPED_GUIDES, DEFAULT_SERIES)
    assert DEFAULT_SERIES == "pub2010-general-unisex-4.5pct"
    (guide,) = guides.guides
    assert guide.basis  # mortality, interest and timing stated
    assert load_guides(SHIPPED_GUIDES, "illustrative-half-percent-per-month")  # still shipped


def test_a_guide_not_adopted_is_named_in_plain_words(half_percent_guides, tmp_path):
    result = evaluate(EARLY, half_percent_guides, as_of=AS_OF, law=None)
    member = {**EARLY, "credited_service": 26.0}
    lines = evaluate(member, half_percent_guides, as_of=AS_OF).explanation
    assert (
        "  guide 'illustrative-half-percent-per-month' is illustrative, not adopted by the Junta "
        "de Síndicos: this reduction is an illustration, not the Board's"
    ) in lines
    spanish = evaluate(member, half_percent_guides, as_of=AS_OF, lang="es").explanation
    assert any("es ilustrativa, no adoptada por la Junta de Síndicos" in line for line in spanish)
    assert not any("not adopted" in line for line in result.explanation)  # no guide used


# ------------------------------------------------------------------------- registries
def test_one_column_list_makes_the_table_the_arrow_schema_and_the_one_member_result(
    half_percent_guides, member
):
    assert tuple(column.name for column in COLUMNS) == RESULT_COLUMNS
    assert tuple(OUTPUT_SCHEMA.names) == RESULT_COLUMNS
    assert tuple(ClauseResult.__slots__) == tuple(c.name for c in COLUMNS if c.per_clause)
    table = evaluate_frame(pd.DataFrame([member()]), half_percent_guides, as_of=AS_OF)
    assert tuple(table.columns) == RESULT_COLUMNS


def _toy_rule(situation, law_on, readings) -> ClauseOutcome:
    """A toy clause for the test: $100 a month with the service of (a)."""
    passes = situation.credited_service >= law_on["service_annuity.minimum_service"]
    return ClauseOutcome(
        "e",
        ((TOY_SERVICE, passes),),
        passes,
        np.where(passes, 1_200.0, np.nan),
        np.where(passes, situation.separation_date, np.datetime64("NaT")),
    )


TOY_SERVICE = Condition(
    "e.service",
    "service_annuity.minimum_service",
    Wording(
        "service {value:g} years or more", "service below {value:g} years", "service {service:.2f}"
    ),
    Wording(
        "servicio {value:g} años o más",
        "servicio menor de {value:g} años",
        "servicio {service:.2f}",
    ),
)


@pytest.fixture
def fifth_clause():
    register_clause(Clause("e", "Toy clause", _toy_rule))
    yield
    unregister_clause("e")


def test_a_fifth_clause_is_evaluated_tabled_and_batched(
    fifth_clause, half_percent_guides, member, write_members, tmp_path
):
    assert list(CLAUSES) == ["a", "b", "c", "d", "e"]
    members = [
        member(),
        member(member_id="A-2", credited_service=5.0),
        member(member_id="X", group="x"),
    ]
    table = evaluate_frame(pd.DataFrame(members), half_percent_guides, as_of=AS_OF)
    assert table["clause"].astype(str).tolist() == list("abcde") * 2 + [""]
    toy = table[table["clause"] == "e"].set_index("member_id")
    assert toy.loc["A-1", "monthly_amount"] == 500.00  # 100 a month, lifted by the minimum (I-4)
    assert toy.loc["A-2", "reason"] == "inciso (e): not eligible: service below 10 years"
    result = evaluate(member(), half_percent_guides, as_of=AS_OF)
    assert result.clause("e").eligible
    assert "inciso (e) Toy clause: ELIGIBLE" in result.explanation
    out = tmp_path / "out.parquet"
    summary = run_batch(write_members(members), half_percent_guides, out, AS_OF, progress=False)
    assert summary.eligible == {"a": 1, "b": 0, "c": 0, "d": 0, "e": 1}
    assert summary.output_rows == len(pq.read_table(out)) == 2 * 5 + 1


def test_the_clauses_are_four_without_the_toy():
    assert list(CLAUSES) == ["a", "b", "c", "d"]


# ---------------------------------------------------------------- batch and the command line
def test_batch_records_the_law_files_and_as_of_in_parquet_metadata(
    half_percent_guides, member, write_members, bill, tmp_path
):
    out = tmp_path / "out.parquet"
    law = load_law(bill)
    summary = run_batch(
        write_members([member()]), half_percent_guides, out, AS_OF, progress=False, law=law
    )
    metadata = pq.read_schema(out).metadata
    assert json.loads(metadata[b"actuarial.law"]) == law.provenance()
    assert metadata[b"actuarial.as_of"] == b"2027-06-01"
    assert f"law: {bill} sha256 {law.files[1].sha256}" in summary.lines()
    assert "payment date: the later of 2027-06-01 (as of) and each annuity's start date" in (
        summary.lines()
    )


def test_batch_with_law_pays_the_amended_amounts_and_names_the_files(bill, tmp_path, write_members):
    members = write_members([SMALL, EARLY])
    out = tmp_path / "r.csv"
    args = ["batch", str(members), "--law", str(bill), "--as-of", "2027-06-01", "--out", str(out)]
    result = CliRunner().invoke(cli, [*args, "--series", "illustrative-half-percent-per-month"])
    assert result.exit_code == 0, result.output
    assert f"law: {bill} sha256 {load_law(bill).files[1].sha256}" in result.stdout.splitlines()
    assert f"law: actuarial/law/law.toml sha256 {shipped_law().files[0].sha256}" in result.stdout
    table = pd.read_csv(out, keep_default_na=False).set_index(["member_id", "clause"])
    assert float(table.loc[("S-1", "a"), "monthly_amount"]) == 600.00
    assert float(table.loc[("E-1", "c"), "monthly_amount"]) == 600.00
    assert table.loc[("S-1", "a"), "schedule"] == (
        "2010-03-01 270.00; 2013-07-01 500.00; 2027-01-01 600.00"
    )
    assert table.loc[("E-1", "c"), "reason"].endswith("credited service 20 years or more")
    assert out.with_suffix(".csv").exists() and not list(tmp_path.glob("r.csv.*"))


def test_law_is_repeatable_and_a_bad_law_file_exits_1_naming_it(bill, tmp_path):
    other = tmp_path / "other.toml"
    other.write_text("[[minimum_monthly_pension]]\nvalue = 1\n", encoding="utf-8")
    args = ["evaluate", "--birth-date", "1960-06-15", "--entry-date", "1995-06-15"]
    args += ["--separation-date", "2025-06-15", "--service", "20", "--compensation", "48000"]
    ok = CliRunner().invoke(cli, [*args, "--law", str(bill), "--law", str(bill), "--json"])
    assert [f["file"] for f in json.loads(ok.stdout)["law"]][1:] == [str(bill), str(bill)]
    bad = CliRunner().invoke(cli, [*args, "--law", str(other)])
    assert bad.exit_code == 1
    assert bad.stderr.startswith(
        f"error: {other}:1: 'minimum_monthly_pension' entry 1: keys must be"
    )


@pytest.mark.parametrize("value", ["20270601", "2027-6-1", "2027-06-01T00:00", "June 1"])
def test_as_of_accepts_iso_dates_only(value):
    args = ["evaluate", "--birth-date", "1960-06-15", "--entry-date", "1995-06-15"]
    args += ["--separation-date", "2025-06-15", "--service", "20", "--compensation", "48000"]
    result = CliRunner().invoke(cli, [*args, "--as-of", value])
    assert result.exit_code == 2
    assert f"must be a date YYYY-MM-DD (got {value!r})" in result.stderr


def test_the_reading_switches_on_the_command_line_are_generated_from_the_readings():
    from actuarial.law.readings import INTERPRETATIONS

    help_text = CliRunner().invoke(cli, ["batch", "--help"]).stdout
    for item in INTERPRETATIONS:
        if item.switch is not None:
            for option in item.cli.option.split("/"):
                assert option in help_text
    assert "$500" in help_text  # the I-4 help states the minimum of the law in force


# ------------------------------------------------------ a minimum as large as a law may give
def minimum_bill(tmp_path, value: str):
    path = tmp_path / "minimum.toml"
    path.write_text(
        f"[[minimum_monthly_pension]]\neffective_from = 2027-01-01\nvalue = {value}\n"
        'unit = "USD a month"\nsource = "Test bill"\n',
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize(
    ("value", "cents"), [("10000000", 1_000_000_000), ("9999999.99", 999_999_999)]
)
def test_the_largest_minimum_a_law_gives_is_scheduled_right_to_the_cent(
    half_percent_guides, tmp_path, value, cents
):
    """At most 10,000,000 USD a month: a cent more is refused, every amount up to it exact."""
    bill = minimum_bill(tmp_path, value)
    shown = f"{cents // 100}.{cents % 100:02d}"
    schedule = f"2010-03-01 270.00; 2013-07-01 500.00; 2027-01-01 {shown}"
    table = evaluate_frame(pd.DataFrame([SMALL]), half_percent_guides, as_of=AS_OF, law=bill)
    row = table.set_index("clause").loc["a"]
    assert row["schedule"] == schedule  # schedule_text, in bytes
    assert (row["monthly_amount"], row["minimum_topup"]) == (cents / 100, (cents - 27_000) / 100)
    one = evaluate(SMALL, half_percent_guides, as_of=AS_OF, law=bill).clause("a")
    assert one.schedule == schedule
    with pytest.raises(LawError, match=r"'value' must be at most 10,000,000, so that every cent"):
        evaluate(SMALL, half_percent_guides, as_of=AS_OF, law=minimum_bill(tmp_path, "10000000.01"))


@pytest.mark.parametrize("value", ["1e17", "99999999999999999999999999999", "1e308"])
def test_a_huge_minimum_is_an_error_line_of_batch_and_evaluate_not_a_wrong_result(
    tmp_path, write_members, value
):
    """1e17 was paid with a schedule '2027-01-01 1.92' and a numpy warning; 1e308 was
    'monthly $inf' and a traceback of evaluate --json."""
    bill = minimum_bill(tmp_path, value)
    rule = f"error: {bill}:1: 'minimum_monthly_pension' entry 1 (effective_from 2027-01-01): "
    rule += "'value' must be at most 10,000,000, so that every cent is exact (got "
    out = tmp_path / "r.csv"
    members = write_members([SMALL])
    batch = CliRunner().invoke(
        cli, ["batch", str(members), "--law", str(bill), "--as-of", "2028-06-01", "--out", str(out)]
    )
    args = ["evaluate", "--birth-date", "1960-06-15", "--entry-date", "1995-06-15"]
    args += ["--separation-date", "2025-06-15", "--service", "20", "--compensation", "48000"]
    one = CliRunner().invoke(cli, [*args, "--law", str(bill), "--as-of", "2028-06-01", "--json"])
    for result in (batch, one):
        assert result.exit_code == 1, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
        assert result.stderr.startswith(rule) and result.stdout == ""
    assert not out.exists()


# --------------------------------------------------- what an amended law can never apply
def _entry(name: str, effective_from: str, value, unit: str) -> str:
    return (
        f'[[{name}]]\neffective_from = {effective_from}\nvalue = {value}\nunit = "{unit}"\n'
        'source = "Test bill"\n\n'
    )


def _notes_of(tmp_path, text: str) -> list[str]:
    """The notes warned when ``text`` amends the shipped law, as warned, in order."""
    path = tmp_path / "amendment.toml"
    path.write_text(text, encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        law = load_law(path)
    assert [str(w.message) for w in caught] == list(law_notes(law))
    assert all(w.category is LawNote for w in caught)
    return list(law_notes(law))


def test_the_shipped_law_and_the_example_bill_have_nothing_that_cannot_apply():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert law_notes(shipped_law()) == ()
        assert law_notes(load_law(EXAMPLE_BILL)) == ()


@pytest.mark.parametrize(
    ("effective_from", "noted"), [("1985-01-01", True), ("1990-03-31", True), ("1990-04-02", False)]
)
def test_an_entry_replaced_before_the_laws_first_date_is_noted_never_in_force(
    tmp_path, effective_from, noted
):
    notes = _notes_of(tmp_path, _entry("minimum_monthly_pension", effective_from, 700, USD))
    expected = [
        f"{tmp_path / 'amendment.toml'}:1: 'minimum_monthly_pension' entry 1 (effective_from "
        f"{effective_from}): never in force: actuarial/law/law.toml:10: 'minimum_monthly_pension' "
        "entry 1 (effective_from 1990-04-01) replaces it on or before 1990-04-01, the first "
        "date of the law in force"
    ]
    assert notes == (expected if noted else [])


@pytest.mark.parametrize(("end", "noted"), [("1990-04-01", True), ("1990-04-02", False)])
def test_an_empty_coverage_window_is_noted_from_its_date(tmp_path, end, noted):
    notes = _notes_of(tmp_path, _entry("coverage.first_entry_before", "2028-01-01", end, "date"))
    expected = [
        "from 2028-01-01: the coverage window is empty: no first entry is covered (I-1); in "
        "force: actuarial/law/law.toml:82: 'coverage.first_entry_on_or_after' entry 1 "
        f"(effective_from 1990-04-01) = 1990-04-01 and {tmp_path / 'amendment.toml'}:1: "
        f"'coverage.first_entry_before' entry 1 (effective_from 2028-01-01) = {end}"
    ]
    assert notes == (expected if noted else [])


@pytest.mark.parametrize(("age", "noted"), [(64, False), (65, True), (70, True)])
def test_early_retirement_at_or_after_the_age_of_a_is_noted_for_its_span(tmp_path, age, noted):
    text = _entry("early_retirement.age", "2027-01-01", age, "years")
    text += _entry("early_retirement.age", "2030-01-01", 55, "years")
    file = tmp_path / "amendment.toml"
    expected = [
        "from 2027-01-01 until 2030-01-01: inciso (c) cannot apply: no age at separation is "
        f"from its age and below that of (a); in force: {file}:1: 'early_retirement.age' entry 1 "
        f"(effective_from 2027-01-01) = {age} and actuarial/law/law.toml:22: "
        "'service_annuity.age' entry 1 (effective_from 1990-04-01) = 65"
    ]
    assert _notes_of(tmp_path, text) == (expected if noted else [])


@pytest.mark.parametrize(("age", "noted"), [(0, True), (1, False)])
def test_inciso_d_at_age_zero_is_noted_as_never_applying(tmp_path, age, noted):
    # No note was given, and (d) said "separated at 62y8m, before 0y0m" to every member.
    file = tmp_path / "amendment.toml"
    expected = [
        "from 2020-01-01: inciso (d) cannot apply: no age at separation is below its age "
        "(nor any credited service, read literally (I-2)); in force: "
        f"{file}:1: 'deferred.age' entry 1 (effective_from 2020-01-01) = {age}"
    ]
    notes = _notes_of(tmp_path, _entry("deferred.age", "2020-01-01", age, "years"))
    assert notes == (expected if noted else [])
    assert D_BEFORE_SERVICE.parameter == D_BEFORE_AGE.parameter  # the note holds under both


def test_early_retirement_service_at_the_age_of_a_is_not_noted_a_member_may_meet_it(
    half_percent_guides, tmp_path
):
    """Not noted: a note says what can never take effect. Credited service may not exceed
    the age at separation in days / 365.2425 (members' data), which a day before a 65th
    birthday after 17 leap days is 65.001: 65 years of service at 64y11m is valid data."""
    text = _entry("early_retirement.minimum_service", "2027-01-01", 65, "years")
    assert _notes_of(tmp_path, text) == []
    member = {
        "member_id": "L-1", "birth_date": "1992-01-01", "entry_date": "1999-01-04",
        "separation_date": "2056-12-31", "credited_service": 65.0,
        "average_compensation": 24_000.0, "group": "general", "refunded": False,
    }  # fmt: skip
    early = evaluate(member, half_percent_guides, as_of=AS_OF, law=tmp_path / "amendment.toml")
    assert early.clause("c").eligible


@pytest.mark.parametrize("text", ["", "# a bill: entries to come\n", "\ufeff\n"])
def test_an_amendment_file_without_entries_is_noted_as_changing_nothing(tmp_path, text):
    """An empty file (a wrong or truncated one) costed a bill at nothing, without a word."""
    assert _notes_of(tmp_path, text) == [
        f"{tmp_path / 'amendment.toml'}: none of its entries is in the law in force (it holds "
        "none, or later files replace each): it changes nothing"
    ]


def test_an_amendment_whose_every_entry_a_later_one_replaces_is_noted(tmp_path):
    first, second = tmp_path / "first.toml", tmp_path / "second.toml"
    first.write_text(_entry("minimum_monthly_pension", "2027-01-01", 600, USD), encoding="utf-8")
    second.write_text(_entry("minimum_monthly_pension", "2027-01-01", 700, USD), encoding="utf-8")
    with pytest.warns(LawNote) as caught:
        law = load_law(first, second)
    assert (
        [str(w.message) for w in caught]
        == list(law_notes(law))
        == [
            f"{first}: none of its entries is in the law in force (it holds none, or later files "
            "replace each): it changes nothing"
        ]
    )


def test_an_amendment_entry_a_later_file_replaces_is_noted_and_listed(tmp_path):
    # A $550 minimum from 2029 in the first bill, replaced by the second's $500 of the same
    # date: dropped without a word, and missing from the page's list of entries.
    first, second = tmp_path / "first.toml", tmp_path / "second.toml"
    first.write_text(
        _entry("minimum_monthly_pension", "2027-01-01", 600, USD)
        + _entry("minimum_monthly_pension", "2029-01-01", 550, USD),
        encoding="utf-8",
    )
    second.write_text(
        _entry("minimum_monthly_pension", "2028-01-01", 650, USD)
        + _entry("minimum_monthly_pension", "2029-01-01", 500, USD),
        encoding="utf-8",
    )
    with pytest.warns(LawNote) as caught:
        law = load_law(first, second)
    replaced = (
        f"{first}:7: 'minimum_monthly_pension' entry 2 (effective_from 2029-01-01): never in "
        f"force: {second}:7: 'minimum_monthly_pension' entry 2 (effective_from 2029-01-01) "
        "replaces it, of the same date"
    )
    assert [str(w.message) for w in caught] == list(law_notes(law)) == [replaced]
    assert law.value_on("minimum_monthly_pension", dt.date(2029, 1, 1)) == 500
    entries = review.amendment_entries(law)
    assert list(
        zip(entries["file"], entries["effective_from"].astype(str), entries["value"], strict=True)
    ) == [
        ("first.toml", "2027-01-01", "$600.00"),
        ("first.toml", "2029-01-01", "$550.00"),
        ("second.toml", "2028-01-01", "$650.00"),
        ("second.toml", "2029-01-01", "$500.00"),
    ]
    assert list(entries["takes effect"]) == [
        "yes",
        "never (replaced by second.toml's entry of the same date)",
        "yes",
        "yes",
    ]


def test_a_file_given_twice_is_noted_as_changing_nothing_the_first_time(tmp_path):
    # With the same file twice (--law bill.toml --law bill.toml) the note was lost: its
    # entries were known by the file's name, which the second copy's entries also have.
    bill = tmp_path / "bill.toml"
    bill.write_text(_entry("minimum_monthly_pension", "2027-01-01", 600, USD), encoding="utf-8")
    with pytest.warns(LawNote) as caught:
        law = load_law(bill, bill, bill)
    assert [str(w.message) for w in caught] == [
        f"{bill} (copy {copy} of 3 given): none of its entries is in the law in force (it "
        "holds none, or later files replace each): it changes nothing"
        for copy in (1, 2)
    ]
    assert law.value_on("minimum_monthly_pension", dt.date(2027, 1, 1)) == 600
    assert list(review.amendment_entries(law)["file"]) == ["bill.toml"]  # the copy in force


@pytest.mark.parametrize("given", [["bill.toml"], 5, b"bill.toml", None])
def test_load_law_names_what_is_not_a_path(given):
    # load_law(["bill.toml"]) raised pathlib's "expected str, bytes or os.PathLike object".
    with pytest.raises(TypeError) as error:
        load_law(given)
    assert str(error.value) == (
        "an amendment file must be a path, each an argument of its own (load_law('a.toml', "
        f"'b.toml')); got {given!r}"
    )


def test_a_note_of_the_law_amended_is_not_warned_again_by_a_later_amendment(tmp_path):
    first = tmp_path / "first.toml"
    first.write_text(_entry("early_retirement.age", "2027-01-01", 65, "years"), encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        law = load_law(first)
        law.amended(EXAMPLE_BILL)
    assert len(caught) == 1 and "inciso (c) cannot apply" in str(caught[0].message)


def test_the_command_line_prints_each_note_on_stderr_and_keeps_stdout_as_it_was(tmp_path):
    amendment = tmp_path / "closed.toml"
    amendment.write_text(
        _entry("coverage.first_entry_before", "2028-01-01", "1990-04-01", "date"), encoding="utf-8"
    )
    args = ["evaluate", "--birth-date", "1960-06-15", "--entry-date", "1995-06-15"]
    args += ["--separation-date", "2025-06-15", "--service", "20", "--compensation", "48000"]
    args += ["--as-of", "2027-06-01", "--json"]
    plain = CliRunner().invoke(cli, args)
    amended = CliRunner().invoke(cli, [*args, "--law", str(amendment)])
    assert amended.exit_code == 0 and plain.stderr == ""
    with pytest.warns(LawNote):
        notes = law_notes(load_law(amendment))
    assert amended.stderr.splitlines() == [f"warning: law: {note}" for note in notes]
    assert amended.stderr.startswith("warning: law: from 2028-01-01: the coverage window is empty")
    assert json.loads(amended.stdout)["clauses"] == json.loads(plain.stdout)["clauses"]


def test_a_note_points_at_the_users_line_not_inside_the_package(half_percent_guides, tmp_path):
    # It pointed into the package's wrapper of path parameters ("output_files.py:119: ...
    # return function(*args, **kwargs)"), as the report's pages showed it.
    path = tmp_path / "amendment.toml"
    path.write_text(_entry("early_retirement.age", "2027-01-01", 65, "years"), encoding="utf-8")
    with pytest.warns(LawNote) as caught:
        evaluate(EARLY, half_percent_guides, as_of=AS_OF, law=path)
    assert [warning.filename for warning in caught] == [__file__]


@pytest.mark.parametrize("name", ["deferred.age", "service_annuity.age", "early_retirement.age"])
def test_an_entry_never_in_force_changes_no_result(half_percent_guides, tmp_path, name):
    # The README calls it legal but said; every evaluation failed on it instead ("law:
    # 'minimum_monthly_pension' has no value in force on 1980-01-01"): the engine read the
    # law on every change date, the entry's among them, before the law's first date.
    path = tmp_path / "amendment.toml"
    path.write_text(_entry(name, "1980-01-01", 60, "years"), encoding="utf-8")
    members = read_members(shipped.EXAMPLES / "members.csv")
    with pytest.warns(LawNote, match="never in force"):
        amended = evaluate_frame(members, half_percent_guides, as_of=AS_OF, law=path)
    shipped_results = evaluate_frame(members, half_percent_guides, as_of=AS_OF)
    pd.testing.assert_frame_equal(amended, shipped_results)
    with pytest.warns(LawNote):
        one = evaluate(EARLY, half_percent_guides, as_of=AS_OF, law=path)
    assert one.clauses == evaluate(EARLY, half_percent_guides, as_of=AS_OF).clauses


# ------------------------------------------------------------- guides under an amended law
AGES_BILL = (  # early retirement from 50 and the service annuity from 62, from 2030
    law_entry("early_retirement.age", "2030-01-01", 50, "years")
    + law_entry("service_annuity.age", "2030-01-01", 62, "years")
)


@pytest.fixture
def guides_for_the_bill(make_guide, tmp_path):
    """A series "jcs": the half-percent guide until 2029, then one of the bill's ages (50 to
    62, 0.5% a month before 62) from 2030."""
    root = tmp_path / "jcs"
    make_guide(
        "g1990",
        root=root,
        toml=lambda text: text.replace('series = "g1990"', 'series = "jcs"').replace(
            "effective_from = 1990-04-01",
            "effective_from = 1990-04-01\neffective_until = 2029-12-31",
        ),
    )
    rows = "".join(f"{age},0,{1 - 0.06 * (62 - age):.6f}\n" for age in range(50, 63))
    make_guide(
        "g2030",
        root=root,
        toml=lambda text: (
            text.replace('series = "g2030"', 'series = "jcs"')
            .replace("effective_from = 1990-04-01", "effective_from = 2030-01-01")
            .replace("normal_retirement_age = 65", "normal_retirement_age = 62")
        ),
        csv="age_years,age_months,factor\n" + rows,
    )
    bill = tmp_path / "ages.toml"
    bill.write_text(AGES_BILL, encoding="utf-8")
    return root, bill


def test_guides_are_checked_against_the_ages_of_the_law_they_are_used_with(guides_for_the_bill):
    # Guides were checked against the shipped law's ages alone: no guide could be valid for
    # a bill that changes them, and inciso (c) under it had no factor to apply.
    root, bill = guides_for_the_bill
    with pytest.raises(GuideError) as refused:
        load_guides(root, "jcs")  # the shipped law: (c) from 55, (a) at 65
    said = str(refused.value)
    assert "'normal_retirement_age' must be 65, the age of inciso (a) (got 62)" in said
    assert "age must be in [55y0m, 65y0m] (got 50y0m)" in said
    guides = load_guides(root, "jcs", law=bill)
    assert [g.id for g in guides] == ["g1990", "g2030"]
    # Under the bill, a member separating in 2031 at 51y6m with 25 years: inciso (c), the
    # factor between the rows of 51 and 52 (0.34 and 0.40, 6 of 12 months: 0.37).
    member = {
        "member_id": "J-1", "birth_date": "1979-07-01", "entry_date": "1999-06-01",
        "separation_date": "2031-01-01", "credited_service": 25.0,
        "average_compensation": 40_000.0, "group": "general", "refunded": False,
    }  # fmt: skip
    early = evaluate(member, guides, as_of=dt.date(2031, 1, 1), law=bill).clause("c")
    assert early.eligible and early.guide_id == "g2030"
    assert early.reduction_factor == pytest.approx(0.37, abs=1e-12)
    assert early.annual_amount == round(0.015 * 40_000 * 25 * 0.37, 2)
    # The shipped guides under the bill: the row the law's (c) needs is missing, said so.
    shipped = evaluate(member, load_guides(), as_of=dt.date(2031, 1, 1), law=bill).clause("c")
    assert shipped.eligible and "outside the table" in shipped.error


def test_a_guide_made_in_python_is_checked_against_the_law_it_is_given(guides_for_the_bill):
    root, bill = guides_for_the_bill
    guide = load_guides(root, "jcs", law=bill).by_id("g2030")
    again = dataclasses.replace(guide, path=None)  # checked again, under the same law
    assert again.law is guide.law
    with pytest.raises(GuideError, match="must be 65, the age of inciso"):
        dataclasses.replace(guide, law=None)  # under the shipped law


def test_guides_validate_and_evaluate_take_the_law_the_guides_are_for(guides_for_the_bill):
    root, bill = guides_for_the_bill
    refused = CliRunner().invoke(cli, ["guides", "validate", str(root)])
    assert refused.exit_code == 1
    assert "'normal_retirement_age' must be 65, the age of inciso (a) (got 62)" in refused.output
    checked = CliRunner().invoke(cli, ["guides", "validate", str(root), "--law", str(bill)])
    assert checked.exit_code == 0, checked.output
    assert "ok: g2030 (series 'jcs', illustrative, from 2030-01-01 to open end, 13 rows" in (
        checked.output
    )
    member = [
        "--birth-date", "1979-07-01", "--entry-date", "1999-06-01",
        "--separation-date", "2031-01-01", "--service", "25", "--compensation", "40000",
        "--as-of", "2031-01-01", "--guides", str(root), "--series", "jcs",
    ]  # fmt: skip
    under_bill = CliRunner().invoke(cli, ["evaluate", *member, "--law", str(bill)])
    assert under_bill.exit_code == 0, under_bill.output
    assert "reduction factor 0.370000: guide 'g2030', linear by month between 51y0m" in (
        under_bill.output
    )


def test_guides_derive_writes_a_guide_of_the_laws_ages(tmp_path):
    # A derived guide spanned the shipped law's 55 to 65 whatever bill it was for.
    bill = tmp_path / "ages.toml"
    bill.write_text(AGES_BILL, encoding="utf-8")
    out = tmp_path / "jcs-2030"
    derive = ["guides", "derive", "--mortality", "sult", "--interest", "0.05"]
    derive += ["--effective-from", "2030-01-01", "--out", str(out)]
    written = CliRunner().invoke(cli, [*derive, "--law", str(bill)])
    assert written.exit_code == 0, written.output
    guide = load_guides(out, law=bill).by_id("jcs-2030")
    assert (guide.age_months[0], guide.age_months[-1]) == (50 * 12, 62 * 12)
    assert guide.normal_retirement_age == 62 and guide.factors[-1] == 1.0
    assert guide.basis["ages"] == "every month from 50y0m to 62y0m"
    # Without the bill: the shipped law's ages on that day.
    shipped = CliRunner().invoke(cli, [*derive[:-1], str(tmp_path / "shipped-2030")])
    assert shipped.exit_code == 0, shipped.output
    assert "(121 rows; factor at 55y0m" in shipped.output


def test_the_reports_provenance_lists_guides_for_the_bill_under_the_bill(guides_for_the_bill):
    # provenance() read every guide under the shipped law: the report stopped before any page.
    from actuarial import report

    root, bill = guides_for_the_bill
    guides = load_guides(root, "jcs", law=bill)
    made = report.provenance(guides, root, shipped.EXAMPLE_MEMBERS, law=bill)
    assert [guide_id for guide_id, _, _ in made.guides] == ["g1990", "g2030"]


def test_guides_used_under_a_law_of_other_ages_are_refused(guides_for_the_bill):
    # Loaded for the bill, used under the shipped law: (c) at 51y6m reduced by the bill's
    # factors, silently, and page 09 saw no change between the two laws.
    root, bill = guides_for_the_bill
    guides = load_guides(root, "jcs", law=bill)
    member = {
        "member_id": "J-2", "birth_date": "1970-01-01", "entry_date": "1999-06-01",
        "separation_date": "2031-01-01", "credited_service": 30.0,
        "average_compensation": 40_000.0, "group": "general", "refunded": False,
    }  # fmt: skip
    said = (
        "its table spans 50y0m to 62y0m, the ages of incisos (c) and (a) on 2030-01-01 of the "
        "law it was loaded with; the law used here gives 55y0m to 65y0m"
    )
    with pytest.raises(GuideError) as refused:
        evaluate(member, guides, as_of=dt.date(2031, 1, 1))
    assert said in str(refused.value)
    with pytest.raises(GuideError) as refused:
        evaluate_frame(pd.DataFrame([member]), guides, as_of=dt.date(2031, 1, 1))
    assert said in str(refused.value)
    assert evaluate(member, guides, as_of=dt.date(2031, 1, 1), law=bill).clause("c").eligible


def test_an_amendment_every_entry_of_which_a_later_one_replaces_is_listed(tmp_path):
    # Its file was noted as changing nothing, but its entries vanished from page 09's list.
    files = []
    for name, value in [("b550.toml", 550), ("b500.toml", 500.5), ("b600.toml", 600)]:
        files.append(tmp_path / name)
        files[-1].write_text(_entry("minimum_monthly_pension", "2029-01-01", value, USD))
    with pytest.warns(LawNote):
        law = load_law(*files)
    entries = review.amendment_entries(law)
    assert list(zip(entries["file"], entries["value"], entries["takes effect"], strict=True)) == [
        ("b550.toml", "$550.00", "never (replaced by b500.toml's entry of the same date)"),
        ("b500.toml", "$500.50", "never (replaced by b600.toml's entry of the same date)"),
        ("b600.toml", "$600.00", "yes"),
    ]


def test_no_amendment_file_is_the_law_itself_and_guides_take_no_set_of_files(tmp_path):
    # load_law() made a new Law each time: what the shipped law computes once was computed
    # again on every call (evaluate twice as slow); an empty set was read as the shipped law.
    assert load_law() is shipped_law()
    with pytest.raises(TypeError, match="in order"):
        load_guides(SHIPPED_GUIDES, DEFAULT_SERIES, law=set())


def test_every_guides_command_reads_guides_for_a_bill_with_its_law(guides_for_the_bill):
    # guides derive --law wrote a guide, and validate --law accepted it, that list, show,
    # compare, fit and subsidy refused ("'normal_retirement_age' must be 65").
    root, bill = guides_for_the_bill
    g2030 = str(root / "g2030")
    basis = ["--mortality", "sult"]
    commands = [
        ["guides", "list", "--guides", str(root)],
        ["guides", "show", "g2030", "--guides", str(root)],
        ["guides", "compare", g2030, g2030],
        ["guides", "fit", g2030, *basis],
        ["guides", "subsidy", g2030, *basis, "--interest", "0.05"],
    ]
    for command in commands:
        refused = CliRunner().invoke(cli, command)
        assert refused.exit_code == 1, command
        assert "must be 65, the age of inciso (a) (got 62)" in refused.output
        read = CliRunner().invoke(cli, [*command, "--law", str(bill)])
        assert read.exit_code == 0, (command, read.output)
    shown = CliRunner().invoke(
        cli, ["guides", "show", "g2030", "--guides", str(root), "--law", str(bill)]
    )
    assert "normal_retirement_age: 62" in shown.output


@pytest.mark.parametrize("years", [11, 12, 13, 111, 21, 52, 53, 55])
def test_an_age_of_the_law_is_an_english_ordinal_teens_included(years):
    # The I-9 text says "from the 55th birthday"; an amendment may make it 11, 12 or 13.
    suffix = "th" if 10 <= years % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(years % 10, "th")
    assert render("{nth[high_risk.age]}", {"high_risk.age": float(years)}) == f"{years}{suffix}"


@pytest.mark.parametrize("path", ["evaluate", "evaluate_frame"])
def test_a_separation_on_an_amendments_first_day_is_judged_and_told_by_it(path):
    # Separated 2027-01-01, the bill's first day: 20 years suffice, and the reason says 20.
    member = {
        "member_id": "E-1", "birth_date": "1969-01-01", "entry_date": "1995-01-01",
        "separation_date": "2027-01-01", "credited_service": 22.0,
        "average_compensation": 48_000.0, "group": "general", "refunded": False,
    }  # fmt: skip
    guides = load_guides(SHIPPED_GUIDES, "illustrative-half-percent-per-month")
    as_of = dt.date(2027, 1, 1)
    if path == "evaluate":
        early = evaluate(member, guides, as_of=as_of, law=EXAMPLE_BILL).clause("c")
        reason, annual, monthly = early.reason, early.annual_amount, early.monthly_amount
    else:
        table = evaluate_frame(pd.DataFrame([member]), guides, as_of=as_of, law=EXAMPLE_BILL)
        row = table[table["clause"] == "c"].iloc[0]
        reason, annual, monthly = row["reason"], row["annual_amount"], row["monthly_amount"]
    # 58y0m: f = 1 - 0.005 x 84 = 0.58; 1.5% x 48,000 x 22 x 0.58 = 9,187.20 a year, 765.60
    assert (annual, monthly) == (9_187.20, 765.60)
    assert reason == (
        "inciso (c): eligible: no refund of contributions; age at separation 55 or older; "
        "age at separation below 65; credited service 20 years or more"
    )


def test_a_fractional_minimum_service_is_stated_and_applied_as_written(tmp_path):
    bill = tmp_path / "half-year.toml"
    bill.write_text(law_entry("early_retirement.minimum_service", "2020-01-01", 24.5, "years"))
    guides = load_guides(SHIPPED_GUIDES, "illustrative-half-percent-per-month")
    member = {
        "member_id": "F-1", "birth_date": "1965-06-15", "entry_date": "1995-06-15",
        "separation_date": "2022-06-15", "credited_service": 24.0,
        "average_compensation": 48_000.0, "group": "general", "refunded": False,
    }  # fmt: skip
    as_of = dt.date(2022, 7, 1)
    below = evaluate(member, guides, as_of=as_of, law=bill).clause("c")
    assert below.reason == "inciso (c): not eligible: credited service below 24.5 years"
    at = evaluate({**member, "credited_service": 24.5}, guides, as_of=as_of, law=bill).clause("c")
    # 57y0m: f = 1 - 0.005 x 96 = 0.52; 1.5% x 48,000 x 24.5 x 0.52 = 9,172.80; 764.40 a month
    assert at.reason.endswith("credited service 24.5 years or more")
    assert (at.reduction_factor, at.annual_amount, at.monthly_amount) == (0.52, 9_172.80, 764.40)
