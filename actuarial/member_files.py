"""Member files (CSV, Parquet) read with Arrow: their format, their columns, their record
batches and the errors of a file that cannot be read; and the first pass over their ids.

Without pandas: the command line starts the first pass over a member file while the
rest of the package (pandas included) is imported.
"""

from __future__ import annotations

import codecs
import csv
import io
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pa_csv

from actuarial.duplicate_ids import DuplicateIds, find_duplicates, id_texts, is_id_kind
from actuarial.member_record import (
    MEMBER_FIELDS,
    MEMBER_ID_MAX_LENGTH,
    MemberFileError,
    check_columns,
)
from actuarial.output_files import takes_paths
from actuarial.shown_text import one_line
from actuarial.text_files import NOT_A_REGULAR_FILE, not_a_file

__all__ = [
    "FORMATS",
    "FirstPass",
    "batch_inputs",
    "check_readable",
    "duplicated_in_file",
    "file_columns",
    "file_format",
    "member_file_format",
    "readable_member_file",
    "reading",
    "record_batches",
]

FORMATS = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}
PARQUET_BATCH_ROWS = 1_024  # Parquet rows decoded at a time: a row group of 20,000 rows of
# 40,000 characters peaked at 1.1 GB read 4,096 rows at a time, 0.6 GB 1,024 at a time.
HEADER_BYTES = 1 << 20  # a CSV header line longer than this is not read whole


@takes_paths("path")
def file_format(path: Path, what: str) -> str:
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        got = repr(path.suffix)
        if path.name.lower() in FORMATS:  # '.csv' alone: a hidden file's name, no extension
            got = f"{path.name!r} as the whole name: a hidden file's name, with no extension"
        raise MemberFileError(f"{path}: {what} must end in one of {sorted(FORMATS)} (got {got})")
    return fmt


# Bytes of CSV parsed at a time. Arrow's streaming reader reads up to 32 blocks ahead of
# the consumer whatever it does, so the block bounds that memory: 16 MB blocks held 600 MB
# of a wide file while a chunk was computed; 1 MB blocks hold 40 MB, at the same speed.
CSV_BLOCK_BYTES = 1 << 20


def _csv_reader(path: Path, columns, block_size=CSV_BLOCK_BYTES):
    return pa_csv.open_csv(
        path,
        read_options=pa_csv.ReadOptions(block_size=block_size),
        # A quoted cell may hold line breaks (a note over several lines): blocks end only
        # at a line break outside quotes. Without it, a cell across a block's end was cut
        # there, and its second half read as rows of its own.
        parse_options=pa_csv.ParseOptions(
            newlines_in_values=True, invalid_row_handler=_skip_blank_row
        ),
        convert_options=pa_csv.ConvertOptions(
            include_columns=list(columns),
            column_types=dict.fromkeys(columns, pa.string()),
            null_values=[""],  # only an empty cell is missing: "NA" is a value
            strings_can_be_null=True,
        ),
    )


def _skip_blank_row(row) -> str:
    """A line of white space only is skipped, as Arrow skips an empty one (it read it as a
    row of one cell and refused the file); any other row of too few or too many cells is an
    error (:func:`_misshapen_row` says where)."""
    return "skip" if row.text is not None and not row.text.strip() else "error"


def parquet():
    """``pyarrow.parquet``, imported once a Parquet file is read or written: 30 ms of CPU
    that a batch on CSV does not pay."""
    import pyarrow.parquet

    return pyarrow.parquet


@takes_paths("path")
def file_columns(path: Path, fmt: str) -> list[str]:
    """The names of a member file's columns, as written in its header (or schema); in a
    CSV header, without white space around them."""
    if fmt == "parquet":
        return list(parquet().read_schema(path).names)
    return [name.strip() for name in _header(path)]


def _header_line(path: Path) -> tuple[bytes, bool]:
    """A CSV file's header line, as bytes (bounded; more lines while a quoted name holds a
    line break), and whether it is the whole file, no line break after it."""
    with path.open("rb") as handle:
        header = handle.readline(HEADER_BYTES)
        while header.count(b'"') % 2 and len(header) < HEADER_BYTES:
            more = handle.readline(HEADER_BYTES - len(header))
            if not more:
                break
            header += more
        alone = not header.endswith((b"\n", b"\r")) and not handle.read(1)
    return header, alone


def _header(path: Path, header: bytes | None = None) -> list[str]:
    """A CSV file's column names, exactly as written (``header``: its line, if read)."""
    # csv.reader: header names may be quoted, lines may end in CR alone; utf-8-sig: a
    # spreadsheet's byte order mark.
    if header is None:
        header, _ = _header_line(path)
    try:
        text = header.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise _not_utf8(path, 1, header[error.start]) from error
    return next(csv.reader(io.StringIO(text, newline="")), [])


