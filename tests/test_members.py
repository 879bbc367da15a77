"""Member records: every kind of invalid row, with the exact message; rows are never dropped."""

from __future__ import annotations

import datetime as dt
import math
import re

import numpy as np
import pandas as pd
import pytest

from actuarial.engine import evaluate, evaluate_frame
from actuarial.members import (
    MEMBER_FIELDS,
    Member,
    MemberDataError,
    MemberFileError,
    check_columns,
    parse_members,
)

GROUP_RULE = "'group' must be in ['general', 'police', 'firefighter']"


def exactly(message: str) -> str:
    return "^" + re.escape(message) + "$"


# Each case: the broken field(s) of member 'B-1' (row 2, after a valid row 1) and what the
# message says after "members row 2 (member 'B-1'): ".
INVALID_ROWS = [
    pytest.param({"birth_date": None}, "'birth_date' is required", id="missing-birth-date"),
    pytest.param({"entry_date": ""}, "'entry_date' is required", id="empty-entry-date"),
    pytest.param({"separation_date": "  "}, "'separation_date' is required", id="blank-date"),
    pytest.param(
        {"birth_date": "15/06/1960"},
        "'birth_date' must be a date YYYY-MM-DD (got '15/06/1960')",
        id="unparseable-date",
    ),
    pytest.param(
        {"birth_date": "1960-6-15"},
        "'birth_date' must be a date YYYY-MM-DD (got '1960-6-15')",
        id="date-without-leading-zero",
    ),
    pytest.param(
        {"separation_date": "2021-02-29"},
        "'separation_date' must be a date YYYY-MM-DD (got '2021-02-29')",
        id="impossible-date",
    ),
    pytest.param(
        {"birth_date": "1996-01-01"},
        "'birth_date' must be on or before 'entry_date' (got 1996-01-01 > 1995-06-15)",
        id="birth-after-entry",
    ),
    pytest.param(
        {"separation_date": "1995-01-01", "credited_service": 0.0},
        "'entry_date' must be on or before 'separation_date' (got 1995-06-15 > 1995-01-01)",
        id="entry-after-separation",
    ),
    pytest.param({"credited_service": None}, "'credited_service' is required", id="no-service"),
    pytest.param(
        {"credited_service": math.nan}, "'credited_service' is required", id="service-nan-value"
    ),
    pytest.param(
        {"credited_service": "nan"},
        "'credited_service' must be a number (got 'nan')",
        id="service-nan-text",
    ),
    pytest.param(
        {"credited_service": "twenty"},
        "'credited_service' must be a number (got 'twenty')",
        id="service-not-a-number",
    ),
    pytest.param(
        {"credited_service": True},
        "'credited_service' must be a number (got True)",
        id="service-true",
    ),
    pytest.param(
        {"average_compensation": False},
        "'average_compensation' must be a number (got False)",
        id="compensation-false",
    ),
    pytest.param(
        {"credited_service": -2.5}, "'credited_service' must be >= 0 (got -2.5)", id="negative"
    ),
    pytest.param(
        {"credited_service": -0.01},
        "'credited_service' must be >= 0 (got -0.01)",
        id="a-cent-below-zero",
    ),
    pytest.param(
        {"credited_service": math.inf}, "'credited_service' must be finite (got inf)", id="inf"
    ),
    pytest.param(
        {"credited_service": "-inf"},
        "'credited_service' must be finite (got -inf); 'credited_service' must be >= 0 (got -inf)",
        id="minus-inf",
    ),
    pytest.param(
        # Born 1960-06-15, separated 2025-06-15: 65 years of life, 65.01 of service.
        {"credited_service": 65.01},
        "'credited_service' must not exceed the member's age at separation (got 65.01)",
        id="service-longer-than-life",
    ),
    pytest.param(
        {"average_compensation": 0},
        "'average_compensation' must be > 0 (got 0.0)",
        id="zero-compensation",
    ),
    pytest.param(
        {"average_compensation": -100},
        "'average_compensation' must be > 0 (got -100.0)",
        id="negative-compensation",
    ),
    pytest.param(
        {"average_compensation": "inf"},
        "'average_compensation' must be finite (got inf)",
        id="infinite-compensation",
    ),
    pytest.param(
        {"average_compensation": "$48,000"},
        "'average_compensation' must be a number (got '$48,000')",
        id="compensation-not-a-number",
    ),
    pytest.param({"group": "teacher"}, f"{GROUP_RULE} (got 'teacher')", id="unknown-group"),
    pytest.param({"group": None}, "'group' is required", id="missing-group"),
    pytest.param(
        {"refunded": "maybe"}, "'refunded' must be true or false (got 'maybe')", id="refund-text"
    ),
    pytest.param({"refunded": 2}, "'refunded' must be true or false (got 2)", id="refund-2"),
    pytest.param({"refunded": ""}, "'refunded' is required", id="refund-missing"),
    pytest.param(
        {"group": "teacher", "refunded": "maybe", "average_compensation": 0},
        "'average_compensation' must be > 0 (got 0.0); "
        f"{GROUP_RULE} (got 'teacher'); 'refunded' must be true or false (got 'maybe')",
        id="every-problem-at-once",
    ),
]


