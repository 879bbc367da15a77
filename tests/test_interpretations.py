"""The readings I-1 to I-9: defaults, switches, labels and invalid values."""

import datetime as dt
import math

import numpy as np
import pandas as pd
import pytest
from conftest import exactly, law_entry

from actuarial.engine import evaluate, evaluate_frame
from actuarial.law.readings import INTERPRETATIONS, Readings


def test_defaults_are_the_readings_of_clauses_md():
    readings = Readings()
    assert readings.as_dict() == {
        "april_first_is_covered": True,  # I-1
        "deferred_reads_age": True,  # I-2
        "refund_bars_high_risk": True,  # I-3
        "minimum_applies_to": "all",  # I-4
        "deferred_minimum_service": None,  # I-5: those of inciso (a) in the law in force
        "leap_day_birthday": "feb28",  # I-6
        "high_risk_waits_for_age": False,  # I-9
    }
    assert readings.changed() == {}
    assert readings.label() == "defaults"


def test_every_switch_belongs_to_one_interpretation():
    switches = [item.switch for item in INTERPRETATIONS if item.switch is not None]
    assert sorted(switches) == sorted(Readings().as_dict())
    assert [item.id for item in INTERPRETATIONS] == [f"I-{n}" for n in range(1, 10)]


def test_label_names_only_the_switched_readings():
    readings = Readings(refund_bars_high_risk=False, deferred_minimum_service=0)
    assert readings.changed() == {"refund_bars_high_risk": False, "deferred_minimum_service": 0}
    assert readings.label() == "refund_bars_high_risk=False;deferred_minimum_service=0"


@pytest.mark.parametrize(
    ("given", "shown"),
    [(0, "0"), (0.0, "0"), (-0.0, "0"), (np.float64(10), "10"), (np.int64(10), "10"),
     (np.float32(7.5), "7.5"), (7.5, "7.5")],
)  # fmt: skip
def test_the_minimum_service_of_d_reads_the_same_however_given(given, shown):
    # --deferred-minimum-service 0 (a float) read "deferred_minimum_service=0.0" in the
    # readings' text and the results' readings column; Readings(deferred_minimum_service=0)
    # read "=0": one reading, two texts.
    readings = Readings(deferred_minimum_service=given)
    assert repr(readings.deferred_minimum_service) == shown
    assert readings.label() == f"deferred_minimum_service={shown}"
    assert readings.describe()[4] == (
        f"I-5 Minimum service for (d): {shown} years [deferred_minimum_service={shown}, switched]"
    )


def test_describe_states_the_reading_in_force_for_each_interpretation():
    default = Readings().describe()
    assert len(default) == 9
    assert default[5] == (
        "I-6 Ages: anniversary rule; born Feb 29: birthday on Feb 28 in common years "
        "[leap_day_birthday='feb28', default]"
    )
    switched = Readings(leap_day_birthday="mar1", deferred_minimum_service=0).describe()
    assert switched[5] == (
        "I-6 Ages: anniversary rule; born Feb 29: birthday on Mar 1 in common years "
        "[leap_day_birthday='mar1', switched]"
    )
    assert (
        switched[4] == "I-5 Minimum service for (d): 0 years [deferred_minimum_service=0, switched]"
    )
    assert switched[6].startswith("I-7 Choice:") and "[" not in switched[6]
    # By default, (d)'s minimum service is that of (a) in the law in force: 10 years.
    assert default[4] == (
        "I-5 Minimum service for (d): 10 years, as in clause (a) "
        "[deferred_minimum_service=None, default]"
    )


