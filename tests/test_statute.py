"""The four clauses of art. 2-103 (3 L.P.R.A. § 766d), clause by clause, on both sides of
every age, service and date threshold, through the public ``evaluate`` and
``evaluate_frame``: each test runs on both and must give the same answer.

Unless a test says otherwise, amounts use the shipped illustrative guide (0.5% per month
before 65) and the default readings of docs/readings.md.
"""

from __future__ import annotations

import datetime as dt

import pandas as pd
import pytest
from conftest import FROM_START

from actuarial.engine import ClauseResult, evaluate, evaluate_frame
from actuarial.law.readings import Readings

NOT_COVERED_BEFORE = "not covered by Chapter 2 (I-1): first entry before 1990-04-01"
NOT_COVERED_AFTER = (
    "not covered by Chapter 2 (I-1): first entry on or after 2000-01-01 "
    "(Retirement Savings Account Program, Ley 305-1999)"
)


def _optional(value):
    if value is None or value is pd.NaT or (isinstance(value, float) and value != value):
        return None
    if isinstance(value, pd.Timestamp):
        return value.date()
    return value


def _from_frame(member, guides, clause, as_of, readings) -> ClauseResult:
    table = evaluate_frame(pd.DataFrame([member]), guides, as_of=as_of, readings=readings)
    assert len(table) == 4, table["error"].tolist()
    row = table[table["clause"] == clause].iloc[0]
    assert row["readings"] == (readings or Readings()).label()
    return ClauseResult(
        clause=row["clause"],
        eligible=bool(row["eligible"]),
        reason=row["reason"],
        start_date=_optional(row["start_date"]),
        reduction_factor=_optional(row["reduction_factor"]),
        annual_amount=_optional(row["annual_amount"]),
        monthly_amount=_optional(row["monthly_amount"]),
        minimum_topup=_optional(row["minimum_topup"]),
        schedule=row["schedule"] or None,
        guide_id=row["guide_id"] or None,
        error=row["error"] or None,
    )


def _from_evaluate(member, guides, clause, as_of, readings) -> ClauseResult:
    result = evaluate(member, guides, as_of=as_of, readings=readings)
    assert result.readings == (readings or Readings())
    return result.clause(clause)


@pytest.fixture(params=["evaluate", "evaluate_frame"])
def inciso(request, half_percent_guides):
    """``inciso("c", member, as_of=..., readings=...)``: that clause's result for the member."""
    run = _from_evaluate if request.param == "evaluate" else _from_frame

    def result(clause, member, as_of=FROM_START, readings=None) -> ClauseResult:
        return run(member, half_percent_guides, clause, as_of, readings)

    return result


def assert_pays(result: ClauseResult, annual, monthly, start, topup=0.0):
    assert result.eligible, result.reason
    assert result.error is None
    # Tolerance: a penny, the displayed precision.
    assert result.annual_amount == pytest.approx(annual, abs=0.005)
    assert result.monthly_amount == pytest.approx(monthly, abs=0.005)
    assert result.minimum_topup == pytest.approx(topup, abs=0.005)
    assert result.start_date == dt.date.fromisoformat(start)


def assert_not_eligible(result: ClauseResult, reason: str):
    assert not result.eligible
    assert result.reason == reason
    assert result.start_date is None
    assert result.annual_amount is None
    assert result.monthly_amount is None
    assert result.minimum_topup is None


# ------------------------------------------------------------------------ inciso (a)
# «... a partir de la fecha en que cumplan sesenta y cinco (65) años de edad, hubieren
# completado un mínimo de diez (10) años de servicios acreditados ...»
INCISO_A_ELIGIBLE = (
    "inciso (a): eligible: no refund of contributions; age at separation 65 or older; "
    "credited service 10 years or more"
)


def test_inciso_a_pays_one_and_a_half_percent_of_ac_per_year_from_the_65th_birthday(inciso, member):
    # Hand computation: 1.5% x 48,000 x 20 = 14,400 a year; / 12 = 1,200 a month.
    result = inciso("a", member(separation_date="2025-06-15"))
    assert_pays(result, 14_400.00, 1_200.00, "2025-06-15")
    assert result.reason == INCISO_A_ELIGIBLE
    assert result.reduction_factor is None and result.guide_id is None