def _parquet_reader(path: Path):
    # pre_buffer=False: pre-buffering keeps every row group's bytes until the reader is
    # closed, so memory grew with the file (by its size on disk); reading is as fast.
    return parquet().ParquetFile(path, pre_buffer=False)


def _as_text(batch: pa.RecordBatch) -> pa.RecordBatch:
    """A Parquet batch whose binary columns are read as UTF-8 text (a byte that is not
    makes the file unreadable, never a changed value nor an error of another kind), and
    whose member ids of an id kind are text (:func:`~actuarial.duplicate_ids.id_texts`:
    whole numbers as their digits, exactly; an integer column with nulls would otherwise
    reach pandas as floats: 7 -> 7.0); ids of any other kind are left as read: errors on
    their rows."""
    for position, field in enumerate(batch.schema):
        kind = field.type
        value_kind = kind.value_type if pa.types.is_dictionary(kind) else kind
        column = batch.column(position)
        if field.name == "member_id" and is_id_kind(kind):
            if kind != pa.string():
                batch = batch.set_column(position, field.name, id_texts(column))
        elif pa.types.is_binary(value_kind) or pa.types.is_large_binary(value_kind):
            if pa.types.is_dictionary(kind):
                column = column.dictionary_decode()
            batch = batch.set_column(position, field.name, column.cast(pa.string()))
    return batch


@takes_paths("path")
def record_batches(path: Path, fmt: str, columns) -> Iterator[pa.RecordBatch]:
    """The file's columns in small record batches (1 MB of CSV, or PARQUET_BATCH_ROWS rows
    of Parquet, ids as text), so that no long text is read far ahead of its chunk."""
    if fmt == "parquet":
        for batch in _parquet_reader(path).iter_batches(PARQUET_BATCH_ROWS, columns=columns):
            yield _as_text(batch)
        return
    header, alone = _header_line(path)
    if alone:  # a header and no line break: no row (Arrow reads no columns)
        return
    # A header name is trimmed ("member_id " is member_id, as file_columns reads it);
    # Arrow finds a column by its name as written.
    written = {name.strip(): name for name in _header(path, header)}
    as_written = [written.get(name, name) for name in columns]
    if as_written == list(columns):
        yield from _csv_reader(path, columns)
        return
    for batch in _csv_reader(path, as_written):
        yield pa.RecordBatch.from_arrays(batch.columns, names=list(columns))


class _Stopped(Exception):
    """The first pass, stopped: the run ended before it did."""


def _id_chunks(path: Path, fmt: str, stop: threading.Event | None = None) -> Iterator[pa.Array]:
    """The member_id column alone, in chunks, as text (whole numbers as their digits);
    :class:`_Stopped` once ``stop`` is set."""
    for batch in record_batches(path, fmt, ["member_id"]):
        if stop is not None and stop.is_set():
            raise _Stopped
        yield batch.column(0)


