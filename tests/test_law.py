"""The law as dated data: the shipped law file, amendments, validation and look-ups by date."""

from __future__ import annotations

import datetime as dt
import hashlib
import math
import re
import tomllib
import warnings
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import exactly, law_entry

from actuarial.engine import evaluate, evaluate_frame
from actuarial.law import PARAMETERS, UNITS, LawError, law_in_force, load_law, shipped_law
from actuarial.member_record import MemberDataError
from actuarial.shown_text import shortened
from actuarial.valuation import Basis, value_frame

SHIPPED = "actuarial/law/law.toml"

# The public parameter names (README, "The law file"), their units and today's values.
PUBLIC = {
    "minimum_monthly_pension": ("USD a month", 500),
    "service_annuity.age": ("years", 65),
    "service_annuity.minimum_service": ("years", 10),
    "service_annuity.rate": ("rate", 0.015),
    "high_risk.age": ("years", 55),
    "high_risk.minimum_service": ("years", 30),
    "high_risk.rate_at_age": ("rate", 0.75),
    "high_risk.rate_before_age": ("rate", 0.65),
    "early_retirement.age": ("years", 55),
    "early_retirement.minimum_service": ("years", 25),
    "deferred.age": ("years", 65),
    "coverage.first_entry_on_or_after": ("date", dt.date(1990, 4, 1)),
    "coverage.first_entry_before": ("date", dt.date(2000, 1, 1)),
}


def _flatten(table: dict, prefix: str = "") -> dict:
    found = {}
    for key, value in table.items():
        if isinstance(value, dict):
            found.update(_flatten(value, f"{prefix}{key}."))
        else:
            found[f"{prefix}{key}"] = value
    return found


def test_the_shipped_law_file_has_the_public_parameter_names_as_its_top_level_keys():
    text = resources.files("actuarial.law").joinpath("law.toml").read_text("utf-8")
    entries = _flatten(tomllib.loads(text))
    assert set(entries) == set(PUBLIC) == set(PARAMETERS)
    for name, series in entries.items():
        for entry in series:
            assert set(entry) == {"effective_from", "value", "unit", "source"}
            assert entry["unit"] == PUBLIC[name][0]
            assert entry["unit"] in UNITS
            assert entry["source"]


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_each_parameter_has_its_value_of_today(name):
    assert shipped_law().value_on(name, dt.date(2026, 1, 1)) == PUBLIC[name][1]


@pytest.mark.parametrize(
    ("payment_date", "expected_usd"),
    [
        ("1990-04-01", 0.0),  # first date of the law: no minimum before Ley 3-2013
        ("2013-06-30", 0.0),
        ("2013-07-01", 500.0),  # Ley 3-2013: «efectivo el, 1ro de julio de 2013»
        ("2040-01-01", 500.0),
    ],
)
def test_the_minimum_is_500_from_july_1_2013(payment_date, expected_usd):
    assert shipped_law().value("minimum_monthly_pension", [payment_date])[0] == expected_usd


def test_look_ups_are_vectorized_and_keep_missing_dates_missing():
    dates = np.array(["2013-06-30", "NaT", "2013-07-01"], dtype="datetime64[D]")
    amounts = shipped_law().value("minimum_monthly_pension", dates)
    assert amounts[0] == 0.0 and np.isnan(amounts[1]) and amounts[2] == 500.0
    starts = shipped_law().value("coverage.first_entry_on_or_after", dates)
    assert np.isnat(starts[1]) and starts[0] == np.datetime64("1990-04-01")


def test_a_look_up_before_the_first_date_raises_instead_of_returning_nothing():
    with pytest.raises(
        LawError,
        match=exactly(
            "law: 'service_annuity.age' has no value in force on 1990-03-31: its first entry "
            f"({SHIPPED}:22: 'service_annuity.age' entry 1 (effective_from 1990-04-01)) starts "
            "later"
        ),
    ):
        shipped_law().value("service_annuity.age", ["1995-01-01", "1990-03-31"])


def test_a_payment_asked_for_before_the_law_is_payable_from_its_first_date(tmp_path):
    law = shipped_law()
    first = law.first_date()
    assert first == dt.date(1990, 4, 1)
    assert law.payable_on(first - dt.timedelta(days=1)) == first
    assert law.payable_on(dt.date(1900, 1, 1)) == first
    assert law.payable_on(first) == first
    assert law.payable_on(first + dt.timedelta(days=1)) == first + dt.timedelta(days=1)
    # The first date of the law in force: an amendment whose entries start later moves it.
    bill = tmp_path / "bill.toml"
    bill.write_text(
        '[[deferred.age]]\neffective_from = 1991-01-01\nvalue = 60\nunit = "years"\n'
        'source = "Test bill"\n'
    )
    assert load_law(bill).payable_on(dt.date(1985, 1, 1)) == first


def test_an_unknown_parameter_look_up_names_the_valid_ones():
    with pytest.raises(LawError, match=r"^law: unknown parameter 'minimum' \(parameters: \["):
        shipped_law().value("minimum", ["2020-01-01"])


def test_the_shipped_law_records_its_file_and_sha256():
    data = resources.files("actuarial.law").joinpath("law.toml").read_bytes()
    assert shipped_law().provenance() == [
        {"file": SHIPPED, "sha256": hashlib.sha256(data).hexdigest()}
    ]


# ------------------------------------------------------------------------ amendments
def test_an_amendment_at_a_new_date_starts_a_new_period(amendment):
    bill = amendment(law_entry("minimum_monthly_pension", "2027-01-01", 600, "USD a month"))
    law = load_law(bill)
    days = ["2026-12-31", "2027-01-01", "2013-07-01"]
    assert law.value("minimum_monthly_pension", days).tolist() == [500.0, 600.0, 500.0]
    assert shipped_law().value_on("minimum_monthly_pension", "2027-01-01") == 500.0
    assert law.provenance()[1] == {
        "file": str(bill),
        "sha256": hashlib.sha256(bill.read_bytes()).hexdigest(),
    }
    assert law.label() == "shipped + bill.toml"


def test_an_amendment_at_an_existing_date_replaces_that_entry(amendment):
    bill = amendment(law_entry("minimum_monthly_pension", "2013-07-01", 550.5, "USD a month"))
    law = load_law(bill)
    assert law.value_on("minimum_monthly_pension", "2020-01-01") == 550.5
    assert len(law.entries["minimum_monthly_pension"]) == 2


