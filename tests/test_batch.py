"""Whole member files: CSV and Parquet in and out, chunks, duplicates, failures, summary."""

from __future__ import annotations

import datetime as dt
import errno
import json
import re
import shutil
import subprocess
import sys
import threading
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
import pytest
from conftest import FIXTURE_PROPERTY, exactly
from hypothesis import given, settings
from hypothesis import strategies as st

from actuarial import batch
from actuarial.batch import OUTPUT_SCHEMA, read_members, run_batch
from actuarial.engine import evaluate_frame
from actuarial.guides import load_guides
from actuarial.law.clauses import CLAUSES
from actuarial.law.parameters import shipped_law
from actuarial.law.readings import Readings
from actuarial.members import MEMBER_FIELDS, MemberFileError
from actuarial.output_files import OutputFileError
from actuarial.synthetic import generate_members

SAMPLE = "examples/members.csv"


def read_output(path) -> pd.DataFrame:
    """An output file as plain columns (text as str, start_date as ISO text), either format."""
    if path.suffix == ".csv":
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        frame["row"] = frame["row"].astype(int)
        frame["eligible"] = frame["eligible"].map({"true": True, "false": False})
        for name in ("reduction_factor", "annual_amount", "monthly_amount", "minimum_topup"):
            frame[name] = pd.to_numeric(frame[name].replace("", None)).astype(float)
        return frame
    frame = pq.read_table(path).to_pandas()
    for name in ("member_id", "clause", "reason", "guide_id", "error", "readings"):
        frame[name] = frame[name].fillna("").astype(str)
    frame["start_date"] = [day.isoformat() if day else "" for day in frame["start_date"]]
    return frame


def text_parquet(csv_path: Path) -> Path:
    """The CSV member file's cells, all text, as a Parquet file beside it (same stem)."""
    parquet_path = csv_path.with_suffix(".parquet")
    pd.read_csv(csv_path, dtype=str, keep_default_na=False).to_parquet(parquet_path)
    return parquet_path


def iso_dates(values) -> list[str]:
    return ["" if pd.isna(day) else day.strftime("%Y-%m-%d") for day in values]


def as_text(frame: pd.DataFrame) -> pd.DataFrame:
    """A member frame as a text file holds it: ISO dates, numbers as written."""
    text = frame.astype(object).copy()
    for name in ("birth_date", "entry_date", "separation_date"):
        text[name] = [
            value.strftime("%Y-%m-%d") if isinstance(value, pd.Timestamp) else value
            for value in text[name]
        ]
    return text.astype(str)


@pytest.fixture
def sample_members(tmp_path):
    """examples/members.csv: 313 members, six of them invalid, boundary members B-01..B-13."""
    path = tmp_path / "members.csv"
    shutil.copy(SAMPLE, path)
    return path


AS_OF = dt.date(2026, 6, 1)  # the fixed date the results are asked for


def run(members_path, guides, out_path, **options):
    options.setdefault("as_of", AS_OF)
    return run_batch(members_path, guides, out_path, progress=False, **options)


# ----------------------------------------------------------------- formats in and out
@pytest.mark.parametrize("out_name", ["out.csv", "out.parquet"])
@pytest.mark.parametrize("in_format", ["csv", "parquet"])
def test_csv_and_parquet_in_and_out_give_the_same_results(
    half_percent_guides, sample_members, tmp_path, in_format, out_name
):
    source = sample_members if in_format == "csv" else text_parquet(sample_members)
    out = tmp_path / out_name
    run(source, half_percent_guides, out)
    expected = evaluate_frame(
        read_members(sample_members), half_percent_guides, source="members.csv"
    )
    result = read_output(out)
    assert result["row"].tolist() == expected["row"].tolist()
    assert result["member_id"].tolist() == expected["member_id"].astype(str).tolist()
    assert result["clause"].tolist() == expected["clause"].astype(str).tolist()
    assert result["eligible"].tolist() == expected["eligible"].tolist()
    assert result["reason"].tolist() == expected["reason"].astype(str).tolist()
    pd.testing.assert_series_equal(
        result["monthly_amount"], expected["monthly_amount"], check_names=False
    )
    pd.testing.assert_series_equal(
        result["annual_amount"], expected["annual_amount"], check_names=False
    )
    assert result["start_date"].tolist() == iso_dates(expected["start_date"])
    errors = [
        text.replace("members.csv", source.name) if text else "" for text in expected["error"]
    ]
    assert result["error"].tolist() == errors


def test_float32_amounts_in_parquet_are_read_as_the_decimals_they_show(
    half_percent_guides, tmp_path
):
    """A Parquet file of float32 amounts gives the cents of the decimals it shows (66224.88
    years 29.78: 29582.65 a year), not of its binary values widened (29582.66)."""
    members = generate_members(2_000, seed=5)
    decimal = pa.Table.from_pandas(members, preserve_index=False)
    narrow = decimal.cast(
        pa.schema(
            field.with_type(pa.float32()) if pa.types.is_float64(field.type) else field
            for field in decimal.schema
        )
    )
    shown = narrow.to_pandas()
    for name in ("credited_service", "average_compensation"):
        shown[name] = [float(str(value)) for value in shown[name].to_numpy()]
    pq.write_table(narrow, tmp_path / "narrow.parquet")
    pq.write_table(pa.Table.from_pandas(shown, preserve_index=False), tmp_path / "shown.parquet")
    for name in ("narrow", "shown"):
        run(tmp_path / f"{name}.parquet", half_percent_guides, tmp_path / f"{name}.csv")
    read = [pd.read_csv(tmp_path / f"{name}.csv") for name in ("narrow", "shown")]
    pd.testing.assert_frame_equal(*read)
    widened = shown.assign(
        **{name: narrow[name].to_numpy().astype(float) for name in ("average_compensation",)}
    )
    assert not evaluate_frame(widened, half_percent_guides)["annual_amount"].equals(
        evaluate_frame(shown, half_percent_guides)["annual_amount"]
    )  # the widened binary values would have changed some cents


def test_parquet_output_has_the_schema_and_records_readings_and_guides(
    half_percent_guides, sample_members, tmp_path
):
    out = tmp_path / "out.parquet"
    readings = Readings(minimum_applies_to="a")
    run(sample_members, half_percent_guides, out, readings=readings)
    schema = pq.read_schema(out)
    assert schema.remove_metadata() == OUTPUT_SCHEMA
    metadata = schema.metadata
    assert json.loads(metadata[b"actuarial.readings"]) == readings.as_dict()
    guides = json.loads(metadata[b"actuarial.guides"])
    assert set(guides) == {"illustrative-half-percent-per-month"}
    assert metadata[b"actuarial.members"] == b"members.csv"
    assert set(pq.read_table(out, columns=["readings"]).column(0).to_pylist()) == {
        "minimum_applies_to=a"
    }