def test_inciso_a_is_not_available_at_64_years_11_months(inciso, member):
    result = inciso("a", member(separation_date="2025-06-14"))
    assert_not_eligible(result, "inciso (a): not eligible: age at separation below 65")


def test_inciso_a_needs_10_years_of_service_not_9_99(inciso, member):
    # Hand computation: 1.5% x 48,000 x 10 = 7,200 a year, 600 a month.
    assert_pays(inciso("a", member(credited_service=10.0)), 7_200.00, 600.00, "2025-06-15")
    assert_not_eligible(
        inciso("a", member(credited_service=9.99)),
        "inciso (a): not eligible: credited service below 10 years",
    )


def test_inciso_a_is_barred_by_a_refund_of_contributions(inciso, member):
    assert_not_eligible(
        inciso("a", member(refunded=True)),
        "inciso (a): not eligible: refund of contributions requested or received",
    )


def test_inciso_a_amount_is_rate_times_average_compensation_times_service(inciso, member):
    # Hand computation: 0.015 x 52,345.67 x 23.75 = 18,648.1449375 -> 18,648.14 a year;
    # 18,648.1449375 / 12 = 1,554.0120781 -> 1,554.01 a month.
    result = inciso(
        "a",
        member(average_compensation=52_345.67, credited_service=23.75, entry_date="1990-06-15"),
    )
    assert_pays(result, 18_648.14, 1_554.01, "2025-06-15")


def test_inciso_a_lists_every_failed_condition(inciso, member):
    result = inciso("a", member(refunded=True, separation_date="2020-06-15", credited_service=5.0))
    assert result.reason == (
        "inciso (a): not eligible: refund of contributions requested or received; "
        "age at separation below 65; credited service below 10 years"
    )


# ------------------------------------------------------------------------ inciso (b)
# «Los miembros del Cuerpo de la Policía y del Cuerpo de Bomberos ... cincuenta y cinco
# (55) años de edad y ... treinta (30) años de servicio acreditado ... setenta y cinco por
# ciento (75%) ... sin haber cumplido los cincuenta y cinco (55) años ... sesenta y cinco por
# ciento (65%) de la retribución promedio.»


def police_officer(member, **overrides):
    """Born 1965-06-15, entered 1990-06-15, 30 years at $40,000: 55 on 2020-06-15."""
    values = {
        "birth_date": "1965-06-15",
        "entry_date": "1990-06-15",
        "separation_date": "2020-06-15",
        "credited_service": 30.0,
        "average_compensation": 40_000.0,
        "group": "police",
    }
    return member(**{**values, **overrides})


def test_inciso_b_pays_75_percent_to_a_police_officer_separating_at_55_with_30_years(
    inciso, member
):
    # Hand computation: 75% x 40,000 = 30,000 a year, 2,500 a month.
    result = inciso("b", police_officer(member))
    assert_pays(result, 30_000.00, 2_500.00, "2020-06-15")
    assert result.reason == (
        "inciso (b): eligible: police or firefighter; no refund of contributions; credited "
        "service 30 years or more; age at separation 55 or older: 75% of average compensation"
    )


def test_inciso_b_pays_65_percent_at_54_years_11_months(inciso, member):
    # Hand computation: 65% x 40,000 = 26,000 a year; / 12 = 2,166.666... -> 2,166.67.
    result = inciso("b", police_officer(member, separation_date="2020-06-14"))
    assert_pays(result, 26_000.00, 2_166.67, "2020-06-14")
    assert result.reason.endswith("age at separation below 55: 65% of average compensation")


def test_inciso_b_needs_30_years_not_29_99(inciso, member):
    assert_not_eligible(
        inciso("b", police_officer(member, credited_service=29.99)),
        "inciso (b): not eligible: credited service below 30 years",
    )


def test_inciso_b_covers_firefighters(inciso, member):
    result = inciso("b", police_officer(member, group="firefighter"))
    assert_pays(result, 30_000.00, 2_500.00, "2020-06-15")


def test_inciso_b_is_only_for_police_and_firefighters(inciso, member):
    assert_not_eligible(
        inciso("b", police_officer(member, group="general")),
        "inciso (b): not eligible: not police or firefighter",
    )


def test_inciso_b_keeps_paying_75_percent_after_65(inciso, member):
    result = inciso("b", police_officer(member, separation_date="2031-01-10"))
    assert_pays(result, 30_000.00, 2_500.00, "2031-01-10")


