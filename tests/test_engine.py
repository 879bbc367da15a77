"""The engine: rounding, the results table, vector = row by row, and properties of the law.

Hypothesis draws covered members whose dates sit on and around the legal thresholds (55 and
65 birthdays, Feb 29 and month-end births, 2013-07-01) and whose service is often exactly on
a threshold (10, 25, 30 years) or a cent below it.
"""

from __future__ import annotations

import calendar
import datetime as dt
import json
import threading
import warnings
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
from conftest import FIXTURE_PROPERTY
from hypothesis import given, settings
from hypothesis import strategies as st

from actuarial import engine
from actuarial.engine import (
    RESULT_COLUMNS,
    evaluate,
    evaluate_frame,
    round_cents,
    schedule_text,
)
from actuarial.law import load_law
from actuarial.law.clauses import CLAUSES
from actuarial.law.conditions import render
from actuarial.law.readings import Readings
from actuarial.members import MEMBER_FIELDS, MemberDataError, parse_members
from actuarial.synthetic import generate_members

PROPERTY = settings(FIXTURE_PROPERTY, max_examples=100)
MINIMUM_FROM = dt.date(2013, 7, 1)
THRESHOLD_SERVICE = [0.0, 3.0, 9.99, 10.0, 24.99, 25.0, 29.99, 30.0, 35.0]


# ------------------------------------------------------------------------------ rounding
@pytest.mark.parametrize(
    ("amount", "cents"),
    [
        (1_000.005, 1_000.01),  # 1,000.005 is stored as 1,000.00499999...: still half up
        (0.125, 0.13),  # banker's rounding would give 0.12
        (2.675, 2.68),  # stored as 2.67499999...; round(2.675, 2) gives 2.67
        (162.028125, 162.03),
        (1.004999, 1.00),
        (500.0, 500.0),
    ],
)
def test_amounts_round_to_cents_half_up(amount, cents):
    assert round_cents([amount])[0] == cents


def test_round_cents_keeps_missing_amounts_missing():
    assert np.isnan(round_cents([np.nan])[0])


# ------------------------------------------------------------------------ results table
def test_results_table_has_one_row_per_member_and_clause_in_a_fixed_column_order(
    half_percent_guides, member
):
    table = evaluate_frame(pd.DataFrame([member(), member(member_id="A-2")]), half_percent_guides)
    assert tuple(table.columns) == RESULT_COLUMNS
    assert table["row"].tolist() == [1, 1, 1, 1, 2, 2, 2, 2]
    assert table["clause"].tolist() == list(CLAUSES) * 2
    assert table["member_id"].tolist() == ["A-1"] * 4 + ["A-2"] * 4


def test_an_empty_frame_gives_an_empty_table(half_percent_guides):
    table = evaluate_frame(pd.DataFrame(columns=list(MEMBER_FIELDS)), half_percent_guides)
    assert len(table) == 0
    assert tuple(table.columns) == RESULT_COLUMNS