def test_amendments_apply_in_order_and_law_accepts_a_path_a_list_or_a_loaded_law(amendment):
    first = amendment(law_entry("service_annuity.rate", "2027-01-01", 0.02, "rate"), name="a.toml")
    second = amendment(
        law_entry("service_annuity.rate", "2027-01-01", 0.025, "rate"), name="b.toml"
    )
    both = load_law(first, second)
    assert both.value_on("service_annuity.rate", "2028-01-01") == 0.025
    assert law_in_force([first, second]).value_on("service_annuity.rate", "2028-01-01") == 0.025
    assert law_in_force(str(first)).value_on("service_annuity.rate", "2028-01-01") == 0.02
    assert law_in_force(both) is both
    assert law_in_force(None) is shipped_law()
    assert [f["file"] for f in both.provenance()] == [SHIPPED, str(first), str(second)]


def test_law_that_is_neither_a_path_a_list_of_paths_nor_a_law_is_refused_naming_it(amendment):
    # Bytes were iterated as a list of paths (TypeError: expected str, bytes or
    # os.PathLike object, not int), and so was a path-like object that is not a Path.
    import os

    bill = amendment(law_entry("service_annuity.rate", "2027-01-01", 0.02, "rate"))

    class PathLike:
        def __fspath__(self):
            return str(bill)

    assert law_in_force(PathLike()).value_on("service_annuity.rate", "2028-01-01") == 0.02
    assert law_in_force([PathLike()]).value_on("service_annuity.rate", "2028-01-01") == 0.02
    for law, shown in [
        (os.fsencode(bill), shortened(repr(os.fsencode(bill)))),  # cut to 80 characters
        ([str(bill), 5], "5"),
        ({"service_annuity.rate": 0.02}, "{'service_annuity.rate': 0.02}"),
    ]:
        with pytest.raises(TypeError, match="'law' must be a path, a list of paths or a Law") as e:
            law_in_force(law)
        assert str(e.value).endswith(f"(got {shown})")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            law_entry("minimum_pension", "2027-01-01", 600, "USD a month"),
            "unknown parameter 'minimum_pension' (parameters: [",
        ),
        (
            law_entry("minimum_monthly_pension", "2027-01-01", 600, "USD"),
            "'minimum_monthly_pension' entry 1 (effective_from 2027-01-01): 'unit' must be "
            "'USD a month' (got 'USD')",
        ),
        (
            law_entry("service_annuity.rate", "2027-01-01", 1.5, "rate"),
            "'service_annuity.rate' entry 1 (effective_from 2027-01-01): 'value' must be in "
            "(0, 1] (got 1.5)",
        ),
        (
            law_entry("minimum_monthly_pension", "2027-01-01", -1, "USD a month"),
            "'minimum_monthly_pension' entry 1 (effective_from 2027-01-01): 'value' must be "
            ">= 0 (got -1)",
        ),
        (
            law_entry("early_retirement.age", "2027-01-01", 54.5, "years"),
            "'early_retirement.age' entry 1 (effective_from 2027-01-01): 'value' must be a "
            "whole number of years (got 54.5)",
        ),
        (
            law_entry("early_retirement.age", "2027-01-01", "true", "years"),
            "'early_retirement.age' entry 1 (effective_from 2027-01-01): 'value' must be a "
            "number (got True)",
        ),
        (
            law_entry("coverage.first_entry_before", "2027-01-01", 5, "date"),
            "'coverage.first_entry_before' entry 1 (effective_from 2027-01-01): 'value' must "
            "be a date YYYY-MM-DD (got 5)",
        ),
        (
            law_entry("high_risk.age", "2028-01-01", 56, "years")
            + law_entry("high_risk.age", "2027-01-01", 57, "years"),
            "'high_risk.age' entry 2 (effective_from 2027-01-01): entries must be in ascending "
            "date order, one per date (2027-01-01 follows 2028-01-01)",
        ),
        (
            '[[high_risk.age]]\neffective_from = 2027-01-01\nvalue = 56\nunit = "years"\n',
            "'high_risk.age' entry 1 (effective_from 2027-01-01): keys must be "
            "['effective_from', 'value', 'unit', 'source'] (missing ['source'], unknown [])",
        ),
        (  # a date in quotes: "must be a date YYYY-MM-DD (got '2027-01-01')" before
            '[[high_risk.age]]\neffective_from = "2027-01-01"\nvalue = 56\nunit = "years"\n'
            'source = "s"\n',
            "'high_risk.age' entry 1: 'effective_from' must be a date YYYY-MM-DD (got the "
            "text '2027-01-01': TOML writes a date without quotes, effective_from = 2027-01-01)",
        ),
        (  # a date parameter's value in quotes
            '[[coverage.first_entry_before]]\neffective_from = 2027-01-01\nvalue = "2030-01-01"\n'
            'unit = "date"\nsource = "s"\n',
            "'coverage.first_entry_before' entry 1 (effective_from 2027-01-01): 'value' must be "
            "a date YYYY-MM-DD (got the text '2030-01-01': TOML writes a date without quotes, "
            "value = 2030-01-01)",
        ),
        (  # a TOML date-time: shown as written, not as a Python object
            law_entry("high_risk.age", "2027-01-01T10:00:00", 56, "years"),
            "'high_risk.age' entry 1: 'effective_from' must be a date YYYY-MM-DD "
            "(got 2027-01-01 10:00:00)",
        ),
        (  # a long value: quoted up to 80 characters
            law_entry("high_risk.age", "2027-01-01", 56, "y" * 5000),
            "'high_risk.age' entry 1 (effective_from 2027-01-01): 'unit' must be 'years' "
            f"(got '{'y' * 80}…')",
        ),
        (
            law_entry("deferred.age", "1980-01-01", 60, "years"),
            None,  # accepted: a value before the first day of coverage is never needed
        ),
    ],
)
def test_each_problem_of_an_amendment_names_the_file_the_parameter_and_the_entry(
    amendment, text, problem
):
    bill = amendment(text)
    if problem is None:
        assert load_law(bill).value_on("deferred.age", "1985-01-01") == 60
        return
    with pytest.raises(LawError) as error:
        load_law(bill)
    line = 6 if " entry 2 " in problem else 1  # each entry 5 lines, its header first
    where = f"{bill}:{line}" if problem.startswith("'") else str(bill)  # an entry's: its line
    assert str(error.value).startswith(f"{where}: {problem}")


def test_a_law_with_no_value_on_a_needed_date_is_refused(amendment):
    # The coverage window moved earlier: every parameter must be in force from its first day.
    bill = amendment(
        law_entry("coverage.first_entry_on_or_after", "1990-04-01", "1985-01-01", "date")
    )
    with pytest.raises(LawError) as error:
        load_law(bill)
    problems = error.value.problems
    assert len(problems) == len(PARAMETERS)
    assert problems[0] == (
        f"{SHIPPED}:10: 'minimum_monthly_pension' entry 1 (effective_from 1990-04-01): no value "
        "in force on 1985-01-01, the first day of coverage "
        f"({bill}:1: 'coverage.first_entry_on_or_after' entry 1 (effective_from 1990-04-01)); "
        "'minimum_monthly_pension' needs an entry from that date"
    )


