"""Random operator cases for property tests: descriptor, arrays and the numpy oracle's answer.

One strategy per operator; the IR-interpreter tests and the device tests draw from the same ones,
so the two oracles (numpy reference, IR interpreter) and the device are held to one standard.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import strategies as st

import dmlc
import reference as ref
from strategies import DATA_TYPES, INDEX_TYPES, index_arrays, random_bits, shapes, slice_window_plan


@dataclass
class Case:
    fn: Callable[..., np.ndarray]        # the one-shot API function
    arrays: tuple[np.ndarray, ...]
    kwargs: dict[str, Any]
    descriptor: Any
    expected: np.ndarray

    def __repr__(self) -> str:
        shapes_ = [(a.dtype.name, a.shape) for a in self.arrays]
        return f"Case({self.fn.__name__}, {shapes_}, {self.kwargs})"


def _tensor(a: np.ndarray) -> dmlc.TensorDesc:
    return dmlc.TensorDesc(data_type=a.dtype.name, sizes=a.shape)


seeds = st.integers(0, 2**32 - 1)


def gather_is_valid(in_shape, idx_shape, axis: int, k: int) -> bool:
    """DML_GATHER_OPERATOR_DESC's rules, restated independently of dmlc.validate."""
    d = len(in_shape)
    lead = next((i for i, s in enumerate(in_shape) if s != 1), d - 1)
    if (d - lead) + k - 1 > d or any(s != 1 for s in idx_shape[:d - k]):
        return False
    full = list(in_shape[:axis]) + list(idx_shape[d - k:]) + list(in_shape[axis + 1:])
    return all(s == 1 for s in full[:max(0, len(full) - d)])


@st.composite
def gather_cases(draw, dtypes=DATA_TYPES) -> Case:
    d = draw(st.integers(1, 8))
    k = draw(st.integers(0, d))
    lead = draw(st.integers(min(max(k - 1, 0), d - 1), d - 1))
    in_shape = (1,) * lead + draw(shapes(d - lead, d - lead, 48))
    axis = draw(st.integers(0, d - 1))
    idx_real = draw(shapes(k, k, 24)) if k else ()
    idx_shape = (1,) * (d - k) + idx_real
    dtype, itype = draw(st.sampled_from(dtypes)), draw(st.sampled_from(INDEX_TYPES))
    x = random_bits(draw(seeds), in_shape, dtype)
    i = draw(index_arrays(idx_shape, itype, in_shape[axis]))
    kwargs = {"axis": axis, "index_dimensions": k}
    desc = dmlc.GatherDesc(input=_tensor(x), indices=_tensor(i), **kwargs)
    expected = ref.gather(x, i, axis, k) if gather_is_valid(in_shape, idx_shape, axis, k) else None
    return Case(dmlc.gather, (x, i), kwargs, desc, expected)


@st.composite
def _axis_cases(draw, dtypes):
    in_shape = draw(shapes())
    d = len(in_shape)
    axis = draw(st.integers(0, d - 1))
    idx_shape = list(in_shape)
    idx_shape[axis] = draw(st.integers(1, 4))
    dtype, itype = draw(st.sampled_from(dtypes)), draw(st.sampled_from(INDEX_TYPES))
    x = random_bits(draw(seeds), in_shape, dtype)
    i = draw(index_arrays(tuple(idx_shape), itype, in_shape[axis]))
    return x, i, axis


@st.composite
def gather_elements_cases(draw, dtypes=DATA_TYPES) -> Case:
    x, i, axis = draw(_axis_cases(dtypes))
    desc = dmlc.GatherElementsDesc(input=_tensor(x), indices=_tensor(i), axis=axis)
    return Case(dmlc.gather_elements, (x, i), {"axis": axis}, desc,
                ref.gather_elements(x, i, axis))


@st.composite
def scatter_cases(draw, dtypes=DATA_TYPES) -> Case:
    x, i, axis = draw(_axis_cases(dtypes))
    u = random_bits(draw(seeds), i.shape, x.dtype)
    desc = dmlc.ScatterDesc(input=_tensor(x), indices=_tensor(i), updates=_tensor(u), axis=axis)
    return Case(dmlc.scatter, (x, i, u), {"axis": axis}, desc, ref.scatter(x, i, u, axis))