def test_invalid_rows_with_infinite_or_huge_values_compute_without_warnings(
    half_percent_guides, member
):
    # 1e308 years of service: "RuntimeWarning: overflow encountered in multiply" from the
    # amount of (a), with the source line, on the command line before the row's error.
    frame = pd.DataFrame(
        [
            member(credited_service=np.inf),
            member(member_id="B", average_compensation=-np.inf),
            member(member_id="C", credited_service=1e308),
            member(member_id="D", average_compensation=1e308, credited_service=1e308),
        ]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = evaluate_frame(frame, half_percent_guides)
    assert len(table) == 4 and table["error"].notna().all()


def test_evaluation_as_dict_is_plain_json(half_percent_guides, member):
    result = evaluate(
        member(separation_date="2017-11-15", credited_service=22.0), half_percent_guides, lang="es"
    )
    data = json.loads(json.dumps(result.as_dict()))
    assert data["age_at_separation"] == {"years": 57, "months": 5}
    assert [clause["clause"] for clause in data["clauses"]] == list(CLAUSES)
    assert data["clauses"][3]["start_date"] == "2025-06-15"
    assert data["explanation"][0].startswith("Participante A-1: nació el 1960-06-15")


def test_explanation_refuses_an_unknown_language(half_percent_guides, member):
    with pytest.raises(ValueError, match=r"^'lang' must be in \['en', 'es'\] \(got 'fr'\)$"):
        evaluate(member(), half_percent_guides, lang="fr")


# --------------------------------------------------- vector results = row-by-row results
AS_OF = dt.date(2026, 6, 1)  # a fixed date the results are asked for


def _expected_rows(frame: pd.DataFrame, guides) -> pd.DataFrame:
    """The results table rebuilt from one ``evaluate`` call per member."""
    rows = []
    for position, record in enumerate(frame.to_dict("records")):
        number = position + 1
        # One member as a caller gives it: Python dates rather than pandas timestamps.
        record = {
            name: value.date() if isinstance(value, pd.Timestamp) else value
            for name, value in record.items()
        }
        try:
            result = evaluate(record, guides, as_of=AS_OF)
        except MemberDataError as error:
            message = str(error).replace("member row 1 ", f"members row {number} ", 1)
            rows.append(
                {
                    "row": number,
                    "member_id": record["member_id"],
                    "clause": "",
                    "eligible": False,
                    "reason": "",
                    "start_date": pd.NaT,
                    "reduction_factor": np.nan,
                    "annual_amount": np.nan,
                    "monthly_amount": np.nan,
                    "minimum_topup": np.nan,
                    "schedule": "",
                    "guide_id": "",
                    "error": message,
                    "warnings": "",
                    "readings": "defaults",
                }
            )
            continue
        for clause in result.clauses:
            rows.append(
                {
                    "row": number,
                    "member_id": result.member_id,
                    "clause": clause.clause,
                    "eligible": clause.eligible,
                    "reason": clause.reason,
                    "start_date": pd.NaT if clause.start_date is None else clause.start_date,
                    "reduction_factor": nan_if_none(clause.reduction_factor),
                    "annual_amount": nan_if_none(clause.annual_amount),
                    "monthly_amount": nan_if_none(clause.monthly_amount),
                    "minimum_topup": nan_if_none(clause.minimum_topup),
                    "schedule": clause.schedule or "",
                    "guide_id": clause.guide_id or "",
                    "error": clause.error or "",
                    "warnings": "; ".join(result.warnings),
                    "readings": result.readings.label(),
                }
            )
    return pd.DataFrame(rows)


def nan_if_none(value):
    """A missing amount as the results table holds it."""
    return np.nan if value is None else value


def _plain(table: pd.DataFrame) -> pd.DataFrame:
    plain = table.copy()
    for name in (
        "member_id", "clause", "reason", "schedule", "guide_id", "error", "warnings", "readings"
    ):  # fmt: skip
        plain[name] = plain[name].astype(object).astype(str)
    plain["start_date"] = pd.to_datetime(plain["start_date"]).astype("datetime64[s]")
    plain["eligible"] = plain["eligible"].astype(bool)
    plain["row"] = plain["row"].astype(np.int64)  # int32 in a frame's table
    return plain.reset_index(drop=True)


def test_frame_results_equal_one_member_results_row_by_row(half_percent_guides):
    frame = generate_members(3000, seed=20130701, invalid_fraction=0.03)
    table = evaluate_frame(frame, half_percent_guides, as_of=AS_OF)
    expected = _expected_rows(frame, half_percent_guides)
    assert (expected["error"] != "").sum() > 50  # the invalid rows are in the comparison
    assert expected["eligible"].sum() > 1000
    pd.testing.assert_frame_equal(_plain(table), _plain(expected), check_exact=True)


# ------------------------------------------------------------------ hypothesis properties
BIRTH_DAYS = st.sampled_from([1, 15, 28, 29, 30, 31])


def _on_day(year: int, month: int, day: int) -> dt.date:
    """That day of the month, or the month's last day when it has no such day."""
    return dt.date(year, month, min(day, calendar.monthrange(year, month)[1]))


@st.composite
def covered_members(draw, member_id: str = "P"):
    """A valid member who first entered inside the Chapter 2 window."""
    entry = draw(st.dates(dt.date(1990, 4, 1), dt.date(1999, 12, 31)))
    birth = _on_day(
        draw(st.integers(entry.year - 60, entry.year - 17)),
        draw(st.integers(1, 12)),
        draw(BIRTH_DAYS),
    )
    if draw(st.booleans()):  # separation on, or the day before, the 55th or 65th birthday
        years = draw(st.sampled_from([55, 65]))
        birthday = _on_day(birth.year + years, birth.month, birth.day)  # Feb 29 -> Feb 28
        separation = max(birthday - dt.timedelta(days=draw(st.sampled_from([0, 1]))), entry)
    else:
        separation = entry + dt.timedelta(days=draw(st.integers(0, 40 * 366)))
    life_years = (separation - birth).days / 365.2425
    service = draw(
        st.one_of(
            st.sampled_from(THRESHOLD_SERVICE),
            st.floats(0, 45).map(lambda years: round(years, 2)),
        )
    )
    service = min(service, np.floor(life_years * 100) / 100)
    return {
        "member_id": member_id,
        "birth_date": birth.isoformat(),
        "entry_date": entry.isoformat(),
        "separation_date": separation.isoformat(),
        "credited_service": float(service),
        "average_compensation": draw(st.floats(1_000, 200_000).map(lambda x: round(x, 2))),
        "group": draw(st.sampled_from(["general", "police", "firefighter"])),
        "refunded": draw(st.booleans()),
    }


readings_strategy = st.builds(
    Readings,
    april_first_is_covered=st.booleans(),
    # I-2 literal reading: "before 65 years of service" is a ceiling on service, so this
    # property holds for the age reading only (see test_i2_* in test_interpretations.py).
    deferred_reads_age=st.just(True),
    refund_bars_high_risk=st.booleans(),
    minimum_applies_to=st.sampled_from(["all", "a"]),
    deferred_minimum_service=st.sampled_from([0, 5, 10.0]),
    leap_day_birthday=st.sampled_from(["feb28", "mar1"]),
)
as_of_strategy = st.one_of(st.none(), st.dates(dt.date(2005, 1, 1), dt.date(2035, 12, 31)))


def _paid(table: pd.DataFrame) -> np.ndarray:
    """Monthly amount per row, 0 where the clause is not available."""
    return np.where(table["eligible"], table["monthly_amount"].fillna(0.0), 0.0)


@PROPERTY
@given(
    covered_members(),
    st.floats(0, 1),
    readings_strategy,
    as_of_strategy,
)
def test_more_service_never_lowers_any_clause_annuity(
    half_percent_guides, member, extra_share, readings, as_of
):
    life_years = (
        dt.date.fromisoformat(member["separation_date"])
        - dt.date.fromisoformat(member["birth_date"])
    ).days / 365.2425
    room = np.floor(life_years * 100) / 100 - member["credited_service"]
    more = round(member["credited_service"] + max(room, 0.0) * extra_share, 2)
    more = min(more, np.floor(life_years * 100) / 100)
    frame = pd.DataFrame([member, {**member, "member_id": "MORE", "credited_service": more}])
    table = evaluate_frame(frame, half_percent_guides, as_of=as_of, readings=readings)
    assert (table["error"] == "").all(), table["error"].tolist()
    less_paid, more_paid = _paid(table).reshape(2, 4)
    less_eligible, more_eligible = table["eligible"].to_numpy().reshape(2, 4)
    assert (more_eligible >= less_eligible).all()
    assert (more_paid >= less_paid).all(), (member, more)


@PROPERTY
@given(st.lists(covered_members(), min_size=1, max_size=12), readings_strategy)
def test_inciso_c_never_exceeds_the_unreduced_inciso_a_formula(
    half_percent_guides, members, readings
):
    frame = pd.DataFrame(members).assign(member_id=[f"M{i}" for i in range(len(members))])
    table = evaluate_frame(frame, half_percent_guides, readings=readings)
    early = table[(table["clause"] == "c") & table["eligible"]]
    source = frame.set_index("member_id").loc[early["member_id"]]
    formula = 0.015 * source["average_compensation"] * source["credited_service"]
    # Tolerance: half a cent of rounding.
    assert (early["annual_amount"].to_numpy() <= formula.to_numpy() + 0.005).all()
    assert (early["reduction_factor"] <= 1.0).all() and (early["reduction_factor"] > 0).all()


@PROPERTY
@given(st.lists(covered_members(), min_size=1, max_size=12), as_of_strategy)
def test_monthly_is_never_below_500_where_the_minimum_applies(half_percent_guides, members, as_of):
    frame = pd.DataFrame(members).assign(member_id=[f"M{i}" for i in range(len(members))])
    table = evaluate_frame(frame, half_percent_guides, as_of=as_of)
    eligible = table[table["eligible"]]
    start = eligible["start_date"].dt.date
    asked = dt.date.today() if as_of is None else as_of  # None: the day the results are asked
    payment = start.map(lambda day: max(day, asked))
    applies = payment >= MINIMUM_FROM
    assert (eligible.loc[applies, "monthly_amount"] >= 500.0).all()
    # Before 2013-07-01 nothing is added: paid = annual / 12, rounded.
    before = eligible[~applies]
    assert (before["minimum_topup"] == 0.0).all()
    np.testing.assert_allclose(
        before["monthly_amount"], round_cents(before["annual_amount"] / 12.0), atol=0.0101
    )


BROKEN_VALUES = {
    "member_id": [None, "", "P0"],
    "birth_date": [None, "1960-13-45", "2021-02-29", "2001-01-01"],
    "entry_date": [None, "", "yesterday", "2040-01-01"],
    "separation_date": [None, "2021-02-29", "1980-01-01"],
    "credited_service": [None, "-1", "inf", "nan", "abc", "150"],
    "average_compensation": [None, "0", "-5", "inf", "lots"],
    "group": [None, "teacher", ""],
    "refunded": [None, "maybe", "2"],
}


@PROPERTY
@given(
    st.lists(covered_members(), min_size=1, max_size=15),
    st.lists(
        st.tuples(
            st.integers(0, 14),
            st.sampled_from(sorted(BROKEN_VALUES)).flatmap(
                lambda field: st.tuples(st.just(field), st.sampled_from(BROKEN_VALUES[field]))
            ),
        ),
        max_size=10,
    ),
)
def test_no_row_is_ever_lost(half_percent_guides, members, breaks):
    frame = pd.DataFrame(members, dtype=object)
    frame["member_id"] = [f"P{i}" for i in range(len(frame))]
    final = {}  # (position, field) -> the broken value left in the cell
    for position, (field, value) in breaks:
        if position < len(frame):
            frame.at[position, field] = value
            final[(position, field)] = value
    # Broken: any broken cell but the id "P0", which is broken only where it is duplicated.
    broken_rows = {position + 1 for (position, _), value in final.items() if value != "P0"}
    if (frame["member_id"] == "P0").sum() > 1:
        broken_rows |= {position + 1 for position in np.flatnonzero(frame["member_id"] == "P0")}
    table = evaluate_frame(frame, half_percent_guides)
    by_row = table.groupby("row")
    assert sorted(by_row.groups) == list(range(1, len(frame) + 1))
    invalid = by_row["clause"].first() == ""
    assert len(table) == 4 * int((~invalid).sum()) + int(invalid.sum())
    sizes = by_row.size()
    assert (sizes[invalid] == 1).all() and (sizes[~invalid] == 4).all()
    # Every broken row is reported invalid, with its own row number; no other row is.
    invalid_rows = set(invalid[invalid].index)
    assert invalid_rows == broken_rows
    errors = by_row["error"].first()
    for row in invalid_rows:
        assert errors[row].startswith(f"members row {row} ("), errors[row]
    assert (errors[~invalid] == "").all()


# ------------------------------------------------------------------ the schedule text
def _schedule_line(entries) -> str:
    return "; ".join(f"{day} {Decimal(str(amount)).quantize(Decimal('0.01'))}"
                     for day, amount in entries)  # fmt: skip


SCHEDULE_DAYS = st.dates(dt.date(1850, 1, 1), dt.date(2250, 12, 31))
SCHEDULE_AMOUNTS = st.integers(0, 10**9).map(lambda cents: cents / 100)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.lists(st.tuples(SCHEDULE_DAYS, SCHEDULE_AMOUNTS), max_size=3), min_size=1, max_size=30
    ),
    st.data(),
)
def test_schedule_text_agrees_with_python_formatting(schedules, data):
    """Every row's text as Python writes it: dates in ISO, dollars without leading zeros,
    two decimals; rows without an entry empty; dates outside the precomputed span too."""
    rows = np.array(sorted(data.draw(st.sets(st.integers(0, 60), min_size=len(schedules),
                                             max_size=len(schedules)))))  # fmt: skip
    count = int(rows.max()) + 1 + data.draw(st.integers(0, 3))
    entries = max(1, max(len(s) for s in schedules))
    dates = [np.full(len(schedules), np.datetime64("NaT"), "datetime64[D]") for _ in range(entries)]
    amounts = [np.full(len(schedules), np.nan) for _ in range(entries)]
    for i, schedule in enumerate(schedules):
        for k, (day, amount) in enumerate(schedule):
            dates[k][i], amounts[k][i] = np.datetime64(day, "D"), amount
    expected = [""] * count
    for row, schedule in zip(rows.tolist(), schedules, strict=True):
        expected[row] = _schedule_line(schedule)
    assert schedule_text(count, rows, dates, amounts).to_pylist() == expected