@pytest.mark.parametrize(("broken", "problem"), INVALID_ROWS)
def test_an_invalid_row_is_kept_with_its_row_number_field_rule_and_value(
    half_percent_guides, member, broken, problem
):
    frame = pd.DataFrame([member(), member(member_id="B-1", **broken), member(member_id="C-1")])
    table = evaluate_frame(frame, half_percent_guides)
    # Valid rows give four clause rows each; the invalid row one row, in its place.
    assert table["row"].tolist() == [1, 1, 1, 1, 2, 3, 3, 3, 3]
    invalid = table[table["row"] == 2].iloc[0]
    assert invalid["member_id"] == "B-1"
    assert invalid["error"] == f"members row 2 (member 'B-1'): {problem}"
    assert invalid["clause"] == "" and not invalid["eligible"]
    assert math.isnan(invalid["monthly_amount"])
    assert set(table.loc[table["row"] != 2, "error"]) == {""}


@pytest.mark.parametrize(("broken", "problem"), INVALID_ROWS)
def test_evaluate_raises_member_data_error_with_the_message_the_frame_writes(
    half_percent_guides, member, broken, problem
):
    broken_member = member(member_id="B-1", **broken)
    with pytest.raises(MemberDataError, match=exactly(f"member row 1 (member 'B-1'): {problem}")):
        evaluate(broken_member, half_percent_guides)
    table = evaluate_frame(pd.DataFrame([broken_member]), half_percent_guides, source="member")
    assert table["error"].tolist() == [f"member row 1 (member 'B-1'): {problem}"]


@pytest.mark.parametrize("missing_id", [None, "", "   "])
def test_a_row_without_member_id_is_invalid(half_percent_guides, member, missing_id):
    table = evaluate_frame(pd.DataFrame([member(member_id=missing_id)]), half_percent_guides)
    assert table["error"].tolist() == ["members row 1 (no member_id): 'member_id' is required"]


def test_every_row_of_a_duplicated_member_id_is_invalid(half_percent_guides, member):
    frame = pd.DataFrame([member(), member(member_id="B-1"), member()])
    table = evaluate_frame(frame, half_percent_guides)
    errors = table.drop_duplicates("row").set_index("row")["error"]
    assert (
        errors[1] == "members row 1 (member 'A-1'): 'member_id' must be unique in the file "
        "(also on row 3)"
    )
    assert errors[2] == ""
    assert (
        errors[3] == "members row 3 (member 'A-1'): 'member_id' must be unique in the file "
        "(also on row 1)"
    )