@pytest.mark.parametrize(
    ("name", "got"),
    [("out.xlsx", "'.xlsx'"), ("out", "''"),
     (".csv", "'.csv' as the whole name: a hidden file's name, with no extension"),
     (".PQ", "'.PQ' as the whole name: a hidden file's name, with no extension")],
)  # fmt: skip
def test_an_unknown_extension_is_refused(half_percent_guides, sample_members, tmp_path, name, got):
    with pytest.raises(
        MemberFileError,
        match=exactly(
            f"{tmp_path / name}: the output file must end in one of "
            f"['.csv', '.parquet', '.pq'] (got {got})"
        ),
    ):
        run(sample_members, half_percent_guides, tmp_path / name)
    assert not (tmp_path / name).exists()


# ---------------------------------------------------------------------------- chunks
@pytest.fixture
def chunk_sizes(monkeypatch):
    """Record (rows, first row) of every chunk the batch parses."""
    sizes = []
    parse = batch.parse_members

    def spy(frame, **options):
        sizes.append((len(frame), options["first_row"]))
        return parse(frame, **options)

    monkeypatch.setattr(batch, "parse_members", spy)
    return sizes


@pytest.mark.parametrize("in_format", ["csv", "parquet"])
def test_chunks_of_seven_rows_give_the_same_output_as_one_chunk(
    half_percent_guides, sample_members, tmp_path, chunk_sizes, in_format
):
    source = sample_members if in_format == "csv" else text_parquet(sample_members)
    one = run(source, half_percent_guides, tmp_path / "one.csv")
    assert chunk_sizes == [(313, 1)]
    chunk_sizes.clear()
    chunked = run(source, half_percent_guides, tmp_path / "chunked.csv", chunk_rows=7)
    # 313 rows: 44 chunks of 7 and one of 5; row numbers continue across chunks.
    assert chunk_sizes == [(7, 1 + 7 * k) for k in range(44)] + [(5, 309)]
    assert (tmp_path / "one.csv").read_bytes() == (tmp_path / "chunked.csv").read_bytes()
    assert one == chunked


@pytest.mark.parametrize("rows", [0, -1, 1.5, True, "10", None])
def test_chunk_rows_that_are_not_a_whole_number_of_at_least_one_are_refused(
    half_percent_guides, sample_members, tmp_path, rows
):
    # 0 read empty chunks for ever (the command line's --chunk-rows is checked; Python's
    # chunk_rows was not), -1 read the whole file in one chunk, 1.5 and "10" a TypeError.
    out = tmp_path / "out.csv"
    message = f"'chunk_rows' must be a whole number of at least 1 (got {rows!r})"
    with pytest.raises(ValueError, match=exactly(message)):
        run_batch(sample_members, half_percent_guides, out, chunk_rows=rows, progress=False)
    assert not out.exists()


def test_a_file_of_exactly_two_chunks_is_read_as_two_chunks(
    half_percent_guides, member, write_members, tmp_path, chunk_sizes
):
    rows = [member(member_id=f"M-{n}") for n in range(1, 15)]
    summary = run(write_members(rows), half_percent_guides, tmp_path / "out.csv", chunk_rows=7)
    assert chunk_sizes == [(7, 1), (7, 8)]
    assert summary.output_rows == 14 * 4


def test_an_invalid_row_keeps_its_row_number_in_a_later_chunk(
    half_percent_guides, sample_members, tmp_path
):
    out = tmp_path / "out.csv"
    run(sample_members, half_percent_guides, out, chunk_rows=7)
    result = read_output(out)
    invalid = result[result["error"] != ""].set_index("member_id")
    assert invalid.loc["M-241", "row"] == 241
    assert invalid.loc["M-241", "error"] == (
        "members.csv row 241 (member 'M-241'): 'birth_date' must be a date YYYY-MM-DD "
        "(got '1960-13-45')"
    )
    assert invalid.loc["M-254", "error"] == (
        "members.csv row 254 (member 'M-254'): 'entry_date' is required"
    )


def test_duplicate_ids_in_different_chunks_are_both_invalid(
    half_percent_guides, member, write_members, tmp_path
):
    rows = [member(member_id=f"M-{n}") for n in range(1, 21)]
    rows[17] = member(member_id="M-2")  # row 18, in the third chunk of 7
    out = tmp_path / "out.csv"
    summary = run(write_members(rows), half_percent_guides, out, chunk_rows=7)
    result = read_output(out)
    invalid = result[result["error"] != ""]
    assert invalid["row"].tolist() == [2, 18]
    assert invalid["error"].tolist() == [
        "members.csv row 2 (member 'M-2'): 'member_id' must be unique in the file (also on row 18)",
        "members.csv row 18 (member 'M-2'): 'member_id' must be unique in the file (also on row 2)",
    ]
    assert (summary.members, summary.invalid, summary.output_rows) == (20, 2, 18 * 4 + 2)


def test_chunks_computed_while_the_first_pass_reads_are_computed_again_if_an_id_repeats(
    half_percent_guides, member, write_members, tmp_path, monkeypatch
):
    """The first pass ends only once three chunks of 7 are computed (as if no id repeated):
    the first and the third, each holding a row of the repeated id, are computed again; the
    output is that of one chunk."""
    import actuarial.member_files as member_files

    rows = [member(member_id=f"M-{n}") for n in range(1, 41)]
    rows[17] = member(member_id="M-2")  # row 18, in the third chunk of 7
    source = write_members(rows)
    run(source, half_percent_guides, tmp_path / "whole.csv")
    computed, three = [], threading.Event()
    evaluate, first_pass = batch.evaluate_members, member_files.duplicated_in_file

    def counted(*arguments):
        computed.append(len(arguments[0]))
        if len(computed) == 3:
            three.set()
        return evaluate(*arguments)

    def late_first_pass(*arguments):
        assert three.wait(30)
        return first_pass(*arguments)

    monkeypatch.setattr(batch, "EARLY_CHUNKS", 3)
    monkeypatch.setattr(batch, "evaluate_members", counted)
    monkeypatch.setattr(member_files, "duplicated_in_file", late_first_pass)
    summary = run(source, half_percent_guides, tmp_path / "out.csv", chunk_rows=7)
    assert computed[:3] == [7, 7, 7] and len(computed) == 6 + 2  # the 1st and 3rd again
    assert (tmp_path / "out.csv").read_bytes() == (tmp_path / "whole.csv").read_bytes()
    assert (summary.members, summary.invalid) == (40, 2)


# ------------------------------------------------------------------- failures
def test_a_missing_column_is_reported_before_anything_is_written(
    half_percent_guides, member, write_members, tmp_path
):
    columns = [name for name in MEMBER_FIELDS if name != "average_compensation"]
    source = write_members([member()], columns=columns)
    out = tmp_path / "out.csv"
    with pytest.raises(
        MemberFileError,
        match=exactly(
            f"{source}: missing required column(s) ['average_compensation'] "
            f"(required: {list(MEMBER_FIELDS)}; given: {columns})"
        ),
    ):
        run(source, half_percent_guides, out)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["members.csv"]