LARGEST_SCHEDULE_CENTS = 2**51 - 1  # about 22 trillion USD: the text's cents are still exact


@pytest.mark.parametrize(
    "amount",
    [(LARGEST_SCHEDULE_CENTS + 1) / 100, 1e17, 1e308, np.inf, np.nan, -0.01],
    ids=["2**51 cents", "1e17", "1e308", "inf", "nan", "negative"],
)
def test_schedule_text_refuses_an_amount_it_cannot_write_exactly(amount):
    """1e17 was written '1.92' (its cents overflowed int64): never wrong digits."""
    day = np.array(["2027-01-01"], dtype="datetime64[D]")
    largest = LARGEST_SCHEDULE_CENTS / 100
    written = schedule_text(1, np.array([0]), [day], [np.array([largest])]).to_pylist()
    assert written == [f"2027-01-01 {Decimal(LARGEST_SCHEDULE_CENTS) / 100}"]
    rule = r"^a schedule amount must be from 0 to below 22,517,998,136,852\.48 USD \(got "
    for amounts in ([amount], [1.0, amount]):  # the first entry, or a later one
        dates = [day + k for k in range(len(amounts))]
        with pytest.raises(ValueError, match=rule):
            schedule_text(1, np.array([0]), dates, [np.array([a]) for a in amounts])


