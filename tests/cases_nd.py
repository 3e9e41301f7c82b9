"""Random cases for gather_nd, one_hot and reverse_subsequences (see tests/cases.py): wild index
values in and out of range, every data and index type."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import dmlc
import reference_nd as ref
from strategies import DATA_TYPES, INDEX_TYPES, index_arrays, random_bits, shapes

seeds = st.integers(0, 2**32 - 1)


def _tensor(a: np.ndarray) -> dmlc.TensorDesc:
    return dmlc.TensorDesc(data_type=a.dtype.name, sizes=a.shape)


@st.composite
def gather_nd_cases(draw, dtypes=DATA_TYPES):
    from cases import Case
    r = draw(st.integers(1, 4))
    b = draw(st.integers(0, r - 1))
    k = draw(st.integers(1, r - b))
    x_shape = draw(shapes(r, r, 48))
    rest = draw(shapes(0, 2, 6)) if draw(st.booleans()) else ()
    idx_shape = tuple(x_shape[:b]) + tuple(rest) + (k,)
    itype = draw(st.sampled_from(INDEX_TYPES))
    x = random_bits(draw(seeds), x_shape, draw(st.sampled_from(dtypes)))
    dim = max(x_shape[b:b + k])
    idx = draw(index_arrays(idx_shape, itype, dim))
    d = max(r, len(idx_shape), len(idx_shape) - 1 + r - b - k)
    xs = x.reshape((1,) * (d - r) + x.shape)
    ids = idx.reshape((1,) * (d - idx.ndim) + idx.shape)
    desc = dmlc.GatherND1Desc(input=_tensor(xs), indices=_tensor(ids), input_dimension_count=r,
                              indices_dimension_count=idx.ndim, batch_dimension_count=b)
    expected = ref.gather_nd(x, idx, b)
    expected = expected.reshape((1,) * (d - expected.ndim) + expected.shape)

    def fn(x, indices, batch_dims):
        got = dmlc.gather_nd(x, indices, batch_dims)
        return got.reshape(expected.shape)
    fn.__name__ = "gather_nd"
    return Case(fn, (x, idx), {"batch_dims": b}, desc, expected)


@st.composite
def one_hot_cases(draw, dtypes=DATA_TYPES):
    from cases import Case
    shape = draw(shapes(1, 3, 12))
    depth = draw(st.integers(1, 6))
    axis = draw(st.integers(0, len(shape)))
    idx = draw(index_arrays(shape, draw(st.sampled_from(INDEX_TYPES)), depth))
    values = random_bits(draw(seeds), (2,), draw(st.sampled_from(dtypes)))
    expected = ref.one_hot(idx, values, depth, axis)
    rank = len(shape) + 1
    desc = dmlc.OneHotDesc(indices=_tensor(idx.reshape(shape[:axis] + (1,) + shape[axis:])),
                           values=_tensor(values.reshape((1,) * (rank - 1) + (2,))), axis=axis,
                           output=_tensor(expected))

    def fn(indices, values, depth, axis):
        return dmlc.one_hot(indices, values, depth, axis)
    fn.__name__ = "one_hot"
    # The arrays serve the descriptor too: its reshaped tensors hold the same flat elements.
    return Case(fn, (idx, values), {"depth": depth, "axis": axis}, desc, expected)


@st.composite
def reverse_subsequences_cases(draw, dtypes=DATA_TYPES):
    from cases import Case
    shape = draw(shapes(1, 4, 24))
    axis = draw(st.integers(0, len(shape) - 1))
    n = shape[axis]
    lshape = tuple(1 if k == axis else s for k, s in enumerate(shape))
    lengths = draw(index_arrays(lshape, draw(st.sampled_from(INDEX_TYPES)), n + 1))
    x = random_bits(draw(seeds), shape, draw(st.sampled_from(dtypes)))
    desc = dmlc.ReverseSubsequencesDesc(input=_tensor(x), sequence_lengths=_tensor(lengths),
                                        axis=axis)
    return Case(dmlc.reverse_subsequences, (x, lengths), {"axis": axis}, desc,
                ref.reverse_subsequences(x, lengths, axis))
