"""One member at a time: ``evaluate`` reads the same results as the table of the whole frame.

``evaluate`` parses one member without a frame (``parse_member``) and reads its
``ClauseResult``s and explanation from the result arrays (``member_clauses``), not from the
table. Here every member of seeded memberships (with error cells, under switched readings
and an amendment) is evaluated alone and compared with its rows of ``evaluate_frame``'s
table and with the explanation of its position in the whole membership's results.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re

import numpy as np
import pandas as pd
import pytest
from conftest import exactly, law_entry
from hypothesis import given, settings
from hypothesis import strategies as st
from test_unchanged_results import EXAMPLES, SWITCHED

from actuarial import engine
from actuarial.engine import (
    ClauseResult,
    evaluate,
    evaluate_frame,
    evaluate_members,
    member_clauses,
)
from actuarial.explain import explain
from actuarial.guides import DEFAULT_SERIES, SHIPPED_GUIDES, load_guides
from actuarial.law.conditions import Exact
from actuarial.law.parameters import Law, shipped_law
from actuarial.law.readings import Readings
from actuarial.members import GROUPS, MemberDataError, parse_members
from actuarial.synthetic import generate_members

# Inciso (c) from age 50 while the guides start at 55: error cells on (c).
FIFTY = (  # from a day after the shipped guides' first: they stay valid, without rows for 50-54
    '[[early_retirement.age]]\neffective_from = 2000-01-01\nvalue = 50\nunit = "years"\n'
    'source = "Test bill"\n'
)


def table_clause_results(table: pd.DataFrame) -> list:
    """A member's rows of the table as ClauseResults (None for a missing value or "")."""

    def plain(value):
        if isinstance(value, pd.Timestamp):
            return value.date()
        if value is pd.NaT or value is None or value == "":
            return None
        if isinstance(value, float) and np.isnan(value):
            return None
        return value.item() if isinstance(value, np.generic) else value

    return [
        ClauseResult(**{name: plain(row[name]) for name in ClauseResult.__slots__})
        for _, row in table.iterrows()
    ]


@pytest.mark.parametrize(
    ("seed", "series", "readings", "law", "as_of"),
    [
        (5, DEFAULT_SERIES, Readings(), None, dt.date(2026, 7, 1)),
        (6, "illustrative-half-percent-per-month", SWITCHED, "bill", dt.date(2020, 1, 1)),
        (7, DEFAULT_SERIES, Readings(), "fifty", dt.date(2012, 1, 1)),
    ],
)
def test_each_member_alone_gets_its_rows_of_the_table_and_its_explanation(
    tmp_path, seed, series, readings, law, as_of
):
    if law == "bill":
        law = EXAMPLES / "bill-2027.toml"
    elif law == "fifty":
        law = tmp_path / "fifty.toml"
        law.write_text(FIFTY, encoding="utf-8")
    guides = load_guides(SHIPPED_GUIDES, series)
    frame = generate_members(150, seed=seed)
    results = evaluate_members(parse_members(frame), guides, as_of, readings, law)
    table = results.table()
    errors = 0
    for position, record in enumerate(frame.to_dict("records")):
        record = {
            key: value.date() if isinstance(value, pd.Timestamp) else value
            for key, value in record.items()
        }
        alone = evaluate(record, guides, as_of, readings, law=law)
        rows = table[table["row"] == position + 1]
        assert list(alone.clauses) == table_clause_results(rows)
        assert tuple(explain(results, position)) == alone.explanation
        spanish = evaluate(record, guides, as_of, readings, lang="es", law=law).explanation
        assert tuple(explain(results, position, "es")) == spanish
        assert [row["clause"] for row in member_clauses(results, position)] == list("abcd")
        errors += sum(result.error is not None for result in alone.clauses)
    if law is not None and law.name == "fifty.toml":
        assert errors > 0  # error cells were read, in their row-major order


@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
def test_the_law_values_read_once_per_period_follow_the_as_of_across_a_change(member, order):
    """The minimum in force on the day before 2013-07-01 and on that day, asked in either
    order of the same law: what is computed once per period is not shared across periods."""
    guides = load_guides(SHIPPED_GUIDES, DEFAULT_SERIES)
    shipped = shipped_law()
    law = Law(shipped.files, shipped.entries)  # the shipped law, with caches of its own
    assert law is not shipped and law == shipped
    days = (dt.date(2013, 6, 30), dt.date(2013, 7, 1))
    minimums = {}
    for index in order:
        result = evaluate(member(separation_date="2010-06-15"), guides, days[index], law=law)
        (line,) = [line for line in result.explanation if line.startswith("  I-4 ")]
        minimums[index] = line
    # The day before, a later payment may get the minimum of 2013-07-01 (I-4)
    assert "($0.00; $500.00 from 2013-07-01)" in minimums[0] and "($500.00)" in minimums[1]