# ------------------------------------------------------------------ the table, chunk by chunk
@pytest.mark.parametrize("workers", [1, 2])
def test_the_table_is_the_same_whatever_the_chunks_and_threads(
    half_percent_guides, monkeypatch, workers
):
    """Chunks of 7 members on 1 or 2 threads give the table of one chunk: the same rows,
    texts, codes' meanings and categories, with invalid rows, ids repeated across chunks
    and warnings among them."""
    import actuarial.engine as engine

    frame = generate_members(300, seed=7, invalid_fraction=0.1)
    frame.loc[250, "member_id"] = frame.loc[3, "member_id"]  # repeated in another chunk
    frame.loc[17, "average_compensation"] = 500.0  # a warning
    whole = evaluate_frame(frame, half_percent_guides, as_of=AS_OF)
    monkeypatch.setattr(engine, "FRAME_CHUNK", 7)
    monkeypatch.setattr(engine, "WORKERS", workers)
    chunked = evaluate_frame(frame, half_percent_guides, as_of=AS_OF)
    pd.testing.assert_frame_equal(chunked, whole, check_exact=True)
    assert (whole["error"] != "").sum() > 20
    assert whole["error"].str.contains("must be unique").sum() == 2
    assert (whole["warnings"] != "").any()
    assert list(whole["reason"].cat.categories) == sorted(whole["reason"].cat.categories)
    assert len(whole) == 4 * 300 - 3 * (whole["clause"] == "").sum()


