"""Cases of a view at an element offset, one per family with a generic kernel (tests of the
offset pushed at dispatch: test_generic_offsets.py, device/test_generic_device.py): each builds
the descriptor, its arrays (the view's buffer holding other elements around it) and numpy's
result."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import strategies as st
from tests import reference
from tests.reference_layout import depth_to_space, pad, tile
from tests.strategies import random_bits

import dmlc
import reference_nd
from dmlc import DataType, TensorDesc
from dmlc.family.registry import validate
from dmlc.ops.copy.desc import IdentityDesc
from dmlc.ops.gather.desc import GatherDesc, GatherElementsDesc
from dmlc.ops.one_hot.desc import OneHotDesc

INDEX = DataType.INT32


def packed(shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(np.prod(shape[i + 1:])) for i in range(len(shape)))


def view_at(dtype: DataType, sizes: tuple[int, ...], owner: tuple[int, ...],
        offset: int) -> TensorDesc:
    """The first `sizes` of a packed owner of shape `owner` starting at element `offset`."""
    return TensorDesc(data_type=dtype, sizes=sizes, strides=packed(owner), offset=offset)


def buffer(x: np.ndarray, offset: int, seed: int) -> np.ndarray:
    """x (the owner) flat at element `offset` of a buffer, other elements random."""
    flat = random_bits(seed, (offset + x.size + 3,), x.dtype)
    flat[offset:offset + x.size] = x.reshape(-1)
    return flat


def _first(x: np.ndarray, sizes: tuple[int, ...]) -> np.ndarray:
    return x[tuple(slice(0, n) for n in sizes)]


Case = tuple[Any, list[np.ndarray], np.ndarray]
"""(descriptor, its arrays, numpy's result)."""


def _copy(dtype: DataType, x: np.ndarray, sizes, owner, offset, seed, data) -> Case:
    desc = validate(IdentityDesc(input=view_at(dtype, sizes, owner, offset)))
    return desc, [buffer(x, offset, seed)], _first(x, sizes)


def _tile(dtype: DataType, x: np.ndarray, sizes, owner, offset, seed, data) -> Case:
    repeats = (2,) + (1,) * (len(sizes) - 1)
    desc = validate(dmlc.TileDesc(input=view_at(dtype, sizes, owner, offset), repeats=repeats))
    return desc, [buffer(x, offset, seed)], tile(_first(x, sizes), repeats)


def _pad(dtype: DataType, x: np.ndarray, sizes, owner, offset, seed, data) -> Case:
    start, end = (0,) * (len(sizes) - 1) + (1,), (0,) * (len(sizes) - 1) + (2,)
    desc = validate(dmlc.PaddingDesc(input=view_at(dtype, sizes, owner, offset),
                                     mode="DML_PADDING_MODE_EDGE", start_padding=start,
                                     end_padding=end))
    return desc, [buffer(x, offset, seed)], pad(_first(x, sizes), start, end,
                                                 "DML_PADDING_MODE_EDGE")


def _split(dtype: DataType, x: np.ndarray, sizes, owner, offset, seed, data) -> Case:
    """Two rows of the owner's shape (a leading axis of 2: static), split along it."""
    x2 = random_bits(seed, (2,) + owner, dtype.numpy)
    outs = tuple(TensorDesc(data_type=dtype, sizes=(1,) + sizes) for _ in range(2))
    desc = validate(dmlc.SplitDesc(input=view_at(dtype, (2,) + sizes, (2,) + owner, offset),
                                   outputs=outs, axis=0))
    return desc, [buffer(x2, offset, seed)], _first(x2, (2,) + sizes)


def _join(dtype: DataType, x: np.ndarray, sizes, owner, offset, seed, data) -> Case:
    """The view and a packed tensor joined along a new leading axis (static)."""
    other = random_bits(seed + 1, (1,) + sizes, dtype.numpy)
    desc = validate(dmlc.JoinDesc(inputs=(view_at(dtype, (1,) + sizes, (1,) + owner, offset),
                                          TensorDesc(data_type=dtype, sizes=(1,) + sizes)),
                                  axis=0))
    return desc, [buffer(x, offset, seed), other], np.concatenate(
        [_first(x, sizes)[None], other], axis=0)


def _gather(dtype: DataType, x: np.ndarray, sizes, owner, offset, seed, data) -> Case:
    """The indices are the view: the first prod(sizes) of a [1, prod(owner)] owner (int32
    values drawn in range and out of it: clamped)."""
    table = random_bits(seed, (5, 3), dtype.numpy)
    n, m = int(np.prod(owner)), int(np.prod(sizes))
    ids = np.asarray(data.draw(st.lists(st.integers(-7, 7), min_size=n, max_size=n)),
                     np.int32).reshape(1, n)
    view = view_at(INDEX, (1, m), (1, n), offset)
    desc = validate(GatherDesc(input=TensorDesc(data_type=dtype, sizes=(5, 3)), indices=view,
                               axis=0, index_dimensions=1))
    want = reference.gather(table, ids[:, :m], 0, 1)
    return desc, [table, buffer(ids, offset, seed)], want


def _elements(dtype: DataType, x: np.ndarray, sizes, owner, offset, seed, data) -> Case:
    """Both the input (its axis 0 whole: static) and the indices are views at offsets (the
    indices' the input's + 1)."""
    ids = np.asarray(data.draw(st.lists(st.integers(-3, 3), min_size=int(np.prod(owner)),
                                        max_size=int(np.prod(owner)))),
                     np.int32).reshape(owner)
    isizes = (owner[0],) + sizes[1:]
    desc = validate(GatherElementsDesc(input=view_at(dtype, isizes, owner, offset),
                                       indices=view_at(INDEX, sizes, owner, offset + 1), axis=0))
    want = reference.gather_elements(_first(x, isizes), _first(ids, sizes), 0)
    return desc, [buffer(x, offset, seed), buffer(ids, offset + 1, seed)], want


def _one_hot(dtype: DataType, x: np.ndarray, sizes, owner, offset, seed, data) -> Case:
    depth = 3
    ids = np.asarray(data.draw(st.lists(st.integers(-4, 4), min_size=int(np.prod(owner)),
                                        max_size=int(np.prod(owner)))),
                     np.int32).reshape(owner)
    rank = len(sizes) + 1
    values = random_bits(seed, (2,), dtype.numpy)
    desc = validate(OneHotDesc(
        indices=view_at(INDEX, sizes + (1,), owner + (1,), offset),
        values=TensorDesc(data_type=dtype, sizes=(1,) * (rank - 1) + (2,)),
        output=TensorDesc(data_type=dtype, sizes=sizes + (depth,)), axis=len(sizes)))
    want = reference_nd.one_hot(_first(ids, sizes), values, depth, len(sizes))
    return desc, [buffer(ids, offset, seed), values.reshape(desc.values.sizes)], want


def _reverse(dtype: DataType, x: np.ndarray, sizes, owner, offset, seed, data) -> Case:
    """Sequences along a new leading axis of 3 (static: it bounds the lengths), the input a
    view at the offset, the lengths (int32 in range and out of it: clamped) one at offset + 1."""
    x3 = random_bits(seed, (3,) + owner, dtype.numpy)
    n = int(np.prod(owner))
    lengths = np.asarray(data.draw(st.lists(st.integers(-5, 5), min_size=n, max_size=n)),
                         np.int32).reshape((1,) + owner)
    desc = validate(dmlc.ReverseSubsequencesDesc(
        input=view_at(dtype, (3,) + sizes, (3,) + owner, offset),
        sequence_lengths=view_at(INDEX, (1,) + sizes, (1,) + owner, offset + 1), axis=0))
    want = reference_nd.reverse_subsequences(_first(x3, (3,) + sizes),
                                             _first(lengths, (1,) + sizes), 0)
    return desc, [buffer(x3, offset, seed), buffer(lengths, offset + 1, seed)], want


def _depth(dtype: DataType, x: np.ndarray, sizes, owner, offset, seed, data) -> Case:
    """depth_to_space DCR by 2 of [N, 4, H, W] (the owner's sizes, up to three, as N, H, W;
    the channels static)."""
    full = (1,) * (3 - len(owner)) + owner
    part = (1,) * (3 - len(sizes)) + sizes
    x4 = random_bits(seed, (full[0], 4) + full[1:], dtype.numpy)
    shape = (part[0], 4) + part[1:]
    desc = validate(dmlc.DepthToSpaceDesc(input=view_at(dtype, shape, x4.shape, offset),
                                          block_size=2))
    return desc, [buffer(x4, offset, seed)], depth_to_space(_first(x4, shape), 2, True)


FAMILIES: dict[str, Callable[..., Case]] = {
    "copy": _copy, "tile": _tile, "pad": _pad, "split": _split, "join": _join,
    "gather": _gather, "gather_elements": _elements, "one_hot": _one_hot,
    "reverse": _reverse, "depth_to_space": _depth}




def draw_calls(data: Any, name: str, dtype: DataType, calls: int = 3):
    """The owner (a random array of a drawn shape; the copy's innermost whole vectors), then
    per call the view's sizes (each at least 2 where the owner's is: a size 1 is another key,
    README: a size-1 dimension's stride) and its offset among 0, misaligned and aligned ones:
    yields (x, sizes, owner, offset, call number)."""
    lanes = 16 // dtype.itemsize
    owner = tuple(data.draw(st.lists(st.integers(1, 5), min_size=1, max_size=3)))
    if name == "copy":
        owner = owner[:-1] + (lanes * data.draw(st.integers(1, 2)),)
    x = random_bits(data.draw(st.integers(0, 99)), owner, dtype.numpy)
    for k in range(calls):
        sizes = tuple(data.draw(st.integers(min(2, n), n)) for n in owner)
        offset = data.draw(st.sampled_from([0, 1, 3, lanes, 2 * lanes, lanes + 1]))
        yield x, sizes, owner, offset, k
