"""Whole member files: read in chunks, evaluate, write every row, summarize.

CSV or Parquet in, CSV or Parquet out (by extension). The output may not be the input, and
is written through a temporary file of the run's own, renamed onto it only when complete
(:mod:`actuarial.output_files`). Required columns are checked before any output is written;
member ids are checked for duplicates over the whole file first, in bounded memory
(:mod:`actuarial.duplicate_ids`); then the file streams through the engine in chunks of
bounded size (rows and bytes), with a progress bar. Threads beside the one that parses and
evaluates: the first pass (while a small first chunk is computed), the reading of the next
chunk, and the writing (conversion to Arrow; for CSV, two formatting threads and one
appending in order). Every cell is read as text (CSV) or as stored (Parquet; integer ids
become their digits): only an empty cell is missing, no token ("NA", "null") is; dates and
numbers are typed as the members' parser types text (:func:`_typed`).

In CSV output a text cell that a spreadsheet would evaluate (it begins with ``=``, ``+``,
``-``, ``@``, a tab or a carriage return) is written after an apostrophe, ``'=1+2``, and so
is one that begins with an apostrophe (``'=1+2`` -> ``''=1+2``), so that each cell is read
back by taking one apostrophe off a cell that begins with one: two ids never become one.
The Parquet output keeps every value as read.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import numbers
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from actuarial import arrow_text
from actuarial.duplicate_ids import DuplicateIds
from actuarial.engine import (
    COLUMNS,
    CodedText,
    MemberResults,
    checked_guides_and_readings,
    evaluate_members,
)
from actuarial.guides import GuideSet
from actuarial.interpretations import Readings
from actuarial.law.clauses import CLAUSES
from actuarial.law.parameters import law_in_force, resolve_as_of
from actuarial.member_files import (
    FirstPass,
    batch_inputs,
    file_format,
    member_file_format,
    parquet,
    readable_member_file,
    reading,
    record_batches,
)
from actuarial.member_record import DATE_FIELDS, DEFAULT_CHUNK_ROWS, NUMBER_FIELDS
from actuarial.members import (
    MEMBER_FIELDS,
    MemberFileError,
    cast_trimmed,
    parse_members,
)
from actuarial.output_files import check_output, check_paths, takes_paths, writing
from actuarial.shown_text import as_given

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
CSV_BODY_OPTIONS = pa_csv.WriteOptions(
    batch_size=CSV_WRITE_OPTIONS.batch_size, include_header=False
)
# Output rows formatted at a time by one of CSV_FORMAT_THREADS threads: 10 MB of text, so
# that the last chunk's writing is shared too, and the text in memory small.
CSV_SLICE_ROWS = 32_768
CSV_FORMAT_THREADS = 2
# Members per chunk: DEFAULT_CHUNK_ROWS (actuarial.member_record). A Parquet row group holds
# PARQUET_GROUP_CHUNKS chunks: a million rows (smaller groups make a larger file: 11%
# larger with half a million rows).
PARQUET_GROUP_CHUNKS = 2
# ...and of bytes of text: a chunk ends early when its cells hold more, so long fields never
# make a chunk much larger than this (250,000 generated members hold 22 MB).
CHUNK_BYTES = 32 << 20
# Members of the first chunk, computed while the first pass reads the ids (0.2-0.3 s at
# 10^6 members; writing waits for the pass): about as many as are computed meanwhile, and
# few enough that their memory adds little to the pass's.
FIRST_CHUNK_ROWS = 65_536
# Chunks computed while the first pass reads (the first one and one more; fewer if they hold
# CHUNK_BYTES of member data): at 10^6 members, 0.1-0.2 s less than one alone; each held
# chunk adds its results to the peak (four held: 0.66 GB against 0.54 GB, Parquet).
EARLY_CHUNKS = 2
# A text cell beginning with one of these is a formula to a spreadsheet: written after an
# apostrophe in CSV; so is one beginning with an apostrophe, so that the apostrophe added
# can be told from one of the text ("=x" -> "'=x", "'=x" -> "''=x").
SPREADSHEET_FORMULA_START = "=+-@\t\r"
SPREADSHEET_ESCAPED_START = SPREADSHEET_FORMULA_START + "'"
PROGRESS_FROM_ROWS = 100_000  # smaller files finish before a bar is worth drawing
# Member fields read typed from CSV text where every cell of a chunk is a date or a number
# (:func:`_typed`): those a Member holds as dates and as numbers.
TYPED_FIELDS = {
    **dict.fromkeys(DATE_FIELDS, pa.date32()),
    **dict.fromkeys(NUMBER_FIELDS, pa.float64()),
}


@dataclass(slots=True)
class BatchSummary:
    """What a batch did: members read, invalid rows, eligible counts per clause."""

    members: int = 0
    invalid: int = 0
    not_covered: int = 0
    eligible: dict = field(default_factory=lambda: dict.fromkeys(CLAUSES, 0))
    lifted_by_minimum: int = 0
    clause_errors: int = 0
    with_warnings: int = 0
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
        self.with_warnings += int(results.warned.sum())
        self.output_rows += int(len(results.clauses) * valid.sum() + (~valid).sum())
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
            f"members with data-quality warnings: {self.with_warnings:,}",
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


def _batches(
    path: Path,
    fmt: str,
    chunk_rows: int,
    date_as_object: bool = True,
    first_rows: int | None = None,
    typed: bool = False,
) -> Iterator[pd.DataFrame]:
    """The member file in frames of ``chunk_rows`` rows (required columns only), or fewer
    when their cells hold more than about :data:`CHUNK_BYTES`; the first frame of at most
    ``first_rows`` rows.

    ``date_as_object=False``: Parquet date columns as datetime64, the engine's form, rather
    than a Python object per cell to build and convert back. ``typed``: the date and number
    columns read as text typed where they can be (:func:`_typed`).
    """

    def frame(batches) -> pd.DataFrame:
        return table_frame(pa.Table.from_batches(batches))

    def table_frame(table: pa.Table) -> pd.DataFrame:
        # The values' own types only: a Parquet file's pandas metadata may say otherwise (a
        # column of lists declared text made the whole file unreadable), and is not needed.
        frame = (_typed(table) if typed else table).to_pandas(
            date_as_object=date_as_object, ignore_metadata=True
        )
        ids = table.column("member_id")
        if not date_as_object and pa.types.is_date(ids.type):  # no id: its error quotes
            frame["member_id"] = ids.to_pandas(date_as_object=True)  # the date, no time
        return frame

    pending: list[pa.RecordBatch] = []
    size = nbytes = 0
    rows = min(first_rows or chunk_rows, chunk_rows)  # of the next frame
    for batch in record_batches(path, fmt, list(MEMBER_FIELDS)):
        pending.append(batch)
        size += batch.num_rows
        nbytes += batch.nbytes
        while size >= rows:  # a block read may hold many chunks
            table = pa.Table.from_batches(pending)
            yield table_frame(table.slice(0, rows))
            rest = table.slice(rows)
            pending, size = rest.to_batches(), rest.num_rows
            nbytes = sum(part.nbytes for part in pending)
            rows = chunk_rows
        if nbytes >= CHUNK_BYTES and size:  # long fields: a chunk of fewer rows
            yield frame(pending)
            pending, size, nbytes, rows = [], 0, 0, chunk_rows
    if pending:
        yield frame(pending)


def _typed(table: pa.Table) -> pa.Table:
    """The date and number columns of :data:`TYPED_FIELDS` read as text, typed as
    :func:`~actuarial.members.parse_members` types text: each cell trimmed, an empty one
    missing, then a cast of the whole column (exact dates YYYY-MM-DD, decimal numbers).

    A column with a cell that does not cast, or a number that is NaN or infinite (errors
    that show the text as given: "nan" is not a missing value, "1e400" not "inf"), stays
    text: parse_members reports it row by row, as always. So the members parsed, and every
    message, are those of the text (the typed columns spare the main thread the trimming
    and parsing: done here, in the reading thread).
    """
    for name, kind in TYPED_FIELDS.items():
        position = table.schema.get_field_index(name)
        column = table.column(position)
        if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
            continue  # typed already (Parquet)
        try:  # Arrow casts no text with white space around it: trimmed only when needed
            values = cast_trimmed(column, kind)
        except pa.ArrowInvalid:
            try:
                values = cast_trimmed(pc.utf8_trim_whitespace(column), kind)
            except pa.ArrowInvalid:
                continue
        if pa.types.is_floating(kind) and pc.any(pc.invert(pc.is_finite(values))).as_py():
            continue  # an error shown as given (got 'nan', '1e400'): text
        table = table.set_column(position, name, values)
    return table


@takes_paths("path")
def read_members(path) -> pd.DataFrame:
    """A whole member file (required columns kept as read; extra columns dropped)."""
    path = Path(path)
    fmt = readable_member_file(path)
    frames = list(reading(path, _batches(path, fmt, sys.maxsize)))  # in chunks of bytes
    if len(frames) > 1:
        return pd.concat(frames, ignore_index=True)
    return frames[0] if frames else pd.DataFrame(columns=list(MEMBER_FIELDS))


_FORMULA_BYTE = np.zeros(256, dtype=bool)  # whether a text beginning with the byte is one
_FORMULA_BYTE[np.frombuffer(SPREADSHEET_ESCAPED_START.encode(), np.uint8)] = True


def _spreadsheet_safe(texts: pa.Array) -> pa.Array:
    """Text cells a spreadsheet would evaluate, after an apostrophe (``=1+2`` -> ``'=1+2``),
    and those beginning with an apostrophe (``'a`` -> ``''a``): reversible, one apostrophe
    off a cell beginning with one giving the text back.

    Found by the first byte of each text: the characters of :data:`SPREADSHEET_ESCAPED_START`
    are ASCII, and in UTF-8 no other character begins with their byte.
    """
    texts = texts.cast(pa.string()) if texts.type != pa.string() else texts
    offsets = arrow_text.offsets(texts)
    data = arrow_text.data(texts)
    starts = offsets[:-1]
    filled = np.flatnonzero(offsets[1:] > starts)  # an empty text (or a null) has no byte
    risky = np.zeros(len(texts), dtype=bool)
    risky[filled] = _FORMULA_BYTE[data[starts[filled]]]
    if not risky.any():
        return texts
    return pc.if_else(risky, pc.binary_join_element_wise("'", texts, ""), texts)


def run_metadata(readings, guides, members_path: Path, law_files: list, as_of) -> dict:
    """A results file's Parquet metadata: what it was made from (the readings, each guide's
    files' SHA-256, the member file, the law files, the date asked for)."""
    return {
        b"actuarial.readings": json.dumps(readings.as_dict()).encode(),
        b"actuarial.guides": json.dumps(
            {g.id: g.sha256() for g in guides}, sort_keys=True
        ).encode(),
        b"actuarial.members": str(Path(members_path).name).encode(),
        b"actuarial.law": json.dumps(law_files).encode(),
        b"actuarial.as_of": as_of.isoformat().encode(),
    }


def write_results(table: pa.Table, path: Path, fmt: str, metadata: dict) -> None:
    """A results table in memory (of :data:`OUTPUT_SCHEMA`'s columns, then any others)
    written as the batch writes its files: CSV with the text cells a spreadsheet would
    evaluate after an apostrophe, Parquet with ``metadata``."""
    first = table.column_names[: len(OUTPUT_SCHEMA)]
    if first != OUTPUT_SCHEMA.names:
        raise ValueError(f"a results table's first columns must be {OUTPUT_SCHEMA.names}")
    table = table.cast(pa.schema([*OUTPUT_SCHEMA, *list(table.schema)[len(first) :]]))
    if fmt != "csv":
        parquet().write_table(table.replace_schema_metadata(metadata), str(path))
        return
    columns = [
        _spreadsheet_safe(column.combine_chunks()) if column.type == pa.string() else column
        for column in table.columns
    ]
    pa_csv.write_csv(
        pa.table(columns, names=table.column_names), str(path), write_options=CSV_WRITE_OPTIONS
    )


def _arrow_numbers(values: np.ndarray, kind: pa.DataType) -> pa.Array:
    """A number, flag or date column as Arrow: NaN and NaT become missing values (as
    ``pa.array(values, from_pandas=True)`` makes them), the numbers' buffer taken as is."""
    values = np.ascontiguousarray(values)
    if values.dtype == bool:
        bits = np.packbits(values, bitorder="little")
        return pa.Array.from_buffers(kind, len(values), [None, pa.py_buffer(bits)])
    if values.dtype.kind == "M":
        missing = np.isnat(values)
        values = values.astype("datetime64[D]", copy=False).view(np.int64).astype(np.int32)
    elif values.dtype.kind == "f":
        missing = np.isnan(values)
    else:
        return pa.array(values, type=kind)
    if kind.bit_width != values.dtype.itemsize * 8:
        return pa.array(values, type=kind, mask=missing)
    validity = None
    if missing.any():
        validity = pa.py_buffer(np.packbits(~missing, bitorder="little"))
    return pa.Array.from_buffers(kind, len(values), [validity, pa.py_buffer(values)])


def _arrow_table(results: MemberResults, for_spreadsheets: bool = False) -> pa.Table:
    """The result columns as Arrow columns of :data:`WRITE_SCHEMA` (no pandas in between);
    ``for_spreadsheets``: text cells defused as in CSV output."""
    columns = {}
    for name, values in results.columns().items():
        kind = WRITE_SCHEMA.field(name).type
        if isinstance(values, CodedText):
            texts = values.texts
            if not isinstance(texts, pa.Array):
                texts = pa.array(texts, type=pa.string(), from_pandas=True)
            if for_spreadsheets:  # on the distinct texts (a member's id once, not per clause)
                texts = _spreadsheet_safe(texts)
            if name == "member_id":  # one id per row
                columns[name] = texts.take(values.codes)
            else:
                codes = pa.array(values.codes, type=kind.index_type)
                # The codes index the texts by construction: not checked again.
                columns[name] = pa.DictionaryArray.from_arrays(codes, texts, safe=False)
        elif isinstance(values, pa.Array):
            columns[name] = values
        else:  # NaN amounts and NaT dates become missing values
            columns[name] = _arrow_numbers(values, kind)
    return pa.table(columns, schema=WRITE_SCHEMA)


def _appending(partial: Path) -> pa.NativeFile:
    """The run's temporary output file, opened to append: it is new and empty. Opened to
    truncate (as Arrow's writers open a path), ext4 flushes every page written to it when
    it is closed (``auto_da_alloc``): 0.3-1 s for the 600 MB of a million members' CSV."""
    return pa.OSFile(str(partial), "a")


class _Output:
    """The output file, written by a thread of its own: each chunk's results converted to
    Arrow and written there while the main thread computes the next chunk. Once a chunk
    is handed over, the one before it is waited for (so at most two are in the thread's
    hands, one of them being written); a failure of the thread is raised by the next call.
    """

    def __init__(self, sink: pa.NativeFile, for_spreadsheets: bool):
        self.sink, self.for_spreadsheets = sink, for_spreadsheets
        self.thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="actuarial-write")
        self.pending: list = []

    def write(self, results: MemberResults) -> None:
        """Hand ``results`` to the thread, then wait for the chunk before them."""
        self.pending.append(self.thread.submit(self._write, [results]))
        while len(self.pending) > 1:
            self._wait(self.pending.pop(0))

    @staticmethod
    def _wait(written) -> None:
        """Wait for a chunk: its conversion, and its writing when that goes on elsewhere."""
        writing = written.result()
        if writing is not None:
            writing.result()

    def _write(self, holding: list):
        """Convert the results, then let them go (the task holds its arguments until it
        ends): only their table stays while it is written."""
        results = holding.pop()
        members = len(results.members)
        table = _arrow_table(results, self.for_spreadsheets)
        del results
        return self.write_table(table, members)

    def write_table(self, table: pa.Table, members: int):
        """Write ``table``, or start writing it elsewhere and return that future."""
        raise NotImplementedError

    def close(self) -> None:
        """Write what is left; raises what a write raised."""
        while self.pending:
            self._wait(self.pending.pop(0))
        self.thread.submit(self.finish).result()  # in the thread, as every write
        self.thread.shutdown(wait=True)

    def finish(self) -> None:
        """The last write, once every chunk is written."""

    def abandon(self) -> None:
        self.thread.shutdown(wait=True, cancel_futures=True)


class _ParquetOutput(_Output):
    """Parquet: row groups of at least ``group_members`` members (the last: the rest)."""

    def __init__(self, sink: pa.NativeFile, metadata: dict, group_members: int):
        super().__init__(sink, for_spreadsheets=False)
        # The Arrow schema (dictionaries) is not stored: the file's types are OUTPUT_SCHEMA's.
        self.writer = parquet().ParquetWriter(sink, WRITE_SCHEMA, store_schema=False)
        self.writer.add_key_value_metadata(metadata)
        self.group_members = group_members
        self.group: list[pa.Table] = []
        self.members = 0

    def write_table(self, table: pa.Table, members: int) -> None:
        self.group.append(table)
        self.members += members
        if self.members >= self.group_members:
            self._write_group()

    def _write_group(self) -> None:
        group, self.group, self.members = self.group, [], 0
        if group:
            self.writer.write_table(pa.concat_tables(group))

    def finish(self) -> None:
        self._write_group()

    def close(self) -> None:
        super().close()
        self.writer.close()

    def abandon(self) -> None:
        super().abandon()
        with contextlib.suppress(Exception):
            self.writer.close()


class _CsvOutput(_Output):
    """CSV: slices of each chunk formatted by two threads at once (Arrow formats without
    the GIL), appended in order by a third, while the writing thread converts the next
    chunk. Each row's text depends on that row alone, so the file is the one a single
    writer would write, byte for byte."""

    def __init__(self, sink: pa.NativeFile):
        super().__init__(sink, for_spreadsheets=True)
        self.formatting = ThreadPoolExecutor(
            max_workers=CSV_FORMAT_THREADS, thread_name_prefix="actuarial-write-format"
        )
        self.appending = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="actuarial-write-append"
        )
        header = pa.BufferOutputStream()
        pa_csv.CSVWriter(header, WRITE_SCHEMA, write_options=CSV_WRITE_OPTIONS).close()
        self.sink.write(header.getvalue())

    @staticmethod
    def _formatted(table: pa.Table) -> pa.Buffer:
        text = pa.BufferOutputStream()
        writer = pa_csv.CSVWriter(text, WRITE_SCHEMA, write_options=CSV_BODY_OPTIONS)
        writer.write_table(table)
        writer.close()
        return text.getvalue()

    def write_table(self, table: pa.Table, members: int):
        slices = [
            self.formatting.submit(self._formatted, table.slice(start, CSV_SLICE_ROWS))
            for start in range(0, table.num_rows, CSV_SLICE_ROWS)
        ]
        return self.appending.submit(self._append, slices)

    def _append(self, slices: list) -> None:
        try:
            for formatted in slices:
                self.sink.write(formatted.result())
        finally:
            for formatted in slices:
                formatted.cancel()

    def close(self) -> None:
        super().close()
        self.formatting.shutdown(wait=True)
        self.appending.shutdown(wait=True)

    def abandon(self) -> None:
        super().abandon()
        self.formatting.shutdown(wait=False, cancel_futures=True)  # the appending ends
        self.appending.shutdown(wait=True, cancel_futures=True)
        self.formatting.shutdown(wait=True)


