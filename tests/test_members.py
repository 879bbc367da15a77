"""Member records: every kind of invalid row, with the exact message; rows are never dropped."""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from conftest import LONE_SURROGATE_PROBLEMS, PYTHON_CHARACTERS, VALID_MEMBER, exactly
from hypothesis import given, settings
from hypothesis import strategies as st

from actuarial import arrow_text, duplicate_ids
from actuarial.duplicate_ids import find_duplicates
from actuarial.engine import evaluate, evaluate_frame
from actuarial.member_files import readable_member_file
from actuarial.member_record import DATE_FIELDS, NUMBER_FIELDS
from actuarial.members import (
    _ID_CONTROL,
    MEMBER_FIELDS,
    MEMBER_ID_MAX_LENGTH,
    Member,
    MemberDataError,
    MemberFileError,
    _has_control,
    _id_text,
    _text_numbers,
    _trimmed_byte_lengths,
    check_columns,
    frame_ids,
    parse_member,
    parse_members,
)

GROUP_RULE = "'group' must be in ['general', 'police', 'firefighter']"


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
        {"credited_service": "-inf"},  # not finite, not also negative
        "'credited_service' must be finite (got '-inf')",
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
        "'average_compensation' must be > 0 (got 0)",
        id="zero-compensation",
    ),
    pytest.param(
        {"average_compensation": -100},
        "'average_compensation' must be > 0 (got -100)",
        id="negative-compensation",
    ),
    pytest.param(
        {"average_compensation": "inf"},
        "'average_compensation' must be finite (got 'inf')",
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
        "'average_compensation' must be > 0 (got 0); "
        f"{GROUP_RULE} (got 'teacher'); 'refunded' must be true or false (got 'maybe')",
        id="every-problem-at-once",
    ),
]
# Dates are calendar dates within 1900-01-01 .. 2100-12-31; amounts finite and plausible;
# a value is quoted at most 80 characters.
DATE_RULE = "must be from 1900-01-01 to 2100-12-31"
INVALID_ROWS += [
    pytest.param(
        {"birth_date": "0000-01-01"},
        f"'birth_date' {DATE_RULE} (got 0000-01-01)",
        id="birth-year-zero",
    ),
    pytest.param(
        {"birth_date": "1899-12-31"},
        f"'birth_date' {DATE_RULE} (got 1899-12-31)",
        id="a-day-before-1900",
    ),
    pytest.param(
        {"separation_date": "2101-01-01"},
        f"'separation_date' {DATE_RULE} (got 2101-01-01)",
        id="a-day-after-2100",
    ),
    pytest.param(
        {"separation_date": "9999-12-31"},
        f"'separation_date' {DATE_RULE} (got 9999-12-31)",
        id="year-9999",
    ),
    pytest.param(
        {"separation_date": "20250615"},
        "'separation_date' must be a date YYYY-MM-DD (got '20250615')",
        id="basic-iso-date",
    ),
    pytest.param(
        {"separation_date": "2025-06-15T00:00"},
        "'separation_date' must be a date YYYY-MM-DD (got '2025-06-15T00:00')",
        id="date-and-time-text",
    ),
    pytest.param(
        {"separation_date": pd.Timestamp("2025-06-14 21:30")},
        "'separation_date' must be a date, without a time of day (got 2025-06-14 21:30:00)",
        id="timestamp-with-time-of-day",
    ),
    pytest.param(
        {"separation_date": pd.Timestamp("2025-06-15", tz="America/Puerto_Rico")},
        "'separation_date' must be a date without a time zone (got 2025-06-15 00:00:00-04:00)",
        id="timestamp-with-time-zone",
    ),
    pytest.param(
        {"separation_date": dt.datetime(2025, 6, 15, tzinfo=dt.UTC)},
        "'separation_date' must be a date without a time zone (got 2025-06-15 00:00:00+00:00)",
        id="python-datetime-in-utc",
    ),
    pytest.param(
        {"average_compensation": 1e308},
        "'average_compensation' must be at most 10,000,000 a year (a plausibility bound) "
        "(got 1e+308)",
        id="compensation-1e308",
    ),
    pytest.param(
        {"average_compensation": "1e400"},  # as given, not as read (inf)
        "'average_compensation' must be finite (got '1e400')",
        id="compensation-overflows-to-inf",
    ),
    pytest.param(
        {"average_compensation": 10_000_000.01},
        "'average_compensation' must be at most 10,000,000 a year (a plausibility bound) "
        "(got 10000000.01)",
        id="compensation-a-cent-above-the-bound",
    ),
    pytest.param(
        {"group": "x" * 200_000},
        f"{GROUP_RULE} (got '{'x' * 80}…')",
        id="a-200000-character-group",
    ),
    pytest.param(
        {"refunded": "NA"}, "'refunded' must be true or false (got 'NA')", id="refund-na-token"
    ),
    pytest.param(
        {"group": "\x1b[31mpolice"},
        f"{GROUP_RULE} (got '\\x1b[31mpolice')",
        id="escape-sequence-shown-escaped",
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


@pytest.mark.parametrize("missing_id", [None, math.nan, np.float32("nan"), pd.NA, pd.NaT], ids=repr)
def test_any_missing_value_beside_text_ids_is_a_missing_id(half_percent_guides, member, missing_id):
    """Each kind of missing value pandas knows, in an object column of text ids (a float32
    NaN used to stop the whole call: Arrow refused it as text)."""
    rows = [member(member_id="M-1"), member(member_id="M-2")]
    frame = pd.DataFrame(rows).astype({"member_id": object})
    frame.loc[1, "member_id"] = missing_id
    table = evaluate_frame(frame, half_percent_guides)
    assert table["error"].tolist()[-1] == "members row 2 (no member_id): 'member_id' is required"
    assert (table["member_id"].iloc[:4] == "M-1").all() and (table["error"].iloc[:4] == "").all()


# Values that are equal (==, and of one hash) but of different kinds, which a field reads
# differently: the parser looked at each distinct value once, so a column holding both read
# the second as the first (1.0 an id as 1, 1+0j a refund as 1, a month as its first day),
# or a valid value as the invalid one (True a refund "must be true or false (got True)").
EQUAL_OF_OTHER_KINDS = [
    ("member_id", 7, 7.0),
    ("refunded", True, Fraction(1)),
    ("refunded", 1, 1 + 0j),
    ("refunded", 0, Decimal("sNaN")),  # no equal: a stand-in of its own (as before)
    ("birth_date", np.datetime64("1960-06-01"), np.datetime64("1960-06")),
    ("group", "police", np.str_("police")),  # equal and read alike
]


@pytest.mark.parametrize(("field", "first", "second"), EQUAL_OF_OTHER_KINDS)
def test_equal_values_of_other_kinds_in_a_column_are_each_read_as_alone(
    half_percent_guides, member, field, first, second
):
    def errors(values):
        rows = [member(**{"member_id": f"M-{i}", field: v}) for i, v in enumerate(values)]
        if field == "member_id":
            rows = [member(member_id=v) for v in values]
        table = evaluate_frame(pd.DataFrame(rows, dtype=object), half_percent_guides)
        by_row = table.groupby("row", observed=True)["error"].first().astype(str)
        return [text.partition(": ")[2] for text in by_row]

    alone = errors([first]) + errors([second])
    assert errors([first, second]) == alone
    assert errors([second, first]) == alone[::-1]


# A signaling NaN in each field, and what its message says after "(member ...): ". pandas
# cannot tell whether one is missing (isna raised decimal.InvalidOperation, which ended the
# whole call) and Arrow read it as missing: it is a value of no kind the field holds.
SIGNALING_NAN_PROBLEMS = {
    "member_id": "'member_id' must be text or a whole number (got {value})",
    "birth_date": "'birth_date' must be a date YYYY-MM-DD (got {value})",
    "credited_service": "'credited_service' must be a number (got {value})",
    "average_compensation": "'average_compensation' must be a number (got {value})",
    "group": GROUP_RULE + " (got {value})",
    "refunded": "'refunded' must be true or false (got {value})",
}


@pytest.mark.parametrize("field", SIGNALING_NAN_PROBLEMS)
@pytest.mark.parametrize("value", [Decimal("sNaN"), Decimal("-sNaN1")], ids=str)
def test_a_signaling_nan_is_an_error_naming_the_member_field_rule_and_value(
    half_percent_guides, member, field, value
):
    problem = SIGNALING_NAN_PROBLEMS[field].format(value=value)
    who = f"member {value}" if field == "member_id" else "member 'B-1'"
    with pytest.raises(MemberDataError, match=exactly(f"member row 1 ({who}): {problem}")):
        evaluate(member(**{"member_id": "B-1", field: value}), half_percent_guides)
    # Beside valid rows of text (an id column Arrow reads as text): the row's error alone.
    rows = [member(), member(**{"member_id": "B-1", field: value}), member(member_id="C-1")]
    table = evaluate_frame(pd.DataFrame(rows), half_percent_guides)
    assert table.loc[table["row"] == 2, "error"].tolist() == [f"members row 2 ({who}): {problem}"]
    assert set(table.loc[table["row"] != 2, "error"]) == {""}


# An int of more digits than Python writes in decimal (str raises ValueError beyond
# sys.get_int_max_str_digits()) in each field, and what its message says after "(member ...): ".
HUGE = "an integer of more than 4300 digits"
HUGE_INT_PROBLEMS = {
    "member_id": f"'member_id' must be at most 100 characters (got {HUGE})",
    "birth_date": f"'birth_date' must be a date YYYY-MM-DD (got {HUGE})",
    "separation_date": f"'separation_date' must be a date YYYY-MM-DD (got {HUGE})",
    "credited_service": f"'credited_service' must be finite (got {HUGE})",
    "average_compensation": f"'average_compensation' must be finite (got {HUGE})",
    "group": f"{GROUP_RULE} (got {HUGE})",
    "refunded": f"'refunded' must be true or false (got {HUGE})",
}


@pytest.mark.parametrize("field", HUGE_INT_PROBLEMS)
@pytest.mark.parametrize("others", ["as-given", "as-text"])
def test_an_int_too_long_for_str_is_an_error_of_its_row_not_a_value_error(
    half_percent_guides, member, field, others
):
    """The message quoting such an int ended evaluate (ce0497c), and evaluate_frame still
    raised the ValueError earlier, from pandas' astype(str) of the column (for the blank
    test of any field, for the id's text): it is its row's error, the other rows evaluated
    as usual. An id of more than 4300 digits is longer than any id."""
    who = f"member {HUGE}" if field == "member_id" else "member 'B-1'"
    problem = HUGE_INT_PROBLEMS[field]
    huge = member(**{"member_id": "B-1", field: 10**5000})
    with pytest.raises(MemberDataError, match=exactly(f"member row 1 ({who}): {problem}")):
        evaluate(huge, half_percent_guides)
    rows = [member(), huge, member(member_id="C-1")]
    if others == "as-text":  # every other cell text, as a file holds it
        rows = [{name: value if value == 10**5000 else str(value)
                 for name, value in row.items()} for row in rows]  # fmt: skip
    table = evaluate_frame(pd.DataFrame(rows, dtype=object), half_percent_guides)
    assert table.loc[table["row"] == 2, "error"].tolist() == [f"members row 2 ({who}): {problem}"]
    valid = table[table["row"] != 2]
    assert len(valid) == 8 and set(valid["error"]) == {""}
    expected = evaluate_frame(pd.DataFrame([member()]), half_percent_guides)["monthly_amount"]
    for row in (1, 3):
        np.testing.assert_array_equal(valid.loc[valid["row"] == row, "monthly_amount"], expected)


@pytest.mark.parametrize(
    "answer", [Decimal("1"), Decimal("0.00"), Fraction(1), Fraction(0)], ids=repr
)
def test_a_refund_as_a_decimal_or_a_fraction_is_read_as_that_number(
    half_percent_guides, member, tmp_path, answer
):
    # 1 and 0 answer refunded (as ints and floats), but a Decimal or a Fraction of 1 or 0 was
    # "'refunded' must be true or false (got 1)": a Parquet decimal column of 0/1 (a NUMERIC
    # flag of a database) was an error on every row.
    expected = bool(answer)
    assert evaluate(member(refunded=answer), half_percent_guides).clause("a").reason == (
        evaluate(member(refunded=expected), half_percent_guides).clause("a").reason
    )
    parsed = parse_members(pd.DataFrame([member(refunded=answer)]))
    assert (parsed.error.tolist(), parsed.refunded.tolist()) == ([""], [expected])
    if isinstance(answer, Decimal):
        import pyarrow.parquet as pq

        from actuarial.batch import read_members

        path = tmp_path / "members.parquet"
        table = pa.Table.from_pylist([member(refunded=answer)])
        place = table.schema.get_field_index("refunded")
        flag = pa.field("refunded", pa.decimal128(3, 2))
        pq.write_table(table.cast(table.schema.set(place, flag)), path)
        assert parse_members(read_members(path)).refunded.tolist() == [expected]


@pytest.mark.parametrize("field", SIGNALING_NAN_PROBLEMS)
def test_a_quiet_decimal_nan_is_a_missing_value_as_a_float_nan_is(
    half_percent_guides, member, field
):
    who = "no member_id" if field == "member_id" else "member 'B-1'"
    for missing in (Decimal("NaN"), math.nan):
        with pytest.raises(
            MemberDataError, match=exactly(f"member row 1 ({who}): '{field}' is required")
        ):
            evaluate(member(**{"member_id": "B-1", field: missing}), half_percent_guides)


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


# Amounts a 32-bit (or 16-bit) float cannot hold exactly, and the first integer float32 skips.
NARROW_AMOUNTS = [66_224.88, 73_796.19, 31_515.51, 29.78, 0.1, 16_777_217.0, 3.4e38]


@pytest.mark.parametrize(
    "dtype", ["float32", "Float32", "float16", pd.ArrowDtype(pa.float32()), "object"]
)
def test_a_narrow_float_is_read_as_the_decimal_it_shows_not_its_binary_widened(member, dtype):
    """float32 holds 66224.88 as 66224.8828125, which widened to float64 would cost a cent
    in about 6% of annuities: each value is read as the shortest decimal that is that
    float (what it shows, and what a CSV of it holds)."""
    kind = np.float16 if dtype == "float16" else np.float32
    with np.errstate(over="ignore"):  # 3.4e38 and 16777217 are beyond float16: inf
        narrow = [kind(amount) for amount in NARROW_AMOUNTS]
    frame = pd.DataFrame([member(member_id=f"M-{k}") for k in range(len(narrow))])
    frame["average_compensation"] = pd.Series(narrow, dtype=None if dtype == "object" else dtype)
    frame["credited_service"] = pd.Series(
        [kind(25.3)] * len(narrow), dtype=frame["average_compensation"].dtype
    )
    parsed = parse_members(frame)
    shown = [float(str(value)) for value in narrow]
    assert parsed.average_compensation.tolist() == shown
    assert parsed.credited_service.tolist() == [float(str(kind(25.3)))] * len(narrow)
    if kind is np.float32:
        assert shown[:3] == NARROW_AMOUNTS[:3] and shown[5] == 16_777_216.0
    for missing in (None, np.nan):  # missing stays missing, not the text "nan"
        frame.loc[0, "average_compensation"] = missing
        parsed = parse_members(frame)
        assert parsed.error[0].endswith("'average_compensation' is required")


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
            f"(required: {list(MEMBER_FIELDS)}; given: {list(MEMBER_FIELDS[:-2])})"
        ),
    ):
        evaluate_frame(frame, half_percent_guides)