def test_row_numbers_start_at_first_row_for_a_chunk(member):
    frame = pd.DataFrame([member(), member(member_id="B-1", group="teacher")])
    parsed = parse_members(frame, source="members.csv", first_row=501)
    assert parsed.row.tolist() == [501, 502]
    assert parsed.error[1] == f"members.csv row 502 (member 'B-1'): {GROUP_RULE} (got 'teacher')"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("group", " Police "),
        ("group", "FIREFIGHTER"),
        ("refunded", "TRUE"),
        ("refunded", "yes"),
        ("refunded", "0"),
        ("refunded", 1),
        ("credited_service", " 20 "),
        ("credited_service", "20"),
        ("average_compensation", "4.8e4"),
        ("separation_date", " 2025-06-15 "),
        ("birth_date", dt.date(1960, 6, 15)),
        ("credited_service", 0),
        ("credited_service", 65.0),  # as long as the life at separation, 1960-06-15 to 2025
    ],
)
def test_accepted_spellings_of_valid_values(member, field, value):
    parsed = parse_members(pd.DataFrame([member(**{field: value})]))
    assert parsed.error.tolist() == [""]


def test_true_is_not_one_year_even_beside_a_service_of_one_year(member):
    rows = [member(member_id="A", credited_service=1), member(member_id="B", credited_service=True)]
    parsed = parse_members(pd.DataFrame(rows, dtype=object))
    assert parsed.credited_service[0] == 1 and np.isnan(parsed.credited_service[1])
    assert parsed.error.tolist() == [
        "",
        "members row 2 (member 'B'): 'credited_service' must be a number (got True)",
    ]


def test_values_are_parsed_to_arrays(member):
    parsed = parse_members(
        pd.DataFrame([member(group="police", refunded="true", credited_service="20.5")])
    )
    assert parsed.birth_date[0] == np.datetime64("1960-06-15")
    assert parsed.credited_service[0] == 20.5
    assert parsed.average_compensation[0] == 48_000.0
    assert parsed.group.tolist() == [1]  # GROUPS.index("police")
    assert parsed.refunded.tolist() == [True]


def test_extra_columns_are_ignored(half_percent_guides, member):
    plain = pd.DataFrame([member()])
    extra = plain.assign(notes="transferred from ERS 1991", salary_2013=51_000)
    pd.testing.assert_frame_equal(
        evaluate_frame(extra, half_percent_guides), evaluate_frame(plain, half_percent_guides)
    )


def test_a_missing_required_column_raises_member_file_error_naming_it(half_percent_guides, member):
    frame = pd.DataFrame([member()]).drop(columns=["group", "refunded"])
    with pytest.raises(
        MemberFileError,
        match=exactly(
            f"members: missing required column(s) ['group', 'refunded'] "
            f"(required: {list(MEMBER_FIELDS)})"
        ),
    ):
        evaluate_frame(frame, half_percent_guides)


def test_check_columns_names_the_source():
    with pytest.raises(MemberFileError, match=r"^data\.parquet: missing required column\(s\) "):
        check_columns([name for name in MEMBER_FIELDS if name != "member_id"], "data.parquet")
    check_columns([*MEMBER_FIELDS, "extra"], "data.parquet")  # no error


def test_evaluate_accepts_a_member_dataclass_with_python_dates(half_percent_guides):
    member = Member(
        member_id="A-1",
        birth_date=dt.date(1960, 6, 15),
        entry_date=dt.date(1995, 6, 15),
        separation_date=dt.date(2025, 6, 15),
        credited_service=20.0,
        average_compensation=48_000.0,
    )
    # 1.5% x 48,000 x 20 = 14,400.
    assert evaluate(member, half_percent_guides).clause("a").annual_amount == 14_400.00


def test_evaluate_names_missing_member_fields(half_percent_guides, member):
    incomplete = member()
    del incomplete["refunded"], incomplete["group"]
    with pytest.raises(
        MemberDataError, match=exactly("member: missing field(s) ['group', 'refunded']")
    ):
        evaluate(incomplete, half_percent_guides)


def test_evaluate_refuses_what_is_not_a_member(half_percent_guides):
    with pytest.raises(
        MemberDataError,
        match=exactly(f"member must be a Member or a mapping of {list(MEMBER_FIELDS)} (got list)"),
    ):
        evaluate(["A-1"], half_percent_guides)
