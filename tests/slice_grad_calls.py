"""DML_SLICE_GRAD calls for the generic kernels' tests: one window (offsets and strides fixed)
at random sizes, the input gradient packed or a view of a wider owner, and an independent numpy
reference that writes the gradient's raw bits through index arrays."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from tests.strategies import random_bits

import dmlc
from dmlc import DataType, TensorDesc
from dmlc.family.registry import validate

STRIDES = (1, -1, 2, -2, 3, -3)


def grad_desc(dtype: DataType, shape: tuple[int, ...], offsets: tuple[int, ...],
              sizes: tuple[int, ...], strides: tuple[int, ...], dy: tuple[int, ...],
              owner: tuple[int, ...] | None = None) -> dmlc.SliceGradDesc:
    """The validated gradient of a slice of `shape`, its input gradient of sizes `dy` (a view
    of the first elements of a packed `owner` when given)."""
    view = None if owner is None else tuple(int(np.prod(owner[i + 1:]))
                                            for i in range(len(owner)))
    return validate(dmlc.SliceGradDesc(
        input_gradient=TensorDesc(data_type=dtype, sizes=dy, strides=view),
        output_gradient=TensorDesc(data_type=dtype, sizes=shape),
        offsets=offsets, sizes=sizes, strides=strides))


def want_grad(dy: np.ndarray, shape: tuple[int, ...], offsets: tuple[int, ...],
              sizes: tuple[int, ...], strides: tuple[int, ...]) -> np.ndarray:
    """Zeros of `shape` with dy's element c written at start + stride * c per dimension
    (start: the offset, or offset + size - 1 for a negative stride), bit for bit."""
    word = np.dtype(f"uint{8 * dy.dtype.itemsize}")
    out = np.zeros(shape, word)
    at = [(o + s - 1 if st < 0 else o) + st * np.arange(n)
          for o, s, st, n in zip(offsets, sizes, strides, dy.shape)]
    out[np.ix_(*at)] = dy.view(word)
    return out.view(dy.dtype)


def draw_call(data: st.DataObject, dtype: DataType, offsets: tuple[int, ...],
              strides: tuple[int, ...], owner_room: int | None = None
              ) -> tuple[dmlc.SliceGradDesc, np.ndarray, np.ndarray, np.ndarray]:
    """A call of this window at random sizes (the window's too): (descriptor, the argument,
    the input gradient packed, numpy's output). owner_room: the input gradient a view of an
    owner this much wider per dimension (None: packed)."""
    shape, sizes, dy = [], [], []
    for o, stride in zip(offsets, strides):
        m = data.draw(st.integers(o + 1, o + 7))
        s = data.draw(st.integers(1, m - o))
        shape.append(m)
        sizes.append(s)
        dy.append(1 + (s - 1) // abs(stride))  # validation: the slice's output sizes
    owner = None if owner_room is None else tuple(n + owner_room for n in dy)
    x = random_bits(data.draw(st.integers(0, 999)), owner or tuple(dy), dtype.numpy)
    packed = x[tuple(slice(0, n) for n in dy)]
    desc = grad_desc(dtype, tuple(shape), offsets, tuple(sizes), strides, tuple(dy), owner)
    want = want_grad(packed, tuple(shape), offsets, tuple(sizes), strides)
    return desc, (x if owner is None else x.reshape(-1)), packed, want


def draw_window(data: st.DataObject, rank: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A window's fixed part: offsets and strides."""
    return (tuple(data.draw(st.integers(0, 3)) for _ in range(rank)),
            tuple(data.draw(st.sampled_from(STRIDES)) for _ in range(rank)))