def test_a_required_column_given_twice_is_refused_not_one_of_them_chosen(member, tmp_path):
    frame = pd.DataFrame([member(group="general")])
    twice = pd.concat([frame, pd.DataFrame({"group": ["police"]})], axis=1)
    message = "members: required column(s) ['group'] given more than once"
    with pytest.raises(MemberFileError, match=exactly(message)):
        parse_members(twice)
    path = tmp_path / "twice.csv"  # a file's header alike (pandas would rename one group.1)
    path.write_text(",".join(twice.columns) + "\n" + ",".join(map(str, twice.iloc[0])) + "\n")
    with pytest.raises(MemberFileError, match=exactly(message.replace("members", str(path)))):
        readable_member_file(path)


_arrow = pd.ArrowDtype

# Columns of values no member field holds, as a frame built in Python or read with other
# tools may have them: every row is read, as an error naming its field (ids aside: any
# value is read as its text).
EXOTIC_COLUMNS = {
    "lists": lambda n: pd.Series([[1, 2]] * n, dtype=object),
    "dicts": lambda n: pd.Series([{"a": 1}] * n, dtype=object),
    "intervals": lambda n: pd.Series(pd.interval_range(0, n)),
    "interval objects": lambda n: pd.Series(list(pd.interval_range(0, n)), dtype=object),
    "month periods": lambda n: pd.Series(pd.period_range("2000-01", periods=n, freq="M")),
    "durations": lambda n: pd.Series(pd.to_timedelta(np.arange(1, n + 1), unit="D")),
    "duration objects": lambda n: pd.Series([pd.Timedelta(1, "D")] * n, dtype=object),
    "complex numbers": lambda n: pd.Series(np.arange(n) + 1j),
    "Arrow lists": lambda n: pd.Series(pd.array([[1]] * n, dtype=_arrow(pa.list_(pa.int64())))),
    "Arrow durations": lambda n: pd.Series(pd.array([1] * n, dtype=_arrow(pa.duration("s")))),
}


