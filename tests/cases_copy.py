"""Random cases for copy (ELEMENT_WISE_IDENTITY), DML_SLICE and slice_grad (see tests/cases.py)."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import dmlc
from dmlc.oneshot import tensor_of
from strategies import DATA_TYPES, random_bits, shapes, slice_window_plan

seeds = st.integers(0, 2**32 - 1)


@st.composite
def identity_cases(draw, dtypes=DATA_TYPES):
    """A numpy view of a random base: permuted axes, reversed and stepped ones, broadcasts."""
    from cases import Case
    base = random_bits(draw(seeds), draw(shapes(max_elements=48)), draw(st.sampled_from(dtypes)))
    view = base.transpose(draw(st.permutations(range(base.ndim))))
    key = tuple(slice(None, None, draw(st.sampled_from([1, -1, 2, -2]))) for _ in view.shape)
    view = view[key]
    if view.ndim < 8 and draw(st.booleans()):  # broadcast a new axis in front
        view = np.broadcast_to(view[None], (draw(st.integers(1, 3)), *view.shape))
    desc = dmlc.IdentityDesc(input=tensor_of(view))
    # The descriptor's kernel reads the view's span of the base: its flat buffer.
    from dmlc.oneshot import buffer_of
    flat = np.asarray(buffer_of(view))

    def fn(_flat, view=view):
        return dmlc.copy(view)
    fn.__name__ = "copy"
    return Case(fn, (flat,), {}, desc, np.ascontiguousarray(view))


@st.composite
def slice0_cases(draw, dtypes=DATA_TYPES):
    """DML_SLICE: a window of 1 to 64 output elements (median over 8) over ranks 1-8, strides
    1 to 3 (DML_SLICE has no negative ones; strategies.slice_window_plan)."""
    from cases import Case
    shape, offsets, _, strides, sizes = slice_window_plan(  # sizes: DML_SLICE's counts
        lambda lo, hi: draw(st.sampled_from(range(lo, hi + 1))), signed=False)
    x = random_bits(draw(seeds), tuple(shape), draw(st.sampled_from(dtypes)))
    expected = x[tuple(slice(o, o + s * (z - 1) + 1, s) for o, z, s in
                       zip(offsets, sizes, strides))]
    desc = dmlc.SliceDesc(input=tensor_of(x), offsets=tuple(offsets), sizes=tuple(sizes),
                          strides=tuple(strides))

    def fn(x):
        return dmlc.compile(desc)(x)
    fn.__name__ = "slice0"
    return Case(fn, (x,), {}, desc, expected)


@st.composite
def slice_grad_cases(draw, dtypes=DATA_TYPES):
    from cases import Case
    shape = draw(shapes(max_elements=48))
    dtype = draw(st.sampled_from(dtypes))
    offsets, sizes, strides = [], [], []
    for n in shape:
        o = draw(st.integers(0, n - 1))
        offsets.append(o)
        sizes.append(draw(st.integers(1, n - o)))
        strides.append(draw(st.sampled_from([1, -1, 2, -2, 3])))
    out_sizes = tuple(1 + (s - 1) // abs(st_) for s, st_ in zip(sizes, strides))
    dy = random_bits(draw(seeds), out_sizes, dtype)
    expected = np.zeros(shape, dtype)
    key = []
    for o, s, st_ in zip(offsets, sizes, strides):
        start = o + s - 1 if st_ < 0 else o
        stop = start + st_ * (1 + (s - 1) // abs(st_))
        key.append(slice(start, stop if stop >= 0 else None, st_))
    expected[tuple(key)] = dy
    desc = dmlc.SliceGradDesc(input_gradient=tensor_of(dy),
                              output_gradient=dmlc.TensorDesc(data_type=dy.dtype.name,
                                                              sizes=tuple(shape)),
                              offsets=tuple(offsets), sizes=tuple(sizes), strides=tuple(strides))
    return Case(dmlc.slice_grad, (dy,), {"input_shape": list(shape), "offsets": offsets,
                                         "sizes": sizes, "strides": strides}, desc, expected)