# ------------------------------------------------------------------------ inciso (c)
# «... cuya separación del servicio ocurriese al cumplir cincuenta y cinco (55) años de
# edad y hubieren completado un mínimo de veinticinco (25) años de servicio acreditado, ...
# la anualidad por años de servicio que se dispone en el inciso (a) ..., con una reducción
# actuarial que será calculada a base de las Guías Actuariales ...»


def early_retiree(member, **overrides):
    """Born 1960-06-15, entered 1990-06-15, 26 years at $40,000: (a) formula 15,600 a year."""
    values = {
        "entry_date": "1990-06-15",
        "credited_service": 26.0,
        "average_compensation": 40_000.0,
    }
    return member(**{**values, **overrides})


@pytest.mark.parametrize(
    ("separation_date", "factor", "annual", "monthly"),
    [
        # Guide row 55y0m: 0.40. 15,600 x 0.40 = 6,240 a year, 520 a month.
        ("2015-06-15", 0.40, 6_240.00, 520.00),
        # 57y5m: linear by month between 57y0m (0.52) and 58y0m (0.58):
        # 0.52 + 5/12 x 0.06 = 0.545. 15,600 x 0.545 = 8,502 a year, 708.50 a month.
        ("2017-11-15", 0.545, 8_502.00, 708.50),
        # Guide row 60y0m: 0.70. 15,600 x 0.70 = 10,920 a year, 910 a month.
        ("2020-06-15", 0.70, 10_920.00, 910.00),
        # 62y7m: 0.82 + 7/12 x 0.06 = 0.855. 15,600 x 0.855 = 13,338 a year, 1,111.50 a month.
        ("2023-01-15", 0.855, 13_338.00, 1_111.50),
        # 64y11m: 0.94 + 11/12 x 0.06 = 0.995. 15,600 x 0.995 = 15,522 a year, 1,293.50.
        ("2025-06-14", 0.995, 15_522.00, 1_293.50),
    ],
)
def test_inciso_c_reduces_the_inciso_a_annuity_by_the_guide_factor_at_the_exact_age(
    inciso, member, separation_date, factor, annual, monthly
):
    # Source of the factors: guides/illustrative-half-percent-per-month/reduction.csv,
    # f = 1 - 0.005 x (780 - age in months).
    result = inciso("c", early_retiree(member, separation_date=separation_date))
    assert_pays(result, annual, monthly, separation_date)
    assert result.reduction_factor == pytest.approx(factor, abs=1e-12)
    assert result.guide_id == "illustrative-half-percent-per-month"


def test_inciso_c_is_not_available_at_54_years_11_months(inciso, member):
    assert_not_eligible(
        inciso("c", early_retiree(member, separation_date="2015-06-14")),
        "inciso (c): not eligible: age at separation below 55",
    )


def test_inciso_c_is_not_available_at_65_where_inciso_a_applies_unreduced(inciso, member):
    at_65 = early_retiree(member, separation_date="2025-06-15")
    assert_not_eligible(
        inciso("c", at_65),
        "inciso (c): not eligible: age at separation 65 or older (inciso (a) applies, "
        "no reduction)",
    )
    # 1.5% x 40,000 x 26 = 15,600 a year, 1,300 a month, with no reduction.
    assert_pays(inciso("a", at_65), 15_600.00, 1_300.00, "2025-06-15")


def test_inciso_c_needs_25_years_not_24_99(inciso, member):
    # 1.5% x 40,000 x 25 x 0.545 = 8,175 a year, 681.25 a month.
    assert_pays(
        inciso("c", early_retiree(member, separation_date="2017-11-15", credited_service=25.0)),
        8_175.00,
        681.25,
        "2017-11-15",
    )
    assert_not_eligible(
        inciso("c", early_retiree(member, separation_date="2017-11-15", credited_service=24.99)),
        "inciso (c): not eligible: credited service below 25 years",
    )


def test_inciso_c_is_barred_by_a_refund(inciso, member):
    assert_not_eligible(
        inciso("c", early_retiree(member, separation_date="2017-11-15", refunded=True)),
        "inciso (c): not eligible: refund of contributions requested or received",
    )


# ------------------------------------------------------------------------ inciso (d)
# «... cuya separación del servicio ocurriese antes de cumplir los sesenta y cinco (65)
# años ... tendrán derecho a recibir una anualidad por retiro diferida al cumplir sesenta y
# cinco (65) años. Dicha anualidad se calculará de acuerdo a la fórmula establecida en el
# inciso (a) de esta sección.»