def test_a_missing_column_in_parquet_is_reported_before_anything_is_written(
    half_percent_guides, member, tmp_path
):
    source = tmp_path / "members.parquet"
    pd.DataFrame([member()]).drop(columns=["refunded"]).to_parquet(source)
    with pytest.raises(MemberFileError, match=r"missing required column\(s\) \['refunded'\]"):
        run(source, half_percent_guides, tmp_path / "out.parquet")
    assert not (tmp_path / "out.parquet").exists()


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("absent.csv", None, "cannot read the member file (no such file)"),
        (
            "latin1.csv",
            "member_id\xe9,birth_date\n".encode("latin-1"),
            "line 1 is not UTF-8 text (byte 0xe9); save the file as UTF-8",
        ),
        ("garbage.parquet", b"not a parquet file", "cannot read the member file"),
    ],
)
def test_an_unreadable_file_is_reported_and_nothing_is_written(
    half_percent_guides, tmp_path, name, content, reason
):
    source = tmp_path / name
    if content is not None:
        source.write_bytes(content)
    out = tmp_path / "out.csv"
    with pytest.raises(MemberFileError, match=re.escape(f"{source}: {reason}")):
        run(source, half_percent_guides, out)
    assert not out.exists()


@pytest.mark.parametrize("out_name", ["out.csv", "out.parquet"])
def test_a_failure_midway_leaves_no_partial_file_and_no_output(
    half_percent_guides, sample_members, tmp_path, monkeypatch, out_name
):
    evaluate_members = batch.evaluate_members
    calls = []

    def failing(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("disk full")
        return evaluate_members(*args, **kwargs)

    monkeypatch.setattr(batch, "evaluate_members", failing)
    out = tmp_path / out_name
    with pytest.raises(RuntimeError, match="^disk full$"):
        run(sample_members, half_percent_guides, out, chunk_rows=50)
    assert len(calls) == 3
    assert sorted(path.name for path in tmp_path.iterdir()) == ["members.csv"]


@pytest.mark.parametrize("out_name", ["out.csv", "out.parquet"])
def test_a_write_that_fails_in_the_writing_thread_is_raised_and_leaves_nothing(
    half_percent_guides, sample_members, tmp_path, monkeypatch, out_name
):
    writes = []

    def failing_on_the_third_write(writer_class):
        class Failing(writer_class):
            def write_table(self, table, *args, **kwargs):
                writes.append(threading.current_thread().name)
                if len(writes) == 3:
                    raise OSError(errno.ENOSPC, "No space left on device")
                return super().write_table(table, *args, **kwargs)

        return Failing

    monkeypatch.setattr(pq, "ParquetWriter", failing_on_the_third_write(pq.ParquetWriter))
    monkeypatch.setattr(batch.pa_csv, "CSVWriter", failing_on_the_third_write(pa_csv.CSVWriter))
    out = tmp_path / out_name
    message = f"{out}: cannot write (No space left on device)"
    with pytest.raises(OutputFileError, match=exactly(message)):
        run(sample_members, half_percent_guides, out, chunk_rows=50)
    # CSV: two threads format at once, so a chunk or two after the failing write may have
    # begun; the run stops there all the same (313 members: 7 chunks of 50).
    assert len(writes) == 3 if out_name == "out.parquet" else 3 <= len(writes) < 7
    assert all(name.startswith("actuarial-write") for name in writes)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["members.csv"]


# ---------------------------------------------------------------------- summary
def test_summary_counts_members_invalid_rows_coverage_and_eligibility(
    half_percent_guides, member, write_members, tmp_path
):
    rows = [
        member(member_id="A"),  # (a) only: 1.5% x 48,000 x 20 = 1,200 a month
        member(member_id="NC", entry_date="1990-03-31"),  # not covered (I-1)
        member(member_id="BAD", group="teacher"),  # invalid
        # (c) and (d), both lifted by the minimum: one member lifted.
        # (c) 1.5% x 12,000 x 25 x 0.40 / 12 = 150; (d) 1.5% x 12,000 x 25 / 12 = 375.
        member(
            member_id="CD",
            entry_date="1990-06-15",
            separation_date="2015-06-15",
            credited_service=25.0,
            average_compensation=12_000.0,
        ),
    ]
    summary = run(write_members(rows), half_percent_guides, tmp_path / "out.csv")
    assert (summary.members, summary.invalid, summary.not_covered) == (4, 1, 1)
    assert summary.eligible == {"a": 1, "b": 0, "c": 1, "d": 1}
    assert summary.lifted_by_minimum == 1
    assert summary.clause_errors == 0
    assert summary.output_rows == 3 * 4 + 1
    assert summary.lines() == [
        "members: 4 (invalid rows: 1; not covered, I-1: 1)",
        "eligible by clause: (a) 1, (b) 0, (c) 1, (d) 1",
        "members lifted by the monthly minimum: 1",
        "clause rows with an error (no guide factor): 0",
        "members with data-quality warnings: 0",
        "output rows: 13",
        "payment date: the later of 2026-06-01 (as of) and each annuity's start date",
        f"law: actuarial/law/law.toml sha256 {shipped_law().files[0].sha256}",
        "note: guide 'illustrative-half-percent-per-month' is illustrative, not adopted by the "
        "Junta de Síndicos: its reductions are illustrations, not the Board's",
    ]
    assert len(pd.read_csv(tmp_path / "out.csv")) == 13


def test_summary_of_the_sample_file_matches_its_results_table(
    half_percent_guides, sample_members, tmp_path
):
    out = tmp_path / "out.parquet"
    summary = run(sample_members, half_percent_guides, out)
    result = read_output(out)
    assert summary.members == 313 == result["row"].nunique()
    assert summary.invalid == 6 == (result["error"] != "").sum()
    assert summary.output_rows == len(result)
    for clause, count in summary.eligible.items():
        assert count == result[(result["clause"] == clause) & result["eligible"]].shape[0]


def test_read_members_keeps_required_columns_only(member, write_members):
    path = write_members([member()], columns=[*MEMBER_FIELDS, "notes"])
    frame = read_members(path)
    assert list(frame.columns) == list(MEMBER_FIELDS)


def test_a_parquet_file_with_numeric_member_ids_is_read(half_percent_guides, member, tmp_path):
    source = tmp_path / "members.parquet"
    frame = pd.DataFrame([member(), member()]).assign(member_id=[101, 102])
    frame.to_parquet(source)
    summary = run(source, half_percent_guides, tmp_path / "out.csv")
    assert (summary.members, summary.invalid) == (2, 0)
    assert read_output(tmp_path / "out.csv")["member_id"].tolist()[::4] == ["101", "102"]


def test_a_csv_with_quoted_header_names_or_a_byte_order_mark_is_read(
    half_percent_guides, sample_members, tmp_path
):
    frame = pd.read_csv(sample_members, dtype=str, keep_default_na=False)
    quoted = tmp_path / "quoted.csv"
    frame.to_csv(quoted, index=False, quoting=1)  # csv.QUOTE_ALL, as spreadsheets write
    with_bom = tmp_path / "bom.csv"
    with_bom.write_bytes(b"\xef\xbb\xbf" + sample_members.read_bytes())
    plain = run(sample_members, half_percent_guides, tmp_path / "plain.csv")
    assert run(quoted, half_percent_guides, tmp_path / "quoted_out.csv") == plain
    assert run(with_bom, half_percent_guides, tmp_path / "bom_out.csv") == plain


def test_a_synthetic_file_with_broken_rows_loses_no_row(half_percent_guides, tmp_path):
    source = tmp_path / "synthetic.parquet"
    as_text(generate_members(500, seed=7, invalid_fraction=0.05)).to_parquet(source)
    out = tmp_path / "out.parquet"
    summary = run(source, half_percent_guides, out, chunk_rows=64)
    result = read_output(out)
    assert sorted(result["row"].unique()) == list(range(1, 501))
    assert len(result) == 4 * (500 - summary.invalid) + summary.invalid
    assert summary.invalid > 10


def test_a_separation_date_no_guide_covers_errs_on_that_inciso_c_row_only(
    make_guide, member, write_members, tmp_path
):
    guides = load_guides(
        make_guide(
            "from-2020",
            toml=lambda text: text.replace(
                "effective_from = 1990-04-01", "effective_from = 2020-01-01"
            ),
        )
    )
    rows = [
        member(
            member_id="EARLY",
            entry_date="1990-04-01",
            separation_date="2019-06-15",
            credited_service=29.0,
        ),
        member(
            member_id="LATER",
            entry_date="1990-04-01",
            separation_date="2020-06-15",
            credited_service=30.0,
        ),
    ]
    out = tmp_path / "out.csv"
    summary = run(write_members(rows), guides, out)
    result = read_output(out).set_index(["member_id", "clause"])
    assert result.loc[("EARLY", "c"), "error"] == (
        "no Actuarial Guide of series 'from-2020' is in force on 2019-06-15 "
        "('from-2020' 2020-01-01 to open end)"
    )
    assert (result.drop(("EARLY", "c"))["error"] == "").all()
    # The other rows are computed: EARLY's (d) 1.5% x 48,000 x 29 = 20,880 from 2025-06-15;
    # LATER's (c) at 60y0m: 0.70 x 1.5% x 48,000 x 30 = 15,120.
    assert result.loc[("EARLY", "d"), "annual_amount"] == 20_880.00
    assert result.loc[("LATER", "c"), "annual_amount"] == 15_120.00
    assert summary.clause_errors == 1
    assert summary.lines()[3] == "clause rows with an error (no guide factor): 1"


# ------------------------------------------------- ids, dates and text through the files
ROUND_TRIP_IDS = [
    "NA", "N/A", "null", "NaN", "nan", "None", "#N/A", "007", "1e3", "M-1", "m-1",
    "\uff2d-1", "e\u0301", "\u00e9", "=HYPERLINK(\"http://x\")", "+1", "-5", "@SUM(A1)",
    "\u00e1rbol", "x" * 100,
]  # fmt: skip
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


@pytest.mark.parametrize("out_name", ["out.csv", "out.parquet"])
@pytest.mark.parametrize("in_format", ["csv", "parquet"])
def test_ids_come_back_exactly_as_read_and_no_token_is_missing(
    half_percent_guides, member, write_members, tmp_path, in_format, out_name
):
    rows = [member(member_id=i) for i in ROUND_TRIP_IDS]
    source = write_members(rows)
    if in_format == "parquet":
        source = text_parquet(source)
    out = tmp_path / out_name
    summary = run(source, half_percent_guides, out)
    assert summary.invalid == 0
    result = read_output(out)
    ids = result.drop_duplicates("row")["member_id"].tolist()
    if out.suffix == ".csv":  # a cell a spreadsheet would evaluate is written after an '
        expected = ["'" + i if i.startswith(FORMULA_START) else i for i in ROUND_TRIP_IDS]
    else:
        expected = ROUND_TRIP_IDS
    assert ids == expected


def test_parquet_integer_ids_with_nulls_stay_whole_numbers(half_percent_guides, member, tmp_path):
    ids = [7, None, 2**53, 2**53 + 1, -3, 0]
    frame = pd.DataFrame([member(member_id="placeholder") for _ in ids])
    table = pa.Table.from_pandas(frame.drop(columns="member_id"), preserve_index=False)
    table = table.append_column("member_id", pa.array(ids, type=pa.int64()))
    source = tmp_path / "members.parquet"
    pq.write_table(table, source)
    out = tmp_path / "out.parquet"
    summary = run(source, half_percent_guides, out)
    result = read_output(out).drop_duplicates("row")
    assert result["member_id"].tolist() == [
        "7", "", "9007199254740992", "9007199254740993", "-3", "0"
    ]  # fmt: skip
    assert summary.invalid == 1  # the null: "'member_id' is required", and nothing else
    assert (
        result["error"].tolist()[1]
        == "members.parquet row 2 (no member_id): 'member_id' is required"
    )


def test_parquet_binary_text_is_read_as_text(half_percent_guides, sample_members, tmp_path):
    """Binary columns of UTF-8 text, from a tool that writes no pandas metadata."""
    text = pa.Table.from_pandas(read_members(sample_members), preserve_index=False)
    binary = text.replace_schema_metadata(None)
    for name in ("member_id", "group", "refunded"):
        values = pa.array([str(v).encode() for v in text[name].to_pylist()], pa.large_binary())
        binary = binary.set_column(binary.schema.get_field_index(name), name, values)
    for kind, table in (("text", text), ("binary", binary)):
        (tmp_path / kind).mkdir()
        pq.write_table(table, tmp_path / kind / "members.parquet")
        run(tmp_path / kind / "members.parquet", half_percent_guides, tmp_path / f"{kind}.csv")
    assert (tmp_path / "binary.csv").read_bytes() == (tmp_path / "text.csv").read_bytes()


def test_parquet_whose_pandas_metadata_misstates_a_column_is_read_by_its_values(
    half_percent_guides, member, tmp_path
):
    """A column of lists that the file's pandas metadata calls text: each row an error
    naming its value, not the whole file unreadable."""
    frame = pd.DataFrame([member(member_id=f"M-{k}") for k in range(3)])
    table = pa.Table.from_pandas(frame, preserve_index=False)  # pandas metadata: group is text
    lists = pa.array([["general"], ["police"], []])
    table = table.set_column(table.schema.get_field_index("group"), "group", lists)
    source = tmp_path / "members.parquet"
    pq.write_table(table, source)
    summary = run(source, half_percent_guides, tmp_path / "out.csv")
    assert summary.invalid == 3
    errors = read_output(tmp_path / "out.csv")["error"].tolist()
    assert errors[0] == (
        "members.parquet row 1 (member 'M-0'): 'group' must be in "
        "['general', 'police', 'firefighter'] (got ['general'])"
    )
    assert len(errors) == 3


@pytest.mark.parametrize(
    ("kind", "value", "problem"),
    [
        ("date32", dt.date(2025, 6, 15), ""),
        ("timestamp", dt.datetime(2025, 6, 15), ""),
        (
            "timestamp",
            dt.datetime(2025, 6, 14, 21, 30),
            "'separation_date' must be a date, without a time of day (got 2025-06-14 21:30:00)",
        ),
        (
            "timestamp-tz",
            dt.datetime(2025, 6, 14, 21, 30),
            "'separation_date' must be a date without a time zone (got 2025-06-14 21:30:00-04:00)",
        ),
        (
            "timestamp-tz",
            dt.datetime(2025, 6, 15),
            "'separation_date' must be a date without a time zone (got 2025-06-15 00:00:00-04:00)",
        ),
        (
            "date32",
            dt.date(2101, 1, 1),
            "'separation_date' must be from 1900-01-01 to 2100-12-31 (got 2101-01-01)",
        ),
    ],
)
def test_parquet_dates_are_calendar_dates_never_converted(
    half_percent_guides, member, tmp_path, kind, value, problem
):
    frame = pd.DataFrame([member()]).drop(columns="separation_date")
    table = pa.Table.from_pandas(frame, preserve_index=False)
    types = {
        "date32": pa.date32(),
        "timestamp": pa.timestamp("us"),
        "timestamp-tz": pa.timestamp("us", tz="America/Puerto_Rico"),
    }
    if kind == "timestamp-tz":
        column = pa.array([pd.Timestamp(value, tz="America/Puerto_Rico")], type=types[kind])
    else:
        column = pa.array([value], type=types[kind])
    source = tmp_path / "members.parquet"
    pq.write_table(table.append_column("separation_date", column), source)
    run(source, half_percent_guides, tmp_path / "out.parquet")
    errors = set(read_output(tmp_path / "out.parquet")["error"])
    assert errors == {f"members.parquet row 1 (member 'A-1'): {problem}" if problem else ""}


@pytest.mark.parametrize("token", ["NA", "N/A", "null", "NULL", "NaN", "None", "#N/A", "nan"])
def test_a_missing_value_token_is_a_value_not_a_missing_cell(
    half_percent_guides, member, write_members, tmp_path, token
):
    source = write_members([member(group=token)])
    run(source, half_percent_guides, tmp_path / "out.csv")
    error = read_output(tmp_path / "out.csv")["error"].tolist()
    rule = "'group' must be in ['general', 'police', 'firefighter']"
    assert error == [f"members.csv row 1 (member 'A-1'): {rule} (got {token!r})"]


@pytest.mark.parametrize("start", [*FORMULA_START, "'", " ", "a", "1", "(", "%"])
def test_csv_output_defuses_cells_a_spreadsheet_would_evaluate(
    half_percent_guides, member, write_members, tmp_path, start
):
    member_id = start + "cmd|' /C calc'!A0"
    frame = pd.DataFrame([member(member_id=member_id)])
    source = tmp_path / "members.parquet"
    frame.to_parquet(source)
    run(source, half_percent_guides, tmp_path / "out.csv")
    run(source, half_percent_guides, tmp_path / "out.parquet")
    with (tmp_path / "out.csv").open(newline="", encoding="utf-8") as handle:
        import csv

        cells = {row["member_id"] for row in csv.DictReader(handle)}
    defused = start in (*FORMULA_START, "'")  # an apostrophe of its own too: reversible
    expected = "'" + member_id if defused else member_id
    assert cells == {expected}
    if start not in ("\t", "\r"):  # white space: an error row, with the id as read
        assert set(read_output(tmp_path / "out.parquet")["member_id"]) == {member_id}


def test_every_text_column_is_defused_in_csv(half_percent_guides, member, tmp_path):
    """An error message begins with the member file's name: a file named '=x.csv'."""
    source = tmp_path / "=x.csv"
    pd.DataFrame([member(group="teacher")]).to_csv(source, index=False)
    run(source, half_percent_guides, tmp_path / "out.csv")
    error = pd.read_csv(tmp_path / "out.csv", dtype=str)["error"].iloc[0]
    assert error.startswith("'=x.csv row 1")


def test_a_long_field_is_cut_in_messages_and_memory_stays_small(
    half_percent_guides, member, tmp_path
):
    """A 200,000-character id and 2,500 rows of an unknown group: short messages, few texts."""
    rows = [member(member_id="x" * 200_000, group="teacher")]
    rows += [member(member_id=f"M-{n}", group="t" * 1000 + str(n)) for n in range(2500)]
    source = tmp_path / "members.parquet"
    pd.DataFrame(rows).to_parquet(source)
    out = tmp_path / "out.parquet"
    summary = run(source, half_percent_guides, out)
    assert summary.invalid == 2501
    errors = pq.read_table(out, columns=["error"]).column(0).to_pylist()
    assert max(len(error) for error in errors) < 400
    assert errors[0].startswith(f"members.parquet row 1 (member '{'x' * 80}…'): ")


# ------------------------------------------------------------- accounting, by property
CLAUSE_IDS = tuple(CLAUSES)  # the registry: ids of the clauses, in order
# Few examples (each writes and reads whole files); the fixtures are read only.
FILE_PROPERTY = settings(FIXTURE_PROPERTY, max_examples=25)


def write_text_members(frame: pd.DataFrame, path: Path, in_format: str) -> None:
    """A text member frame as a CSV file, or as a Parquet file of text columns (a spreadsheet
    export holds every column as text)."""
    if in_format == "csv":
        frame.to_csv(path, index=False)
    else:
        frame.astype(str).to_parquet(path)


CORRUPTIONS = {
    "member_id": ["", " ", " M", "M ", "x" * 101, "\x1b", "DUP"],
    "birth_date": ["", "NA", "1960-02-30", "0000-01-01", "1960/01/01", "2200-01-01", "x" * 500],
    "entry_date": ["", "null", "1995-13-01", "1899-12-31", "2030-01-01"],
    "separation_date": ["", "N/A", "1994-01-01", "2101-01-01", "20250615"],
    "credited_service": ["", "NaN", "inf", "-1", "abc", "1e400", "200"],
    "average_compensation": ["", "0", "-5", "1e308", "inf", "$1", "10000000.5"],
    "group": ["", "teacher", "NA", "x" * 10_000],
    "refunded": ["", "maybe", "2", "NA"],
}


def cell_edits(rows: int, cells: dict, max_size: int):
    """Lists of (row, column, text): texts of ``cells`` put in some of ``rows`` rows."""

    def in_column(name):
        return st.tuples(st.integers(0, rows - 1), st.just(name), st.sampled_from(cells[name]))

    edit = st.sampled_from(sorted(cells)).flatmap(in_column)
    return st.lists(edit, max_size=max_size)


def edited(frame: pd.DataFrame, edits) -> pd.DataFrame:
    for row, name, text in edits:
        frame.loc[row, name] = text
    return frame


@FILE_PROPERTY
@given(
    seed=st.integers(0, 10_000),
    corruptions=cell_edits(60, CORRUPTIONS, max_size=30),
    chunk_rows=st.integers(1, 70),
    out_name=st.sampled_from(["out.csv", "out.parquet"]),
    in_format=st.sampled_from(["csv", "parquet"]),
)
def test_every_row_is_accounted_for_whatever_is_corrupted(
    half_percent_guides, tmp_path_factory, seed, corruptions, chunk_rows, out_name, in_format
):
    folder = tmp_path_factory.mktemp("property")
    frame = edited(as_text(generate_members(60, seed=seed)), corruptions)
    source = folder / f"members.{in_format}"
    write_text_members(frame, source, in_format)
    out = folder / out_name
    summary = run(source, half_percent_guides, out, chunk_rows=chunk_rows)
    result = read_output(out)
    per_row = result.groupby("row")
    # Every input row exactly once: one row per clause, or one error row.
    assert sorted(per_row.groups) == list(range(1, len(frame) + 1))
    sizes = per_row.size()
    invalid_rows = set(result.loc[result["clause"] == "", "row"])
    assert all(sizes[r] == 1 for r in invalid_rows)
    assert all(sizes[r] == len(CLAUSE_IDS) for r in set(sizes.index) - invalid_rows)
    assert summary.invalid == len(invalid_rows)
    assert summary.output_rows == len(result)
    valid = result[~result["row"].isin(invalid_rows)]
    for r, clauses in valid.groupby("row")["clause"]:
        assert clauses.tolist() == list(CLAUSE_IDS), r
    # The valid rows alone give the same results.
    alone_source = folder / f"valid.{in_format}"
    alone_frame = frame.iloc[sorted(r - 1 for r in set(valid["row"]))]
    write_text_members(alone_frame, alone_source, in_format)
    run(alone_source, half_percent_guides, folder / ("alone" + out.suffix))
    alone = read_output(folder / ("alone" + out.suffix))
    columns = [c for c in alone.columns if c != "row"]
    pd.testing.assert_frame_equal(
        valid[columns].reset_index(drop=True), alone[columns].reset_index(drop=True)
    )


# Cells of the date and number columns that the typed reading of a CSV file must treat as
# parse_members treats their text: padded, empty, NaN and infinite, beside the corruptions.
TYPED_READING_CELLS = {
    "birth_date": [" 1960-01-15 ", "\t1961-02-01", "1960-1-15", "2020-02-29"],
    "entry_date": [" ", "1990-01-01 ", "1990-01-01T00:00:00"],
    "separation_date": ["  2020-06-30", "2020-06-31"],
    "credited_service": [" 20.5 ", "nan", "-inf", "-0", "1_0", "2e1", "0x10", "+5"],
    "average_compensation": ["  ", " 40000", "NAN", "Infinity", "4e4", "40,000"],
}


@FILE_PROPERTY
@given(
    seed=st.integers(0, 10_000),
    cells=cell_edits(
        40, {name: [*texts, *CORRUPTIONS[name]] for name, texts in TYPED_READING_CELLS.items()}, 12
    ),
    chunk_rows=st.integers(1, 25),
)
def test_typed_reading_of_csv_writes_what_the_text_gives(
    half_percent_guides, tmp_path_factory, seed, cells, chunk_rows
):
    """run_batch types the date and number columns of a CSV chunk when every cell casts
    (batch._typed); the output is the one parse_members gives on the text, byte for byte."""
    folder = tmp_path_factory.mktemp("typed")
    frame = edited(as_text(generate_members(40, seed=seed)), cells)
    source = folder / "members.csv"
    frame.to_csv(source, index=False)
    typed = folder / "typed.csv"
    run(source, half_percent_guides, typed, chunk_rows=chunk_rows)
    text = folder / "text.csv"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(batch, "_typed", lambda table: table)
        run(source, half_percent_guides, text, chunk_rows=chunk_rows)
    assert typed.read_bytes() == text.read_bytes()


def test_typed_reading_types_clean_columns_and_leaves_a_bad_one_text(tmp_path, member):
    rows = [member(member_id="A"), member(member_id="B", credited_service="nan")]
    pd.DataFrame(rows).to_csv(tmp_path / "members.csv", index=False)
    (frame,) = batch._batches(tmp_path / "members.csv", "csv", 10, False, typed=True)
    assert pd.api.types.is_datetime64_dtype(frame["birth_date"].dtype)
    assert pd.api.types.is_float_dtype(frame["average_compensation"].dtype)
    assert not pd.api.types.is_float_dtype(frame["credited_service"].dtype)  # "nan": text
    assert frame["credited_service"].tolist() == [str(rows[0]["credited_service"]), "nan"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda b: b.replace(b"member_id", b"m\xe9mber_id", 1),
            "{path}: line 1 is not UTF-8 text (byte 0xe9); save the file as UTF-8",
        ),
        (
            lambda b: b.replace(b"general", b"g\xe9n\xe9ral", 1),
            "{path}: line {line} is not UTF-8 text (byte 0xe9); save the file as UTF-8",
        ),
        (
            lambda b: b.replace(b"police", b"polic\xff", 1),
            "{path}: line {line} is not UTF-8 text (byte 0xff); save the file as UTF-8",
        ),
        (
            lambda b: b.replace(b"general", b"general,extra", 1),
            "{path}: cannot read the member file (line {line} has 9 cells, the header 8)",
        ),
    ],
)
def test_an_unreadable_member_file_is_one_error_naming_file_and_line(
    half_percent_guides, tmp_path, change, message
):
    source = tmp_path / "members.csv"
    sample = Path(SAMPLE).read_bytes()
    data = change(sample)
    source.write_bytes(data)
    changed = next(i for i, (a, b) in enumerate(zip(data, sample, strict=False)) if a != b)
    line = data.count(b"\n", 0, changed) + 1
    with pytest.raises(MemberFileError) as raised:
        run(source, half_percent_guides, tmp_path / "out.csv")
    assert str(raised.value).startswith(message.format(path=source, line=line))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["members.csv"]