def test_every_problem_of_a_file_is_reported_at_once(amendment):
    bill = amendment(
        law_entry("minimum_pension", "2027-01-01", 600, "USD a month")
        + law_entry("service_annuity.rate", "2027-01-01", 2, "rate")
    )
    with pytest.raises(LawError) as error:
        load_law(bill)
    assert len(error.value.problems) == 2


def test_every_problem_of_one_entry_is_reported_at_once(amendment):
    bill = amendment(
        '[[minimum_monthly_pension]]\neffective_from = 2027-01-01\nvalue = -5\nunit = "USD"\n'
        'source = ""\n'
        '[[high_risk.age]]\neffective_from = "2030-01-01"\nvalue = 56.5\nunit = "percent"\n'
        "other = 1\n"
    )
    with pytest.raises(LawError) as error:
        load_law(bill)
    minimum = f"{bill}:1: 'minimum_monthly_pension' entry 1 (effective_from 2027-01-01)"
    age = f"{bill}:6: 'high_risk.age' entry 1"
    assert error.value.problems == [
        f"{minimum}: 'unit' must be 'USD a month' (got 'USD')",
        f"{minimum}: 'value' must be >= 0 (got -5)",
        f"{minimum}: 'source' must name the text it comes from (got '')",
        f"{age}: keys must be ['effective_from', 'value', 'unit', 'source'] "
        "(missing ['source'], unknown ['other'])",
        f"{age}: 'effective_from' must be a date YYYY-MM-DD (got the text '2030-01-01': TOML "
        "writes a date without quotes, effective_from = 2030-01-01)",
        f"{age}: 'unit' must be 'years' (got 'percent')",
        f"{age}: 'value' must be a whole number of years (got 56.5)",
    ]


def test_a_problem_of_an_entry_names_the_line_of_its_header(amendment):
    # "bill.toml: 'minimum_monthly_pension' entry 2": a long bill had its [[...]] counted by
    # hand. A header with spaces or quotes inside, and one after a multi-line string that
    # holds a header's text, are found where they are.
    bill = amendment(
        law_entry("minimum_monthly_pension", "2027-01-01", 600, "USD a month")
        + '[[ "minimum_monthly_pension" ]]\neffective_from = 2028-01-01\nvalue = -1\n'
        'unit = "USD a month"\nsource = """a source\n[[minimum_monthly_pension]]\n"""\n'
        + "# a comment\n"
        + law_entry("minimum_monthly_pension", "2029-01-01", "nan", "USD a month")
        + "[[ service_annuity . rate ]]  # the rate\neffective_from = 2027-01-01\nvalue = 2\n"
        'unit = "rate"\nsource = "s"\n'
    )
    with pytest.raises(LawError) as error:
        load_law(bill)
    assert error.value.problems == [
        f"{bill}:6: 'minimum_monthly_pension' entry 2 (effective_from 2028-01-01): 'value' "
        "must be >= 0 (got -1)",
        f"{bill}:14: 'minimum_monthly_pension' entry 3 (effective_from 2029-01-01): 'value' "
        "must be a finite number (got nan)",
        f"{bill}:19: 'service_annuity.rate' entry 1 (effective_from 2027-01-01): 'value' must "
        "be in (0, 1] (got 2)",
    ]
    # Entries written as an inline array have no header: no line, as before.
    inline = amendment(
        'service_annuity.rate = [{effective_from = 2027-01-01, value = 2, unit = "rate", '
        'source = "s"}]\n',
        name="inline.toml",
    )
    with pytest.raises(LawError) as error:
        load_law(inline)
    assert error.value.problems == [
        f"{inline}: 'service_annuity.rate' entry 1 (effective_from 2027-01-01): 'value' must "
        "be in (0, 1] (got 2)",
    ]


@pytest.mark.parametrize(
    "before",
    [
        "# Bill 12\u2028 a line separator is no line break in TOML\n",
        "[[minimum_monthly_pension]]\neffective_from = 2027-01-01\nvalue = 600\n"
        'unit = "USD a month"\nsource = """Bill 12 \\"""\n[[minimum_monthly_pension]]\n"""\n',
        "[[minimum_monthly_pension]]\neffective_from = 2027-01-01\nvalue = 600\n"
        'unit = "USD a month"\nsource = \'the bill says """ here\'\n',
    ],
    ids=["line-separator", "escaped-quotes", "quotes-in-a-literal-string"],
)
def test_the_line_of_an_entry_is_found_whatever_strings_and_comments_hold(amendment, before):
    bill = amendment(before + law_entry("minimum_monthly_pension", "2029-01-01", -1, "USD a month"))
    header = before.count("\n") + 1  # the wrong entry's header: the line after those
    number = 2 if before.startswith("[[") else 1
    with pytest.raises(LawError) as error:
        load_law(bill)
    assert error.value.problems == [
        f"{bill}:{header}: 'minimum_monthly_pension' entry {number} (effective_from "
        "2029-01-01): 'value' must be >= 0 (got -1)"
    ]


def test_amendment_files_are_checked_as_one_law_whatever_their_order(amendment):
    # Coverage moved earlier by one file, every other number given from then by the other:
    # the law they make together is whole, in either order; neither alone is.
    earlier = "1985-01-01"
    coverage = amendment(
        law_entry("coverage.first_entry_on_or_after", earlier, earlier, "date"),
        name="coverage.toml",
    )
    rest = amendment(
        *(
            law_entry(name, earlier, value, unit)
            for name, (unit, value) in PUBLIC.items()
            if name != "coverage.first_entry_on_or_after"
        ),
        name="rest.toml",
    )
    for files in [(coverage, rest), (rest, coverage)]:
        law = load_law(*files)
        assert law.first_date() == dt.date(1985, 1, 1)
        assert law_in_force(list(files)).first_date() == dt.date(1985, 1, 1)
    with pytest.raises(LawError, match="no value in force on 1985-01-01"):
        load_law(coverage)


def test_amendment_files_given_as_a_set_are_refused_having_no_order(amendment):
    six = amendment(law_entry("minimum_monthly_pension", "2030-01-01", 600, "USD a month"))
    seven = amendment(
        law_entry("minimum_monthly_pension", "2030-01-01", 700, "USD a month"), name="b.toml"
    )
    for files in [{six, seven}, frozenset([six, seven]), {six: 1, seven: 2}.keys()]:
        with pytest.raises(TypeError, match="in order") as error:
            law_in_force(files)
        assert "a set" in str(error.value)


def test_a_file_that_is_not_toml_or_cannot_be_read_is_refused(amendment, tmp_path):
    bill = amendment("value = = 3")
    with pytest.raises(LawError, match=rf"^{re.escape(str(bill))}:1: not a TOML file \("):
        load_law(bill)
    missing = tmp_path / "missing.toml"
    with pytest.raises(LawError, match=rf"^{re.escape(str(missing))}: cannot read the law file"):
        load_law(missing)


