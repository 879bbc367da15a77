"""The one-member parser gives what the frame parser gives on the member's one-row frame.

``parse_member`` reads a :class:`Member` or a mapping in plain Python, then checks the rules
of :mod:`actuarial.members` where ``parse_members`` checks them (``_validated``);
``parse_members(member_frame(m))`` is the reference. Equal means every field of
:class:`MemberArrays`, the error message included. Values the one-member parser does not
read itself go to the frame parser: the tests below check that the cases the frame parser
knows are read natively, not handed over.
"""

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
from conftest import FIXTURE_PROPERTY, LONE_SURROGATE_PROBLEMS, PYTHON_CHARACTERS, VALID_MEMBER
from hypothesis import event, given, settings
from hypothesis import strategies as st
from test_members import INVALID_ROWS, KEPT_IDS

from actuarial import members as parser
from actuarial.members import (
    DATE_RANGE,
    GROUPS,
    MEMBER_FIELDS,
    Member,
    MemberArrays,
    MemberDataError,
    member_frame,
    parse_member,
    parse_members,
)

PROPERTY = settings(FIXTURE_PROPERTY, max_examples=300)


def frame_parse(member) -> MemberArrays:
    """The reference: the frame parser on the member's one-row frame."""
    return parse_members(member_frame(member), source="member")


def native_parse(member, source: str = "member", row: int = 1) -> MemberArrays:
    """The one-member parser without its hand-over to the frame parser (raises if it would)."""
    return parser._parse_one(parser._member_values(member), source, row)


def assert_same_arrays(one: MemberArrays, frame: MemberArrays) -> None:
    for name in MemberArrays.ROWS:
        mine, theirs = getattr(one, name), getattr(frame, name)
        if name == "member_id":
            assert mine.equals(theirs), (mine, theirs)
            continue
        assert mine.dtype == theirs.dtype, (name, mine.dtype, theirs.dtype)
        assert mine.shape == theirs.shape == (1,), name
        if mine.dtype.kind in "fM":
            np.testing.assert_array_equal(mine, theirs, err_msg=name)  # NaN and NaT: equal
        else:
            assert mine.tolist() == theirs.tolist(), name


def assert_parsed_alike(member) -> bool:
    """parse_member equals the frame parser; True when the one-member path read it itself."""
    frame = frame_parse(member)
    assert_same_arrays(parse_member(member), frame)
    try:
        one = native_parse(member)
    except parser._LeftToFrame:
        return False
    assert_same_arrays(one, frame)
    return True


# ------------------------------------------------ every invalid field the frame parser knows
ID_CASES = [
    None, "", "   ", " M-1", "M-1 ", "\tM-1", "M-1\u00a0", "\u3000M-1", "M-1\n", "M\x1b[31m",
    "M\x00", "M\u2028X", "M\x85", "x" * 101, "x" * 200_000, 7.0, True, np.float64(7.5),
    np.True_, math.inf, math.nan, 7, np.int64(-12), 2**40,
]  # fmt: skip
ACCEPTED = [
    ("group", " Police "), ("group", "FIREFIGHTER"), ("refunded", "TRUE"), ("refunded", "yes"),
    ("refunded", "0"), ("refunded", 1), ("refunded", 0.0), ("refunded", np.int64(1)),
    ("credited_service", " 20 "), ("credited_service", "20"), ("average_compensation", "4.8e4"),
    ("separation_date", " 2025-06-15 "), ("birth_date", dt.date(1960, 6, 15)),
    ("credited_service", 0), ("credited_service", 65.0), ("credited_service", np.float32(20.5)),
    ("birth_date", "1900-01-01"), ("separation_date", "2100-12-31"),
    ("separation_date", pd.Timestamp("2025-06-15")), ("separation_date", dt.datetime(2025, 6, 15)),
    ("average_compensation", 10_000_000), ("average_compensation", np.int32(48_000)),
]  # fmt: skip


@pytest.mark.parametrize(("broken", "problem"), INVALID_ROWS)
def test_every_invalid_field_gives_the_frame_parsers_message_and_arrays(broken, problem):
    member = {**VALID_MEMBER, "member_id": "B-1", **broken}
    assert assert_parsed_alike(member), "left to the frame parser"
    assert native_parse(member).error.tolist() == [f"member row 1 (member 'B-1'): {problem}"]