def _read_ahead(chunks: Iterator, thread: ThreadPoolExecutor) -> Iterator:
    """``chunks``, the next one read in ``thread`` while this one is used."""
    end = object()
    upcoming = thread.submit(next, chunks, end)
    while (chunk := upcoming.result()) is not end:
        upcoming = thread.submit(next, chunks, end)
        yield chunk


class _NoBar:
    """The progress bar not shown."""

    def update(self, members: int) -> None:
        pass


def _progress_bar(total: int, shown: bool):
    """A progress bar over ``total`` members on stderr; tqdm imported only to show one (50 ms
    of CPU, a batch's startup)."""
    if not shown:
        return contextlib.nullcontext(_NoBar())
    from tqdm import tqdm

    return tqdm(total=total, unit=" members", desc="members", leave=False)


def _check_chunk_rows(rows) -> None:
    """``chunk_rows`` is a whole number of at least 1, as ``--chunk-rows`` is: 0 would read
    empty chunks for ever, a negative number the whole file at once."""
    if isinstance(rows, bool) or not isinstance(rows, numbers.Integral) or rows < 1:
        raise ValueError(
            f"'chunk_rows' must be a whole number of at least 1 (got {as_given(rows)})"
        )


def run_batch(
    members_path,
    guides: GuideSet,
    out_path,
    as_of: dt.date | None = None,
    readings: Readings | None = None,
    chunk_rows: int = DEFAULT_CHUNK_ROWS,
    progress: bool = True,
    law=None,
    first_pass: FirstPass | None = None,
) -> BatchSummary:
    """Evaluate a member file into ``out_path``; every input row is in the output.

    ``first_pass``: the pass over the ids of ``members_path``, started by the caller
    (:meth:`FirstPass.start <actuarial.member_files.FirstPass.start>`) so that it reads the
    file while the caller imports this module; ended here, as one started here.

    Raises :class:`MemberFileError` (before writing anything) when the file cannot be
    read or lacks a required column, and
    :class:`~actuarial.output_files.OutputFileError` when the output is the input (or a
    link to it) or cannot be written. The output is replaced only by a complete run.
    """
    try:  # a first pass given is ended if the run stops before it is read
        check_paths(members_path=members_path, out_path=out_path, law=law)
        _check_chunk_rows(chunk_rows)
        readings = checked_guides_and_readings(guides, readings)
        law = law_in_force(law)
        as_of = resolve_as_of(as_of)
        members_path, out_path = Path(members_path), Path(out_path)
        fmt = member_file_format(members_path)
        out_fmt = file_format(out_path, "the output file")
        inputs = batch_inputs(members_path, guides, law)
        check_output(out_path, inputs)  # before anything is read (the command checks first)
        law_files = law.provenance()
        if first_pass is None:
            first_pass = FirstPass.start(members_path)  # checks the file can be read first
        elif first_pass.path != members_path:
            raise ValueError(f"the first pass given reads {first_pass.path}, not {members_path}")
        metadata = run_metadata(readings, guides, members_path, law_files, as_of)
        summary = BatchSummary(as_of=as_of, law_files=law_files)
    except BaseException:
        if first_pass is not None:
            first_pass.end()
        raise

    def evaluated(frame: pd.DataFrame, start: int, duplicates: DuplicateIds):
        """The chunk of rows ``start`` (0-based) on, parsed and evaluated."""
        members = parse_members(
            frame, source=members_path.name, first_row=start + 1, duplicates=duplicates
        )
        return evaluate_members(members, guides, as_of, readings, law)

    # Three threads besides this one: the chunks are read one ahead, and written (converted
    # to Arrow, formatted) while the next is computed; the first pass (its own thread) reads
    # every id while the first chunks (a small one, so that writing starts early, then
    # others while they hold less than CHUNK_BYTES of member data) are computed as if none
    # of their ids were repeated (again in the rare case that one is). Nothing is written
    # before the first pass is complete.
    reading_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="actuarial-read")
    chunks = _read_ahead(
        reading(
            members_path,
            _batches(members_path, fmt, chunk_rows, False, first_rows=FIRST_CHUNK_ROWS, typed=True),
        ),
        reading_thread,
    )
    try:
        early = []  # (frame, results) computed while the first pass reads
        try:
            try:
                start = held = 0
                while (
                    len(early) < EARLY_CHUNKS
                    and held < CHUNK_BYTES
                    and (frame := next(chunks, None)) is not None
                ):
                    no_repeats = DuplicateIds.none(start + len(frame))
                    early.append((frame, evaluated(frame, start, no_repeats)))
                    start += len(frame)
                    held += int(frame.memory_usage(index=False).sum())
                    if first_pass.future.done():
                        break
            except Exception:
                first_pass.result()  # its error first, as when it ran alone
                raise
            duplicates = first_pass.result()
        finally:
            first_pass.end()
        total = len(duplicates)
        frame = None  # held in `early` alone

        def computed():
            """Each chunk and its results in order: those computed early (again where an
            id of theirs is repeated), then the others as they are read."""
            start = 0
            while early:
                frame, results = early.pop(0)
                if duplicates.mask[start : start + len(frame)].any():
                    results = evaluated(frame, start, duplicates)
                start += len(frame)
                yield frame, results
                del frame, results  # not held while the next is computed
            while (frame := next(chunks, None)) is not None:
                yield frame, evaluated(frame, start, duplicates)
                start += len(frame)

        with writing(out_path, inputs) as partial, _appending(partial) as sink:
            if out_fmt == "parquet":
                output = _ParquetOutput(sink, metadata, PARQUET_GROUP_CHUNKS * chunk_rows)
            else:
                output = _CsvOutput(sink)
            try:
                with _progress_bar(total, progress and total >= PROGRESS_FROM_ROWS) as bar:
                    for members, results in computed():  # the next computed while written
                        summary.add(results)
                        output.write(results)  # once the previous chunk is written
                        del results
                        bar.update(len(members))
                    output.close()
            except BaseException:
                output.abandon()
                raise
            if summary.members != total:  # every input row is accounted for, or no output
                raise MemberFileError(
                    f"{members_path}: read {summary.members} rows but the file has {total}"
                )
    finally:
        chunks.close()
        reading_thread.shutdown(wait=True, cancel_futures=True)
    return summary