def test_nothing_in_a_law_file_is_executed(amendment, tmp_path):
    marker = tmp_path / "executed"
    bill = amendment(
        law_entry(
            "minimum_monthly_pension",
            "2027-01-01",
            600,
            "USD a month",
            source=f"__import__('pathlib').Path('{marker}').touch()",
        )
    )
    law = load_law(bill)
    assert not marker.exists()
    assert law.entries["minimum_monthly_pension"][-1].source.startswith("__import__")


def test_law_provenance_gives_the_report_the_files_their_hashes_and_the_as_of(amendment):
    from actuarial import law_provenance

    bill = amendment(law_entry("minimum_monthly_pension", "2027-01-01", 600, "USD a month"))
    assert law_provenance([bill], "2027-06-01") == {
        "as_of": "2027-06-01",
        "law": load_law(bill).provenance(),
    }
    before = dt.date.today()
    asked = law_provenance()["as_of"]
    assert asked in {before.isoformat(), dt.date.today().isoformat()}  # across midnight: either


@pytest.mark.parametrize("as_of", ["20270601", "2027-6-01", "2027-02-30"])
def test_as_of_in_text_is_an_iso_date_only(as_of):
    from actuarial.law import resolve_as_of

    with pytest.raises(LawError, match=r"^'as_of' must be a date YYYY-MM-DD \(got "):
        resolve_as_of(as_of)


def test_as_of_given_as_pandas_missing_timestamp_is_refused_as_no_date(half_percent_guides, member):
    """pd.NaT is a datetime of no date: it raised ValueError ('NaTType does not support
    time') from the timestamp rule, not the LawError of every other value that is no date."""
    message = exactly("'as_of' must be a date YYYY-MM-DD (got NaT)")
    with pytest.raises(LawError, match=message):
        evaluate(member(), half_percent_guides, as_of=pd.NaT)
    with pytest.raises(LawError, match=message):
        evaluate_frame(pd.DataFrame([member()]), half_percent_guides, as_of=pd.NaT)


@pytest.mark.parametrize(
    "outside",
    ["1899-12-31", dt.date(2101, 1, 1), dt.date.min, dt.datetime(9999, 12, 31)],
    ids=["text", "date", "year-one", "timestamp"],
)
def test_as_of_outside_1900_to_2100_is_refused_in_python_as_the_cli_refuses_it(
    half_percent_guides, member, outside
):
    """`--as-of 1899-12-31` is a usage error; evaluate, evaluate_frame and value_frame took
    it (and year 1) and paid every annuity from its start date."""
    day = dt.date.fromisoformat(outside) if isinstance(outside, str) else outside
    shown = (day.date() if isinstance(day, dt.datetime) else day).isoformat()
    message = exactly(f"'as_of' must be from 1900-01-01 to 2100-12-31 (got {shown})")
    frame = pd.DataFrame([member()])
    for run in (
        lambda: evaluate(member(), half_percent_guides, as_of=outside),
        lambda: evaluate_frame(frame, half_percent_guides, as_of=outside),
        lambda: value_frame(frame, half_percent_guides, Basis("sult", 0.05), as_of=outside),
    ):
        with pytest.raises(LawError, match=message):
            run()


@pytest.mark.parametrize(
    "midnight",
    [
        dt.datetime(2027, 1, 1),
        pd.Timestamp("2027-01-01"),
        np.datetime64("2027-01-01"),  # a member's date accepts these two; as_of refused them
        np.datetime64("2027-01-01T00:00:00.000000000"),
    ],
)
def test_as_of_given_as_a_timestamp_at_midnight_is_that_date_as_a_members_dates_are(
    half_percent_guides, member, midnight
):
    """A datetime at midnight was refused as as_of while a member's dates accept one: it is
    that date wherever as_of is taken (evaluate, evaluate_frame, value_frame)."""
    from actuarial.law import resolve_as_of

    assert resolve_as_of(midnight) == dt.date(2027, 1, 1)
    given = member(separation_date="2016-03-01", credited_service=26)
    on_the_date = evaluate(given, half_percent_guides, as_of=dt.date(2027, 1, 1))
    assert evaluate(given, half_percent_guides, as_of=midnight) == on_the_date
    frame = pd.DataFrame([given])
    for table in (
        lambda as_of: evaluate_frame(frame, half_percent_guides, as_of=as_of),
        lambda as_of: value_frame(frame, half_percent_guides, Basis("sult", 0.05), as_of=as_of),
    ):
        pd.testing.assert_frame_equal(table(midnight), table(dt.date(2027, 1, 1)))


@pytest.mark.parametrize(
    ("as_of", "problem"),
    [
        (
            dt.datetime(2027, 1, 1, 5, 6),
            "must be a date, without a time of day (got 2027-01-01 05:06:00)",
        ),
        (
            dt.datetime(2027, 1, 1, tzinfo=dt.UTC),
            "must be a date without a time zone (got 2027-01-01 00:00:00+00:00)",
        ),
        (  # its time() is midnight: a datetime.time has no nanoseconds
            pd.Timestamp("2027-01-01") + pd.Timedelta(1, "ns"),
            "must be a date, without a time of day (got 2027-01-01 00:00:00.000000001)",
        ),
        (
            np.datetime64("2027-01-01T05", "h"),
            "must be a date, without a time of day (got 2027-01-01T05)",
        ),
    ],
    ids=["time-of-day", "time-zone", "one-nanosecond", "numpy-hour"],
)
def test_as_of_with_a_time_of_day_or_a_time_zone_is_refused_as_a_members_date_is(
    half_percent_guides, member, as_of, problem
):
    with pytest.raises(LawError, match=exactly(f"'as_of' {problem}")):
        evaluate(member(), half_percent_guides, as_of=as_of)
    with pytest.raises(LawError, match=exactly(f"'as_of' {problem}")):
        evaluate_frame(pd.DataFrame([member()]), half_percent_guides, as_of=as_of)
    where = "member row 1 (member 'A-1'):"
    refused = evaluate_frame(
        pd.DataFrame([member(separation_date=as_of)], dtype=object), half_percent_guides
    )
    assert refused["error"].tolist() == [
        f"members row 1 (member 'A-1'): 'separation_date' {problem}"
    ]
    with pytest.raises(MemberDataError, match=exactly(f"{where} 'separation_date' {problem}")):
        evaluate(member(separation_date=as_of), half_percent_guides)  # one member, in Python