@pytest.mark.parametrize("kind", EXOTIC_COLUMNS)
@pytest.mark.parametrize("field", MEMBER_FIELDS)
def test_a_column_of_values_no_field_holds_is_read_as_errors_naming_the_field(member, field, kind):
    frame = pd.DataFrame([member(member_id="A"), member(member_id="B")])
    frame[field] = EXOTIC_COLUMNS[kind](len(frame)).array
    parsed = parse_members(frame)  # never an exception
    if field == "member_id":
        assert len(parsed) == 2
        return
    for message in parsed.error.tolist():
        assert f"'{field}' " in message, message


@pytest.mark.parametrize(
    "kind",
    [pa.date32(), pa.date64(), pa.timestamp("s"), pa.timestamp("ns"), pa.timestamp("us", "UTC")],
    ids=str,
)
def test_an_arrow_date_column_with_a_missing_date_is_read_row_by_row(member, kind):
    # A missing value in a pandas Arrow date or timestamp column ended the whole call:
    # ValueError: Could not convert object to NumPy datetime.
    rows = [member(member_id="A"), member(member_id="B")]
    zone = getattr(kind, "tz", None)
    day = dt.datetime(1960, 6, 15, tzinfo=dt.UTC if zone else None)
    dates = pd.array([day, None], dtype=pd.ArrowDtype(kind))
    parsed = parse_members(pd.DataFrame(rows).assign(birth_date=dates))
    missing = "members row 2 (member 'B'): 'birth_date' is required"
    if zone:
        zoned = "members row 1 (member 'A'): 'birth_date' must be a date without a time zone"
        assert parsed.error.tolist() == [f"{zoned} (got 1960-06-15 00:00:00+00:00)", missing]
        return
    assert parsed.error.tolist() == ["", missing]
    assert parsed.birth_date[0] == np.datetime64("1960-06-15")


