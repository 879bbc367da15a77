"""Member ids that occur more than once in a whole input, found in bounded memory.

A member file is read in chunks, so its ids are never all in memory as text. The first
pass keeps a 64-bit hash of each id (8 bytes a member) and sorts them once; only when two
ids share a hash does a second pass read the file again, keep the ids of those few rows
and compare them as text. A hash collision therefore never marks a row: the answer is
exact, whatever the hash.

Missing ids are left out, and so are ids longer than ``max_length`` characters (an error
of their own, so hashing never reads a giant field). Ids of white space only are compared
like any other text: the caller, which checks each row's id, leaves blank ids out
("required", not "unique"). Ids are compared exactly: no trimming, no case or Unicode
folding. An id of a kind that holds none (:func:`is_id_kind`: a float, a date, a list...)
is an error of its own: never compared.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from actuarial import arrow_text

__all__ = [
    "DuplicateIds",
    "distinct_codes",
    "duplicated_ids",
    "find_duplicates",
    "id_texts",
    "is_id_kind",
    "is_id_value",
    "surely_distinct",
]

_HASH_ROWS = 16_384  # ids hashed at a time: 8 bytes a byte of text, so bounded memory
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX = (np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB))


def _position_keys(count: int) -> np.ndarray:
    """An odd 64-bit key per byte position (SplitMix64 of the position): fixed, no state."""
    z = np.arange(1, count + 1, dtype=np.uint64) * _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _MIX[0]
    z = (z ^ (z >> np.uint64(27))) * _MIX[1]
    return (z ^ (z >> np.uint64(31))) | np.uint64(1)


def is_id_kind(kind: pa.DataType) -> bool:
    """Whether Arrow values of ``kind`` are member ids: text, or whole numbers (integers,
    decimals of scale 0), dictionary-encoded or not; or null (missing ids). No other kind is
    (a float, a boolean, a date, a timestamp, a time, a duration, a list, a struct...): an id
    of one would become text it never was ("7.0", "2000-01-02 00:00:00"), so each is an
    error on its row ("must be text or a whole number"), and never compared."""
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return (
        pa.types.is_string(kind)
        or pa.types.is_large_string(kind)
        or pa.types.is_integer(kind)
        or (pa.types.is_decimal(kind) and kind.scale == 0)
        or pa.types.is_null(kind)
    )


def id_texts(ids: pa.Array) -> pa.StringArray:
    """Ids as Arrow text: text as it is, whole numbers as their digits; all null when the
    ids are of no id kind (:func:`is_id_kind`)."""
    if ids.type == pa.string():  # the usual case: no cast
        return ids
    if not is_id_kind(ids.type):
        return pa.nulls(len(ids), pa.string())
    if pa.types.is_dictionary(ids.type):
        ids = ids.dictionary_decode()
    return ids.cast(pa.string())


def is_id_value(value) -> bool:
    """Whether a Python value is of an id's kind: text, or a whole number (not a bool)."""
    return isinstance(value, str | int | np.integer) and not isinstance(value, bool)


def _id_value_text(value) -> str | None:
    """One Python id as text: text as it is, a whole number as its digits; None for any
    other value (:func:`is_id_value`)."""
    return str(value) if is_id_value(value) else None


def _as_strings(chunk, max_length: int | None = None) -> pa.StringArray:
    """A chunk of ids (Arrow, or pandas read as Arrow reads it) as one Arrow string array
    (:func:`id_texts`); ids longer than ``max_length`` characters become missing."""
    if not isinstance(chunk, pa.Array | pa.ChunkedArray):  # pandas (not imported here)
        try:
            chunk = pa.array(chunk, from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError):  # Python values of several kinds
            chunk = pa.array([_id_value_text(value) for value in chunk], type=pa.string())
    if isinstance(chunk, pa.ChunkedArray):
        chunk = chunk.combine_chunks()
    chunk = id_texts(chunk)
    # An id has at least as many bytes as characters: counted only when it may be too long
    # (and Arrow given no Python value unless then: see actuarial.arrow_text).
    if max_length is not None and len(chunk) and arrow_text.byte_lengths(chunk).max() > max_length:
        too_long = pc.fill_null(pc.greater(pc.utf8_length(chunk), max_length), False)
        if pc.any(too_long).as_py():
            chunk = pc.if_else(too_long, pa.scalar(None, pa.string()), chunk)
    return chunk


def _hashes(ids: pa.StringArray) -> np.ndarray:
    """:func:`_hash_slice` over slices of ids, so the work arrays stay small."""
    if len(ids) <= _HASH_ROWS:
        return _hash_slice(ids)
    return np.concatenate(
        [_hash_slice(ids.slice(start, _HASH_ROWS)) for start in range(0, len(ids), _HASH_ROWS)]
    )


def _hash_slice(ids: pa.StringArray) -> np.ndarray:
    """sum over bytes b at position p of (b + 1) * key_p, modulo 2^64, for each id.

    Vectorized over the array's UTF-8 buffer; null ids get 0 (they are left out anyway).
    """
    offsets = arrow_text.offsets(ids)
    first, lengths = offsets[0], np.diff(offsets)
    hashes = np.zeros(len(ids), np.uint64)
    if len(ids) == 0 or offsets[-1] == first:
        return hashes
    data = arrow_text.data(ids)[first : offsets[-1]]
    starts = offsets[:-1] - first
    position = np.arange(len(data)) - np.repeat(starts, lengths)
    terms = (data + np.uint64(1)) * _position_keys(int(lengths.max()))[position]
    filled = lengths > 0  # reduceat needs increasing starts: the empty ids are left at 0
    hashes[filled] = np.add.reduceat(terms, starts[filled])
    return hashes


