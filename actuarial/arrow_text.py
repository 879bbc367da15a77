"""Arrow string arrays read from their buffers: no Python value per text, and no pandas
(Arrow imports pandas when a compute function is given a Python value, or a nullable array
is made into numpy, so the first pass over a member file, which runs beside the import of
pandas, reads its ids through these)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

__all__ = ["byte_lengths", "data", "offsets", "present"]


def offsets(texts: pa.StringArray) -> np.ndarray:
    """Where each text starts in the data buffer, and where the last one ends (int32; int64
    for large strings; a slice's own offsets, so ``offsets[0]`` need not be 0)."""
    kind = np.dtype(np.int64 if pa.types.is_large_string(texts.type) else np.int32)
    return np.frombuffer(texts.buffers()[1], kind, len(texts) + 1, texts.offset * kind.itemsize)


def data(texts: pa.StringArray) -> np.ndarray:
    """The UTF-8 bytes of every text, as :func:`offsets` index them (empty when none)."""
    buffer = texts.buffers()[2]
    return np.zeros(0, np.uint8) if buffer is None else np.frombuffer(buffer, np.uint8)


def byte_lengths(texts: pa.StringArray) -> np.ndarray:
    """Each text's length in UTF-8 bytes (0 for a null), from its offsets."""
    bounds = offsets(texts)
    return bounds[1:] - bounds[:-1]


def present(texts: pa.StringArray) -> np.ndarray:
    """Where a text is not null (read from the validity bitmap)."""
    if texts.null_count == 0:
        return np.ones(len(texts), bool)
    bits = np.unpackbits(np.frombuffer(texts.buffers()[0], np.uint8), bitorder="little")
    return bits[texts.offset : texts.offset + len(texts)].astype(bool)


_NO_TEXT = pa.nulls(1, pa.string())


def one_text(text: str | None) -> pa.StringArray:
    """An array of one text (null for ``None``), built from its buffers: a third of the
    time of ``pa.array`` on a one-item list."""
    if text is None:
        return _NO_TEXT
    utf8 = text.encode()
    bounds = np.array((0, len(utf8)), dtype=np.int32)
    return pa.StringArray.from_buffers(1, pa.py_buffer(bounds), pa.py_buffer(utf8))