def test_a_period_of_one_day_is_that_date(member):
    text = pd.DataFrame([member(birth_date="1960-06-15")])
    period = text.assign(birth_date=pd.Series(pd.period_range("1960-06-15", periods=1, freq="D")))
    parsed = parse_members(period)
    assert parsed.error.tolist() == [""]
    assert parsed.birth_date.tolist() == parse_members(text).birth_date.tolist()


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (pd.Timedelta(days=20), "20 days 00:00:00"),
        (np.timedelta64(20, "D"), "20 days"),
        (complex(20, 0), "(20+0j)"),
        (dt.datetime(2000, 1, 1), "2000-01-01 00:00:00"),
    ],
)
def test_a_duration_a_date_or_a_complex_number_is_not_a_number_of_years(member, value, shown):
    rows = [member(member_id="A"), member(member_id="B", credited_service=value)]
    parsed = parse_members(pd.DataFrame(rows, dtype=object))
    assert parsed.error.tolist()[0] == ""
    assert parsed.error.tolist()[1] == (
        f"members row 2 (member 'B'): 'credited_service' must be a number (got {shown})"
    )
    typed = pd.DataFrame([member(member_id="B")]).assign(
        credited_service=pd.Series([value]).astype(pd.Series([value]).dtype)
    )
    assert "'credited_service' must be a number" in parse_members(typed).error.tolist()[0]


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


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("birth_date", "1900-01-01"),
        ("separation_date", "2100-12-31"),
        ("separation_date", pd.Timestamp("2025-06-15")),  # midnight, no time zone: a date
        ("separation_date", dt.datetime(2025, 6, 15)),
        ("separation_date", dt.date(2025, 6, 15)),
        ("average_compensation", 10_000_000),
    ],
)
def test_dates_and_amounts_at_the_bounds_are_accepted(half_percent_guides, member, field, value):
    table = evaluate_frame(pd.DataFrame([member(**{field: value})]), half_percent_guides)
    assert set(table["error"]) == {""}


# ----------------------------------------------------------------------- member ids
KEPT_IDS = [
    "NA", "N/A", "null", "NULL", "NaN", "nan", "None", "#N/A", "-", "0", "007", "1e3",
    "M-1", "m-1", "\uff2d-1", "e\u0301", "\u00e9", "=HYPERLINK(\"http://x\")", "+1",
    "@SUM(A1)", "x" * 100, "a b",
]  # fmt: skip


@pytest.mark.parametrize("member_id", KEPT_IDS)
def test_an_id_is_text_kept_exactly_as_given(half_percent_guides, member, member_id):
    table = evaluate_frame(pd.DataFrame([member(member_id=member_id)]), half_percent_guides)
    assert set(table["error"]) == {""}
    assert set(table["member_id"]) == {member_id}


def test_a_whole_decimal_id_is_its_digits_as_a_parquet_decimal_column_gives_them(
    half_percent_guides, member, tmp_path
):
    # Decimal("1E+2") was the id "1E+2" (its str), and Decimal("-0") "-0": Arrow, reading a
    # decimal column of a file, writes 100 and 0; so two spellings of one number were two ids.
    ids = [Decimal("1E+2"), Decimal("100"), Decimal("-0"), Decimal("1E+30"), "M-1"]
    frame = pd.DataFrame([member(member_id=i) for i in ids])
    table = evaluate_frame(frame, half_percent_guides).drop_duplicates("row")
    digits = ["100", "100", "0", "1" + "0" * 30, "M-1"]
    assert table["member_id"].tolist() == digits
    assert table["error"].tolist()[:2] == [
        "members row 1 (member '100'): 'member_id' must be unique in the file (also on row 2)",
        "members row 2 (member '100'): 'member_id' must be unique in the file (also on row 1)",
    ]
    assert table["error"].tolist()[2:] == ["", "", ""]
    # Whole numbers beside missing ids stay whole ("7", not "7.0" as a float column).
    mixed = pd.DataFrame([member(), member()]).astype({"member_id": object})
    mixed["member_id"] = pd.Series([7, None], dtype=object)  # a whole number, then none
    assert parse_members(mixed).member_id.to_pylist() == ["7", ""]
    column = pa.array(ids[:4], type=pa.decimal128(31, 0))
    assert pc.cast(column, pa.string()).to_pylist() == digits[:4]  # as a file's column reads


def test_ids_differing_by_case_or_unicode_form_are_different_members(half_percent_guides, member):
    ids = ["M-1", "m-1", "\uff2d-1", "\u00e9", "e\u0301"]
    table = evaluate_frame(pd.DataFrame([member(member_id=i) for i in ids]), half_percent_guides)
    assert set(table["error"]) == {""}
    assert table.drop_duplicates("row")["member_id"].tolist() == ids


@pytest.mark.parametrize(
    ("member_id", "problem"),
    [
        (" M-1", "'member_id' {space} (got {id})"),
        ("M-1 ", "'member_id' {space} (got {id})"),
        ("\tM-1", "'member_id' {space} (got {id}); 'member_id' {control} (got {id})"),
        ("M-1\u00a0", "'member_id' {space} (got {id})"),
        ("\u3000M-1", "'member_id' {space} (got {id})"),
        ("M-1\n", "'member_id' {space} (got {id}); 'member_id' {control} (got {id})"),
        ("M\x1b[31m", "'member_id' {control} (got {id})"),
        ("M\x00", "'member_id' {control} (got {id})"),
        ("M\u2028X", "'member_id' {control} (got {id})"),
        ("M\x85", "'member_id' {space} (got {id}); 'member_id' {control} (got {id})"),
        ("x" * 101, "'member_id' must be at most 100 characters (got 101 characters)"),
        ("x" * 200_000, "'member_id' must be at most 100 characters (got 200,000 characters)"),
        (7.0, "'member_id' must be text or a whole number (got 7.0)"),
        (True, "'member_id' must be text or a whole number (got True)"),
    ],
)  # fmt: skip
def test_an_id_that_would_be_changed_or_is_unreadable_is_an_error(
    half_percent_guides, member, member_id, problem
):
    table = evaluate_frame(pd.DataFrame([member(member_id=member_id)]), half_percent_guides)
    assert len(table) == 1
    who = f"member {member_id!r}" if isinstance(member_id, str) else f"member {member_id}"
    if isinstance(member_id, str) and len(member_id) > 80:
        who = f"member '{member_id[:80]}…'"
    problem = problem.format(
        id=repr(member_id),
        space="must not begin or end with white space",
        control="must not contain control characters",
    )
    assert table["error"].iloc[0] == f"members row 1 ({who}): {problem}"
    assert len(table["error"].iloc[0]) < 400


# Text with a lone surrogate ("\ud800"): Python text, which a frame built in Python may hold
# (a file cannot), but not Unicode text. Shown escaped; the rule of the field it breaks.
LONE_SURROGATES = [
    (field, text, LONE_SURROGATE_PROBLEMS[field].format(text=repr(text)))
    for field, text in [
        ("member_id", "B\ud800"),
        ("birth_date", "1960-06-15\udfff"),
        ("credited_service", "20\udc80"),
        ("average_compensation", " \udc80 "),
        ("group", "police\ud800"),
        ("refunded", "\udcff"),
    ]
]