@pytest.mark.parametrize("member_id", ID_CASES + KEPT_IDS)
def test_every_kind_of_member_id_gives_the_frame_parsers_message_and_arrays(member_id):
    assert assert_parsed_alike({**VALID_MEMBER, "member_id": member_id})


@pytest.mark.parametrize(("field", "value"), ACCEPTED)
def test_accepted_spellings_are_read_alike_and_valid(field, value):
    member = {**VALID_MEMBER, field: value}
    assert assert_parsed_alike(member)
    assert native_parse(member).error.tolist() == [""]


def test_a_member_dataclass_is_read_alike():
    dates = (dt.date(1960, 6, 15), dt.date(1995, 6, 15), dt.date(2025, 6, 15))
    member = Member("A-1", *dates, credited_service=20, average_compensation=48e3)
    assert assert_parsed_alike(member)


@pytest.mark.parametrize(
    "value",
    [pd.NA, pd.NaT, np.datetime64("2025-06-15"), "1_000", "1e", "--1", "\u0661\u0662"],
)
def test_values_the_one_member_parser_does_not_read_go_to_the_frame_parser(value):
    for field in ("credited_service", "separation_date", "group"):
        member = {**VALID_MEMBER, field: value}
        assert_same_arrays(parse_member(member), frame_parse(member))


def test_what_is_not_a_member_and_missing_fields_raise_as_before():
    with pytest.raises(MemberDataError, match=r"^member must be a Member or a mapping of "):
        parse_member(["A-1"])
    incomplete = {key: value for key, value in VALID_MEMBER.items() if key != "group"}
    with pytest.raises(MemberDataError, match=r"^member: missing field\(s\) \['group'\]$"):
        parse_member(incomplete)


# --------------------------------------------------------------------- hypothesis
def texts(alphabet: str, max_size: int = 12):
    return st.text(st.sampled_from(alphabet), max_size=max_size)


lone_surrogate_texts = st.tuples(
    st.text(max_size=4), st.characters(categories=["Cs"]), st.text(PYTHON_CHARACTERS, max_size=4)
).map("".join)
SPACES = " \t\n\x0b\x0c\r\x1c\x1f\u00a0\u3000\u2028\x85"
missing = st.sampled_from([None, math.nan, np.float64("nan")])
padding = st.sampled_from(["", " ", "\t", "\u00a0", " \n", "\u3000"])


def padded(strategy):
    return st.tuples(padding, strategy, padding).map("".join)