def test_an_as_of_before_the_law_explains_as_on_its_first_date(member):
    """An as_of before the law's first date (1990-04-01) ended evaluate in "law:
    'minimum_monthly_pension' has no value in force on 1985-01-01", while batch took it: the
    explanation read the minimum on as_of. No annuity is paid before the law's first date,
    so every payment is as under an as_of on that date."""
    guides = load_guides(SHIPPED_GUIDES, DEFAULT_SERIES)
    first = shipped_law().first_date()
    separated = member(separation_date="2010-06-15")
    on_first = evaluate(separated, guides, first)
    for before in (first - dt.timedelta(days=1), dt.date(1985, 1, 1)):
        early = evaluate(separated, guides, before)
        assert early.clauses == on_first.clauses
        payment = [i for i, line in enumerate(on_first.explanation) if line.startswith("Payment")]
        assert early.explanation[payment[0]].startswith(f"Payment date: the later of {before} ")
        others = [line for i, line in enumerate(early.explanation) if i not in payment]
        assert others == [line for i, line in enumerate(on_first.explanation) if i not in payment]


@pytest.mark.parametrize(
    ("readings", "got"),
    [
        ({"refund_bars_high_risk": False}, "dict {'refund_bars_high_risk': False}"),
        ({}, "dict {}"),  # empty: was taken silently as the default readings
        ("switched", "str 'switched'"),
    ],
)
def test_readings_that_are_not_a_readings_are_refused_naming_what_was_given(member, readings, got):
    """A mapping (as ``Evaluation.as_dict()["readings"]`` gives) is not taken for readings:
    an empty one would be the defaults, silently, and any other an AttributeError."""
    guides = load_guides(SHIPPED_GUIDES, DEFAULT_SERIES)
    message = f"'readings' must be an actuarial.Readings, e.g. Readings(**mapping) (got {got})"
    for call in (evaluate, lambda m, g, **kw: evaluate_frame(pd.DataFrame([m]), g, **kw)):
        with pytest.raises(TypeError, match=exactly(message)):
            call(member(), guides, readings=readings)


@pytest.mark.parametrize(("guides", "got"), [(None, "None"), ("guides", "str 'guides'")])
def test_guides_that_are_not_loaded_guides_are_refused_naming_what_was_given(member, guides, got):
    message = f"'guides' must be the guides of one series, from actuarial.load_guides (got {got})"
    for call in (evaluate, lambda m, g, **kw: evaluate_frame(pd.DataFrame([m]), g, **kw)):
        with pytest.raises(TypeError, match=exactly(message)):
            call(member(), guides)


@pytest.mark.parametrize(
    "members",
    [[{"member_id": "A-1"}], {"member_id": ["A-1"]}, pd.Series({"member_id": "A-1"})],
    ids=["list", "dict", "series"],
)
def test_members_that_are_not_a_frame_are_refused_naming_what_was_given(member, members):
    """A list of records, a dict of columns or one member's Series raised AttributeError
    ('list' object has no attribute 'columns'), or KeyError deep in the parser."""
    from actuarial.valuation import Basis, value_frame

    guides = load_guides(SHIPPED_GUIDES, DEFAULT_SERIES)
    message = (
        "'members_df' must be a pandas DataFrame, e.g. pandas.DataFrame(records) "
        f"(got {type(members).__name__})"
    )
    for call in (evaluate_frame, lambda m, g: value_frame(m, g, Basis("sult", 0.05))):
        with pytest.raises(TypeError, match=exactly(message)):
            call(members, guides)