def without_row_numbers(table: pd.DataFrame) -> pd.DataFrame:
    """The table's values (categories as their values), rows counted from 0."""
    categorical = [name for name, kind in table.dtypes.items() if kind == "category"]
    return (
        table.drop(columns="row").astype(dict.fromkeys(categorical, object)).reset_index(drop=True)
    )


@pytest.mark.parametrize("dtype", [object, pd.StringDtype("python")])
@pytest.mark.parametrize(("field", "text", "problem"), LONE_SURROGATES)
def test_a_lone_surrogate_is_an_error_on_its_row_and_every_other_row_is_unchanged(
    half_percent_guides, member, field, text, problem, dtype
):
    rows = [member(), member(**{"member_id": "B-1", field: text}), member(member_id="C-1")]
    frame = pd.DataFrame(rows, dtype=object).astype({field: dtype})
    table = evaluate_frame(frame, half_percent_guides)
    assert table["row"].tolist() == [1, 1, 1, 1, 2, 3, 3, 3, 3]
    invalid = table[table["row"] == 2].iloc[0]
    who = "member 'B\\ud800'" if field == "member_id" else "member 'B-1'"
    assert invalid["error"] == f"members row 2 ({who}): {problem}"
    assert invalid["member_id"] == ("" if field == "member_id" else "B-1")
    others = evaluate_frame(frame.drop(index=1), half_percent_guides)
    pd.testing.assert_frame_equal(
        without_row_numbers(table[table["row"] != 2]), without_row_numbers(others)
    )
    message = exactly(f"member row 1 ({who}): {problem}")
    with pytest.raises(MemberDataError, match=message):
        evaluate(rows[1], half_percent_guides)


def test_ids_with_lone_surrogates_are_errors_in_every_chunk_of_a_frame(member):
    """A chunk parsed with the whole frame's ids (as evaluate_frame parses) names them."""
    ids = ["A-1", "\udc80", "A-3", "A-4\ud800", "\udc80"]
    frame = pd.DataFrame([member(member_id=i) for i in ids], dtype=object)
    whole = frame_ids(frame["member_id"])
    errors = [
        error
        for start in range(0, len(frame), 2)
        for error in parse_members(
            frame.iloc[start : start + 2], first_row=start + 1, ids=whole
        ).error.tolist()
    ]
    rule = "'member_id' must not contain lone surrogates"
    assert errors == [
        "",
        f"members row 2 (member '\\udc80'): {rule} (got '\\udc80')",
        "",
        f"members row 4 (member 'A-4\\ud800'): {rule} (got 'A-4\\ud800')",
        f"members row 5 (member '\\udc80'): {rule} (got '\\udc80')",  # not "not unique"
    ]
    assert parse_members(frame).error.tolist() == errors


def test_an_id_with_a_lone_surrogate_is_named_when_every_id_occurs_once(
    half_percent_guides, member
):
    """One such id among distinct ones: the ids are coded the quick way (each id once)."""
    frame = pd.DataFrame([member(member_id=i) for i in ["A", "\ud800x", "C"]], dtype=object)
    expected = parse_members(frame).error.tolist()
    assert "'member_id' must not contain lone surrogates" in expected[1]
    assert parse_members(frame, ids=frame_ids(frame["member_id"])).error.tolist() == expected
    assert evaluate_frame(frame, half_percent_guides).error.tolist()[4] == expected[1]


@pytest.mark.parametrize("copies", [2, 3, 6, 7, 50])
def test_every_row_of_a_duplicated_id_names_the_other_rows(half_percent_guides, member, copies):
    rows = [member(member_id="X")] + [member(member_id="D") for _ in range(copies)]
    table = evaluate_frame(pd.DataFrame(rows), half_percent_guides)
    errors = table.drop_duplicates("row").set_index("row")["error"]
    assert errors[1] == ""
    for row in range(2, copies + 2):
        others = [r for r in range(2, copies + 2) if r != row]
        shown = ", ".join(str(r) for r in others[:5])
        more = f" and {len(others) - 5} more" if len(others) > 5 else ""
        word = "row" if len(others) == 1 else "rows"
        assert errors[row] == (
            f"members row {row} (member 'D'): 'member_id' must be unique in the file "
            f"(also on {word} {shown}{more})"
        )


def test_ids_differing_only_by_white_space_are_errors_not_three_members(
    half_percent_guides, member
):
    rows = [member(member_id=i) for i in ("M-1", " M-1", "M-1 ")]
    table = evaluate_frame(pd.DataFrame(rows), half_percent_guides)
    assert table.drop_duplicates("row")["error"].str.contains("white space").tolist() == [
        False,
        True,
        True,
    ]
    assert (table["member_id"] == "M-1").sum() == 4  # one member paid, once per clause


# --------------------------------------------------------------- data-quality warnings
# VALID_MEMBER: born 1960-06-15, entered 1995-06-15, separated 2025-06-15 (30 years).
@pytest.mark.parametrize(
    ("fields", "as_of", "warning"),
    [
        ({"entry_date": "1976-06-14"}, None, "'entry_date' is before age 16 (got 1976-06-14, "
         "at age 15y11m)"),
        ({"entry_date": "1976-06-15"}, None, ""),
        ({"credited_service": 30.09}, None, "'credited_service' is longer than the time "
         "from 'entry_date' to 'separation_date' (got 30.09 against 30.00 years, "
         "purchased service?)"),
        ({"credited_service": 30.08}, None, ""),
        ({}, dt.date(2025, 6, 14), "'separation_date' is after the payment date (as_of) 2025-06-14 "
         "(got 2025-06-15)"),
        ({}, dt.date(2025, 6, 15), ""),
        ({"average_compensation": 999.99}, None, "'average_compensation' is below 1,000 a year, "
         "the bottom of plausible amounts (got 999.99)"),
        ({"average_compensation": 999.999}, None, "'average_compensation' is below 1,000 a "
         "year, the bottom of plausible amounts (got 999.999)"),  # not rounded up to 1,000.00
        ({"average_compensation": 1_000}, None, ""),
        ({"average_compensation": 1_000_000.01}, None, "'average_compensation' is above "
         "1,000,000 a year, the top of plausible amounts (got 1,000,000.01)"),
        ({"average_compensation": 1_000_000}, None, ""),
        ({"average_compensation": 9_999_999.999}, None, "'average_compensation' is above "
         "1,000,000 a year, the top of plausible amounts (got 9,999,999.999)"),
        ({"average_compensation": 2.5e-05}, None, "'average_compensation' is below 1,000 a "
         "year, the bottom of plausible amounts (got 0.000025)"),  # as the explanation: not 2.5e-05
    ],
)  # fmt: skip
def test_a_suspicious_fact_is_a_warning_on_either_side_of_its_bound(
    half_percent_guides, member, fields, as_of, warning
):
    table = evaluate_frame(pd.DataFrame([member(**fields)]), half_percent_guides, as_of=as_of)
    assert set(table["error"]) == {""}  # evaluated, not refused
    assert set(table["warnings"].astype(str)) == {warning}
    result = evaluate(member(**fields), half_percent_guides, as_of=as_of)
    assert list(result.warnings) == ([warning] if warning else [])
    assert result.as_dict()["warnings"] == list(result.warnings)
    if "average_compensation" in warning:  # the amount shown as the explanation shows it
        shown = warning.rsplit("(got ", 1)[1].rstrip(")")
        assert f"average compensation ${shown};" in result.explanation[0]