@st.composite
def slice_cases(draw, dtypes=DATA_TYPES) -> Case:
    """A window of 1 to 64 output elements (median over 8) over ranks 1-8, strides of both
    signs (strategies.slice_window_plan); its output sizes given (now and then fewer than
    the window gives) or inferred."""
    in_shape, offsets, sizes, strides, most = slice_window_plan(
        lambda lo, hi: draw(st.sampled_from(range(lo, hi + 1))), signed=True)
    out = [m if draw(st.integers(0, 3)) else draw(st.integers(1, m)) for m in most]
    output_sizes = out if draw(st.booleans()) else None
    x = random_bits(draw(seeds), tuple(in_shape), draw(st.sampled_from(dtypes)))
    kwargs = {"offsets": offsets, "sizes": sizes, "strides": strides,
              "output_sizes": output_sizes}
    out_desc = None if output_sizes is None else dmlc.TensorDesc(data_type=x.dtype.name,
                                                                 sizes=tuple(output_sizes))
    desc = dmlc.Slice1Desc(input=_tensor(x), offsets=offsets, sizes=sizes, strides=strides,
                           output=out_desc)
    return Case(dmlc.slice, (x,), kwargs, desc,
                ref.slice1(x, offsets, sizes, strides, output_sizes))


def join_arrays(*xs: np.ndarray, axis: int) -> np.ndarray:
    """dmlc.join as the cases call their function: one argument per tensor."""
    return dmlc.join(list(xs), axis=axis)


def split_flat(x: np.ndarray, sizes: list[int], axis: int) -> np.ndarray:
    """dmlc.split's outputs one after another, flat: the buffer they share (how the descriptor's
    program returns them)."""
    return np.concatenate([p.reshape(-1) for p in dmlc.split(x, sizes, axis=axis)])


@st.composite
def _axis_pieces(draw, dtypes):
    """A shape, an axis, and 1 to 5 sizes along it (each 1 to 4)."""
    shape = list(draw(shapes(max_elements=24)))
    axis = draw(st.integers(0, len(shape) - 1))
    pieces = draw(st.lists(st.integers(1, 4), min_size=1, max_size=5))
    return shape, axis, pieces, draw(st.sampled_from(dtypes))


@st.composite
def join_cases(draw, dtypes=DATA_TYPES) -> Case:
    shape, axis, pieces, dtype = draw(_axis_pieces(dtypes))
    xs = tuple(random_bits(draw(seeds), (*shape[:axis], n, *shape[axis + 1:]), dtype)
               for n in pieces)
    desc = dmlc.JoinDesc(inputs=tuple(_tensor(x) for x in xs), axis=axis)
    return Case(join_arrays, xs, {"axis": axis}, desc, ref.join(list(xs), axis))


@st.composite
def split_cases(draw, dtypes=DATA_TYPES) -> Case:
    shape, axis, pieces, dtype = draw(_axis_pieces(dtypes))
    shape[axis] = sum(pieces)
    x = random_bits(draw(seeds), tuple(shape), dtype)
    parts = ref.split(x, pieces, axis)
    desc = dmlc.SplitDesc(input=_tensor(x), outputs=tuple(_tensor(p) for p in parts), axis=axis)
    expected = np.concatenate([p.reshape(-1) for p in parts])
    return Case(split_flat, (x,), {"sizes": pieces, "axis": axis}, desc, expected)


from cases_copy import identity_cases, slice0_cases, slice_grad_cases  # noqa: E402
from cases_layout import depth_space_cases, padding_cases, tile_cases  # noqa: E402
from cases_nd import gather_nd_cases, one_hot_cases, reverse_subsequences_cases  # noqa: E402

ALL_CASES = {"gather": gather_cases, "gather_elements": gather_elements_cases,
             "scatter": scatter_cases, "slice": slice_cases, "join": join_cases,
             "split": split_cases, "tile": tile_cases, "padding": padding_cases,
             "depth_space": depth_space_cases, "gather_nd": gather_nd_cases,
             "one_hot": one_hot_cases, "reverse_subsequences": reverse_subsequences_cases,
             "copy": identity_cases, "slice0": slice0_cases, "slice_grad": slice_grad_cases}


def _register_families() -> None:
    """Each operator family's generators live in tests/cases_<family>.py (they import Case
    from here, so they are added after it is defined)."""
    from cases_expression import expression_cases
    from cases_scatternd import scatter_nd_cases, scatter_nd_reduce_cases, scatter_reduce_cases
    ALL_CASES.update(scatter_nd=scatter_nd_cases, scatter_nd_reduce=scatter_nd_reduce_cases,
                     scatter_reduce=scatter_reduce_cases, expression=expression_cases)


_register_families()