def test_a_period_of_one_day_is_that_date_as_of_as_a_members_date_is(half_percent_guides, member):
    """A pandas period of one day was a member's date (in evaluate and evaluate_frame) but
    was refused as as_of: one rule for both, it is that day."""
    from actuarial.law import resolve_as_of

    day = pd.Period("2027-01-01", "D")
    assert resolve_as_of(day) == dt.date(2027, 1, 1)
    assert resolve_as_of(pd.Period("1970-01-01", "D")) == dt.date(1970, 1, 1)  # its day 0
    given = member(separation_date="2016-03-01", credited_service=26)
    on_the_date = evaluate(given, half_percent_guides, as_of=dt.date(2027, 1, 1))
    assert evaluate(given, half_percent_guides, as_of=day) == on_the_date
    frame = pd.DataFrame([given])
    pd.testing.assert_frame_equal(
        evaluate_frame(frame, half_percent_guides, as_of=day),
        evaluate_frame(frame, half_percent_guides, as_of=dt.date(2027, 1, 1)),
    )
    separated = {**given, "separation_date": pd.Period("2016-03-01", "D")}
    assert evaluate(separated, half_percent_guides, as_of=day) == on_the_date
    pd.testing.assert_frame_equal(
        evaluate_frame(pd.DataFrame([separated]), half_percent_guides, as_of=day),
        evaluate_frame(frame, half_percent_guides, as_of=day),
    )


@pytest.mark.parametrize(
    ("period", "shown"),
    [
        (pd.Period("2027-01", "M"), "2027-01"),
        (pd.Period("2027", "Y"), "2027"),
        (pd.Period("2027-01-01 00:00", "h"), "2027-01-01 00:00"),
        (pd.Period("2027-01-01", "2D"), "2027-01-01"),
    ],
    ids=["month", "year", "hour", "two-days"],
)
def test_a_period_other_than_one_day_is_no_date_as_of_nor_as_a_members_date(
    half_percent_guides, member, period, shown
):
    """Not its first day, nor the day it begins at: a month, a year, an hour is not a day."""
    no_date = exactly(f"'as_of' must be a date YYYY-MM-DD (got {period!r})")
    with pytest.raises(LawError, match=no_date):
        evaluate(member(), half_percent_guides, as_of=period)
    with pytest.raises(LawError, match=no_date):
        evaluate_frame(pd.DataFrame([member()]), half_percent_guides, as_of=period)
    problem = f"'separation_date' must be a date YYYY-MM-DD (got {shown})"
    with pytest.raises(MemberDataError, match=exactly(f"member row 1 (member 'A-1'): {problem}")):
        evaluate(member(separation_date=period), half_percent_guides)
    refused = evaluate_frame(pd.DataFrame([member(separation_date=period)]), half_percent_guides)
    assert refused["error"].tolist() == [f"members row 1 (member 'A-1'): {problem}"]


def test_a_period_of_one_day_after_year_9999_is_outside_the_dates_not_a_crash(
    half_percent_guides, member
):
    """Its start_time had no date(): a member's such period ended evaluate_frame in
    NotImplementedError. A day beyond Python's dates is read as numpy reads it."""
    day = pd.Period(year=12000, month=1, day=1, freq="D")
    with pytest.raises(
        LawError, match=exactly("'as_of' must be from 1900-01-01 to 2100-12-31 (got 12000-01-01)")
    ):
        evaluate(member(), half_percent_guides, as_of=day)
    problem = "'separation_date' must be from 1900-01-01 to 2100-12-31 (got 12000-01-01)"
    refused = evaluate_frame(pd.DataFrame([member(separation_date=day)]), half_percent_guides)
    assert refused["error"].tolist() == [f"members row 1 (member 'A-1'): {problem}"]


# ----------------------------------------------------------------- hostile law files
EXAMPLE_MEMBERS = Path(__file__).resolve().parents[1] / "examples" / "members.csv"
# Checked before parsing, as guide files are (actuarial.text_files): size, UTF-8 (a BOM
# accepted), nesting depth (a dotted key counts one level a part) and number of keys.
DEEPER = "nested deeper than the limit of 6 levels (a dotted key counts one level a part; "
HOSTILE_LAW_FILES = {
    "arrays nested 5,000 deep": (
        b"x = " + b"[" * 5000 + b"]" * 5000 + b"\n", [f":1: {DEEPER}reached 5,001)"]),
    "inline tables nested 3,000 deep": (
        b"x = " + b"{a = " * 3000 + b"1" + b"}" * 3000 + b"\n",
        [f":1: {DEEPER}reached 3,001)", ": more than 2000 keys (got 3,001)"],
    ),
    "a dotted key of 7 parts": (b"# a bill\na.b.c.d.e.f.g = 1\n", [f":2: {DEEPER}reached 7)"]),
    "a table header of 6 parts": (b"[a.b.c.d.e.f]\nk = 1\n", [f":1: {DEEPER}reached 7)"]),
    "20,000 dotted keys": (
        "".join(f"k{n}.v = 1\n" for n in range(20_000)).encode(),
        [": more than 2000 keys (got 20,000)"],
    ),
    "deep and many keys, both named": (
        b"a.b.c.d.e.f.g = 1\n" + b"k = 1\n" * 2_000,
        [f":1: {DEEPER}reached 7)", ": more than 2000 keys (got 2,001)"],
    ),
    "oversize": (
        b"#" * (256 * 1024) + b"\n", [": larger than the limit of 262,144 bytes for a law file"]
    ),
    "latin-1 on line 3": (
        b'[[minimum_monthly_pension]]\neffective_from = 2027-01-01\nsource = "Ley n\xfam. 1"\n',
        [":3: not UTF-8 text (byte 0xfa at offset 71); save the file as UTF-8"],
    ),
    "UTF-16": (
        "x = 1\n".encode("utf-16"),
        [":1: not UTF-8 text (byte 0xff at offset 0); save the file as UTF-8"],
    ),
}  # fmt: skip


@pytest.mark.parametrize(
    ("data", "problems"), HOSTILE_LAW_FILES.values(), ids=list(HOSTILE_LAW_FILES)
)
def test_a_hostile_law_file_is_refused_with_every_problem_and_its_line(tmp_path, data, problems):
    bill = tmp_path / "bill.toml"
    bill.write_bytes(data)
    with pytest.raises(LawError) as error:
        load_law(bill)
    assert error.value.problems == [f"{bill}{problem}" for problem in problems]


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_law_file_with_a_byte_order_mark_is_read_as_without_it(amendment, tmp_path, newline):
    text = law_entry("minimum_monthly_pension", "2027-01-01", 600, "USD a month").replace(
        "\n", newline
    )
    bill = tmp_path / "bill.toml"
    bill.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    plain = amendment(text.replace(newline, "\n"), name="plain.toml")

    def read(path):
        return {
            key: [(e.effective_from, e.value, e.source) for e in entries]
            for key, entries in load_law(path).entries.items()
        }

    assert read(bill) == read(plain)
    assert load_law(bill).value_on("minimum_monthly_pension", dt.date(2027, 1, 1)) == 600.0
    sha = load_law(bill).provenance()[-1]["sha256"]
    assert sha == hashlib.sha256(bill.read_bytes()).hexdigest()  # the file as read, BOM and all