def test_several_warnings_are_all_named_and_an_invalid_row_has_none(half_percent_guides, member):
    rows = [
        member(entry_date="1970-01-01", credited_service=60.0, average_compensation=500),
        member(member_id="B", entry_date="1970-01-01", group="teacher"),
    ]
    table = evaluate_frame(pd.DataFrame(rows), half_percent_guides)
    first = table.loc[table["row"] == 1, "warnings"].iloc[0]
    assert first.count("; ") == 2 and "'entry_date'" in first and "'credited_service'" in first
    assert table.loc[table["row"] == 2, "warnings"].tolist() == [""]


# ------------------------------------------------------------------ a whole frame's ids
ID_TEXTS = st.one_of(
    st.sampled_from(["M-1", "M-2", "M-1 ", " ", "", "x" * 101, "x" * 101, "\x1b[31m", "NA"]),
    st.text(max_size=6),
    st.text(PYTHON_CHARACTERS, max_size=6),  # lone surrogates
    st.none(),
    st.integers(0, 3),
    st.floats(0, 3),
)


@settings(max_examples=100, deadline=None)
@given(st.lists(ID_TEXTS, max_size=40))
def test_frame_ids_are_the_same_when_every_id_shares_a_hash(values):
    """The hash only spares the hash table when it proves every id distinct."""
    column = pd.Series(values, dtype=object)
    fast = frame_ids(column)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(duplicate_ids, "_hashes", lambda ids: np.zeros(len(ids), np.uint64))
        exact = frame_ids(column)
    assert fast.codes.tolist() == exact.codes.tolist()
    assert fast.texts.tolist() == exact.texts.tolist()
    assert fast.duplicates.mask.tolist() == exact.duplicates.mask.tolist()
    assert fast.duplicates.group.tolist() == exact.duplicates.group.tolist()


@settings(max_examples=200, deadline=None)
@given(st.lists(ID_TEXTS, max_size=40))
def test_frame_ids_find_the_repeated_ids_find_duplicates_finds(values):
    """The in-memory coding (one hash table) and the file reader's two passes agree on every
    repeated id and its group; each row's code names its id text ("" for a missing one)."""
    column = pd.Series(values, dtype=object)
    ids = frame_ids(column)
    # An id with a lone surrogate has no text (an error of its own): never repeated.
    lone = [isinstance(v, str) and any(0xD800 <= ord(c) <= 0xDFFF for c in v) for v in values]
    if any(lone):
        assert ids.lone_surrogate.tolist() == lone
    else:
        assert ids.lone_surrogate is None
    text, *_ = _id_text(column.where(~np.array(lone, dtype=bool), None))
    expected = find_duplicates(lambda: [text], MEMBER_ID_MAX_LENGTH)
    assert ids.duplicates.mask.tolist() == expected.mask.tolist()
    for row in np.flatnonzero(expected.mask):
        assert ids.duplicates.other_rows(row)[0].tolist() == expected.other_rows(row)[0].tolist()
    assert ids.texts.take(ids.codes).tolist() == text.fillna("").tolist()
    assert ids.texts.is_unique  # the categories of the table's member_id


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=8) | st.sampled_from(["\x85a", "a\u2028", "\x7f", "é\x9f"]),
                min_size=1, max_size=30))  # fmt: skip
def test_control_characters_are_found_as_the_regular_expression_finds_them(texts):
    array = pa.array(texts, type=pa.string()).slice(1)  # an offset too
    expected = pc.match_substring_regex(array, _ID_CONTROL).to_numpy(zero_copy_only=False)
    assert _has_control(array).tolist() == expected.tolist()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=8) | st.sampled_from(["\x85a", "a\u2028", " ", "\u3000b\t", ""]),
                min_size=1, max_size=30))  # fmt: skip
def test_trimmed_lengths_are_arrows_whatever_is_trimmed_first(texts):
    """Only the texts whose first or last byte may be white space are trimmed: the lengths
    are those of Arrow's trim of every text (a slice too)."""
    array = pa.array(texts, type=pa.string()).slice(1)
    expected = arrow_text.byte_lengths(pc.utf8_trim_whitespace(array))
    lengths = arrow_text.byte_lengths(array)
    assert _trimmed_byte_lengths(array, lengths).tolist() == expected.tolist()


@settings(max_examples=300, deadline=None)
@given(st.none() | st.text(st.characters(exclude_categories=["Cs"]), max_size=40))
def test_one_text_is_the_array_arrow_makes_of_it(text):
    """A member's id as an array of one, built from its buffers: the array ``pa.array``
    makes, valid, and read alike by the id's checks."""
    made = arrow_text.one_text(text)
    made.validate(full=True)
    expected = pa.array([text], type=pa.string())
    assert made.equals(expected)
    assert arrow_text.byte_lengths(made).tolist() == arrow_text.byte_lengths(expected).tolist()
    assert arrow_text.present(made).tolist() == arrow_text.present(expected).tolist()
    lengths = arrow_text.byte_lengths(made)
    assert (
        _trimmed_byte_lengths(made, lengths).tolist()
        == _trimmed_byte_lengths(expected, lengths).tolist()
    )
    assert _has_control(made).tolist() == _has_control(expected).tolist()


# Number texts and the rules each breaks, judged here from the statement of each rule:
# None is blank, "x" no number, the others read as Python reads them.
SERVICE_TEXTS = ["", "x", "inf", "-inf", "1e400", "-1", "-0.0", "0", "12.5", "30", "31", "1e9"]
COMPENSATION_TEXTS = ["", "x", "inf", "-inf", "-1e400", "-5", "-0.0", "0", "5e-324", "48000",
                      "10000000", "10000000.01", "1e300"]  # fmt: skip


def _broken_number_rules(field: str, text: str, life_years: float) -> set[str]:
    if text == "":
        return {f"'{field}' is required"}
    if text == "x":
        return {f"'{field}' must be a number"}
    value = float(text)
    if math.isinf(value):
        return {f"'{field}' must be finite"}
    broken = set()
    if field == "credited_service":
        if value < 0:
            broken.add(f"'{field}' must be >= 0")
        if value > life_years:
            broken.add(f"'{field}' must not exceed the member's age at separation")
    else:
        if value <= 0:
            broken.add(f"'{field}' must be > 0")
        if value > 10_000_000:
            broken.add(f"'{field}' must be at most 10,000,000 a year (a plausibility bound)")
    return broken