dates = st.dates(dt.date(1, 1, 1), dt.date(9999, 12, 31))
iso_texts = st.one_of(
    dates.map(dt.date.isoformat),
    st.builds(
        "{:04d}-{:02d}-{:02d}".format, st.integers(0, 9999), st.integers(0, 13), st.integers(0, 32)
    ),  # fmt: skip
    texts("0123456789-/T: ", 12),
)
date_values = st.one_of(
    missing,
    st.dates(dt.date(1850, 1, 1), dt.date(2150, 12, 31)),
    padded(iso_texts),
    st.datetimes(dt.datetime(1850, 1, 1), dt.datetime(2150, 12, 31)),
    st.datetimes(dt.datetime(1900, 1, 1), dt.datetime(2100, 1, 1), timezones=st.just(dt.UTC)),
    st.datetimes(dt.datetime(1900, 1, 1), dt.datetime(2100, 1, 1)).map(pd.Timestamp),
    st.sampled_from(["", "  "]),
    padded(lone_surrogate_texts),
)
numbers = st.one_of(
    st.sampled_from([0, 0.0, -0.0, -0.01, 10_000_000, 1e7, 10_000_000.01, 5e-324, 65.0]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(-5, 120),
    st.integers(-(2**53), 2**53),
    st.floats(0, 2e7).map(np.float64),
    st.floats(0, 2e7, width=32).map(np.float32),  # read as the decimal each shows
    st.floats(width=16).map(np.float16),
    st.integers(-100, 100).map(np.int64),
    st.fractions(max_denominator=24),  # 25 7/12 years: Fraction(307, 12)
    st.sampled_from([10**400, -(10**400), 2**63, -(2**63) - 1, Fraction(10**400, 3)]),
)
number_values = st.one_of(
    missing,
    numbers,
    st.booleans(),
    padded(numbers.map(str)),
    padded(texts("0123456789+-.eE,$ xinfaty", 8)),
    st.sampled_from(["nan", "inf", "-inf", "Infinity", "NaN", "1e400", "", " "]),
    padded(lone_surrogate_texts),
)
group_values = st.one_of(
    missing,
    padded(st.sampled_from(GROUPS).flatmap(lambda g: st.sampled_from([g, g.upper(), g.title()]))),
    st.text(PYTHON_CHARACTERS, max_size=8),
    st.integers(-3, 3),
    st.booleans(),
    st.floats(),
)
refund_values = st.one_of(
    missing,
    st.booleans(),
    st.sampled_from([np.True_, np.False_, 0, 1, 2, -1, 0.0, 1.0, 0.5, np.int64(1)]),
    padded(st.sampled_from(["true", "false", "1", "0", "yes", "no", "TRUE", "No", "maybe", "NA"])),
    st.text(PYTHON_CHARACTERS, max_size=6),
)
id_values = st.one_of(
    missing,
    st.text(PYTHON_CHARACTERS, max_size=12),
    padded(texts("AM-19x", 6)),
    padded(lone_surrogate_texts),
    st.integers(-(10**20), 10**20),
    st.sampled_from([10**400, -(10**400), Fraction(1, 3)]),
    st.floats(),
    st.booleans(),
    st.text(min_size=99, max_size=102, alphabet="ab"),
)
valid_members = st.builds(
    lambda birth, years, service_share, compensation, group, refunded: {
        "member_id": "M-1",
        "birth_date": birth,
        "entry_date": birth + dt.timedelta(days=round(365.25 * years[0])),
        "separation_date": birth + dt.timedelta(days=round(365.25 * (years[0] + years[1]))),
        "credited_service": round(years[1] * service_share, 2),
        "average_compensation": compensation,
        "group": group,
        "refunded": refunded,
    },
    st.dates(dt.date(1920, 1, 1), dt.date(2000, 12, 31)),
    st.tuples(st.floats(16, 40), st.floats(0, 45)),
    st.floats(0, 1.05),
    st.floats(1, 10_000_000),
    st.sampled_from(GROUPS),
    st.booleans(),
)
_FIELD_VALUES = {
    "member_id": id_values,
    "birth_date": date_values,
    "entry_date": date_values,
    "separation_date": date_values,
    "credited_service": number_values,
    "average_compensation": number_values,
    "group": group_values,
    "refunded": refund_values,
}


def has_lone_surrogate(text: str) -> bool:
    return any("\ud800" <= character <= "\udfff" for character in text)


# Bytes too: the UTF-8 of a field's texts (read as that text), and bytes that are not UTF-8.
FIELD_VALUES = {
    name: values
    | values.filter(lambda v: isinstance(v, str) and not has_lone_surrogate(v)).map(str.encode)
    | st.binary(max_size=6)
    for name, values in _FIELD_VALUES.items()
}


@PROPERTY
@given(valid_members)
def test_valid_members_are_read_alike_by_both_parsers(member):
    assert assert_parsed_alike(member)


changed_fields = st.dictionaries(st.sampled_from(MEMBER_FIELDS), st.none(), max_size=3).flatmap(
    lambda chosen: st.fixed_dictionaries({field: FIELD_VALUES[field] for field in chosen})
)


@PROPERTY
@given(valid_members, changed_fields)
def test_members_with_any_values_are_read_alike_by_both_parsers(member, changes):
    native = assert_parsed_alike({**member, **changes})
    event("read by the one-member parser" if native else "left to the frame parser")
    event("valid" if parse_member({**member, **changes}).error[0] == "" else "invalid")


# ---------------------------------------- the one-member reader's own pieces, against Arrow
def test_the_ascii_white_space_trimmed_is_what_arrow_trims():
    trimmed = [
        chr(code)
        for code in range(128)
        if pc.utf8_trim_whitespace(pa.array([chr(code) + "a"]))[0].as_py() == "a"
    ]
    assert "".join(trimmed) == "".join(sorted(parser._ASCII_SPACE))


def test_the_control_characters_arrow_matches_in_ids_are_the_declared_ranges():
    codes = [code for code in range(0x110000) if not 0xD800 <= code <= 0xDFFF]
    arrow = pc.match_substring_regex(pa.array(map(chr, codes)), parser._ID_CONTROL).to_numpy(
        zero_copy_only=False
    )
    declared = np.zeros(len(codes), dtype=bool)
    for low, high in parser._ID_CONTROL_RANGES:
        declared |= (np.array(codes) >= low) & (np.array(codes) <= high)
    assert (arrow == declared).all()
    assert arrow.sum() == sum(high - low + 1 for low, high in parser._ID_CONTROL_RANGES)


@settings(max_examples=500, deadline=None)
@given(iso_texts)
def test_an_iso_date_is_read_as_arrow_reads_a_date32(text):
    try:
        arrow = pc.cast(pa.scalar(text), pa.date32()).value
    except pa.ArrowInvalid:
        arrow = None
    assert parser._iso_day(text) == arrow


def test_dates_at_the_ends_of_the_range_are_days_of_the_range():
    first, last = (np.datetime64(day, "D") for day in DATE_RANGE)
    assert parser._iso_day("1900-01-01") == first.astype(int)
    assert parser._iso_day("2100-12-31") == last.astype(int)
    assert parser._iso_day("0000-02-29") == np.datetime64("0000-02-29").astype(int)


def test_the_source_and_row_are_named_as_the_frame_parser_names_them():
    member = {**VALID_MEMBER, "member_id": "B-1", "group": "teacher", "refunded": "maybe"}
    one = native_parse(member, "members.csv", 502)
    frame = parse_members(member_frame(member), source="members.csv", first_row=502)
    assert_same_arrays(one, frame)
    assert one.error[0].startswith("members.csv row 502 (member 'B-1'): 'group' must be in ")
    assert_same_arrays(parse_member(member, "members.csv", 502), frame)


@pytest.mark.parametrize("field", MEMBER_FIELDS)
@pytest.mark.parametrize("text", ["a\ud800b", "\udfff", " 20\udc80 ", "police\udbff"])
def test_text_with_a_lone_surrogate_is_an_error_on_the_row_as_the_frame_parser_says(field, text):
    member = {**VALID_MEMBER, field: text}
    assert not assert_parsed_alike(member)  # left to the frame parser, which reads it alike
    who = repr(text) if field == "member_id" else "'A-1'"
    problem = LONE_SURROGATE_PROBLEMS[field].format(text=repr(text))
    message = f"member row 1 (member {who}): {problem}"
    assert parse_member(member).error.tolist() == [message]
    assert message.encode("utf-8")  # shown escaped: Unicode text, which any file can hold
    assert parse_member(member).member_id.to_pylist() == ["" if field == "member_id" else "A-1"]


@PROPERTY
@given(
    st.lists(st.tuples(valid_members, changed_fields).map(lambda m: {**m[0], **m[1]}),
             max_size=4),
    st.dictionaries(st.sampled_from(MEMBER_FIELDS), lone_surrogate_texts, min_size=1),
    st.booleans(),
)  # fmt: skip
def test_a_row_with_a_lone_surrogate_is_an_error_and_changes_no_other_row(
    members, lone, python_strings
):
    """Appended to any rows, a row with lone surrogates in some fields is invalid, naming
    each of them; the rows before it are parsed as without it (Arrow refused the column)."""
    last = {**VALID_MEMBER, "member_id": "a-row-with-lone-surrogates", **lone}  # no other's id
    frames = [
        pd.concat([member_frame(m) for m in rows], ignore_index=True)
        for rows in (members, [*members, last])
        if rows
    ]
    if python_strings:  # a column of Python strings may hold one too (not bytes: pandas
        # decodes them, and refuses bytes that are not UTF-8)
        holds_bytes = {n for n in lone if any(isinstance(v, bytes) for v in frames[-1][n])}
        python = {name: pd.StringDtype("python") for name in lone if name not in holds_bytes}
        frames = [frame.astype(python) for frame in frames]
    parsed = parse_members(frames[-1], source="member")
    error = parsed.error[-1]
    for field, text in lone.items():
        assert LONE_SURROGATE_PROBLEMS[field].format(text=repr(text)) in error
    error.encode("utf-8")
    if members:
        before = parse_members(frames[0], source="member")
        for name in MemberArrays.ROWS:
            mine, theirs = getattr(parsed, name)[:-1], getattr(before, name)
            if name == "member_id":
                assert mine.equals(theirs), (mine, theirs)
            elif mine.dtype.kind in "fM":
                np.testing.assert_array_equal(mine, theirs, err_msg=name)
            else:
                assert mine.tolist() == theirs.tolist(), name


# Ids of a kind that holds no id (a date, a time, a decimal with a fraction, a list...): an
# error, never the text they would become ("2000-01-02", "1/3"). Dates and timestamps are
# read by the one-member parser itself; the others go to the frame parser.
NOT_TEXT_IDS = [
    (dt.date(2000, 1, 2), "2000-01-02", True),
    (dt.datetime(2000, 1, 1, 5, 6), "2000-01-01 05:06:00", True),
    (pd.Timestamp("2000-01-02"), "2000-01-02 00:00:00", True),
    (np.datetime64("2000-01-02"), "2000-01-02", False),
    (dt.time(5, 6), "05:06:00", False),
    (dt.timedelta(days=1), "1 day, 0:00:00", False),
    (Decimal("7.5"), "7.5", False),
    (Decimal("7.00"), "7.00", False),
    (Fraction(1, 3), "1/3", False),
    (["P-1"], "['P-1']", False),
    ({"id": "P-1"}, "{'id': 'P-1'}", False),
]


@pytest.mark.parametrize(("member_id", "shown", "native"), NOT_TEXT_IDS, ids=repr)
def test_an_id_that_is_a_date_a_time_or_a_list_is_the_frame_parsers_error(member_id, shown, native):
    member = {**VALID_MEMBER, "member_id": member_id}
    assert assert_parsed_alike(member) == native
    problem = f"'member_id' must be text or a whole number (got {shown})"
    assert parse_member(member).error.tolist() == [f"member row 1 (member {shown}): {problem}"]
    assert parse_member(member).member_id.to_pylist() == [""]


@pytest.mark.parametrize(
    "value",
    [
        np.datetime64("2025-06-15"),
        np.datetime64("2025-06-15T00:00:00.000000000"),  # frame[column].values[i]
        np.datetime64("2025-06-15T00:00", "s"),
    ],
)
def test_a_numpy_datetime64_at_midnight_is_read_as_its_day(value):
    """As a pandas Timestamp at midnight is, and as evaluate_frame reads the one-row frame
    pandas makes of the member (a datetime64 column); not 'must be a date YYYY-MM-DD'."""
    member = {**VALID_MEMBER, "separation_date": value}
    assert_same_arrays(parse_member(member), frame_parse(member))
    assert_same_arrays(parse_member(member), parse_member(VALID_MEMBER))
    assert_same_arrays(parse_members(pd.DataFrame([member])), parse_member(VALID_MEMBER))


def test_a_numpy_not_a_time_is_a_missing_date():
    member = {**VALID_MEMBER, "separation_date": np.datetime64("NaT")}
    assert parse_member(member).error.tolist() == [
        "member row 1 (member 'A-1'): 'separation_date' is required"
    ]


def test_a_field_written_otherwise_is_named_beside_the_missing_one():
    """As a member file's header is told (check_columns): names are matched exactly."""
    written = {
        ("birth date" if key == "birth_date" else key): value
        for key, value in VALID_MEMBER.items()
        if key != "credited_service"
    }
    written["Credited-Service"] = 20
    with pytest.raises(MemberDataError) as raised:
        parse_member(written)
    assert str(raised.value) == (
        "member: missing field(s) ['birth_date', 'credited_service']; names are matched "
        "exactly: 'birth date' for 'birth_date', 'Credited-Service' for 'credited_service'"
    )