def _late_coded(frame, guides, monkeypatch, chunks_first: int):
    """``evaluate_frame`` in chunks of 7 members, the ids coded only once ``chunks_first``
    chunks are written: the table, the rows of each write, the marks rewound to."""
    import threading

    import actuarial.engine as engine

    monkeypatch.setattr(engine, "FRAME_CHUNK", 7)
    code, write, rewind = engine.code_frame_ids, engine.TableWriter.write, engine.TableWriter.rewind
    written, writes, rewinds = threading.Event(), [], []

    def counted_write(writer, columns):
        write(writer, columns)
        writes.append(len(columns["row"]))
        if len(writes) == chunks_first:
            written.set()

    def late_code(ids):
        assert written.wait(30)
        return code(ids)

    monkeypatch.setattr(engine, "code_frame_ids", late_code)
    monkeypatch.setattr(engine.TableWriter, "write", counted_write)
    spied_rewind = lambda writer, mark: [rewinds.append(mark), rewind(writer, mark)]  # noqa: E731
    monkeypatch.setattr(engine.TableWriter, "rewind", spied_rewind)
    return evaluate_frame(frame, guides, as_of=AS_OF), writes, rewinds


def test_chunks_written_before_the_ids_are_coded_are_written_again_from_a_repeated_id(
    half_percent_guides, monkeypatch
):
    """The ids coded only once 40 chunks are written (the repeated id is in the first and in
    the 36th): those chunks are written again from the first, and the table is that of
    one chunk, categories (first seen, first coded) included."""
    frame = generate_members(300, seed=7, invalid_fraction=0.1)
    frame.loc[250, "member_id"] = frame.loc[3, "member_id"]
    whole = evaluate_frame(frame, half_percent_guides, as_of=AS_OF)
    chunked, writes, rewinds = _late_coded(frame, half_percent_guides, monkeypatch, 40)
    pd.testing.assert_frame_equal(chunked, whole, check_exact=True)
    assert [mark[:2] for mark in rewinds] == [(0, 0)]  # from the first chunk
    assert len(writes) >= 43 + 40  # the (at least 40) written before the ids were coded, again


