"""Random DML_SCATTER_ND cases (registered in cases.ALL_CASES): every rank 1-8, every
InputDimensionCount / IndicesDimensionCount / tuple size, all data and index types, negative,
out-of-range and repeated index tuples."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import dmlc
import reference_scatternd as ref
from cases import Case, _tensor, seeds
from strategies import DATA_TYPES, INDEX_TYPES, index_arrays, random_bits, shapes


def updates_shape(in_shape, idx_shape, in_dims: int, idx_dims: int) -> tuple[int, ...] | None:
    """indices[D-idx_dims : D-1] ++ input[D-in_dims+k :], right-aligned to D; None when that
    does not fit in D dimensions (restated from DirectML's page, not from dmlc)."""
    d, k = len(in_shape), idx_shape[-1]
    full = list(idx_shape[d - idx_dims:d - 1]) + list(in_shape[d - in_dims + k:])
    if len(full) > d:
        if any(s != 1 for s in full[:len(full) - d]):
            return None
        return tuple(full[len(full) - d:])
    return (1,) * (d - len(full)) + tuple(full)


@st.composite
def tuple_indices(draw, batch: tuple[int, ...], dims: tuple[int, ...], itype) -> np.ndarray:
    """Index tuples of len(dims) coordinates, coordinate j for an axis of size dims[j]."""
    n = int(np.prod(batch))
    tuples = draw(st.sampled_from([1, 2, 3])) if n > 1 else 1
    # few distinct tuples, so that rows collide (the last must win)
    cols = [draw(index_arrays((tuples,), itype, dim)) for dim in dims]
    table = np.stack(cols, axis=-1)
    pick = draw(st.lists(st.integers(0, tuples - 1), min_size=n, max_size=n))
    return table[np.array(pick, dtype=np.int64)].reshape(*batch, len(dims))


REDUCTIONS = ["add", "mul", "max", "min"]


@st.composite
def scatter_nd_cases(draw, dtypes=DATA_TYPES, reductions=("none",)) -> Case:
    d = draw(st.integers(1, 8))
    in_dims = draw(st.integers(1, d))
    k = draw(st.integers(1, in_dims))
    idx_dims = draw(st.integers(1, d))
    in_shape = (1,) * (d - in_dims) + draw(shapes(in_dims, in_dims, 48))
    batch = draw(shapes(idx_dims - 1, idx_dims - 1, 12)) if idx_dims > 1 else ()
    dtype, itype = draw(st.sampled_from(dtypes)), draw(st.sampled_from(INDEX_TYPES))
    first = d - in_dims
    i = draw(tuple_indices(batch, in_shape[first:first + k], itype))
    i = i.reshape((1,) * (d - idx_dims) + i.shape)
    x = random_bits(draw(seeds), in_shape, dtype)
    u_shape = updates_shape(in_shape, i.shape, in_dims, idx_dims)
    u = random_bits(draw(seeds), u_shape or tuple(i.shape[:-1]), dtype)
    reduction = draw(st.sampled_from(reductions))
    kwargs = {"input_dimension_count": in_dims, "indices_dimension_count": idx_dims,
              "reduction": reduction}
    desc = dmlc.ScatterNDDesc(input=_tensor(x), indices=_tensor(i), updates=_tensor(u),
                              **kwargs)
    expected = None if u_shape is None else ref.scatter_nd(x, i, u, in_dims, reduction)
    return Case(dmlc.scatter_nd, (x, i, u), kwargs, desc, expected)


def scatter_nd_reduce_cases(dtypes=DATA_TYPES) -> st.SearchStrategy[Case]:
    return scatter_nd_cases(dtypes, REDUCTIONS)


@st.composite
def scatter_reduce_cases(draw, dtypes=DATA_TYPES) -> Case:
    """ScatterElements with a reduction: few distinct indices, so updates pile up."""
    in_shape = draw(shapes())
    d = len(in_shape)
    axis = draw(st.integers(0, d - 1))
    idx_shape = tuple(n if k != axis else draw(st.integers(1, 6)) for k, n in enumerate(in_shape))
    dtype, itype = draw(st.sampled_from(dtypes)), draw(st.sampled_from(INDEX_TYPES))
    x = random_bits(draw(seeds), in_shape, dtype)
    i = draw(index_arrays(idx_shape, itype, min(in_shape[axis], 2)))
    u = random_bits(draw(seeds), idx_shape, dtype)
    reduction = draw(st.sampled_from(REDUCTIONS))
    kwargs = {"axis": axis, "reduction": reduction}
    desc = dmlc.ScatterDesc(input=_tensor(x), indices=_tensor(i), updates=_tensor(u), **kwargs)
    return Case(dmlc.scatter, (x, i, u), kwargs, desc, ref.scatter(x, i, u, axis, reduction))