@pytest.mark.parametrize(
    ("field", "value", "rule"),
    [
        ("april_first_is_covered", "yes", "must be True or False (got 'yes')"),
        ("deferred_reads_age", 1, "must be True or False (got 1)"),
        ("refund_bars_high_risk", None, "must be True or False (got None)"),
        ("minimum_applies_to", "b", "must be in ['all', 'a'] (got 'b')"),
        ("leap_day_birthday", "mar01", "must be in ['feb28', 'mar1'] (got 'mar01')"),
        ("deferred_minimum_service", -0.5, "must be None or in [0, 120] (got -0.5)"),
        ("deferred_minimum_service", 120.5, "must be None or in [0, 120] (got 120.5)"),
        ("deferred_minimum_service", "10", "must be None or in [0, 120] (got '10')"),
        ("deferred_minimum_service", True, "must be None or in [0, 120] (got True)"),
        ("deferred_minimum_service", math.nan, "must be None or in [0, 120] (got nan)"),
    ],
)
def test_invalid_readings_are_refused_with_field_rule_and_value(field, value, rule):
    with pytest.raises(ValueError, match=exactly(f"'{field}' {rule}")):
        Readings(**{field: value})


@pytest.mark.parametrize("service", [None, 0, 0.0, 65, 25.5, 120])
def test_deferred_minimum_service_accepts_none_or_zero_to_one_hundred_twenty_years(service):
    assert Readings(deferred_minimum_service=service).deferred_minimum_service == service


def test_readings_take_numpys_booleans_and_numbers_as_the_python_values_they_are():
    # A switch read from a frame or an array: np.int64(5) years was refused as "must be None
    # or in [0, 120] (got np.int64(5))", and np.False_ as "must be True or False".
    import json

    import numpy as np

    given = Readings(
        april_first_is_covered=np.False_,
        deferred_minimum_service=np.int64(5),
        high_risk_waits_for_age=np.True_,
    )
    plain = Readings(
        april_first_is_covered=False, deferred_minimum_service=5, high_risk_waits_for_age=True
    )
    assert given == plain and json.dumps(given.as_dict()) == json.dumps(plain.as_dict())
    assert type(given.deferred_minimum_service) is int
    assert type(given.april_first_is_covered) is bool
    half = Readings(deferred_minimum_service=np.float32(25.5)).deferred_minimum_service
    assert (half, type(half)) == (25.5, float)
    # A float32 as the decimal it shows: 25.1 years, not 25.100000381 (which 25.1 would miss).
    assert Readings(deferred_minimum_service=np.float32(25.1)).deferred_minimum_service == 25.1
    message = "'deferred_minimum_service' must be None or in [0, 120] (got 120.5)"
    with pytest.raises(ValueError, match=exactly(message)):
        Readings(deferred_minimum_service=np.float64(120.5))


def test_readings_are_frozen():
    with pytest.raises(AttributeError):
        Readings().minimum_applies_to = "a"


# --------------------------------------- each reading switched both ways, and what changes
def clauses_of(guides, member, **readings):
    """The four clause results of one member under the given readings."""
    result = evaluate(member, guides, readings=Readings(**readings))
    assert result.readings == Readings(**readings)  # every result records its readings
    return {clause.clause: clause for clause in result.clauses}


def test_i1_april_first_1990_is_covered_by_default_and_excluded_when_switched(
    half_percent_guides, member
):
    april_first = member(entry_date="1990-04-01")
    assert clauses_of(half_percent_guides, april_first)["a"].eligible
    excluded = clauses_of(half_percent_guides, april_first, april_first_is_covered=False)
    for clause in excluded.values():
        assert not clause.eligible
        assert clause.reason == (
            "not covered by Chapter 2 (I-1, 1990-04-01 excluded): first entry on or before "
            "1990-04-01"
        )
    april_second = member(entry_date="1990-04-02")
    switched = clauses_of(half_percent_guides, april_second, april_first_is_covered=False)
    assert switched["a"].eligible


def test_i2_literal_reading_opens_inciso_d_to_a_member_separating_at_66(
    half_percent_guides, member
):
    at_66 = member(separation_date="2026-06-15")
    default = clauses_of(half_percent_guides, at_66)["d"]
    assert not default.eligible
    assert default.reason == "inciso (d): not eligible: separated at 65 or older"
    literal = clauses_of(half_percent_guides, at_66, deferred_reads_age=False)["d"]
    assert literal.eligible
    assert literal.reason == (
        "inciso (d): eligible: no refund of contributions; separated before 65 years of "
        "credited service; credited service 10 years or more"
    )
    # Already past 65: the deferred annuity starts on separation, 1.5% x 48,000 x 20.
    assert literal.start_date == dt.date(2026, 6, 15)
    assert literal.annual_amount == 14_400.00