@pytest.mark.parametrize(
    ("service", "shown", "years"),
    [
        (24.995, "24.995", 25),
        (29.999, "29.999", 30),
        (9.996, "9.996", 10),
        (24.9999999, "24.9999999", 25),
    ],
)
@pytest.mark.parametrize("lang", ["en", "es"])
def test_a_service_just_below_a_threshold_is_not_shown_rounded_up_to_it(
    member, service, shown, years, lang
):
    """24.995 years fails «un mínimo de veinticinco (25) años»: the explanation shows its
    digits, not '✗ credited service 25.00 >= 25 years', which contradicts itself."""
    guides = load_guides(SHIPPED_GUIDES, DEFAULT_SERIES)
    police = member(
        birth_date="1958-06-15", separation_date="2016-03-01", group="police",
        credited_service=service,
    )  # fmt: skip
    result = evaluate(police, guides, dt.date(2026, 6, 1), lang=lang)
    unit = "años" if lang == "es" else "years"
    service_words = "servicio acreditado" if lang == "es" else "credited service"
    assert f"  ✗ {service_words} {shown} >= {years} {unit}" in result.explanation
    assert f"{service_words} {shown} {unit};" in result.explanation[0]


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_explanation_says_why_no_minimum_is_added(member, lang):
    """With the minimum read to reach inciso (a) only (I-4), (c) and (d) said 'no minimum
    applies on 2026-06-01', the words for a date before the minimum: one is in force."""
    guides = load_guides(SHIPPED_GUIDES, DEFAULT_SERIES)
    given = member(birth_date="1956-05-10", separation_date="2016-05-10", credited_service=25)
    only_a = Readings(minimum_applies_to="a")
    result = evaluate(given, guides, dt.date(2026, 6, 1), readings=only_a, lang=lang)
    for clause in "cd":  # eligible both, and below no minimum: (a) alone has one
        if lang == "en":
            said = (
                "; the $500.00 minimum in force on 2026-06-01 does not reach inciso "
                f"({clause}) under the reading of I-4 below"
            )
        else:
            said = (
                "; la pensión mínima de $500.00 vigente el 2026-06-01 no alcanza el inciso "
                f"({clause}) según la lectura de I-4 indicada abajo"
            )
        assert sum(line.endswith(said) for line in result.explanation) == 1
    # Paid before the minimum's first day: none is in force, and the words say so.
    early = member(
        birth_date="1945-03-01", entry_date="1991-01-02", separation_date="2010-03-01",
        credited_service=19,
    )  # fmt: skip
    before = evaluate(early, guides, dt.date(2012, 1, 1), lang=lang)
    none = "; no minimum applies on" if lang == "en" else "; no aplica pensión mínima el"
    assert any(none in line for line in before.explanation)


@pytest.mark.parametrize(
    ("separation_date", "mark", "age"),
    [("2023-06-14", "✓", "64{y}11m"), ("2023-06-15", "✗", "65{y}0m")],
)
@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_deferred_age_condition_reads_as_a_comparison_either_way(
    member, separation_date, mark, age, lang
):
    """'✗ separated at 65y0m, before 65y0m (I-2)' contradicted itself: each line of a clause
    states a comparison that the mark says holds or not."""
    guides = load_guides(SHIPPED_GUIDES, DEFAULT_SERIES)
    given = member(birth_date="1958-06-15", separation_date=separation_date)
    result = evaluate(given, guides, dt.date(2026, 6, 1), lang=lang)
    words = "edad al separarse" if lang == "es" else "age at separation"
    year = "a" if lang == "es" else "y"
    assert f"  {mark} {words} {age.format(y=year)} < 65{year}0m (I-2)" in result.explanation


@pytest.mark.parametrize(
    ("service", "compensation", "shown"),
    [
        (25, 24000, "credited service 25.00 years; average compensation $24,000.00;"),
        (25.5, 24000.5, "credited service 25.50 years; average compensation $24,000.50;"),
        (24.999, 24000.004, "credited service 24.999 years; average compensation $24,000.004;"),
        (1e-05, 0.001, "credited service 0.00001 years; average compensation $0.001;"),
    ],
)
def test_a_members_numbers_are_shown_to_the_cent_unless_that_would_round_them(
    member, service, compensation, shown
):
    guides = load_guides(SHIPPED_GUIDES, DEFAULT_SERIES)
    given = member(credited_service=service, average_compensation=compensation)
    assert shown in evaluate(given, guides, dt.date(2026, 6, 1)).explanation[0]