@pytest.mark.parametrize("pandas_metadata", [True, False])  # False: written by another tool
@pytest.mark.parametrize("column", ["member_id", "group"])
def test_parquet_bytes_that_are_not_utf8_are_one_error_without_a_line(
    half_percent_guides, sample_members, tmp_path, column, pandas_metadata
):
    """A Parquet file has no lines: its own bytes are binary, so no byte of it is named."""
    table = pa.Table.from_pandas(read_members(sample_members), preserve_index=False)
    values = [b"\xff" if row == 1 else str(v).encode() for row, v in enumerate(table[column])]
    table = table.set_column(table.schema.get_field_index(column), column, pa.array(values))
    if not pandas_metadata:
        table = table.replace_schema_metadata(None)
    source = tmp_path / "members.parquet"
    pq.write_table(table, source)
    message = (
        f"{source}: cannot read the member file "
        "(a text column holds bytes that are not UTF-8: Invalid UTF8 payload)"
    )
    with pytest.raises(MemberFileError, match=exactly(message)):
        run(source, half_percent_guides, tmp_path / "out.csv")
    assert not (tmp_path / "out.csv").exists()


@pytest.mark.parametrize("name", ["members.csv", "members"])
def test_a_member_file_that_is_a_folder_is_one_error(half_percent_guides, tmp_path, name):
    # Without an extension it was "members: a member file must end in one of [...] (got '')".
    source = tmp_path / name
    source.mkdir()
    with pytest.raises(
        MemberFileError,
        match=exactly(f"{source}: cannot read the member file (a folder, not a file)"),
    ):
        run(source, half_percent_guides, tmp_path / "out.csv")
    missing = tmp_path / "missing"
    with pytest.raises(
        MemberFileError, match=exactly(f"{missing}: cannot read the member file (no such file)")
    ):
        run(missing, half_percent_guides, tmp_path / "out.csv")