def test_each_number_breaks_the_rules_it_states_and_no_other_in_a_frame_and_alone():
    """Every pair of service and compensation texts on both sides of each number rule: a
    row's message names exactly the rules the values break (blank: required only; not a
    number; infinite: not finite only, never also negative), in a frame of all pairs (many
    rows) and for each member alone (one row)."""
    birth, separation = dt.date(1985, 1, 1), dt.date(2015, 7, 1)  # 30.5 years of age
    life_years = (separation - birth).days / 365.25
    pairs = [(s, c) for s in SERVICE_TEXTS for c in COMPENSATION_TEXTS]
    rows = [{**VALID_MEMBER, "member_id": f"N-{k}", "birth_date": birth.isoformat(),
             "entry_date": "2005-01-01", "separation_date": separation.isoformat(),
             "credited_service": s, "average_compensation": c}
            for k, (s, c) in enumerate(pairs)]  # fmt: skip
    frame = parse_members(pd.DataFrame(rows, dtype=object))
    alone = [parse_members(pd.DataFrame([row], dtype=object)) for row in rows]
    for k, (s, c) in enumerate(pairs):
        expected = _broken_number_rules("credited_service", s, life_years)
        expected |= _broken_number_rules("average_compensation", c, life_years)
        for parsed, at in ((frame, k), (alone[k], 0)):
            error = str(parsed.error[at])
            stated = {part.split(" (got")[0] for part in error.split(": ", 1)[-1].split("; ")}
            assert stated == (expected or {""}), (s, c, error)
            assert parsed.valid[at] == (not expected)


WHITE = st.sampled_from([" ", "\t", "\n", "\x1c", "\x1f", "\x85", "\xa0", "\u3000", "\u2028"])
PADDING = st.builds(lambda space, times: space * times, WHITE, st.integers(0, 60))
ANSWERS = st.sampled_from(["general", "Police", " FIREFIGHTER", "yes", "No", "TRUE", "0", "1", ""])
CODED_TEXTS = (
    st.builds(lambda before, text, after: before + text + after,
              PADDING, ANSWERS | st.text(max_size=6), PADDING)
    | st.builds(lambda text, times: text * times,  # long, with nothing to strip
                st.sampled_from(["w", "é", "İ", "ẞ", "police", "yes"]), st.integers(1, 40))
    | st.none()
)  # fmt: skip


@settings(max_examples=75, deadline=None)  # three parses an example
@given(st.lists(st.tuples(CODED_TEXTS, CODED_TEXTS), min_size=1, max_size=12))
def test_group_and_refund_texts_read_alike_from_python_and_from_arrow(pairs):
    """A group or refund answer held by Arrow (pandas' ``str``, ``string[pyarrow]``) is read
    as the same text held by Python objects is, long or padded with any white space: long
    texts with nothing to strip are not hashed, which must not change an answer."""
    rows = [{**VALID_MEMBER, "member_id": f"M-{i}", "group": group, "refunded": refunded}
            for i, (group, refunded) in enumerate(pairs)]  # fmt: skip
    python = pd.DataFrame(rows, dtype=object)
    expected = parse_members(python)
    for kind in ("str", "string[pyarrow]"):
        parsed = parse_members(python.astype({"group": kind, "refunded": kind}))
        assert parsed.group.tolist() == expected.group.tolist(), kind
        assert parsed.refunded.tolist() == expected.refunded.tolist(), kind
        assert parsed.error.tolist() == expected.error.tolist(), kind


def test_a_long_group_is_an_unknown_group_quoted_short(member):
    long = "w" * 60_000
    frame = pd.DataFrame([member(group=long), member(member_id="B-1", group=" " * 500 + "police")])
    for kind in (object, "str"):
        parsed = parse_members(frame.astype({"group": kind}))
        assert parsed.error.tolist() == [
            f"members row 1 (member 'A-1'): {GROUP_RULE} (got '{'w' * 80}…')",
            "",
        ]


NUMBER_LIKE = st.text(alphabet="0123456789+-.eEinfatyINFATY() _\xa0", max_size=12)


@settings(max_examples=300, deadline=None)
@given(st.lists(NUMBER_LIKE | st.text(max_size=6) | st.none(), min_size=1, max_size=20))
def test_text_is_read_as_a_number_as_arrow_casts_each_text_alone(texts):
    expected = [
        math.nan if text is None or not text.strip() else _arrow_number(text.strip())
        for text in texts
    ]
    trimmed = pc.utf8_trim_whitespace(pa.array(texts, type=pa.string()))
    numbers = _text_numbers(trimmed)
    np.testing.assert_array_equal(numbers, np.array(expected, dtype=float))


def _arrow_number(text: str) -> float:
    try:
        return pc.cast(pa.array([text]), pa.float64())[0].as_py()
    except pa.ArrowInvalid:
        return math.nan


ZEROS = "0" * 79 + "…"  # 10**400 cut to 80 characters


@pytest.mark.parametrize(
    ("value", "read", "error"),
    [
        (Fraction(307, 12), 307 / 12, ""),  # 25 7/12 years
        # Shown as given (cut to 80 characters), not as read.
        (Fraction(10**400, 3), math.inf, f"'credited_service' must be finite (got 1{ZEROS})"),
        (10**400, math.inf, f"'credited_service' must be finite (got 1{ZEROS})"),
        (-(10**400), -math.inf, f"'credited_service' must be finite (got -1{ZEROS[1:]})"),
    ],
)  # fmt: skip
def test_a_fraction_is_a_number_and_an_int_beyond_a_float_is_infinite(value, read, error):
    # Before, pandas read no Fraction, and an int beyond a float's range ended in an
    # OverflowError from Arrow or pandas.
    rows = pd.DataFrame(
        [{**VALID_MEMBER, "member_id": "F", "credited_service": value}, VALID_MEMBER]
    )
    members = parse_members(rows, source="m")
    assert members.credited_service[0] == read
    assert members.error[0] == (f"m row 1 (member 'F'): {error}" if error else "")
    assert members.error[1] == ""


NEIGHBOURS = ["not a value", "", None, 5, 5.5, True, dt.date(2000, 1, 1),
              dt.datetime(2000, 1, 1), "2000-01-01", "20", b"20", b"\xff", 10**400,
              Fraction(1, 3)]  # fmt: skip