def _first_non_utf8(path: Path) -> tuple[int, int] | None:
    """(line, byte) of the first byte of ``path`` that is not UTF-8 text, read in blocks."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    line = 1
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            try:
                decoder.decode(block)
            except UnicodeDecodeError as error:
                start = max(error.start, 0)
                return line + block.count(b"\n", 0, start), block[start]
            line += block.count(b"\n")
    return None


def _not_utf8(path: Path, line: int, byte: int) -> MemberFileError:
    """The error of a member file with a byte that is not UTF-8 text on ``line``."""
    return MemberFileError(
        f"{path}: line {line:,} is not UTF-8 text (byte 0x{byte:02x}); save the file as UTF-8"
    )


def _unreadable(path: Path, reason: str) -> MemberFileError:
    """The error of a member file that cannot be read, its reason cut to 200 characters, on
    one line (a reason may quote the file's text)."""
    return MemberFileError(f"{path}: cannot read the member file ({one_line(reason, 200)})")


def _misshapen_row(path: Path) -> str | None:
    """Where a CSV file's first row whose number of cells is not the header's begins, and
    what it holds, read again by Python's csv module (only once Arrow has refused the file:
    its streaming reader does not know the line); None if every row has the header's."""
    with path.open(encoding="utf-8-sig", newline="") as handle:
        rows = csv.reader(handle)
        expected = len(next(rows, []))
        end = rows.line_num
        for cells in rows:
            start, end = end + 1, rows.line_num
            if "".join(cells).strip() and len(cells) != expected:  # blank lines skipped
                spans = f", to line {end:,}: a quote left open?" if end > start else ""
                cells = f"{len(cells)} cell" + "s" * (len(cells) != 1)
                return f"line {start:,} has {cells}, the header {expected}{spans}"
    return None


# Arrow's error for a row longer than a block (CSV_BLOCK_BYTES).
_LONGER_THAN_A_BLOCK = "straddling object straddles two block boundaries"


@takes_paths("path")
def reading(path: Path, chunks: Iterator) -> Iterator:
    """``chunks`` with any failure to read them as a :class:`MemberFileError` naming ``path``."""
    try:
        yield from chunks
    except (OSError, pa.ArrowException, UnicodeDecodeError) as error:
        not_utf8 = "UTF8" in str(error)
        if not_utf8 and file_format(path, "a member file") == "parquet":  # binary: no lines
            reason = f"a text column holds bytes that are not UTF-8: {error}"
            raise _unreadable(path, reason) from error
        where = _first_non_utf8(path) if not_utf8 else None  # CSV: the line of the byte
        if where is not None:
            raise _not_utf8(path, *where) from error
        reason = str(error)
        if "CSV parse error" in reason:
            reason = _misshapen_row(path) or reason
        elif _LONGER_THAN_A_BLOCK in reason:
            reason = (
                f"a row is too long: one of about {2 * CSV_BLOCK_BYTES:,} bytes or more cannot "
                f"be read (the file is read {CSV_BLOCK_BYTES:,} bytes at a time)"
            )
        raise _unreadable(path, reason) from error


@takes_paths("path")
def duplicated_in_file(path: Path, fmt: str, stop: threading.Event | None = None) -> DuplicateIds:
    """The first pass: rows whose member_id occurs more than once in the whole file."""
    return find_duplicates(lambda: reading(path, _id_chunks(path, fmt, stop)), MEMBER_ID_MAX_LENGTH)


class FirstPass:
    """The first pass in a thread of its own, while the first chunk is computed: started
    by :func:`~actuarial.batch.run_batch`, or by its caller beforehand (:meth:`start`)."""

    @takes_paths("path")
    def __init__(self, path: Path, fmt: str):
        self.path = path
        self.stop = threading.Event()
        self.thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="actuarial-ids")
        self.future = self.thread.submit(duplicated_in_file, path, fmt, self.stop)

    @classmethod
    @takes_paths("path")
    def start(cls, path) -> FirstPass:
        """The pass over a member file, started once the file is known to be readable (as
        :func:`~actuarial.batch.run_batch` checks it); end it with :meth:`end` or ``with``."""
        path = Path(path)
        fmt = readable_member_file(path)
        return cls(path, fmt)

    def result(self) -> DuplicateIds:
        return self.future.result()

    def end(self) -> None:
        """Stop the pass if it still runs (an error or an interruption), and wait for it."""
        self.stop.set()
        self.thread.shutdown(wait=True)

    def __enter__(self) -> FirstPass:
        return self

    def __exit__(self, *exception) -> None:
        self.end()


@takes_paths("members_path", "law")
def batch_inputs(members_path: Path, guides, law) -> list[Path]:
    """Every file a batch reads: the member file, the guides' and the law's. Its output
    must be none of them (:func:`~actuarial.output_files.check_output`)."""
    return [Path(members_path), *guides.files, *law.paths]


def _check_is_file(path: Path) -> None:
    """A member file that is a folder, is missing or is no regular file, named as such."""
    if not path.is_file():
        if path.is_dir():
            reason = "a folder, not a file"
        elif path.exists():  # a pipe, a socket, a device: named, never waited on
            reason = not_a_file(path) or NOT_A_REGULAR_FILE
        else:
            reason = "no such file"
        raise _unreadable(path, reason)


@takes_paths("path")
def member_file_format(path: Path) -> str:
    """The format of a member file by its suffix, once it is found to be a file: a folder
    or a missing file is named as such, not as a name without a known extension."""
    _check_is_file(path)
    return file_format(path, "a member file")


def _blank(path: Path) -> bool:
    """Whether a file holds nothing but white space (its first 4 KiB are read)."""
    with path.open("rb") as handle:
        head = handle.read(4096)
    return not head.strip() and len(head) < 4096


@takes_paths("path")
def check_readable(path: Path, fmt: str) -> None:
    _check_is_file(path)
    try:
        columns = file_columns(path, fmt)
    except (OSError, UnicodeDecodeError, pa.ArrowException, csv.Error) as error:
        raise _unreadable(path, str(error)) from error
    if fmt == "csv" and not any(str(name).strip() for name in columns) and _blank(path):
        raise MemberFileError(
            f"{path}: the file is empty: a member file starts with its header, "
            f"{','.join(MEMBER_FIELDS)}"
        )
    check_columns(columns, str(path))


@takes_paths("path")
def readable_member_file(path: Path) -> str:
    """The format of a member file (its suffix), once the file is found readable with its
    required columns: :class:`MemberFileError` otherwise."""
    fmt = member_file_format(path)
    check_readable(path, fmt)
    return fmt