def test_the_problems_of_several_law_files_are_reported_together(tmp_path):
    first, second = tmp_path / "first.toml", tmp_path / "second.toml"
    first.write_bytes(b"a.b.c.d.e.f.g = 1\n")
    second.write_bytes(b"x = '\xe9'\n")
    with pytest.raises(LawError) as error:
        load_law(first, second)
    assert error.value.problems == [
        f"{first}:1: {DEEPER}reached 7)",
        f"{second}:1: not UTF-8 text (byte 0xe9 at offset 5); save the file as UTF-8",
    ]


def test_the_shipped_law_is_within_the_limits_of_a_law_file():
    from actuarial.law.parameters import LAW_FILE_MAX_BYTES, LAW_TOML_MAX_DEPTH, LAW_TOML_MAX_KEYS
    from actuarial.text_files import toml_shape

    data = resources.files("actuarial.law").joinpath("law.toml").read_bytes()
    depth, _, keys = toml_shape(data.decode("utf-8"), LAW_TOML_MAX_DEPTH)
    assert len(data) <= LAW_FILE_MAX_BYTES // 8
    assert depth <= LAW_TOML_MAX_DEPTH - 2 and keys <= LAW_TOML_MAX_KEYS // 10


def test_a_law_file_at_the_limits_passes_them_to_the_parser(amendment):
    # 6 levels deep and 2,000 keys: refused for its unknown parameters, not for its shape.
    bill = amendment("a.b.c.d.e.f = 1\n" + "".join(f"k{n} = 1\n" for n in range(1_999)))
    with pytest.raises(LawError) as error:
        load_law(bill)
    assert len(error.value.problems) == 2_000
    assert all(": unknown parameter '" in problem for problem in error.value.problems)


@pytest.mark.parametrize("case", list(HOSTILE_LAW_FILES))
def test_the_cli_refuses_a_hostile_law_file_in_error_lines_with_exit_1(tmp_path, case):
    from click.testing import CliRunner

    from actuarial.cli import cli

    data, problems = HOSTILE_LAW_FILES[case]
    bill = tmp_path / "bill.toml"
    bill.write_bytes(data)
    members = EXAMPLE_MEMBERS
    result = CliRunner().invoke(
        cli, ["batch", str(members), "--law", str(bill), "--out", str(tmp_path / "r.csv")]
    )
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stderr == "error: " + "\n".join(f"{bill}{problem}" for problem in problems) + "\n"
    assert not (tmp_path / "r.csv").exists()


def test_a_hostile_law_file_in_a_real_process_is_an_error_line_not_a_traceback(tmp_path):
    import subprocess
    import sys

    bill = tmp_path / "bill.toml"
    bill.write_bytes(b"x = " + b"[" * 100_000 + b"]" * 100_000 + b"\n")
    out = tmp_path / "r.csv"
    done = subprocess.run(
        [sys.executable, "-m", "actuarial", "batch",
         str(EXAMPLE_MEMBERS), "--law", str(bill), "--out", str(out)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 1 and not out.exists()
    assert done.stderr == f"error: {bill}:1: {DEEPER}reached 100,001)\n"


# ------------------------------------------------------- what is computed once per law
@pytest.mark.parametrize("count", [1, 4, 64, 65, 1_000])
def test_a_look_up_gives_the_same_values_on_few_dates_and_on_many(count):
    law = shipped_law()
    dates = np.datetime64("2000-01-01") + np.arange(count) * 9_000 // count
    for name in PARAMETERS:
        values = law.value(name, dates)
        assert values.shape == (count,)
        assert values.tolist() == [law.value_on(name, day) for day in dates.tolist()]


def test_the_change_dates_computed_once_cannot_be_changed_by_a_caller():
    law = shipped_law()
    dates = law.change_dates("separation date")
    with pytest.raises(ValueError, match="read-only"):
        dates[0] = np.datetime64("2001-01-01")
    assert law.change_dates("separation date") is dates  # computed once
    every_start = {entry.effective_from for entries in law.entries.values() for entry in entries}
    assert law.change_dates().tolist() == sorted(every_start)


def test_the_minimums_reach_is_the_callers_own_array():
    from actuarial.law.minimum import minimum_reaches
    from actuarial.law.readings import Readings

    reaches = minimum_reaches(["a", "b", "c", "d"], Readings(minimum_applies_to="a"))
    assert reaches.tolist() == [True, False, False, False]
    reaches[:] = True
    assert minimum_reaches(("a", "b", "c", "d"), Readings(minimum_applies_to="a")).tolist() == [
        True, False, False, False,
    ]  # fmt: skip


@pytest.mark.parametrize("law", ["shipped", "amended"])
def test_the_law_on_a_few_dates_reads_the_table_of_periods_as_look_ups_do(law, amendment):
    from actuarial.law.parameters import LawOn

    if law == "shipped":
        law = shipped_law()
    else:
        law = load_law(
            amendment(
                law_entry("service_annuity.age", "2020-01-01", 67, "years"),
                law_entry("high_risk.rate_at_age", "2024-07-01", 0.8, "rate"),
                law_entry("minimum_monthly_pension", "2027-01-01", 600, "USD a month"),
            )
        )
        assert len(law.periods()[0]) > 3
    starts, _ = law.periods()
    assert starts[0] == np.datetime64(law.first_date(), "D")
    # Every change date, the day before it and the day after, a few at a time.
    days = np.unique(np.concatenate([starts - 1, starts, starts + 1, law.change_dates()]))
    days = days[days >= starts[0]]
    for chunk in (days[:1], days[:3], days, days[-5:]):
        on = LawOn(law, chunk)
        assert on._period is not None  # read from the table of periods
        for name in PARAMETERS:
            np.testing.assert_array_equal(on[name], law.value(name, chunk))
    with pytest.raises(LawError, match="has no value in force on 1990-03-31"):
        LawOn(law, np.array(["1990-03-31"], dtype="datetime64[D]"))["service_annuity.age"]


# ------------------------------------------------- bounds of amounts and dates in a law file
BILL_MINIMUM = "'minimum_monthly_pension' entry 1 (effective_from 2027-01-01)"
TOO_LARGE = "'value' must be at most 10,000,000, so that every cent is exact"


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("10000000.01", "10000000.01"),  # a cent above the bound
        ("1e17", "1e17"),  # cents beyond int64: the schedule wrote '1.92'; as written
        ("99999999999999999999999999999", "99999999999999999999999999999"),  # as given
        ("1e308", "1e308"),  # inf once times 100: 'monthly $inf', JSON refused
    ],
)
def test_a_minimum_above_ten_million_dollars_a_month_is_refused_naming_the_rule(
    amendment, value, shown
):
    bill = amendment(law_entry("minimum_monthly_pension", "2027-01-01", value, "USD a month"))
    with pytest.raises(LawError) as error:
        load_law(bill)
    assert error.value.problems == [f"{bill}:1: {BILL_MINIMUM}: {TOO_LARGE} (got {shown})"]