@pytest.mark.parametrize(
    ("value", "spec", "shown"),
    [
        (24.995, ".2f", "24.995"),  # ordinary: every digit where the format would round
        (25.5, ".2f", "25.50"),  # as the format asks where that is exact
        (999.999, ",.2f", "999.999"),
        (12.3456789, "g", "12.3456789"),
        (1e-05, ".2f", "0.00001"),
        (1e-20, ".2f", "0.00000000000000000001"),  # 20 places: still written out
        (1.5e19, ",.2f", "15,000,000,000,000,000,000.00"),  # 20 digits: as asked
        (1.5e-21, ".3e", "1.500e-21"),  # scientific as asked, and exact
        (1.5e-20, ".2f", "1.5e-20"),  # 21 places: was 0.000000000000000000015
        (5e-324, ".2f", "5e-324"),  # was a text of 326 characters
        (1e300, ",.2f", "1e+300"),  # was 404 characters, 1,000,...,052,504,760,... exactly
        (1.2345e300, ",.3g", "1.2345e+300"),  # was 401 characters
        (1.5e20, ",.2f", "1.5e+20"),  # 21 digits before the point
    ],
)
def test_a_number_is_shown_unrounded_and_in_scientific_notation_when_it_needs_many_digits(
    value, spec, shown
):
    """Exact never rounds a number; one needing more than 20 places either side of the point
    is written as repr writes it, not with hundreds of digits."""
    text = format(Exact(value), spec)
    assert text == shown
    assert float(text.replace(",", "")) == value


@settings(max_examples=500, deadline=None)
@given(
    st.floats(allow_nan=False, allow_infinity=False)
    | st.decimals(-(10**7), 10**7, places=4).map(float),
    st.sampled_from([".2f", ",.2f", "g", ".6f", ",.0f", ".3g", ".19f", ".21f", "e"]),
)
def test_a_number_is_shown_as_asked_where_that_reads_back_exactly_else_unrounded(value, spec):
    """Whatever the number: its text reads back as it; the format's own text wherever that
    reads back exactly and needs no more than 20 places either side of the point."""
    text = format(Exact(value), spec)
    assert float(text.replace(",", "")) == value
    asked = format(value, spec)
    places = len(asked.partition(".")[2])
    if float(asked.replace(",", "")) == value and abs(value) < 1e20 and places <= 20:
        assert text == asked


@settings(max_examples=500, deadline=None)
@given(
    st.floats(allow_nan=False, allow_infinity=False)
    | st.decimals(-(10**7), 10**7, places=4).map(float),
    st.sampled_from(["", "*<", ">", "^", "0=", "_^"]),
    st.sampled_from(["", "+", " ", "-"]),
    st.integers(0, 40),
    st.sampled_from([".2f", ",.2f", "g", ".6f", ".3g", ".21f", "e"]),
)
def test_a_number_is_padded_and_signed_as_asked_whether_or_not_it_is_rounded(
    value, align, sign, width, spec
):
    """Fill, alignment, sign and width apply to the unrounded text too: 24.995 in
    ``{:>12.2f}`` is right-aligned in 12 places, not shown bare."""
    padded = f"{align}{sign}{width or ''}{spec}"
    bare = format(Exact(value), spec)
    text = format(Exact(value), padded)
    if bare == format(value, spec):  # not rounded: Python's own text
        assert text == format(value, padded)
        return
    signed = sign if sign in ("+", " ") and not bare.startswith("-") else ""
    assert len(text) == max(width, len(signed + bare))
    if align == "0=":  # zeros between the sign and the digits
        assert float(text.replace(",", "")) == value
        assert text.startswith(signed) and text.endswith(bare.lstrip("-"))
    else:
        fill = align[0] if len(align) == 2 else " "
        assert text.strip(fill) == (signed + bare).strip(fill)
        assert {"<": text.startswith, "^": text.__contains__}.get(align[-1:], text.endswith)(
            signed + bare
        )


AMOUNT_LINE = re.compile(r"monthly \$([\d,]+\.\d\d) from (\S+), paid on (\S+)")