def deferred_member(member, **overrides):
    """Born 1960-06-15, separated at 55 with 12 years at $48,000: 8,640 a year from 65."""
    values = {"separation_date": "2015-06-15", "credited_service": 12.0}
    return member(**{**values, **overrides})


def test_inciso_d_pays_the_inciso_a_formula_from_the_65th_birthday(inciso, member):
    # Hand computation: 1.5% x 48,000 x 12 = 8,640 a year, 720 a month, from 2025-06-15.
    result = inciso("d", deferred_member(member))
    assert_pays(result, 8_640.00, 720.00, "2025-06-15")
    assert result.reason == (
        "inciso (d): eligible: no refund of contributions; separated before age 65; "
        "credited service 10 years or more"
    )


def test_inciso_d_is_available_at_64_years_11_months_and_not_at_65(inciso, member):
    before = deferred_member(member, separation_date="2025-06-14")
    assert_pays(inciso("d", before), 8_640.00, 720.00, "2025-06-15")
    assert_not_eligible(
        inciso("d", deferred_member(member, separation_date="2025-06-15")),
        "inciso (d): not eligible: separated at 65 or older",
    )


def test_inciso_d_needs_10_years_not_9_99_by_default(inciso, member):
    # 1.5% x 48,000 x 10 = 7,200 a year, 600 a month.
    assert_pays(
        inciso("d", deferred_member(member, credited_service=10.0)), 7_200.0, 600.0, "2025-06-15"
    )
    assert_not_eligible(
        inciso("d", deferred_member(member, credited_service=9.99)),
        "inciso (d): not eligible: credited service below 10 years",
    )


def test_inciso_d_is_barred_by_a_refund(inciso, member):
    assert_not_eligible(
        inciso("d", deferred_member(member, refunded=True)),
        "inciso (d): not eligible: refund of contributions requested or received",
    )


def test_inciso_d_for_a_feb_29_birth_starts_on_feb_28_of_the_65th_year(inciso, member):
    born_leap_day = deferred_member(
        member, birth_date="1960-02-29", entry_date="1995-02-01", separation_date="2020-02-28"
    )
    assert inciso("d", born_leap_day).start_date == dt.date(2025, 2, 28)
    mar1 = Readings(leap_day_birthday="mar1")
    assert inciso("d", born_leap_day, readings=mar1).start_date == dt.date(2025, 3, 1)


# ----------------------------------------------- Feb 29 and month-end births (I-6)
def test_born_feb_29_is_65_on_feb_28_of_a_common_year(inciso, member):
    born_leap_day = member(birth_date="1960-02-29", entry_date="1995-02-01")
    on_feb_28 = {**born_leap_day, "separation_date": "2025-02-28"}
    on_feb_27 = {**born_leap_day, "separation_date": "2025-02-27"}
    assert_pays(inciso("a", on_feb_28), 14_400.00, 1_200.00, "2025-02-28")
    assert_not_eligible(
        inciso("a", on_feb_27), "inciso (a): not eligible: age at separation below 65"
    )
    # The day before the 65th birthday, (d) is open and starts on that birthday.
    assert inciso("d", on_feb_27).start_date == dt.date(2025, 2, 28)


def test_born_on_january_31_reaches_the_next_month_of_age_on_the_last_day_of_february(
    inciso, member
):
    born_jan_31 = early_retiree(member, birth_date="1960-01-31")
    # 2020-02-29 is February's last day (leap year): 60y1m, 0.70 + 1/12 x 0.06 = 0.705.
    # 2020-02-28: still 60y0m, the guide row 0.70.
    assert inciso("c", {**born_jan_31, "separation_date": "2020-02-29"}).reduction_factor == (
        pytest.approx(0.705, abs=1e-12)
    )
    assert inciso("c", {**born_jan_31, "separation_date": "2020-02-28"}).reduction_factor == (
        pytest.approx(0.70, abs=1e-12)
    )
    # April has 30 days: 2020-04-30 is 60y3m (0.715), 2020-04-29 still 60y2m (0.71).
    assert inciso("c", {**born_jan_31, "separation_date": "2020-04-30"}).reduction_factor == (
        pytest.approx(0.715, abs=1e-12)
    )
    assert inciso("c", {**born_jan_31, "separation_date": "2020-04-29"}).reduction_factor == (
        pytest.approx(0.71, abs=1e-12)
    )