def test_the_largest_minimum_accepted_is_ten_million_dollars_a_month(amendment):
    bill = amendment(law_entry("minimum_monthly_pension", "2027-01-01", 10_000_000, "USD a month"))
    assert load_law(bill).value_on("minimum_monthly_pension", "2027-01-01") == 10_000_000.0
    over = amendment(
        law_entry("minimum_monthly_pension", "2027-01-01", 10_000_000.01, "USD a month"),
        name="over.toml",
    )
    with pytest.raises(LawError, match=re.escape(f"{TOO_LARGE} (got 10000000.01)")):
        load_law(over)


@pytest.mark.parametrize(
    "value", ["500.005", "0.001", "600.0000001", "500.000000000000001", "1_000.000_000_000_000_01"]
)
def test_a_minimum_in_fractions_of_a_cent_is_refused_not_shown_as_one_amount_and_paid_another(
    amendment, value
):
    """A minimum of 500.005 was explained as 'the $500.00 minimum' and paid as $500.01; one
    of 500.000000000000001, read as the float 500.0 before its cents were checked, was paid
    as $500.00: the rule is checked on the number as written."""
    bill = amendment(law_entry("minimum_monthly_pension", "2027-01-01", value, "USD a month"))
    with pytest.raises(LawError) as error:
        load_law(bill)
    assert error.value.problems == [
        f"{bill}:1: {BILL_MINIMUM}: 'value' must be in whole cents (got {value})"
    ]


@pytest.mark.parametrize("value", ["0.07", "550.5", "600.10", "1e2", "9999999.99"])
def test_a_minimum_in_whole_cents_is_accepted_however_written(amendment, value):
    """0.07 is 7.000000000000001 cents in binary: whole cents are those of the decimal written."""
    bill = amendment(law_entry("minimum_monthly_pension", "2027-01-01", value, "USD a month"))
    assert load_law(bill).value_on("minimum_monthly_pension", "2027-01-01") == float(value)


def test_an_integer_too_large_for_a_float_is_refused_not_a_traceback(amendment):
    huge = "1" + "0" * 400  # math.isfinite raised OverflowError on it
    bill = amendment(law_entry("high_risk.age", "2027-01-01", huge, "years"))
    with pytest.raises(LawError) as error:
        load_law(bill)
    assert error.value.problems == [
        f"{bill}:1: 'high_risk.age' entry 1 (effective_from 2027-01-01): 'value' must be in "
        f"[0, 120] (got {huge[:80]}…)"
    ]


@pytest.mark.parametrize(
    ("outside", "inside"),
    [
        ("1899-12-31", "1900-01-01"),
        ("2101-01-01", "2100-12-31"),
        ("0001-01-01", "1900-01-01"),
        ("9999-12-31", "2100-12-31"),  # the schedule printed '9999-12-31 600.00'
        ("2200-01-01", "2100-12-31"),
    ],
)
def test_an_effective_from_outside_1900_to_2100_is_refused_and_inside_accepted(
    amendment, outside, inside
):
    bill = amendment(law_entry("minimum_monthly_pension", outside, 600, "USD a month"))
    with pytest.raises(LawError) as error:
        load_law(bill)
    assert error.value.problems == [
        f"{bill}:1: 'minimum_monthly_pension' entry 1: 'effective_from' must be from "
        f"1900-01-01 to 2100-12-31 (got {outside})"
    ]
    accepted = amendment(
        law_entry("minimum_monthly_pension", inside, 600, "USD a month"), name="ok"
    )
    assert load_law(accepted).value_on("minimum_monthly_pension", inside) == 600.0


@pytest.mark.parametrize(
    ("outside", "inside"), [("1899-12-31", "1900-01-01"), ("2101-01-01", "2100-12-31")]
)
def test_a_date_value_outside_1900_to_2100_is_refused_and_inside_accepted(
    amendment, outside, inside
):
    name = "coverage.first_entry_before"
    bill = amendment(law_entry(name, "2027-01-01", outside, "date"))
    with pytest.raises(LawError) as error:
        load_law(bill)
    assert error.value.problems == [
        f"{bill}:1: '{name}' entry 1 (effective_from 2027-01-01): 'value' must be from "
        f"1900-01-01 to 2100-12-31 (got {outside})"
    ]
    accepted = amendment(law_entry(name, "2027-01-01", inside, "date"), name="ok")
    assert load_law(accepted).value_on(name, "2027-01-01") == dt.date.fromisoformat(inside)


def _docstrings_and_comments(path: Path) -> str:
    """The docstrings and the comments of a module, as one text (comments joined up)."""
    import ast
    import io
    import tokenize

    source = path.read_text(encoding="utf-8")
    nodes = [ast.parse(source), *ast.walk(ast.parse(source))]
    texts = [
        ast.get_docstring(node, clean=False) or ""
        for node in nodes
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
    ]
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    texts.append(" ".join(t.string.lstrip("# ") for t in tokens if t.type == tokenize.COMMENT))
    return "\n".join(texts)


PACKAGE = Path(__file__).resolve().parents[1] / "actuarial"
PACKAGE_CODE = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", PACKAGE_CODE, ids=lambda path: str(path.relative_to(PACKAGE)))
def test_every_quotation_of_the_statute_in_the_code_is_its_text(path):
    """Each «...» of a docstring or comment (parts between '...' elisions) is in the Spanish
    statute shipped in docs/statute.es.md: the house style quotes it verbatim."""
    statute_page = Path(__file__).resolve().parents[1] / "docs" / "statute.es.md"
    statute = " ".join(statute_page.read_text(encoding="utf-8").split())
    quoted = re.findall(r"«(.*?)»", " ".join(_docstrings_and_comments(path).split()))
    parts = [part.strip(" .,") for quote in quoted for part in re.split(r"\.\.\.|…", quote)]
    assert [part for part in parts if part and part not in statute] == []


@pytest.mark.parametrize(
    ("text", "got"),
    [
        ('[minimum_monthly_pension]\neffective_from = 2027-01-01\nvalue = 600\n',
         "one table [minimum_monthly_pension]"),
        ("minimum_monthly_pension = 600\n", "600"),
    ],
)  # fmt: skip
def test_a_parameter_not_written_as_an_array_of_entries_is_named_as_written(tmp_path, text, got):
    # A table [minimum_monthly_pension] was shown as a Python dict:
    # "(got {'effective_from': datetime.date(2027, 1, 1), 'value': 600, ...)".
    bill = tmp_path / "bill.toml"
    bill.write_text(text, encoding="utf-8")
    with pytest.raises(LawError) as error:
        load_law(bill)
    assert error.value.problems == [
        f"{bill}: 'minimum_monthly_pension' must be an array of entries "
        f"[[minimum_monthly_pension]] (got {got})"
    ]