@pytest.mark.parametrize(
    ("as_of", "law"),
    [(dt.date(2026, 6, 1), None), (dt.date(2013, 6, 30), None), (dt.date(2027, 6, 1), "bill")],
)
def test_the_monthly_amount_stated_is_the_schedules_amount_from_the_date_stated(member, as_of, law):
    """'monthly $500.00 from 2010-03-01' is false for an annuity paid $270.00 from then and
    $500.00 from 2013-07-01: the date stated is the one the amount paid is in force from."""
    law = EXAMPLES / "bill-2027.toml" if law else None
    guides = load_guides(SHIPPED_GUIDES, DEFAULT_SERIES)
    small = [  # annuities below the minimum, from before 2013-07-01 and before 2027-01-01
        member(birth_date=birth, entry_date="1990-04-01", separation_date=separation,
               credited_service=service, average_compensation=18000)
        for birth, separation, service in (
            ("1944-03-01", "2010-03-01", 12), ("1950-05-31", "2008-02-29", 11),
            ("1958-01-15", "2013-06-30", 25), ("1961-07-01", "2026-12-31", 26),
        )
    ]  # fmt: skip
    frame = pd.concat([generate_members(150, seed=5), pd.DataFrame(small)])
    changing = 0
    for record in frame.to_dict("records"):
        record = {k: v.date() if isinstance(v, pd.Timestamp) else v for k, v in record.items()}
        result = evaluate(record, guides, as_of, law=law)
        stated = [AMOUNT_LINE.search(line) for line in result.explanation]
        stated = [match.groups() for match in stated if match]
        paid = [r for r in result.clauses if r.eligible and r.error is None]
        assert len(stated) == len(paid)
        for (monthly, since, payment), clause in zip(stated, paid, strict=True):
            entries = dict(entry.split(" ") for entry in clause.schedule.split("; "))
            assert float(monthly.replace(",", "")) == clause.monthly_amount
            assert entries[since] == f"{clause.monthly_amount:.2f}"
            assert since == max(day for day in entries if day <= payment)
            changing += len(entries) > 1
    assert changing > 0  # schedules that change were seen


def test_an_annuity_raised_by_the_2013_minimum_says_from_when_it_is_paid_what_it_is_paid(member):
    guides = load_guides(SHIPPED_GUIDES, DEFAULT_SERIES)
    retired_2010 = member(
        birth_date="1944-03-01", entry_date="1990-04-01", separation_date="2010-03-01",
        credited_service=12, average_compensation=18000,
    )  # fmt: skip
    before, after = (
        evaluate(retired_2010, guides, day, lang=lang).explanation
        for day, lang in ((dt.date(2013, 6, 30), "en"), (dt.date(2026, 6, 1), "es"))
    )
    assert (
        "  annual $3,240.00; monthly $270.00 from 2010-03-01, paid on 2013-06-30; no "
        "minimum applies on 2013-06-30 (I-4)" in before
    )
    assert (
        "  anual $3,240.00; mensual $500.00 desde el 2013-07-01, pagada el 2026-06-01; la "
        "pensión mínima de $500.00 vigente el 2026-06-01 añade $230.00 al mes (I-4)" in after
    )
    assert "  calendario: 2010-03-01 270.00; 2013-07-01 500.00" in after


@pytest.mark.parametrize(("age", "nth"), [(51, "51st"), (52, "52nd"), (53, "53rd"), (50, "50th")])
def test_a_birthday_at_an_amended_high_risk_age_is_an_english_ordinal(amendment, member, age, nth):
    """Under I-9 switched, a bill setting the age of inciso (b) at 52 gives 'the 52nd
    birthday', not 'the 52th birthday'."""
    bill = amendment(law_entry("high_risk.age", "1990-04-01", age, "years"))
    guides = load_guides(SHIPPED_GUIDES, DEFAULT_SERIES)
    officer = member(
        birth_date="1970-06-15", separation_date=f"{1970 + age - 1}-06-15", group="police",
        credited_service=30,
    )  # fmt: skip
    readings = Readings(high_risk_waits_for_age=True)
    lines = evaluate(officer, guides, dt.date(2030, 1, 1), readings, law=bill).explanation
    assert (
        f"  75% of average compensation from the {nth} birthday (I-9; age at separation below "
        f"{age})" in lines
    )
    assert any(line.endswith(f"takes 75% from the {nth} birthday [high_risk_waits_for_age="
                             "True, switched]") for line in lines)  # fmt: skip


ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


