"""Whole member files: read in chunks, evaluate, write every row, summarize.

CSV or Parquet in, CSV or Parquet out (by extension). Required columns are checked before
any output is written; member ids are checked for duplicates over the whole file first,
in bounded memory (:mod:`actuarial.duplicate_ids`); then the file streams through the
engine in chunks of bounded size, with a progress bar, one thread writing as the next
chunk is computed.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

from actuarial.duplicate_ids import duplicated_ids
from actuarial.engine import COLUMNS, CodedText, MemberResults, evaluate_members
from actuarial.guides import GuideSet
from actuarial.interpretations import Readings
from actuarial.law.clauses import CLAUSES
from actuarial.law.parameters import law_in_force, resolve_as_of
from actuarial.members import (
    MEMBER_FIELDS,
    MemberFileError,
    check_columns,
    parse_members,
)

__all__ = ["OUTPUT_SCHEMA", "BatchSummary", "read_members", "run_batch"]

OUTPUT_SCHEMA = pa.schema([(column.name, column.arrow_type) for column in COLUMNS])
# The text columns reach the writers as dictionaries (the codes and distinct texts of the
# categorical results): the CSV writer expands them a block at a time, and Parquet stores
# text dictionary-encoded anyway, so millions of strings are never built nor hashed.
# The files hold OUTPUT_SCHEMA's types: strings.
TEXT_COLUMNS = tuple(column.name for column in COLUMNS if column.coded)
WRITE_SCHEMA = pa.schema(
    [
        pa.field(f.name, pa.dictionary(pa.int32(), f.type)) if f.name in TEXT_COLUMNS else f
        for f in OUTPUT_SCHEMA
    ]
)
CSV_WRITE_OPTIONS = pa_csv.WriteOptions(batch_size=16_384)  # rows formatted at a time
FORMATS = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}
# Members per chunk: small enough that a chunk's arrays reuse memory (500,000 was a
# quarter slower), large enough for Parquet row groups of a million rows (smaller ones
# make a larger file).
DEFAULT_CHUNK_ROWS = 250_000
PROGRESS_FROM_ROWS = 100_000  # smaller files finish before a bar is worth drawing


@dataclass(slots=True)
class BatchSummary:
    """What a batch did: members read, invalid rows, eligible counts per clause."""

    members: int = 0
    invalid: int = 0
    not_covered: int = 0
    eligible: dict = field(default_factory=lambda: dict.fromkeys(CLAUSES, 0))
    lifted_by_minimum: int = 0
    clause_errors: int = 0
    output_rows: int = 0
    as_of: dt.date | None = None
    law_files: list = field(default_factory=list)  # {"file", "sha256"} in the order applied
    guides_used: dict = field(default_factory=dict)  # guide id -> status, for reduced rows

    def add(self, results) -> None:
        valid = results.members.valid
        self.members += len(valid)
        self.invalid += int((~valid).sum())
        self.not_covered += int((valid & ~results.covered).sum())
        for column, clause in enumerate(results.clause_ids):
            self.eligible[clause] = self.eligible.get(clause, 0) + int(
                results.eligible[:, column].sum()
            )
        self.lifted_by_minimum += int((results.minimum_topup > 0).any(axis=1).sum())
        self.clause_errors += int(results.error_mask.sum())
        self.output_rows += int(len(results.clauses) * valid.sum() + (~valid).sum())
        self.as_of = results.as_of
        self.law_files = results.law.provenance()
        used = np.unique(results.guide_index[results.guide_index >= 0])
        for index in used:
            guide = results.guides.guides[index]
            self.guides_used[guide.id] = guide.status

    def lines(self) -> list[str]:
        eligible = ", ".join(f"({c}) {n:,}" for c, n in self.eligible.items())
        return [
            f"members: {self.members:,} (invalid rows: {self.invalid:,}; "
            f"not covered, I-1: {self.not_covered:,})",
            f"eligible by clause: {eligible}",
            f"members lifted by the monthly minimum: {self.lifted_by_minimum:,}",
            f"clause rows with an error (no guide factor): {self.clause_errors:,}",
            f"output rows: {self.output_rows:,}",
            f"payment date: the later of {self.as_of} (as of) and each annuity's start date",
            *(f"law: {f['file']} sha256 {f['sha256']}" for f in self.law_files),
            *(
                f"note: guide '{guide}' is {status}, not adopted by the Junta de Síndicos: "
                "its reductions are illustrations, not the Board's"
                for guide, status in self.guides_used.items()
                if status != "adopted"
            ),
        ]


def _format(path: Path, what: str) -> str:
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise MemberFileError(
            f"{path}: {what} must end in one of {sorted(FORMATS)} (got {path.suffix!r})"
        )
    return fmt


def _csv_reader(path: Path, columns, block_size=1 << 24):
    return pa_csv.open_csv(
        path,
        read_options=pa_csv.ReadOptions(block_size=block_size),
        convert_options=pa_csv.ConvertOptions(
            include_columns=list(columns),
            column_types=dict.fromkeys(columns, pa.string()),
            strings_can_be_null=True,
        ),
    )


def _columns(path: Path, fmt: str) -> list[str]:
    if fmt == "parquet":
        return list(pq.read_schema(path).names)
    # csv.reader: header names may be quoted; utf-8-sig: a spreadsheet's byte order mark.
    with path.open(newline="", encoding="utf-8-sig") as handle:
        return [name.strip() for name in next(csv.reader(handle), [])]


def _parquet_reader(path: Path) -> pq.ParquetFile:
    # pre_buffer=False: pre-buffering keeps every row group's bytes until the reader is
    # closed, so memory grew with the file (by its size on disk); reading is as fast.
    return pq.ParquetFile(path, pre_buffer=False)


def _batches(
    path: Path, fmt: str, chunk_rows: int, date_as_object: bool = True
) -> Iterator[pd.DataFrame]:
    """The member file in frames of about ``chunk_rows`` rows (required columns only).

    ``date_as_object=False``: Parquet date columns as datetime64, the engine's form, rather
    than a Python object per cell to build and convert back.
    """
    if fmt == "parquet":
        for batch in _parquet_reader(path).iter_batches(chunk_rows, columns=list(MEMBER_FIELDS)):
            yield batch.to_pandas(date_as_object=date_as_object)
        return
    pending: list[pa.RecordBatch] = []
    size = 0
    for batch in _csv_reader(path, MEMBER_FIELDS):
        pending.append(batch)
        size += batch.num_rows
        while size >= chunk_rows:  # a block read may hold many chunks
            table = pa.Table.from_batches(pending)
            yield table.slice(0, chunk_rows).to_pandas()
            rest = table.slice(chunk_rows)
            pending, size = rest.to_batches(), rest.num_rows
    if pending:
        yield pa.Table.from_batches(pending).to_pandas()


def _id_chunks(path: Path, fmt: str, chunk_rows: int) -> Iterator[pa.Array]:
    """The member_id column alone, in chunks, as stored (ids may be stored as numbers)."""
    if fmt == "parquet":
        for batch in _parquet_reader(path).iter_batches(chunk_rows, columns=["member_id"]):
            yield batch.column(0)
        return
    for batch in _csv_reader(path, ["member_id"]):
        yield batch.column(0)


def _duplicated_in_file(path: Path, fmt: str, chunk_rows: int):
    """The first pass: rows whose member_id occurs more than once in the whole file."""
    return duplicated_ids(lambda: _id_chunks(path, fmt, chunk_rows))


def read_members(path) -> pd.DataFrame:
    """A whole member file (required columns kept as read; extra columns dropped)."""
    path = Path(path)
    fmt = _format(path, "a member file")
    _check_readable(path, fmt)
    frames = list(_batches(path, fmt, 1 << 30))
    return frames[0] if frames else pd.DataFrame(columns=list(MEMBER_FIELDS))


def _check_readable(path: Path, fmt: str) -> None:
    if not path.is_file():
        raise MemberFileError(f"{path}: cannot read the member file (no such file)")
    try:
        columns = _columns(path, fmt)
    except (OSError, UnicodeDecodeError, pa.ArrowException) as error:
        raise MemberFileError(f"{path}: cannot read the member file ({error})") from error
    check_columns(columns, str(path))


def _arrow_table(results: MemberResults) -> pa.Table:
    """The result columns as Arrow columns of :data:`WRITE_SCHEMA` (no pandas in between)."""
    columns = {}
    for name, values in results.columns().items():
        kind = WRITE_SCHEMA.field(name).type
        if isinstance(values, CodedText):
            texts = pa.array(values.texts, type=pa.string(), from_pandas=True)
            if name == "member_id":  # one id per row
                columns[name] = texts.take(values.codes)
            else:
                codes = pa.array(values.codes, type=kind.index_type)
                columns[name] = pa.DictionaryArray.from_arrays(codes, texts)
        elif isinstance(values, pa.Array):
            columns[name] = values
        else:  # NaN amounts and NaT dates become missing values
            columns[name] = pa.array(values, type=kind, from_pandas=True)
    return pa.table(columns, schema=WRITE_SCHEMA)


def run_batch(
    members_path,
    guides: GuideSet,
    out_path,
    as_of: dt.date | None = None,
    readings: Readings | None = None,
    chunk_rows: int = DEFAULT_CHUNK_ROWS,
    progress: bool = True,
    law=None,
) -> BatchSummary:
    """Evaluate a member file into ``out_path``; every input row is in the output.

    Raises :class:`MemberFileError` (before writing anything) when the file cannot be
    read or lacks a required column.
    """
    from tqdm import tqdm

    readings = readings or Readings()
    law = law_in_force(law)
    as_of = resolve_as_of(as_of)
    members_path, out_path = Path(members_path), Path(out_path)
    fmt = _format(members_path, "a member file")
    out_fmt = _format(out_path, "the output file")
    _check_readable(members_path, fmt)
    try:
        duplicated = _duplicated_in_file(members_path, fmt, chunk_rows)
    except pa.ArrowException as error:
        raise MemberFileError(f"{members_path}: cannot read the member file ({error})") from error
    total = len(duplicated)

    metadata = {
        b"actuarial.readings": json.dumps(readings.as_dict()).encode(),
        b"actuarial.guides": json.dumps(
            {g.id: g.sha256() for g in guides}, sort_keys=True
        ).encode(),
        b"actuarial.members": str(members_path.name).encode(),
        b"actuarial.law": json.dumps(law.provenance()).encode(),
        b"actuarial.as_of": as_of.isoformat().encode(),
    }
    partial = out_path.with_name(out_path.name + ".partial")
    out_path.parent.mkdir(parents=True, exist_ok=True)
    summary = BatchSummary(as_of=as_of, law_files=law.provenance())
    if out_fmt == "parquet":
        # The Arrow schema (dictionaries) is not stored: the file's types are OUTPUT_SCHEMA's.
        writer = pq.ParquetWriter(partial, WRITE_SCHEMA, store_schema=False)
        writer.add_key_value_metadata(metadata)
    else:
        writer = pa_csv.CSVWriter(partial, WRITE_SCHEMA, write_options=CSV_WRITE_OPTIONS)
    first_row = 1
    # Arrow writes (encodes, compresses) a chunk without holding the GIL: one thread writes
    # chunk k while this one computes chunk k + 1. At most one chunk waits to be written.
    writing = ThreadPoolExecutor(max_workers=1, thread_name_prefix="actuarial-write")
    pending = None
    try:
        with tqdm(
            total=total,
            unit=" members",
            disable=not progress or total < PROGRESS_FROM_ROWS,
            desc="members",
            leave=False,
        ) as bar:
            for frame in _batches(members_path, fmt, chunk_rows, date_as_object=False):
                count = len(frame)
                members = parse_members(
                    frame,
                    source=members_path.name,
                    first_row=first_row,
                    duplicated=duplicated[first_row - 1 : first_row - 1 + count],
                )
                results = evaluate_members(members, guides, as_of, readings, law)
                summary.add(results)
                table = _arrow_table(results)
                if pending is not None:
                    pending.result()  # raises what the write raised
                pending = writing.submit(writer.write_table, table)
                first_row += count
                bar.update(count)
            if pending is not None:
                pending.result()
    except BaseException:
        writing.shutdown(wait=True, cancel_futures=True)
        writer.close()
        partial.unlink(missing_ok=True)
        raise
    writing.shutdown(wait=True)
    writer.close()
    if summary.members != total:  # every input row is accounted for, or no output
        partial.unlink(missing_ok=True)
        raise MemberFileError(
            f"{members_path}: read {summary.members} rows but the file has {total}"
        )
    os.replace(partial, out_path)
    return summary