# ----------------------------------------------------------------- coverage (I-1)
@pytest.mark.parametrize(
    ("entry_date", "reason"),
    [("1990-03-31", NOT_COVERED_BEFORE), ("2000-01-01", NOT_COVERED_AFTER)],
)
def test_members_who_entered_outside_the_window_are_not_covered_by_any_clause(
    inciso, member, entry_date, reason
):
    outside = member(entry_date=entry_date, credited_service=20.0)
    for clause in "abcd":
        assert_not_eligible(inciso(clause, outside), reason)


@pytest.mark.parametrize("entry_date", ["1990-04-01", "1999-12-31"])
def test_members_who_entered_on_the_first_or_last_day_of_the_window_are_covered(
    inciso, member, entry_date
):
    assert_pays(inciso("a", member(entry_date=entry_date)), 14_400.00, 1_200.00, "2025-06-15")


def test_evaluation_says_whether_the_member_is_covered(half_percent_guides, member):
    assert evaluate(member(entry_date="1990-04-01"), half_percent_guides).covered
    outside = evaluate(member(entry_date="1990-03-31"), half_percent_guides)
    assert not outside.covered
    assert outside.explanation[1].startswith("Not covered by Chapter 2 (I-1)")


# ------------------------------------------------------------ the $500 minimum (I-4)
# «... se fija una pensión mínima ... de quinientos dólares ($500) mensuales, efectivo el,
# 1ro de julio de 2013.»


def small_annuitant(member, **overrides):
    """Born 1948-01-15, 10 years at $12,000: the (a) formula gives 1,800 a year, 150 a month."""
    values = {
        "birth_date": "1948-01-15",
        "entry_date": "1990-07-02",
        "credited_service": 10.0,
        "average_compensation": 12_000.0,
    }
    return member(**{**values, **overrides})


def test_minimum_does_not_lift_an_annuity_starting_on_june_30_2013(inciso, member):
    result = inciso("a", small_annuitant(member, separation_date="2013-06-30"))
    assert_pays(result, 1_800.00, 150.00, "2013-06-30", topup=0.00)


def test_minimum_lifts_an_annuity_starting_on_july_1_2013_to_500(inciso, member):
    # Paid 500; the annuity itself is 150: the minimum adds 350 a month.
    result = inciso("a", small_annuitant(member, separation_date="2013-07-01"))
    assert_pays(result, 1_800.00, 500.00, "2013-07-01", topup=350.00)


@pytest.mark.parametrize(
    ("as_of", "monthly", "topup"),
    [(dt.date(2013, 6, 30), 150.00, 0.00), (dt.date(2013, 7, 1), 500.00, 350.00)],
)
def test_minimum_applies_to_payments_from_july_1_2013_given_as_of(
    inciso, member, as_of, monthly, topup
):
    result = inciso("a", small_annuitant(member, separation_date="2013-06-30"), as_of=as_of)
    assert_pays(result, 1_800.00, monthly, "2013-06-30", topup=topup)


def test_as_of_before_the_start_date_does_not_move_the_payment_date(inciso, member):
    result = inciso(
        "a", small_annuitant(member, separation_date="2013-07-01"), as_of=dt.date(2010, 1, 1)
    )
    assert_pays(result, 1_800.00, 500.00, "2013-07-01", topup=350.00)


@pytest.mark.parametrize(
    ("birth_date", "start", "monthly", "topup"),
    [("1948-06-30", "2013-06-30", 150.00, 0.00), ("1948-07-01", "2013-07-01", 500.00, 350.00)],
)
def test_minimum_on_a_deferred_annuity_depends_on_its_start_at_65(
    inciso, member, birth_date, start, monthly, topup
):
    deferred = small_annuitant(member, birth_date=birth_date, separation_date="2005-01-15")
    assert_pays(inciso("d", deferred), 1_800.00, monthly, start, topup=topup)


def test_minimum_applies_after_the_inciso_c_reduction(inciso, member):
    # 1.5% x 20,000 x 25 = 7,500; x 0.40 at 55y0m = 3,000 a year, 250 a month; paid 500.
    result = inciso(
        "c",
        early_retiree(
            member,
            credited_service=25.0,
            average_compensation=20_000.0,
            separation_date="2015-06-15",
        ),
    )
    assert_pays(result, 3_000.00, 500.00, "2015-06-15", topup=250.00)
    assert result.reduction_factor == pytest.approx(0.40)