@pytest.mark.parametrize(
    ("changes", "as_of"),
    [
        ({"separation_date": "2010-03-01", "birth_date": "1944-03-01"}, dt.date(2026, 6, 1)),
        ({"entry_date": "2001-02-01", "separation_date": "2026-01-31"}, dt.date(2026, 6, 1)),
        ({"separation_date": "2016-03-01", "birth_date": "1958-06-15"}, dt.date(2026, 6, 1)),
    ],
)
def test_a_date_in_spanish_prose_takes_its_article(member, changes, as_of):
    """«nació el 1958-06-15», «desde el 2016-03-01», as the readings' lines already write
    «desde el 1990-04-01 y antes del 2000-01-01»: not «nació 1958-06-15»."""
    guides = load_guides(SHIPPED_GUIDES, DEFAULT_SERIES)
    given = member(credited_service=26, average_compensation=18000, **changes)
    lines = evaluate(given, guides, as_of, lang="es").explanation
    prose = [line for line in lines if not line.startswith(("  calendario:", "  I-"))]
    for line in prose:
        for day in ISO_DAY.finditer(line):
            before = line[: day.start()]
            assert before.endswith(("el ", "del ", "[", "(", ", ")), (line, day.group())
    assert lines[0].startswith(
        f"Participante A-1: nació el {given['birth_date']}, ingresó el {given['entry_date']}, "
        f"se separó el {given['separation_date']} a la edad de "
    )


def _threshold_members() -> list[dict]:
    """Members on and beside each threshold (ages 55 and 65 a day either side, Feb 29 and
    month-end births, 10, 25 and 30 years and just below, the coverage window's ends), some
    with data-quality warnings, some not covered, some invalid."""
    births = ("1960-02-29", "1958-03-01", "1961-01-31", "1948-07-01")
    rows = []
    for index, (birth, age, shift, entry, service) in enumerate(
        itertools.product(
            births, (55, 65), (-1, 0, 1), ("1990-04-01", "2000-01-01"),
            (9.99, 25, 29.999, 30),
        )
    ):  # fmt: skip
        born = dt.date.fromisoformat(birth)
        birthday = dt.date(born.year + age, born.month, 28 if born.day == 29 else born.day)
        rows.append(
            {"member_id": f"T-{index}", "birth_date": birth, "entry_date": entry,
             "separation_date": (birthday + dt.timedelta(days=shift)).isoformat(),
             "credited_service": service, "average_compensation": (500, 24000)[index % 2],
             "group": GROUPS[index % 3], "refunded": index % 7 == 0}
        )  # fmt: skip
    rows[5]["credited_service"] = "many"  # invalid rows, between valid ones
    rows[9]["birth_date"] = "1960-02-30"
    return rows


@pytest.mark.parametrize(
    ("readings", "law", "as_of"),
    [(Readings(), None, dt.date(2013, 7, 1)), (SWITCHED, "bill", dt.date(2027, 1, 1))],
)
def test_each_member_alone_is_its_rows_of_evaluate_frame_alone_and_in_chunks(
    monkeypatch, readings, law, as_of
):
    """evaluate_frame itself (its chunks, threads and table writer), not only the result
    arrays: on the member's one-row frame and inside a frame cut into chunks of 7, with
    invalid rows (evaluate's error is the frame's), and the data-quality warnings."""
    law = EXAMPLES / "bill-2027.toml" if law else None
    guides = load_guides(SHIPPED_GUIDES, DEFAULT_SERIES)
    members = _threshold_members()
    monkeypatch.setattr(engine, "FRAME_CHUNK", 7)
    table = evaluate_frame(pd.DataFrame(members), guides, as_of, readings, "member", law)
    invalid = 0
    for position, record in enumerate(members):
        frames = [table[table["row"] == position + 1]]
        if position % 5 == 0:  # one-row frames for every fifth member: ~30 ms a call
            frames.append(
                evaluate_frame(pd.DataFrame([record]), guides, as_of, readings, "member", law)
            )
        try:
            alone = evaluate(record, guides, as_of, readings, law=law)
        except MemberDataError as error:
            invalid += 1
            errors = [str(error).replace(" row 1 ", f" row {position + 1} "), str(error)]
            assert [frame["error"].tolist() for frame in frames] == [[e] for e in errors][
                : len(frames)
            ]
            continue
        for frame in frames:
            assert list(alone.clauses) == table_clause_results(frame)
            assert set(frame["warnings"]) == {"; ".join(alone.warnings)}
    assert invalid == 2


def test_the_spanish_i9_texts_put_the_birthday_still_to_come_in_the_subjunctive(member):
    """«recibe el 75% desde que cumpla 55 años»: after «desde que», a day still to come takes
    the subjunctive (the member separated at 54 has not turned 55), not «desde que cumple»."""
    guides = load_guides(SHIPPED_GUIDES, DEFAULT_SERIES)
    officer = member(
        birth_date="1962-02-10", separation_date="2016-03-01", group="police",
        credited_service=30,
    )  # fmt: skip
    readings = Readings(high_risk_waits_for_age=True)
    lines = evaluate(officer, guides, dt.date(2026, 6, 1), readings, lang="es").explanation
    assert (
        "  75% de la retribución promedio desde que cumpla 55 años (I-9; edad al separarse "
        "menor de 55)" in lines
    )
    assert any("recibe el 75% desde que cumpla 55 años [" in line for line in lines)
    assert not any("desde que cumple" in line for line in lines)