def test_i3_refund_bars_inciso_b_by_default_and_not_when_switched(half_percent_guides, member):
    refunded_officer = member(
        birth_date="1965-06-15",
        entry_date="1990-06-15",
        separation_date="2020-06-15",
        credited_service=30.0,
        average_compensation=40_000.0,
        group="police",
        refunded=True,
    )
    default = clauses_of(half_percent_guides, refunded_officer)
    assert not default["b"].eligible
    assert default["b"].reason == (
        "inciso (b): not eligible: refund of contributions requested or received"
    )
    switched = clauses_of(half_percent_guides, refunded_officer, refund_bars_high_risk=False)
    assert switched["b"].eligible
    assert switched["b"].annual_amount == 30_000.00  # 75% x 40,000
    # The refund still bars (c) and (d), which carry the bar of inciso (a).
    assert not switched["c"].eligible and not switched["d"].eligible
    # What is said of the refund is what the reading holds: it does not bar (b). Before,
    # the reason said "no refund of contributions" and the explanation "✓ no refund of
    # contributions (refund: yes)" of a member who had one.
    assert switched["b"].reason.startswith(
        "inciso (b): eligible: police or firefighter; a refund of contributions does not "
        "bar inciso (b) (I-3); "
    )
    readings = Readings(refund_bars_high_risk=False)
    for lang, line in (
        ("en", "✓ a refund does not bar inciso (b) (refund: yes; I-3)"),
        ("es", "✓ un reembolso no impide el inciso (b) (reembolso: sí; I-3)"),
    ):
        explained = evaluate(refunded_officer, half_percent_guides, readings=readings, lang=lang)
        lines = [text.strip() for text in explained.explanation]
        assert line in lines
        assert not [text for text in lines if text.startswith(("✓ no refund", "✓ sin reemb"))]


def test_i4_minimum_for_inciso_a_only_leaves_a_small_deferred_annuity_unlifted(
    half_percent_guides, member
):
    # 1.5% x 12,000 x 10 = 1,800 a year, 150 a month, from the 65th birthday 2025-06-15.
    small_deferred = member(
        separation_date="2010-06-15", credited_service=10.0, average_compensation=12_000.0
    )
    default = clauses_of(half_percent_guides, small_deferred)["d"]
    assert (default.monthly_amount, default.minimum_topup) == (500.00, 350.00)
    only_a = clauses_of(half_percent_guides, small_deferred, minimum_applies_to="a")["d"]
    assert (only_a.monthly_amount, only_a.minimum_topup) == (150.00, 0.00)
    # Inciso (a) itself is still lifted under the narrow reading.
    small_at_65 = member(credited_service=10.0, average_compensation=12_000.0)
    lifted = clauses_of(half_percent_guides, small_at_65, minimum_applies_to="a")["a"]
    assert (lifted.monthly_amount, lifted.minimum_topup) == (500.00, 350.00)


def test_i5_without_a_service_minimum_a_3_year_member_gets_inciso_d_lifted_to_500(
    half_percent_guides, member
):
    three_years = member(
        entry_date="1995-06-15",
        separation_date="1998-06-15",
        credited_service=3.0,
        average_compensation=30_000.0,
    )
    default = clauses_of(half_percent_guides, three_years)["d"]
    assert not default.eligible
    assert default.reason == "inciso (d): not eligible: credited service below 10 years"
    literal = clauses_of(half_percent_guides, three_years, deferred_minimum_service=0)["d"]
    assert literal.eligible
    assert literal.reason.endswith("credited service 0 years or more")
    # 1.5% x 30,000 x 3 = 1,350 a year, 112.50 a month; from 2025-06-15 paid 500.
    assert literal.annual_amount == 1_350.00
    assert (literal.monthly_amount, literal.minimum_topup) == (500.00, 387.50)
    assert literal.start_date == dt.date(2025, 6, 15)