@dataclass(frozen=True, slots=True)
class DuplicateIds:
    """Rows (0-based, reading order) whose id occurs more than once, and their groups."""

    mask: np.ndarray  # True where the row's id is repeated
    group: np.ndarray  # index into ``groups``, -1 for a row whose id is not repeated
    groups: tuple[np.ndarray, ...]  # the rows of each repeated id, ascending

    @classmethod
    def none(cls, count: int) -> DuplicateIds:
        """No id repeated among ``count`` rows (read-only arrays of no memory)."""
        return cls(np.broadcast_to(np.False_, count), np.broadcast_to(np.int64(-1), count), ())

    def __len__(self) -> int:
        return len(self.mask)

    def other_rows(self, row: int, limit: int | None = None) -> tuple[np.ndarray, int]:
        """The first ``limit`` other rows (0-based) holding the id of ``row``, and how many
        there are in all (without reading them all: an id may repeat a million times)."""
        if self.group[row] < 0:
            return np.zeros(0, np.int64), 0
        rows = self.groups[self.group[row]]
        first = rows if limit is None else rows[: limit + 1]
        first = first[first != row]
        return (first if limit is None else first[:limit]), len(rows) - 1


def _shared(hashes: np.ndarray) -> np.ndarray:
    """The hashes held by more than one id, distinct; ``hashes`` is sorted in place."""
    hashes.sort()
    return np.unique(hashes[1:][hashes[1:] == hashes[:-1]])


def surely_distinct(ids: pa.StringArray) -> bool:
    """Whether no two ids share a hash, which proves that no id is repeated (equal ids
    share every hash). False says only that the ids must be compared as text: a repeated
    id, or two ids that share a hash (two nulls do, and a null and "").

    The hashes are sorted in place: no memory but their own. A hash table of them (pandas')
    was faster where fresh memory is cheap (34 ms against 51 ms at 10^6 ids) but needs 33
    MiB more, and on a virtual machine that hands freed memory back to its host it took
    73-107 ms against 17-35 ms to sort.
    """
    return _shared(_hashes(ids)).size == 0


def distinct_codes(texts: pa.StringArray) -> tuple[np.ndarray | None, pa.StringArray]:
    """Each text's code into the distinct texts (in the order first seen), and those texts.
    The codes are None when the hashes prove every text distinct (:func:`surely_distinct`,
    the usual case): each text is its own code, and no hash table of them is built."""
    if surely_distinct(texts):
        return None, texts
    coded = texts.dictionary_encode()
    codes = coded.indices.to_numpy(zero_copy_only=False)
    distinct = coded.dictionary
    del coded
    pa.default_memory_pool().release_unused()  # the hash table's pages, back to the system
    return codes, distinct


def duplicated_ids(read_chunks: Callable[[], Iterable]) -> np.ndarray:
    """Rows (in reading order) whose id occurs more than once; missing ids never do."""
    return find_duplicates(read_chunks).mask


def find_duplicates(
    read_chunks: Callable[[], Iterable], max_length: int | None = None
) -> DuplicateIds:
    """The rows whose id occurs more than once, grouped by id; missing ids never do, nor
    ids longer than ``max_length`` characters.

    ``read_chunks()`` yields the id column in order, in chunks (Arrow arrays or pandas
    series); it is called a second time only when two ids share a hash. Ids of no id kind
    (:func:`is_id_kind`) are never repeated.
    """
    hash_parts, present_parts = [np.zeros(0, np.uint64)], [np.zeros(0, bool)]
    for chunk in read_chunks():
        ids = _as_strings(chunk, max_length)
        hash_parts.append(_hashes(ids))
        present_parts.append(arrow_text.present(ids))
    hashes, present = np.concatenate(hash_parts), np.concatenate(present_parts)
    del hash_parts, present_parts
    shared = _shared(hashes[present])  # the one copy: sorted in place
    if shared.size == 0:  # the usual case: no array kept for the run
        return DuplicateIds.none(len(hashes))
    duplicated = np.zeros(len(hashes), bool)
    # int32: a group is at least two rows (4 bytes a row, kept for the whole run)
    group = np.full(len(hashes), -1, np.int32 if len(hashes) < 2**32 else np.int64)
    candidates = present & np.isin(hashes, shared)
    del hashes
    rows_by_id: dict[str, list[int]] = defaultdict(list)
    start = 0
    for chunk in read_chunks():  # the second pass: the ids of the candidate rows only
        ids = _as_strings(chunk, max_length)
        rows = np.flatnonzero(candidates[start : start + len(ids)])
        at = pa.Array.from_buffers(
            pa.int64(), len(rows), [None, pa.py_buffer(rows.astype(np.int64, copy=False))]
        )
        for row, text in zip(rows, ids.take(at).to_pylist(), strict=True):
            rows_by_id[text].append(start + int(row))
        start += len(ids)
    groups = []
    for rows in rows_by_id.values():
        if len(rows) > 1:
            duplicated[rows] = True
            group[rows] = len(groups)
            groups.append(np.array(rows, np.int64))
    return DuplicateIds(duplicated, group, tuple(groups))