# Each group as the explanation names it: in English by its code, in Spanish in words, as
# the condition of inciso (b) names the two bodies («Policía o Bomberos»).
GROUP_WORDS = {
    "en": {"general": "general", "police": "police", "firefighter": "firefighter"},
    "es": {"general": "general", "police": "Policía", "firefighter": "Bomberos"},
}
GROUP_LINES = {
    "en": ("; group {group}; refund no.", "  ✓ police or firefighter (group: {group})"),
    "es": ("; grupo {group}; reembolso no.", "  ✓ Policía o Bomberos (grupo: {group})"),
}


@pytest.mark.parametrize("lang", GROUP_WORDS)
@pytest.mark.parametrize("group", GROUPS)
def test_the_explanation_names_the_group_in_its_own_language(member, group, lang):
    """«grupo police» was the data's code in Spanish prose: «grupo Policía»."""
    guides = load_guides(SHIPPED_GUIDES, DEFAULT_SERIES)
    lines = evaluate(member(group=group), guides, dt.date(2026, 6, 1), lang=lang).explanation
    words = GROUP_WORDS[lang][group]
    summary, condition = (line.format(group=words) for line in GROUP_LINES[lang])
    assert lines[0].endswith(summary)
    assert (condition in lines) == (group != "general")


def test_a_threshold_with_more_digits_than_its_format_is_shown_whole(member):
    """I-5 at 12.3456789 years: '✓ credited service 12.34568 >= 12.3457 years' contradicted
    itself (12.34568 is below 12.3457): the threshold is shown with every digit it has."""
    guides = load_guides(SHIPPED_GUIDES, DEFAULT_SERIES)
    readings = Readings(deferred_minimum_service=12.3456789)
    given = member(credited_service=12.34568, separation_date="2016-03-01")
    for lang, words in (("en", "credited service"), ("es", "servicio acreditado")):
        lines = evaluate(given, guides, dt.date(2026, 6, 1), readings, lang=lang).explanation
        unit = "años" if lang == "es" else "years"
        assert f"  ✓ {words} 12.34568 >= 12.3456789 {unit} (I-5)" in lines
        assert any(f": 12.3456789 {unit} [deferred_minimum_service" in line for line in lines)
    reason = evaluate(given, guides, dt.date(2026, 6, 1), readings).clause("d").reason
    assert reason.endswith("credited service 12.3456789 years or more")


@pytest.mark.parametrize(
    ("rate", "shown"), [(0.0123456789, "1.23456789%"), (0.7, "70%"), (0.015, "1.5%")]
)
def test_a_rate_of_the_law_is_stated_with_every_digit_it_has(amendment, member, rate, shown):
    """A bill's rate of inciso (b) at 0.0123456789 was stated '1.23457%' in the reason and
    the explanation, a rate the law does not hold."""
    bill = amendment(law_entry("high_risk.rate_at_age", "1990-04-01", repr(rate), "rate"))
    guides = load_guides(SHIPPED_GUIDES, DEFAULT_SERIES)
    officer = member(birth_date="1960-06-15", separation_date="2020-06-15", group="police",
                     credited_service=30)  # fmt: skip
    result = evaluate(officer, guides, dt.date(2026, 1, 1), law=bill)
    assert result.clause("b").reason.endswith(
        f"age at separation 55 or older: {shown} of average compensation"
    )
    assert f"  {shown} of average compensation (age at separation 55 or older)" in (
        result.explanation
    )


