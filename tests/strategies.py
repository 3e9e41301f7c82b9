"""hypothesis strategies: shapes of ranks 1-8, raw-bit arrays of every type, wild index values."""
from __future__ import annotations

import math

import numpy as np
from hypothesis import settings
from hypothesis import strategies as st

import dmlc

DATA_TYPES = [d.numpy for d in dmlc.DataType]
INDEX_TYPES = [np.dtype(t) for t in ("int32", "int64", "uint32", "uint64")]
MAX_ELEMENTS = 96

MIN_EXAMPLES = 20
"""No property runs fewer examples than this, whatever its budget (tests/conftest.py)."""
DEFAULT_EXAMPLES = 60
"""The `default` and `ci` profiles' budget of a property that pins none (tests/conftest.py)."""


def budget(n: int) -> int:
    """A property's max_examples: `n` under the `default` and `ci` profiles (what CI runs), at
    least MIN_EXAMPLES; scaled as the active profile's own budget is (`thorough`: x1000/60).
    Every `max_examples=` in tests/ goes through here (tests/test_suite_honesty.py), so that no
    pinned budget escapes the profile."""
    scale = settings.default.max_examples / DEFAULT_EXAMPLES
    return max(MIN_EXAMPLES, round(n * max(1.0, scale)))


@st.composite
def shapes(draw, min_rank: int = 1, max_rank: int = 8, max_elements: int = MAX_ELEMENTS):
    rank = draw(st.integers(min_rank, max_rank))
    shape: list[int] = []
    for _ in range(rank):
        room = max_elements // max(1, math.prod(shape))
        shape.append(draw(st.integers(1, max(1, min(room, 5)))))
    return tuple(draw(st.permutations(shape)))


def random_bits(seed: int, shape, dtype: np.dtype) -> np.ndarray:
    """Random raw bits: NaNs with payloads, -0.0, infinities and denormals all occur."""
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2 ** (8 * dtype.itemsize), size=shape, dtype=f"uint{8 * dtype.itemsize}",
                        endpoint=False)
    return bits.view(dtype)


def index_values(dtype: np.dtype, dim: int):
    """In-range, negative, boundary and far out-of-range values representable in dtype."""
    info = np.iinfo(dtype)
    edges = [0, dim - 1, dim, dim + 1, info.max, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**40]
    if info.min < 0:
        edges += [-1, -dim, -dim - 1, info.min, -(2**31), -(2**31) - 1, -(2**40)]
    edges = [v for v in edges if info.min <= v <= info.max]
    inside = st.integers(-dim if info.min < 0 else 0, dim - 1)
    return st.one_of(inside, inside, inside, st.sampled_from(edges),
                     st.integers(int(info.min), int(info.max)))


@st.composite
def index_arrays(draw, shape, dtype, dim: int) -> np.ndarray:
    values = draw(st.lists(index_values(np.dtype(dtype), dim), min_size=math.prod(shape),
                           max_size=math.prod(shape)))
    return np.array(values, dtype=dtype).reshape(shape)


@st.composite
def in_range_index_arrays(draw, shape, dtype, dim: int) -> np.ndarray:
    lo = -dim if np.dtype(dtype).kind == "i" else 0
    values = draw(st.lists(st.integers(lo, dim - 1), min_size=math.prod(shape),
                           max_size=math.prod(shape)))
    return np.array(values, dtype=dtype).reshape(shape)


SLICE_INPUT_LIMIT = 1024
"""The most input elements a slice case reads from (its windows' spans and margins)."""


def slice_window_plan(randint, signed: bool) -> tuple[list[int], ...]:
    """(input shape, offsets, sizes, strides, output sizes) of a DML_SLICE1 (`signed`:
    strides of either sign) or DML_SLICE window, its output drawn first: 1 to 64 elements
    (median over 8), over 1 to 8 dimensions, so that most cases move more than one element.
    Each window's size gives exactly its output size at its stride (1 to 3), after an offset
    of 0 to 2 and before a margin of 0 to 2; the input is kept under SLICE_INPUT_LIMIT
    elements by making output dimensions of 1 read one element. `randint(lo, hi)` draws an
    integer (a hypothesis draw, or random.randint for the statistics test)."""
    rank, total = randint(1, 8), randint(1, 64)
    out: list[int] = []
    for i in range(rank):
        room = max(1, total // max(1, math.prod(out)))
        out.append(room if i == rank - 1 else randint(1, max(1, min(room, 4))))
    out = [min(m, 16) for m in out]
    offsets, sizes, strides, shape = [], [], [], []
    for m in out:
        step = randint(1, 3) * (randint(0, 1) * 2 - 1 if signed else 1)
        size = randint((m - 1) * abs(step) + 1, m * abs(step))
        offset = randint(0, 2)
        offsets.append(offset), sizes.append(size), strides.append(step)
        shape.append(offset + size + randint(0, 2))
    for d in sorted(range(rank), key=lambda d: -shape[d]):  # the largest first
        if math.prod(shape) <= SLICE_INPUT_LIMIT:
            break
        if out[d] == 1:  # one element read: no span, no margin
            offsets[d], sizes[d], shape[d] = 0, 1, 1
        else:  # stride 1, no margin
            strides[d] = 1 if strides[d] > 0 else -1
            sizes[d], offsets[d], shape[d] = out[d], 0, out[d]
    return shape, offsets, sizes, strides, out