@pytest.mark.parametrize("missing_ids", [(), (5, 200)])
def test_chunks_written_before_distinct_ids_are_coded_are_not_written_again(
    half_percent_guides, monkeypatch, missing_ids
):
    """No id repeated, the ids coded once 30 chunks are written: none is written again, and
    the table is that of one chunk, whether every id is its own code (distinct ids) or two
    rows share one (two missing ids: each an error, never a repeated id)."""
    frame = generate_members(300, seed=7)
    frame.loc[list(missing_ids), "member_id"] = None
    whole = evaluate_frame(frame, half_percent_guides, as_of=AS_OF)
    chunked, writes, rewinds = _late_coded(frame, half_percent_guides, monkeypatch, 30)
    pd.testing.assert_frame_equal(chunked, whole, check_exact=True)
    assert rewinds == [] and len(writes) == 43
    assert whole["member_id"].cat.categories.is_unique
    assert (whole["error"] != "").sum() == len(missing_ids)


@settings(deadline=None)
@given(st.integers(0, 10**7), st.integers(1, 100_000), st.integers(1, 4))
def test_chunks_are_at_most_the_chunk_size_and_end_together(members, most, workers):
    import actuarial.engine as engine

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine, "FRAME_CHUNK", most)
        patch.setattr(engine, "WORKERS", workers)
        size = engine._chunk_size(members)
    chunks, fewest = -(-members // size), -(-members // most)
    assert 1 <= size <= most or members == 0
    if members > most:  # at most the fewest chunks rounded up to a multiple of the threads
        assert fewest <= chunks <= -(-fewest // workers) * workers
        assert members - (chunks - 1) * size > size - chunks  # the last about as large


def test_a_million_members_are_chunked_evenly_for_two_threads():
    import actuarial.engine as engine

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine, "WORKERS", 2)
        assert engine._chunk_size(10**6) == 62_500  # 16 chunks, not 15 of 65,536 and 16,960


def test_the_gil_turns_are_short_only_while_frames_are_evaluated(half_percent_guides, monkeypatch):
    """evaluate_frame shortens the interpreter's switch interval for its threads and gives
    the previous one back, also when calls overlap in several threads."""
    import sys
    import threading

    import actuarial.engine as engine

    seen, evaluate = [], engine.evaluate_members

    def spied(*arguments):
        seen.append(sys.getswitchinterval())
        return evaluate(*arguments)

    monkeypatch.setattr(engine, "evaluate_members", spied)
    before = sys.getswitchinterval()
    frame = generate_members(40, seed=3)
    evaluate_frame(frame, half_percent_guides, as_of=AS_OF)
    assert seen and all(turn == pytest.approx(engine.GIL_TURN) for turn in seen)
    assert sys.getswitchinterval() == before
    inside, leave = threading.Barrier(3), threading.Event()

    def overlapping():
        with engine.short_gil_turns():
            inside.wait()
            leave.wait()

    threads = [threading.Thread(target=overlapping) for _ in range(2)]
    for thread in threads:
        thread.start()
    inside.wait()
    assert sys.getswitchinterval() == pytest.approx(engine.GIL_TURN)
    leave.set()
    for thread in threads:
        thread.join()
    assert sys.getswitchinterval() == before


def test_an_empty_frame_gives_an_empty_table_with_every_column(half_percent_guides):
    frame = generate_members(3, seed=1).iloc[:0]
    table = evaluate_frame(frame, half_percent_guides, as_of=AS_OF)
    assert list(table.columns) == list(RESULT_COLUMNS) and len(table) == 0


@pytest.mark.parametrize("count", [0, 10, 300_000])
def test_the_table_columns_are_apart_aligned_and_mapped_is_set_before_they_are_used(count):
    """Small or sharing one mapping (at 300,000 rows), each column holds its own values."""
    kinds = {"amount": np.dtype(np.float64), "flag": np.dtype(bool), "code": np.dtype(np.int8)}
    mapped = threading.Event()
    columns = engine._columns(count, kinds, mapped)
    assert mapped.is_set()
    assert {name: (len(c), c.dtype) for name, c in columns.items()} == {
        name: (count, kind) for name, kind in kinds.items()
    }
    for value, column in enumerate(columns.values(), start=1):
        column[:] = value
        assert column.flags.writeable and (count < 1000 or column.ctypes.data % 64 == 0)
    assert [int(c.astype(np.int64).sum()) for c in columns.values()] == [count, count, 3 * count]


@pytest.mark.skipif(engine._MADVISE is None, reason="columns are populated on Linux only")
def test_mapped_is_set_when_the_columns_cannot_be_allocated():
    """The caller waits for ``mapped``: a failure must not leave it waiting."""
    mapped = threading.Event()
    with pytest.raises(MemoryError):  # 2^59 bytes
        engine._columns(2**56, {"amount": np.dtype(np.float64)}, mapped)
    assert mapped.is_set()


# A law with two periods of the separation-date parameters: (c) asks 20 years from 2010.
TWO_PERIODS = (
    "[[early_retirement.minimum_service]]\neffective_from = 2010-01-01\nvalue = 20\n"
    'unit = "years"\nsource = "Test"\n'
)
READINGS = [
    Readings(),
    Readings(refund_bars_high_risk=False),
    Readings(high_risk_waits_for_age=True),
    Readings(deferred_reads_age=False, deferred_minimum_service=5),
]


@settings(FIXTURE_PROPERTY, max_examples=12)
@given(st.integers(0, 2**16), st.sampled_from(READINGS), st.sampled_from([1, 3, 200]))
def test_each_reason_is_the_text_its_own_conditions_state(
    half_percent_guides, tmp_path_factory, seed, readings, count
):
    """Each member's reason in each clause, read from its code, is the text its own
    conditions give: every condition met and the variant's tail, or the conditions failed,
    in order, with the values of the law of its period; "not covered" when not covered.
    For one member, a few and many, under each set of readings and a law of two periods."""
    path = tmp_path_factory.mktemp("law") / "two.toml"
    path.write_text(TWO_PERIODS, encoding="utf-8")
    law = load_law(path)
    # Police with 30 years who separate before, at and after 55 (every variant of (b)).
    police = pd.DataFrame(
        {
            "member_id": ["P-1", "P-2", "P-3"],
            "birth_date": pd.to_datetime(["1968-03-01", "1960-05-01", "1958-01-01"]),
            "entry_date": pd.to_datetime(["1990-05-01", "1990-05-01", "1990-05-01"]),
            "separation_date": pd.to_datetime(["2020-06-01", "2020-06-01", "2020-06-01"]),
            "credited_service": [30.0, 30.0, 30.1],
            "average_compensation": [40_000.0, 40_000.0, 40_000.0],
            "group": ["police", "firefighter", "police"],
            "refunded": [False, False, True],
        }
    )
    frame = pd.concat([police, generate_members(count, seed)], ignore_index=True)
    count = len(frame)
    results = engine.evaluate_members(
        parse_members(frame), half_percent_guides, dt.date(2026, 7, 1), readings, law
    )
    for member in range(count):
        values = law.values_on(results.law_periods[results.law_period[member]].item())
        pairs = zip(results.clauses, results.outcomes, strict=True)
        for column, (clause, outcome) in enumerate(pairs):
            text = results.reason_texts[results.reason_codes[member, column]]
            if not results.covered[member]:
                assert text.startswith("not covered by Chapter 2 (I-1)")
                continue
            shown = [
                (condition.en.met if met[member] else condition.en.not_met, met[member],
                 condition.value_in(values, readings))
                for condition, met in outcome.conditions
            ]  # fmt: skip
            failed = [render(wording, values, value) for wording, met, value in shown if not met]
            if failed:
                assert text == f"inciso ({clause.id}): not eligible: " + "; ".join(failed)
                continue
            variant = 0 if outcome.variant is None else outcome.variant[member]
            tail = render(clause.variants[variant].en, values)
            stated = "; ".join(render(wording, values, value) for wording, _, value in shown)
            assert text == f"inciso ({clause.id}): eligible: {stated}{tail}"


@pytest.mark.parametrize("fields", [["credited_service"], ["average_compensation"], MEMBER_FIELDS])
def test_sparse_columns_give_the_results_of_their_dense_values(half_percent_guides, fields):
    # A Sparse float column raised numpy's "Cannot interpret 'Sparse[float64, nan]' as a
    # data type"; a pandas Sparse column holds the same values as its dense one.
    frame = generate_members(200, seed=11)
    frame = frame.astype({"credited_service": float, "average_compensation": float})
    frame.loc[::7, "credited_service"] = np.nan  # missing values: errors on their rows
    sparse = frame.copy()
    for name in fields:
        sparse[name] = pd.arrays.SparseArray(frame[name])
    before = sparse.copy()
    expected = evaluate_frame(frame, half_percent_guides, as_of=dt.date(2026, 6, 1))
    got = evaluate_frame(sparse, half_percent_guides, as_of=dt.date(2026, 6, 1))
    pd.testing.assert_frame_equal(got, expected)
    pd.testing.assert_frame_equal(sparse, before)  # the input is not changed