@pytest.mark.parametrize(
    ("csv", "birth", "factor", "line"),
    [
        # A guide of 7 decimals, on a row: it was shown "0.580000", $1.80 from the amount.
        (
            lambda text: text.replace("0,0.580000", "0,0.5800004"),
            "1958-03-01",
            0.5800004,
            "reduction factor 0.5800004: guide 'g7' row 58y0m",
        ),
        # Between rows of 6 decimals: the factor used, every digit (it was 0.545418, a cent
        # off the amount), the rows as the guide holds them.
        (
            lambda text: text.replace("0,0.580000", "0,0.581001").replace(
                "0,0.520000", "0,0.520001"
            ),
            "1958-09-25",
            0.5454176666666667,
            "reduction factor 0.5454176666666667: guide 'g7', linear by month between 57y0m "
            "(0.520001) and 58y0m (0.581001)",
        ),
    ],  # fmt: skip
)
def test_the_explanation_states_the_factor_the_amount_was_computed_with(
    make_guide, csv, birth, factor, line
):
    guides = load_guides(make_guide("g7", csv=csv).parent)
    member = {
        "member_id": "F-1", "birth_date": birth, "entry_date": "1991-01-02",
        "separation_date": "2016-03-01", "credited_service": 30.0,
        "average_compensation": 9_999_999.0, "group": "general", "refunded": False,
    }  # fmt: skip
    result = evaluate(member, guides, as_of=dt.date(2026, 6, 1))
    early = result.clause("c")
    assert early.reduction_factor == factor
    assert f"  {line}" in result.explanation
    shown = float(re.search(r"reduction factor ([0-9.]+)", line)[1])
    assert round(0.015 * 9_999_999.0 * 30.0 * shown, 2) == early.annual_amount


def test_the_explanation_states_the_amount_in_force_from_its_first_day_and_its_schedule(
    member,
):
    # (a) of $360 a month from 2010-06-15, lifted to the $500 minimum from 2013-07-01: paid
    # on that very day, the amount is said to be in force from it, and the schedule of two
    # amounts is written out (one amount: no schedule line).
    guides = load_guides(SHIPPED_GUIDES, "illustrative-half-percent-per-month")
    lifted = member(
        birth_date="1945-06-15", entry_date="1991-01-02", separation_date="2010-06-15",
        credited_service=12.0, average_compensation=24_000.0,
    )  # fmt: skip
    lines = evaluate(lifted, guides, dt.date(2013, 7, 1)).explanation
    # 1.5% x 24,000 x 12 = 4,320 a year, 360 a month; 500 - 360 = 140
    assert (
        "  annual $4,320.00; monthly $500.00 from 2013-07-01, paid on 2013-07-01; the $500.00 "
        "minimum in force on 2013-07-01 adds $140.00 a month (I-4)"
    ) in lines
    assert "  schedule: 2010-06-15 360.00; 2013-07-01 500.00" in lines
    plain = evaluate(member(), guides, dt.date(1990, 4, 1)).explanation
    assert not any(line.startswith("  schedule:") for line in plain)


def test_a_row_stopped_by_an_error_has_no_schedule_before_the_minimum_either(member, tmp_path):
    # Early retirement from 50 since 2000 (the guides, from 1990, stay the law's): at 52 in
    # 2010 the guide has no row. evaluate gave this row the schedule "2013-07-01 nan".
    law = tmp_path / "fifty.toml"
    law.write_text(law_entry("early_retirement.age", "2000-01-01", 50, "years"))
    guides = load_guides(SHIPPED_GUIDES, "illustrative-half-percent-per-month")
    early = member(
        birth_date="1958-01-01", entry_date="1990-06-01", separation_date="2010-01-01",
        credited_service=25.0,
    )  # fmt: skip
    alone = evaluate(early, guides, dt.date(2020, 1, 1), law=law).clause("c")
    table = evaluate_frame(pd.DataFrame([early]), guides, as_of=dt.date(2020, 1, 1), law=law)
    row = table[table["clause"] == "c"].iloc[0]
    assert alone.error and row["error"] == alone.error
    assert alone.schedule is None and row["schedule"] == ""
    assert alone.monthly_amount is None and pd.isna(row["monthly_amount"])


def test_the_spanish_explanation_writes_ages_in_anos_and_months(member):
    # 57y8m in English is 57a8m in Spanish (años), in the member's line and the conditions'.
    guides = load_guides(SHIPPED_GUIDES, DEFAULT_SERIES)
    readme = member(
        birth_date="1958-06-15", entry_date="1991-01-02", separation_date="2016-03-01",
        credited_service=25.0, average_compensation=24_000.0, group="firefighter",
    )  # fmt: skip
    lines = evaluate(readme, guides, dt.date(2026, 6, 1), lang="es").explanation
    assert "se separó el 2016-03-01 a la edad de 57a8m;" in lines[0]
    assert "  ✓ edad al separarse 57a8m >= 55a0m" in lines