def test_minimum_topup_is_the_paid_amount_less_the_rounded_monthly_annuity(inciso, member):
    # Hand computation: 1.5% x 12,345 x 10.5 = 1,944.3375 -> 1,944.34 a year;
    # / 12 = 162.028125 -> 162.03 a month; paid 500.00; top-up 500.00 - 162.03 = 337.97.
    result = inciso(
        "a",
        small_annuitant(
            member,
            average_compensation=12_345.0,
            credited_service=10.5,
            separation_date="2014-01-15",
        ),
    )
    assert_pays(result, 1_944.34, 500.00, "2014-01-15", topup=337.97)


def test_amounts_are_rounded_to_cents_half_up(inciso, member):
    # Hand computation: 1.5% x 80,000.40 x 10 = 12,000.06 a year; / 12 = 1,000.005 exactly,
    # half a cent: half up gives 1,000.01 (Python's round() gives 1,000.00).
    result = inciso("a", member(average_compensation=80_000.40, credited_service=10.0))
    assert result.annual_amount == 12_000.06
    assert result.monthly_amount == 1_000.01


# --------------------------------------------------------------- choice (I-7)
def test_a_police_officer_at_58_with_31_years_is_told_of_every_clause(half_percent_guides, member):
    officer = member(
        birth_date="1960-06-15",
        entry_date="1990-04-01",
        separation_date="2018-06-15",
        credited_service=31.0,
        average_compensation=40_000.0,
        group="police",
    )
    result = evaluate(officer, half_percent_guides)
    assert [c.clause for c in result.clauses] == ["a", "b", "c", "d"]
    assert [c.eligible for c in result.clauses] == [False, True, True, True]
    # (b) 75% x 40,000 = 30,000; (c) 1.5% x 40,000 x 31 = 18,600 x 0.58 (58y0m) = 10,788;
    # (d) 18,600 from 2025-06-15.
    assert result.clause("b").annual_amount == 30_000.00
    assert result.clause("c").annual_amount == 10_788.00
    assert result.clause("d").annual_amount == 18_600.00
    assert result.age_months == 58 * 12


# I-2 read literally: «antes de cumplir los sesenta y cinco (65) años de servicio acreditado»
def test_inciso_d_read_literally_stops_at_65_years_of_service_not_at_64_99(inciso, member):
    literal = Readings(deferred_reads_age=False)
    old = member(birth_date="1920-01-01", entry_date="1995-01-01", separation_date="2010-01-01")
    assert_not_eligible(
        inciso("d", {**old, "credited_service": 65.0}, readings=literal),
        "inciso (d): not eligible: separated with 65 or more years of credited service",
    )
    # 1.5% x 48,000 x 64.99 = 46,792.80 a year, 3,899.40 a month, from the separation (at 90)
    below = inciso("d", {**old, "credited_service": 64.99}, readings=literal)
    assert_pays(below, 46_792.80, 3_899.40, "2010-01-01")


def test_a_member_who_enters_and_separates_on_the_windows_first_day_is_covered(inciso, member):
    # I-1: the window's first day is in it, for the separation date as for the entry date.
    day = member(
        birth_date="1950-01-01", entry_date="1990-04-01", separation_date="1990-04-01",
        credited_service=0.0, average_compensation=20_000.0,
    )  # fmt: skip
    assert_not_eligible(
        inciso("a", day),
        "inciso (a): not eligible: age at separation below 65; credited service below 10 years",
    )


def test_the_monthly_amount_is_the_annual_over_12_rounded_once_at_the_end(inciso, member):
    # 1.5% x 24,000.1996665 x 20 = 7,200.05989995 a year: 600.004992 a month, paid 600.00;
    # the annual shown, rounded, is 7,200.06, whose twelfth (600.005) would round to 600.01.
    deferred = member(
        birth_date="1958-06-15", entry_date="1991-01-02", separation_date="2016-03-01",
        average_compensation=24_000.1996665, credited_service=20.0,
    )  # fmt: skip
    result = inciso("d", deferred, as_of=dt.date(2026, 6, 1))
    assert (result.annual_amount, result.monthly_amount) == (7_200.06, 600.00)
