"""numpy arrays <-> the uint32 words every dmlc buffer travels as (bit-exact, any dtype)."""
from __future__ import annotations

import numpy as np


def to_words(array: np.ndarray, elements: int, out: np.ndarray | None = None) -> np.ndarray:
    """The raw bytes of the first `elements` elements of `array` (C order), as uint32 words,
    zero-padded to a whole word. Written into `out` (a uint32 array) when given."""
    flat = np.ascontiguousarray(array).reshape(-1)[:elements]
    raw = flat.view(np.uint8)
    words = -(-raw.size // 4)
    if out is None:
        out = np.zeros(max(words, 1), np.uint32)
    dst = out.view(np.uint8)
    dst[:raw.size] = raw
    dst[raw.size:] = 0
    return out


def from_words(words: np.ndarray, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    """A fresh array of `shape` and `dtype` from the leading bytes of `words`."""
    count = int(np.prod(shape, dtype=np.int64))
    raw = np.asarray(words).view(np.uint8)[:count * np.dtype(dtype).itemsize]
    return raw.view(dtype).reshape(shape).copy()


def to_chunks(array: np.ndarray, elements: int, outs: list[np.ndarray]) -> None:
    """to_words into consecutive uint32 arrays (a chunked buffer's chunks, in order): word w of
    the buffer lands in the chunk that holds it."""
    flat = np.ascontiguousarray(array).reshape(-1)[:elements]
    raw = flat.view(np.uint8)
    at = 0
    for out in outs:
        dst = out.view(np.uint8)
        part = raw[at:at + dst.size]
        dst[:part.size] = part
        dst[part.size:] = 0
        at += dst.size


def from_chunks(chunks: list[np.ndarray], dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    """from_words of a chunked buffer's chunks, in order."""
    return from_words(chunks[0] if len(chunks) == 1 else np.concatenate(chunks), dtype, shape)