def test_i6_mar1_reading_makes_a_feb_29_birth_64_on_feb_28_2025(half_percent_guides, member):
    leap_day = member(
        birth_date="1960-02-29",
        entry_date="1990-06-15",
        separation_date="2025-02-28",
        credited_service=26.0,
        average_compensation=40_000.0,
    )
    default = clauses_of(half_percent_guides, leap_day)
    assert default["a"].eligible and not default["c"].eligible and not default["d"].eligible
    mar1 = clauses_of(half_percent_guides, leap_day, leap_day_birthday="mar1")
    assert not mar1["a"].eligible
    # 64y11m: factor 0.995; 1.5% x 40,000 x 26 x 0.995 = 15,522.
    assert mar1["c"].reduction_factor == pytest.approx(0.995)
    assert mar1["c"].annual_amount == 15_522.00
    assert mar1["d"].start_date == dt.date(2025, 3, 1)


def test_every_result_names_its_readings(half_percent_guides, member):
    readings = Readings(minimum_applies_to="a", leap_day_birthday="mar1")
    result = evaluate(member(), half_percent_guides, readings=readings)
    assert result.readings is readings
    assert result.as_dict()["readings"]["minimum_applies_to"] == "a"
    assert (
        "  I-4 Minimum pension: the monthly minimum in force on the payment date ($500.00) on "
        "inciso (a) annuities only [minimum_applies_to='a', switched]"
    ) in result.explanation
    table = evaluate_frame(
        pd.DataFrame([member(), member(member_id="A-2")]), half_percent_guides, readings=readings
    )
    assert set(table["readings"]) == {"minimum_applies_to=a;leap_day_birthday=mar1"}
    assert set(evaluate_frame(pd.DataFrame([member()]), half_percent_guides)["readings"]) == {
        "defaults"
    }


def test_describe_in_spanish_states_each_reading_in_force():
    lines = Readings(deferred_minimum_service=5).describe("es")
    assert lines[4] == (
        "I-5 Servicio mínimo para (d): 5 años [deferred_minimum_service=5, cambiada]"
    )
    assert lines[0].startswith("I-1 Período de cobertura: ingreso desde el 1990-04-01")
    assert lines[6] == (
        "I-7 Elección: se informan todos los incisos, elegibles o no; el participante elige"
    )


def test_texts_without_a_law_state_the_shipped_law_in_force_today_and_later_minimums(
    monkeypatch, amendment
):
    """With entries of law.toml dated after today (a minimum of $700 and a high-risk age of
    57 from 2100), the readings' texts and the CLI's help stated them as today's rule."""
    from actuarial import cli, review
    from actuarial.law import load_law

    later = load_law(
        amendment(
            law_entry("minimum_monthly_pension", "2100-01-01", 700, "USD a month"),
            law_entry("high_risk.age", "2100-01-01", 57, "years"),
        )
    )
    monkeypatch.setattr("actuarial.law.parameters.shipped_law", lambda: later)
    monkeypatch.setattr(review, "shipped_law", lambda: later)
    monkeypatch.setattr(cli, "shipped_law", lambda: later)
    lines = Readings().describe()
    assert any("($500.00; $700.00 from 2100-01-01)" in line for line in lines if "I-4" in line)
    assert any("before 55" in line for line in lines if "I-9" in line)
    table = review.interpretations_table()
    assert "($500.00; $700.00 from 2100-01-01)" in table.set_index("id").loc["I-4"].iloc[1]
    options = cli.reading_options(lambda readings: None).__click_params__
    helps = {option.name: option.help for option in options}
    assert "($500.00; $700.00 from 2100-01-01)" in helps["minimum_applies_to"]
    assert "inciso (b) before 55: 75% from the 55th birthday" in helps["high_risk_waits_for_age"]


def test_describe_refuses_an_unknown_language():
    with pytest.raises(ValueError, match=r"^'lang' must be in \['en', 'es'\] \(got 'fr'\)$"):
        Readings().describe("fr")