# ------------------------------------------------------------- keys holding a dot in quotes
QUOTED_AGE = (
    '"service_annuity.age" = [{effective_from = 2020-01-01, value = 60, '
    'unit = "years", source = "q"}]\n'
)


def test_a_parameter_given_twice_through_a_quoted_key_is_refused_naming_both(amendment):
    # TOML reads "service_annuity.age" as one key, apart from the table service_annuity's
    # key age: the file loaded as [1990: 65, 2022: 62], its 2020 entry lost without a word.
    bill = amendment(QUOTED_AGE, law_entry("service_annuity.age", "2022-01-01", 62, "years"))
    with pytest.raises(LawError) as error:
        load_law(bill)
    assert error.value.problems == [
        f"{bill}: 'service_annuity.age' is given twice, as [[service_annuity.age]] and as the "
        'quoted key "service_annuity.age": a key must not hold a dot inside quotes (TOML '
        "reads it as one name); give each parameter once, as [[service_annuity.age]]"
    ]


@pytest.mark.parametrize(
    ("text", "key", "path", "hint"),
    [
        (QUOTED_AGE, '"service_annuity.age"', "service_annuity.age",
         ": write the parameter unquoted, [[service_annuity.age]]"),
        ('[service_annuity]\n"age.x" = 1\n', 'service_annuity."age.x"', "service_annuity.age.x",
         ""),
        ("\"a.b\" = 1\n", '"a.b"', "a.b", ""),
        (f'"{"a" * 200}.b" = 1\n', f'"{"a" * 80}…"', f"{'a' * 80}…", ""),  # both cut
    ],
)  # fmt: skip
def test_a_quoted_key_holding_a_dot_is_refused_not_read_as_a_parameter(
    amendment, text, key, path, hint
):
    bill = amendment(text)
    with pytest.raises(LawError) as error:
        load_law(bill)
    assert error.value.problems == [
        f"{bill}: a key must not hold a dot inside quotes: TOML reads it as one name, not as "
        f"the path '{path}' (got {key}{hint})"
    ]


# ------------------------------------------------------- a list of paths is one amendment
def test_a_list_of_law_files_is_read_as_load_law_reads_them_one_after_the_other(amendment):
    # law_in_force applied each file on its own: the law between the two (early retirement
    # at 70, (a) still at 65) was warned as "inciso (c) cannot apply", which the law in
    # force, with (a) at 75, does not hold.
    early = amendment(law_entry("early_retirement.age", "2020-01-01", 70, "years"), name="e.toml")
    late = amendment(law_entry("service_annuity.age", "2020-01-01", 75, "years"), name="a.toml")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no LawNote: the law in force holds nothing to note
        assert law_in_force([early, late]) == load_law(early, late)
        assert law_in_force([early, shipped_law(), late]) == load_law(late)


def test_the_problems_of_every_law_file_of_a_list_are_reported_together(tmp_path):
    first, second = tmp_path / "first.toml", tmp_path / "second.toml"
    first.write_bytes(b"a.b.c.d.e.f.g = 1\n")
    second.write_bytes(b"x = '\xe9'\n")
    with pytest.raises(LawError) as error:
        law_in_force([first, second])
    assert error.value.problems == [
        f"{first}:1: {DEEPER}reached 7)",
        f"{second}:1: not UTF-8 text (byte 0xe9 at offset 5); save the file as UTF-8",
    ]


# --------------------------------------------------------- numbers read as written
KEPT = "'value' must be a number the engine keeps as written"


@pytest.mark.parametrize(
    ("name", "value", "unit", "problem"),
    [
        ("service_annuity.rate", "0.0150000000000000001", "rate",
         f"{KEPT} (got 0.0150000000000000001, kept as 0.015)"),
        ("service_annuity.rate", "1e-400", "rate", f"{KEPT} (got 1e-400, kept as 0.0)"),
        ("service_annuity.minimum_service", "24.99999999999999999", "years",
         f"{KEPT} (got 24.99999999999999999, kept as 25.0)"),
        ("service_annuity.age", "65.0000000000000001", "years",
         "'value' must be a whole number of years (got 65.0000000000000001)"),
        ("service_annuity.rate", "+1.5e0", "rate", "'value' must be in (0, 1] (got +1.5e0)"),
        ("service_annuity.rate", "-nan", "rate", "'value' must be a finite number (got -nan)"),
        # exponents beyond a decimal's: read as what they are, not a decimal's traceback
        ("minimum_monthly_pension", "1e99999999999999999999", "USD a month",
         "'value' must be a finite number (got 1e99999999999999999999)"),
        ("minimum_monthly_pension", "-1e99999999999999999999", "USD a month",
         "'value' must be a finite number (got -1e99999999999999999999)"),
        ("service_annuity.rate", "1e-99999999999999999999", "rate",
         f"{KEPT} (got 1e-99999999999999999999, kept as 0.0)"),
        ("service_annuity.rate", "0e99999999999999999999", "rate",
         "'value' must be in (0, 1] (got 0e99999999999999999999)"),
        ("service_annuity.age", "[1.0, 2.5e1]", "years",
         "'value' must be a number (got [1.0, 2.5e1])"),
    ],
)  # fmt: skip
def test_a_number_is_checked_as_written_not_as_the_float_toml_reads(
    amendment, name, value, unit, problem
):
    # 0.0150000000000000001 was read as the float 0.015 and paid as 1.5%, though written
    # with more digits than any float keeps.
    bill = amendment(law_entry(name, "2027-01-01", value, unit))
    with pytest.raises(LawError) as error:
        load_law(bill)
    where = f"'{name}' entry 1 (effective_from 2027-01-01)"
    assert error.value.problems == [f"{bill}:1: {where}: {problem}"]


@pytest.mark.parametrize(
    ("name", "value", "unit", "read"),
    [
        ("service_annuity.rate", "0.1", "rate", 0.1),
        ("service_annuity.rate", "1.75e-2", "rate", 0.0175),
        ("service_annuity.minimum_service", "7.50", "years", 7.5),
        ("service_annuity.age", "66.000", "years", 66.0),
        ("minimum_monthly_pension", "1_000.50", "USD a month", 1000.5),
        ("minimum_monthly_pension", "-0.0", "USD a month", 0.0),  # never shown as $-0.00
    ],
)
def test_a_number_the_engine_keeps_as_written_is_accepted(amendment, name, value, unit, read):
    bill = amendment(law_entry(name, "2027-01-01", value, unit))
    kept = load_law(bill).value_on(name, "2027-01-01")
    assert kept == read and math.copysign(1.0, kept) == 1.0