CELL_TEXTS = (
    NUMBER_LIKE | st.sampled_from(["2000-01-01", " 2000-01-01\xa0", "2000-02-30", "1e5"])
    | st.text(max_size=6)
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(DATE_FIELDS + NUMBER_FIELDS),
    CELL_TEXTS | CELL_TEXTS.map(str.encode) | st.binary(max_size=6),  # bytes: UTF-8 or not
    st.lists(st.sampled_from(NEIGHBOURS), min_size=1, max_size=3),
)
def test_a_date_or_number_cell_is_read_the_same_whatever_the_other_rows_hold(
    field, text, neighbours
):
    """The first row, alone and before other rows holding anything in the same column
    (invalid text, numbers, booleans, dates): its value and its message are the same."""
    first = {**VALID_MEMBER, field: text}
    rows = [first] + [{**VALID_MEMBER, "member_id": f"N-{i}", field: value}
                      for i, value in enumerate(neighbours)]  # fmt: skip
    alone = parse_members(pd.DataFrame([first], dtype=object), source="m")
    beside = parse_members(pd.DataFrame(rows, dtype=object), source="m")
    np.testing.assert_array_equal(getattr(beside, field)[:1], getattr(alone, field))
    assert beside.error[0] == alone.error[0]


# An id column of a kind that holds no id, as a frame holds it, and each row's id as a
# message shows it: an error on the row, never the text it would become, never repeated.
NOT_TEXT_ID_COLUMNS = [
    pytest.param(
        pd.Series(pd.to_datetime(["2000-01-01 05:06", "2000-01-02 00:00"])),
        ["2000-01-01 05:06:00", "2000-01-02 00:00:00"],
        id="datetime64",
    ),
    pytest.param(
        pd.Series([dt.date(2000, 1, 2)] * 2, dtype=object), ["2000-01-02"] * 2, id="dates"
    ),
    pytest.param(
        pd.Series([dt.datetime(2000, 1, 2), dt.time(5, 6)], dtype=object),
        ["2000-01-02 00:00:00", "05:06:00"],
        id="datetime-and-time",
    ),
    pytest.param(
        pd.Series(pd.to_timedelta(["1D", "1D"])), ["1 days 00:00:00"] * 2, id="timedelta64"
    ),
    pytest.param(
        pd.Series(pd.period_range("2000-01", periods=2, freq="M")),
        ["2000-01", "2000-02"],
        id="periods",
    ),
    pytest.param(
        pd.Series([["P-1"], {"id": "P-1"}], dtype=object),
        ["['P-1']", "{'id': 'P-1'}"],
        id="list-and-dict",
    ),
]


@pytest.mark.parametrize(("ids", "shown"), NOT_TEXT_ID_COLUMNS)
def test_an_id_column_of_dates_times_or_lists_is_an_error_on_each_row(
    half_percent_guides, member, ids, shown
):
    frame = pd.DataFrame([member(), member()]).assign(member_id=ids)
    table = evaluate_frame(frame, half_percent_guides)
    rule = "'member_id' must be text or a whole number"
    assert table["error"].tolist() == [
        f"members row {row} (member {value}): {rule} (got {value})"
        for row, value in enumerate(shown, 1)
    ]
    assert table["member_id"].tolist() == ["", ""]


def test_evaluate_and_evaluate_frame_refuse_a_date_as_an_id_alike(half_percent_guides, member):
    dated = member(member_id=dt.date(2000, 1, 2))
    message = "member row 1 (member 2000-01-02): 'member_id' must be text or a whole number"
    with pytest.raises(MemberDataError, match=exactly(f"{message} (got 2000-01-02)")):
        evaluate(dated, half_percent_guides)
    frame = pd.DataFrame([dated], dtype=object)
    table = evaluate_frame(frame, half_percent_guides, source="member")
    assert table["error"].tolist() == [f"{message} (got 2000-01-02)"]


@pytest.mark.parametrize(
    "value",
    [np.datetime64("2025-06-15"), np.datetime64("2025-06-15T00:00:00.000000000")],
    ids=["days", "nanoseconds"],
)
def test_a_numpy_datetime64_at_midnight_among_other_values_is_its_day(
    half_percent_guides, member, value
):
    """A numpy date (``frame[column].values[i]``) beside text in a column of objects is read
    as a date, as a column of them (datetime64) is, not refused as 'not YYYY-MM-DD'."""
    frame = pd.DataFrame([member(member_id="A-1"), member(member_id="A-2", separation_date=value)])
    assert frame["separation_date"].dtype == object
    table = evaluate_frame(frame, half_percent_guides, as_of=dt.date(2026, 6, 1))
    assert set(table["error"]) == {""}
    rows = table.drop(columns=["row", "member_id"]).astype(str)
    assert rows.iloc[:4].to_numpy().tolist() == rows.iloc[4:].to_numpy().tolist()


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (np.datetime64("2025-06-14T21:30"), "2025-06-14T21:30"),
        (np.datetime64("2025-06-15T00:00:00.000000001"), "2025-06-15T00:00:00.000000001"),
    ],
)
def test_a_numpy_datetime64_with_a_time_of_day_among_other_values_is_an_error_showing_it(
    half_percent_guides, member, value, shown
):
    frame = pd.DataFrame([member(member_id="A-1"), member(member_id="A-2", separation_date=value)])
    table = evaluate_frame(frame, half_percent_guides)
    assert table["error"].tolist()[-1] == (
        "members row 2 (member 'A-2'): 'separation_date' must be a date, without a time of day "
        f"(got {shown})"
    )


@pytest.mark.parametrize(
    "value",
    [np.datetime64("2025-06"), np.datetime64("2025"), np.datetime64("2025-06-12", "W")],
    ids=["month", "year", "week"],
)
def test_a_numpy_datetime64_of_a_month_a_year_or_a_week_is_not_a_date(
    half_percent_guides, member, value
):
    """Not its first day: as a pandas period of a month or a year is not."""
    frame = pd.DataFrame([member(member_id="A-1"), member(member_id="A-2", separation_date=value)])
    table = evaluate_frame(frame, half_percent_guides)
    assert table["error"].tolist()[-1] == (
        f"members row 2 (member 'A-2'): 'separation_date' must be a date YYYY-MM-DD (got {value})"
    )


def test_the_date_and_service_bounds_of_a_member_admit_equality(member):
    # "on or before" and "must not exceed": the bound itself is valid, one step past it not.
    assert parse_member(member(birth_date="1995-06-15", entry_date="1995-06-15"), "m").valid[0]
    assert not parse_member(member(birth_date="1995-06-16", entry_date="1995-06-15"), "m").valid[0]
    life = (dt.date(2025, 1, 1) - dt.date(1960, 1, 1)).days / 365.2425  # age at separation
    at = member(birth_date="1960-01-01", separation_date="2025-01-01", credited_service=life)
    assert parse_member(at, "m").valid[0]
    assert not parse_member({**at, "credited_service": np.nextafter(life, 100)}, "m").valid[0]