@pytest.mark.parametrize(
    ("kind", "ids", "expected"),
    [
        ("int32", [1, None, -2], ["1", "", "-2"]),
        ("uint64", [2**64 - 1, 0, None], ["18446744073709551615", "0", ""]),
        ("binary", [b"M-1", b"\xc3\xa9", None], ["M-1", "\u00e9", ""]),
        ("dictionary", ["M-1", "M-2", None], ["M-1", "M-2", ""]),
        ("large_string", ["M-1", "NA", None], ["M-1", "NA", ""]),
    ],
)
def test_parquet_ids_of_every_type_are_read_as_their_text(
    half_percent_guides, member, tmp_path, kind, ids, expected
):
    frame = pd.DataFrame([member() for _ in ids]).drop(columns="member_id")
    table = pa.Table.from_pandas(frame, preserve_index=False)
    types = {
        "int32": pa.int32(),
        "uint64": pa.uint64(),
        "binary": pa.binary(),
        "large_string": pa.large_string(),
    }
    if kind == "dictionary":
        column = pa.array(ids, type=pa.string()).dictionary_encode()
    else:
        column = pa.array(ids, type=types[kind])
    source = tmp_path / "members.parquet"
    pq.write_table(table.append_column("member_id", column), source)
    run(source, half_percent_guides, tmp_path / "out.parquet")
    result = read_output(tmp_path / "out.parquet").drop_duplicates("row")
    assert result["member_id"].tolist() == expected


