"""Duplicate member ids over a whole input read in chunks: exact, whatever the hash."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from actuarial import duplicate_ids
from actuarial.duplicate_ids import duplicated_ids


def in_chunks(values, size, as_arrow=True):
    """A reader: ``values`` in chunks of ``size``, as Arrow arrays or pandas series."""

    def read():
        for start in range(0, len(values), size):
            part = values[start : start + size]
            yield pa.array(part, type=pa.string()) if as_arrow else pd.Series(part, dtype=object)

    return read


def expected(values) -> np.ndarray:
    """pandas' answer on the whole column at once: every copy of a repeated present id."""
    series = pd.Series(values, dtype=object)
    return (series.duplicated(keep=False) & series.notna()).to_numpy()


ids = st.lists(
    st.one_of(st.none(), st.sampled_from(["", " ", "M-1", "M-2", "é", "M-1 "]), st.text()),
    max_size=60,
)


@settings(max_examples=200, deadline=None)
@given(values=ids, size=st.integers(1, 9), as_arrow=st.booleans())
def test_any_ids_in_any_chunks_give_pandas_answer(values, size, as_arrow):
    assert np.array_equal(duplicated_ids(in_chunks(values, size, as_arrow)), expected(values))


@settings(max_examples=100, deadline=None)
@given(values=ids, size=st.integers(1, 9))
def test_a_hash_that_always_collides_still_gives_the_exact_answer(values, size):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(duplicate_ids, "_hashes", lambda ids: np.zeros(len(ids), np.uint64))
        found = duplicated_ids(in_chunks(values, size))
    assert np.array_equal(found, expected(values))


def test_ids_equal_only_after_trimming_are_different_ids():
    found = duplicated_ids(in_chunks(["M-1", " M-1", "M-1 ", "m-1"], 2))
    assert not found.any()


def test_missing_ids_are_never_duplicates_and_empty_text_is_compared_as_text():
    found = duplicated_ids(in_chunks([None, None, "", "", "M-1"], 2))
    assert found.tolist() == [False, False, True, True, False]


def test_the_file_is_read_a_second_time_only_when_two_ids_share_a_hash():
    calls = []

    def counting(values):
        read = in_chunks(values, 3)

        def again():
            calls.append(1)
            return read()

        return again

    assert not duplicated_ids(counting([f"M-{n}" for n in range(100)])).any()
    assert len(calls) == 1
    assert duplicated_ids(counting(["M-1", "M-2", "M-3", "M-1"])).tolist() == [1, 0, 0, 1]
    assert len(calls) == 3


def test_numeric_ids_sliced_arrays_and_chunked_arrays_are_read_as_text():
    numbers = pa.array([7, 8, 7, 9], type=pa.int64())
    assert duplicated_ids(lambda: [numbers]).tolist() == [True, False, True, False]
    sliced = pa.array(["x", "A", "B", "A"]).slice(1)  # an offset into the buffers
    assert duplicated_ids(lambda: [sliced]).tolist() == [True, False, True]
    chunked = pa.chunked_array([["A", "B"], ["A"]])
    assert duplicated_ids(lambda: [chunked]).tolist() == [True, False, True]


def test_an_empty_input_has_no_duplicates():
    assert duplicated_ids(lambda: []).shape == (0,)
    assert duplicated_ids(lambda: [pa.array([], type=pa.string())]).shape == (0,)


@settings(max_examples=200, deadline=None)
@given(values=ids)
def test_ids_are_surely_distinct_only_when_no_id_is_repeated(values):
    """False for any repeated id (two nulls included). True for ids that differ, except
    where they share a hash: a null and "" do; other small texts never do."""
    text = pa.array(values, type=pa.string())
    distinct = len(set(values)) == len(values)
    sharing = None in values and "" in values
    assert duplicate_ids.surely_distinct(text) == (distinct and not sharing)


def test_ids_sharing_a_hash_are_not_surely_distinct():
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(duplicate_ids, "_hashes", lambda ids: np.zeros(len(ids), np.uint64))
        assert not duplicate_ids.surely_distinct(pa.array(["M-1", "M-2"]))
    assert duplicate_ids.surely_distinct(pa.array(["M-1", "M-2"]))
    assert duplicate_ids.surely_distinct(pa.array([], type=pa.string()))


def test_different_ids_of_a_realistic_file_get_different_hashes():
    values = pa.array([f"{prefix}-{n:07d}" for prefix in ("M", "P") for n in range(50_000)])
    hashes = duplicate_ids._hashes(values)
    assert np.unique(hashes).size == len(values)


NOT_ID_KINDS = [
    pa.array([["P-1"], ["P-1"]]),
    pa.array([{"id": "P-1"}, {"id": "P-1"}]),
    pa.array([dt.datetime(2000, 1, 2)] * 2, pa.timestamp("ms")),
    pa.array([dt.date(2000, 1, 2)] * 2),
    pa.array([dt.date(2000, 1, 2)] * 2).dictionary_encode(),
    pa.array([dt.time(5, 6)] * 2),
    pa.array([dt.timedelta(days=1)] * 2),
    pa.array([Decimal("7.00")] * 2, pa.decimal128(10, 2)),
    pa.array([7.0, 7.0]),
    pa.array([True, True]),
]


@pytest.mark.parametrize("ids", NOT_ID_KINDS, ids=lambda ids: str(ids.type))
def test_ids_of_a_kind_that_holds_no_id_are_never_compared(ids):
    """A list or a struct was a traceback (no cast to text); a date, a float or a boolean
    became text it never was ("7", "2000-01-02 00:00:00") and was found repeated. Each such
    id is an error on its row (actuarial.members), never a duplicate."""
    assert not duplicate_ids.is_id_kind(ids.type)
    assert duplicated_ids(lambda: [pa.chunked_array([ids])]).tolist() == [False, False]


def test_whole_numbers_of_every_integer_and_decimal_kind_are_ids_as_their_digits():
    wide = pa.array([Decimal("12345678901234567890")] * 2 + [Decimal(7)], pa.decimal128(20, 0))
    assert duplicate_ids.is_id_kind(wide.type)
    assert duplicate_ids.id_texts(wide).to_pylist() == ["12345678901234567890"] * 2 + ["7"]
    assert duplicated_ids(lambda: [wide]).tolist() == [True, True, False]
    small = pa.array([7, None, 7], pa.uint8()).dictionary_encode()
    assert duplicate_ids.id_texts(small).to_pylist() == ["7", None, "7"]


def test_pandas_chunks_of_python_values_of_several_kinds_are_compared_by_their_text():
    # Arrow reads no column of text and ints together: each value is read alone (before
    # that fallback, an ArrowTypeError). A float, a bool or None is no id: never repeated.
    chunk = pd.Series(["a", 1, "a", 2.5, None, 1, 2.5, True, True, "1"], dtype=object)
    found = duplicated_ids(lambda: [chunk])
    assert found.tolist() == [True, True, True, False, False, True, False, False, False, True]