def test_a_member_file_that_is_a_pipe_is_refused_without_waiting(half_percent_guides, tmp_path):
    import os

    source = tmp_path / "members.csv"
    os.mkfifo(source)
    message = f"{source}: cannot read the member file (a named pipe, not a file)"
    with pytest.raises(MemberFileError, match=exactly(message)):
        run(source, half_percent_guides, tmp_path / "out.csv")


# ------------------------------------------------------------------ Arrow conversion
def _from_pandas(values, kind):
    """What the batch's conversion must equal: pyarrow's own, NaN and NaT as missing."""

    return pa.array(values, type=kind, from_pandas=True)


@settings(deadline=None)  # Arrow's first conversions may take longer
@given(
    st.lists(st.one_of(st.none(), st.floats(allow_nan=False, width=64)), max_size=200),
    st.integers(0, 9),
)
def test_amounts_reach_arrow_as_pyarrow_converts_them(values, skip):
    import numpy as np

    array = np.array([np.nan if v is None else v for v in values], dtype=float)[skip:]
    converted = batch._arrow_numbers(array, pa.float64())
    assert converted.equals(_from_pandas(array, pa.float64()))


@settings(deadline=None)  # Arrow's first conversions may take longer
@given(
    st.lists(st.one_of(st.none(), st.dates(dt.date(1, 1, 1), dt.date(9999, 12, 31)))),
    st.lists(st.booleans(), max_size=200),
)
def test_dates_and_flags_reach_arrow_as_pyarrow_converts_them(dates, flags):
    import numpy as np

    days = np.array([np.datetime64("NaT") if d is None else d for d in dates], "datetime64[D]")
    assert batch._arrow_numbers(days, pa.date32()).equals(_from_pandas(days, pa.date32()))
    seconds = days.astype("datetime64[s]")  # the table's unit
    assert batch._arrow_numbers(seconds, pa.date32()).equals(_from_pandas(days, pa.date32()))
    marks = np.array(flags, dtype=bool)
    assert batch._arrow_numbers(marks, pa.bool_()).equals(_from_pandas(marks, pa.bool_()))
    rows = np.arange(len(flags), dtype=np.int64)
    assert batch._arrow_numbers(rows, pa.int64()).equals(_from_pandas(rows, pa.int64()))


@settings(deadline=None)  # Arrow's first conversions may take longer
@given(st.lists(st.one_of(st.none(), st.text(max_size=6)), max_size=50), st.integers(0, 5))
def test_defused_cells_are_those_the_formula_characters_begin(texts, skip):
    import pyarrow.compute as pc

    array = pa.array(texts, type=pa.string()).slice(skip)  # a slice: offsets not from 0
    start = "^[" + re.escape(batch.SPREADSHEET_ESCAPED_START) + "]"
    risky = pc.fill_null(pc.match_substring_regex(array, start), False)
    expected = pc.if_else(risky, pc.binary_join_element_wise("'", array, ""), array)
    assert batch._spreadsheet_safe(array).equals(expected)


@settings(deadline=None)
@given(st.lists(st.text(alphabet="='+-@a\t", max_size=4), max_size=30))
def test_defused_cells_give_their_text_back_and_no_two_become_one(texts):
    # "=x" and "'=x", two members' ids, were both written "'=x".
    written = batch._spreadsheet_safe(pa.array(texts, type=pa.string())).to_pylist()
    assert [text[1:] if text.startswith("'") else text for text in written] == texts
    assert not any(text[:1] in "=+-@\t\r" and text for text in written)  # none evaluated


def test_ids_one_apostrophe_apart_stay_apart_in_the_csv_output(half_percent_guides, tmp_path):
    members = tmp_path / "members.csv"
    row = ",1960-06-15,1990-06-15,2015-06-15,25,24000,general,false\n"
    members.write_text(
        "member_id,birth_date,entry_date,separation_date,credited_service,"
        "average_compensation,group,refunded\n" + "=x" + row + "'=x" + row,
        encoding="utf-8",
    )
    run_batch(members, half_percent_guides, tmp_path / "out.csv", progress=False)
    written = pd.read_csv(tmp_path / "out.csv", dtype=str)["member_id"]
    assert list(written.drop_duplicates()) == ["'=x", "''=x"]


# ---------------------------------------------------------------------- progress
def test_the_progress_bar_counts_the_members_of_a_large_file(
    half_percent_guides, sample_members, tmp_path, monkeypatch, capsys
):
    monkeypatch.setattr(batch, "PROGRESS_FROM_ROWS", 300)  # the sample: 313 members
    run_batch(sample_members, half_percent_guides, tmp_path / "shown.csv", progress=True)
    shown = capsys.readouterr().err
    assert shown.startswith("\rmembers:") and "0/313" in shown  # cleared when done
    monkeypatch.setattr(batch, "PROGRESS_FROM_ROWS", 314)
    run_batch(sample_members, half_percent_guides, tmp_path / "small.csv", progress=True)
    run_batch(sample_members, half_percent_guides, tmp_path / "off.csv", progress=False)
    assert capsys.readouterr().err == ""


def test_a_csv_batch_without_a_bar_imports_neither_tqdm_nor_parquet(tmp_path):
    """Both are imported only when used: 80 ms of a batch's startup CPU."""
    out = tmp_path / "out.csv"
    script = (
        "import sys; from actuarial.__main__ import main\n"
        f"sys.argv = ['actuarial', 'batch', {SAMPLE!r}, '--out', {str(out)!r}, '--no-progress']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('tqdm', 'pyarrow.parquet') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.stdout.splitlines()[-1] == "[]", done.stderr
    assert out.exists()


@pytest.mark.parametrize(
    ("ids", "shown"),
    [
        (pa.array([["P-1"], ["P-1"]]), ["['P-1']"] * 2),
        (pa.array([{"id": "P-1"}, {"id": "P-1"}]), ["{'id': 'P-1'}"] * 2),
        (
            pa.array([dt.datetime(2000, 1, 1, 5, 6), dt.datetime(2000, 1, 2)], pa.timestamp("ms")),
            ["2000-01-01 05:06:00", "2000-01-02 00:00:00"],
        ),
        # Shown as the date it is, though the batch reads other date columns as datetime64
        (pa.array([dt.date(2000, 1, 2)] * 2), ["2000-01-02"] * 2),
        (pa.array([dt.date(2000, 1, 2)] * 2, pa.date64()), ["2000-01-02"] * 2),
        (pa.array([dt.time(5, 6)] * 2), ["05:06:00"] * 2),
        (pa.array([Decimal("7.50")] * 2, pa.decimal128(10, 2)), ["7.50"] * 2),
        (pa.array([7.0, 7.0]), ["7.0"] * 2),
        (pa.array([True, True]), ["True"] * 2),
    ],
    ids=lambda value: str(value.type) if isinstance(value, pa.Array) else None,
)
def test_parquet_ids_that_are_not_text_or_whole_numbers_are_errors_never_repeated(
    half_percent_guides, member, tmp_path, ids, shown
):
    """A list or a struct of ids was a traceback from the first pass; a date or a timestamp
    became text with no error; floats and booleans were also "not unique" (the first pass
    compared them as text). Each row is kept, with the one error of such an id."""
    frame = pd.DataFrame([member(), member()]).drop(columns="member_id")
    table = pa.Table.from_pandas(frame, preserve_index=False).append_column("member_id", ids)
    source = tmp_path / "members.parquet"
    pq.write_table(table, source)
    summary = run(source, half_percent_guides, tmp_path / "out.csv")
    assert (summary.members, summary.invalid) == (2, 2)
    result = read_output(tmp_path / "out.csv")
    rule = "'member_id' must be text or a whole number"
    assert result["error"].tolist() == [
        f"members.parquet row {row} (member {value}): {rule} (got {value})"
        for row, value in enumerate(shown, 1)
    ]
    assert result["member_id"].tolist() == ["", ""]


@pytest.mark.parametrize("run", ["batch", "valuation"])
@pytest.mark.parametrize(
    ("guides", "readings", "message"),
    [
        (
            None,
            None,
            "'guides' must be the guides of one series, from actuarial.load_guides (got None)",
        ),
        (
            "guides",
            None,
            "'guides' must be the guides of one series, from "
            "actuarial.load_guides (got str 'guides')",
        ),
        (
            ...,
            {},
            "'readings' must be an actuarial.Readings, e.g. Readings(**mapping) (got dict {})",
        ),
    ],  # fmt: skip
)
def test_a_file_run_names_guides_or_readings_of_the_wrong_kind(
    half_percent_guides, sample_members, tmp_path, run, guides, readings, message
):
    # run_batch(path, None, out) raised "AttributeError: 'NoneType' object has no attribute
    # 'files'", and run_valuation too; an empty mapping of readings was the defaults.
    from actuarial.valuation import Basis, run_valuation

    guides = half_percent_guides if guides is ... else guides
    out = tmp_path / "out.csv"
    with pytest.raises(TypeError) as error:
        if run == "batch":
            run_batch(sample_members, guides, out, readings=readings, progress=False)
        else:
            run_valuation(sample_members, guides, Basis("sult", 0.05), out, readings=readings)
    assert str(error.value) == message
    assert not out.exists()


def test_a_whole_number_is_quoted_as_written_not_as_the_float_it_was_read_as(
    half_percent_guides, tmp_path
):
    # CSV service -1 was quoted "got -1.0", and a compensation of 2**62 "got 4.6116...e+18".
    members = tmp_path / "members.csv"
    members.write_text(
        "member_id,birth_date,entry_date,separation_date,credited_service,"
        "average_compensation,group,refunded\n"
        "A,1960-06-15,1990-06-15,2015-06-15,-1,24000,general,false\n"
        f"B,1960-06-15,1990-06-15,2015-06-15,25,{2**62},general,false\n"
        "C,1960-06-15,1990-06-15,2015-06-15,-2.5,24000,general,false\n",
        encoding="utf-8",
    )
    run_batch(members, half_percent_guides, tmp_path / "out.csv", progress=False)
    errors = pd.read_csv(tmp_path / "out.csv", dtype=str)["error"].tolist()
    assert errors[0].endswith("'credited_service' must be >= 0 (got -1)")
    assert errors[1].endswith(f"(a plausibility bound) (got {2**62})")
    assert errors[2].endswith("'credited_service' must be >= 0 (got -2.5)")


def test_a_batch_that_reads_fewer_rows_than_the_file_holds_writes_nothing(
    tmp_path, monkeypatch, write_members, member, half_percent_guides
):
    # "Every input row is in the output, or no output": a chunk lost between the first pass
    # and the output (here, the last, dropped on purpose) is an error, not a short file.
    members = write_members([member(member_id=f"A-{n}") for n in range(3)])
    read = batch._batches

    def losing_the_last(*args, **kwargs):
        frames = list(read(*args, **kwargs))
        yield from frames[:-1]

    monkeypatch.setattr(batch, "_batches", losing_the_last)
    out = tmp_path / "out.csv"
    with pytest.raises(MemberFileError, match="read 2 rows but the file has 3"):
        run_batch(
            members, half_percent_guides, out, as_of=dt.date(2026, 6, 1), chunk_rows=1,
            progress=False,
        )  # fmt: skip
    assert not out.exists()
