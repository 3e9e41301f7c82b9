"""Every kernel the vectorizer's partitions, lane selects and windows can produce
(passes/partition.py, passes/vector_select.py, the div/mod rules through nested sums, codegen's
lazy vector-select branches), checked bit for bit on the device and in the IR interpreter
against an independent numpy oracle, with guard words around every buffer.

The cases aim at the new paths: padding whose start/end are not multiples of the vector width
(partition's edge parts, `known`, `spanned`), output rows of whole vectors over input rows that
are not (`window`), parts running several vectors of a row (planner.ROW_FACTORS), mirrors whose
two uniform branches differ only in their addresses (`_same_shape`), loads whose address holds a
select (hoisting), and the other operators the commit's snapshot says change (join, split,
one_hot, reverse_subsequences, slice_grad, depth_to_space, tile, copy). Structural assertions
(parts, runs) only hold with the vectorize pass on; the bits are checked either way
(DMLC_DISABLE_PASSES).
"""
from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dmlc
import dmlc.passes.cost as cost
import dmlc.passes.planner as planner
import reference as ref
import reference_layout as rl
import reference_nd as rn
from reference import assert_bits_equal
from strategies import DATA_TYPES, budget, random_bits

pytestmark = pytest.mark.vulkan

VECTORIZING = not os.environ.get("DMLC_DISABLE_PASSES")
GUARD = 64
MODES = list(rl.NP_MODES)  # DML_PADDING_MODE_{CONSTANT, EDGE, REFLECTION, SYMMETRIC, WRAP}
WORD_TYPES = [d for d in DATA_TYPES if d.itemsize >= 4]
ids = [d.name for d in DATA_TYPES]


def T(dtype, sizes, **kw) -> dmlc.TensorDesc:
    return dmlc.TensorDesc(data_type=np.dtype(dtype).name, sizes=tuple(sizes), **kw)


def width(dtype) -> int:
    return 16 // np.dtype(dtype).itemsize


@pytest.fixture
def small_parts(monkeypatch):
    """Partition kernels of any size (not only those of planner.MIN_ITEMS or more, and at no
    cost for their dispatches), so that the small cases below reach partition's parts. Kernels
    are then compiled afresh, not from the cache."""
    monkeypatch.setattr(planner, "MIN_ITEMS", 0)
    monkeypatch.setitem(cost.WEIGHTS, "dispatches", 0)
    return True


FRESH = {"no-such-pass"}
"""dump_after naming no pass: compile() builds afresh (no cache) and prints nothing."""


def checked(desc, args, expected, multi: bool = False, fresh: bool = False, dynamic=None):
    """The compiled kernel's bits on the device and in the interpreter, and its guards."""
    kernel = dmlc.compile(desc, guard_words=GUARD, dump_after=FRESH if fresh else None,
                          dynamic=dynamic)
    got = kernel(*args)
    assert kernel.executable().guard_damage() == []
    interp = kernel.reference(*args)
    for out in (got, interp):
        if multi:
            assert len(out) == len(expected)
            for g, e in zip(out, expected):
                assert_bits_equal(g, e)
        else:
            assert_bits_equal(out, expected)
    return kernel


def pad_case(dtype, shape, start, end, mode, seed=0, value=3, strides=None, offset=0,
             fresh=False):
    dtype = np.dtype(dtype)
    if strides is None:
        buf = x = random_bits(seed, shape, dtype)
        td = T(dtype, shape)
    else:
        td = T(dtype, shape, strides=tuple(strides), offset=offset)
        buf = random_bits(seed, (td.buffer_elements,), dtype)
        x = np.lib.stride_tricks.as_strided(buf[offset:], shape=tuple(shape),
                                            strides=[s * dtype.itemsize for s in strides])
    desc = dmlc.PaddingDesc(input=td, mode=mode, start_padding=tuple(start),
                            end_padding=tuple(end), value=value)
    fill = int(np.array(value).astype(dtype).view(f"uint{8 * dtype.itemsize}"))
    expected = rl.pad(np.ascontiguousarray(x), list(start), list(end), mode, fill)
    return checked(desc, [buf], expected, fresh=fresh, dynamic=False)  # the planner's vectors


def parts(kernel) -> list[tuple[str, int, int]]:
    return [(k.name, k.items, k.unrolled) for k in kernel.program.kernels]


# --- padding: edges inside vectors, every type and mode -------------------------------------

@pytest.mark.parametrize("dtype", DATA_TYPES, ids=ids)
@pytest.mark.parametrize("mode", MODES, ids=[m[17:].lower() for m in MODES])
def test_padding_edges_inside_vectors(dtype, mode, small_parts):
    """Input rows of whole vectors, start 1 and end w - 1 (both edges inside a vector): word
    types are cut into parts (edge parts from `known`, runs off a boundary from `spanned`);
    8/16-bit types take the per-lane select paths. Rows padded too (uniform selects)."""
    w = width(dtype)
    kernel = pad_case(dtype, (3, 2, 2 * w), (0, 1, 1), (1, 1, w - 1), mode, seed=1, fresh=True)
    if VECTORIZING and dtype.itemsize >= 4:
        assert "vstore output" in kernel.ir, kernel.ir
        if mode.endswith(("CONSTANT", "EDGE", "REFLECTION")):
            assert all("_columns_" in name for name, _, _ in parts(kernel)), kernel.ir


@pytest.mark.parametrize("dtype", [np.dtype(t) for t in ("float32", "int64")], ids=str)
@pytest.mark.parametrize("mode", MODES, ids=[m[17:].lower() for m in MODES])
@pytest.mark.parametrize("columns,start,end", [(1, 1, 2), (3, 2, 3), (5, 3, 0), (6, 1, 1),
                                               (7, 0, 1), (9, 2, 1)])
def test_padding_of_unaligned_input_rows(dtype, mode, columns, start, end, small_parts):
    """Output rows whose length is whatever the pads make of it, input rows that start at every
    alignment (`window`: a runtime-checked pick from two aligned vectors, else scalar loads)."""
    limit = columns - 1 if mode.endswith("REFLECTION") else columns
    if not mode.endswith(("CONSTANT", "EDGE")) and max(start, end) > limit:
        pytest.skip("beyond what the mode allows")
    pad_case(dtype, (4, columns), (1 if columns > 1 or not mode.endswith("REFLECTION") else 0,
                                   start), (0, end), mode, seed=columns, fresh=True)


@pytest.mark.parametrize("dtype", [np.dtype("float32"), np.dtype("int64"), np.dtype("uint32")],
                         ids=str)
@pytest.mark.parametrize("mode", MODES, ids=[m[17:].lower() for m in MODES])
def test_padding_parts_running_several_vectors(dtype, mode):
    """Parts run several vectors of one row per invocation (planner.ROW_FACTORS), sharing the
    vectors a misaligned run reads."""
    w = width(dtype)
    kernel = pad_case(dtype, (1100, 16 * w), (1, 1), (1, w - 1), mode, seed=2)
    if VECTORIZING:
        assert any(unrolled > 1 for _, _, unrolled in parts(kernel)), parts(kernel)


@pytest.mark.parametrize("dtype", [np.dtype("float32"), np.dtype("float64")], ids=str)
@pytest.mark.parametrize("mode", MODES, ids=[m[17:].lower() for m in MODES])
@pytest.mark.parametrize("vectors", [13, 31])  # no planner.ROW_FACTORS divides the steady part
def test_padding_parts_whose_size_no_run_divides(dtype, mode, vectors):
    w = width(dtype)
    pad_case(dtype, (900, vectors * w), (0, 1), (0, w - 1), mode, seed=vectors)


@pytest.mark.parametrize("mode", MODES, ids=[m[17:].lower() for m in MODES])
def test_padding_rank5_every_dimension(mode, small_parts):
    x_shape = (2, 3, 2, 3, 8)
    pad_case(np.dtype("float32"), x_shape, (1, 0, 1, 2, 3), (0, 2, 1, 1, 1), mode, seed=5,
             fresh=True)


@pytest.mark.parametrize("dtype", [np.dtype("float32"), np.dtype("int64")], ids=str)
def test_constant_and_edge_pads_wider_than_the_input(dtype, small_parts):
    """Pads of several vectors around rows of one element or less than a vector: parts whose
    every lane is padding, parts whose lanes all read the same element."""
    w = width(dtype)
    for mode in ("DML_PADDING_MODE_CONSTANT", "DML_PADDING_MODE_EDGE"):
        for columns, start in ((1, 2 * w + 1), (w, 1), (w - 1 or 1, 3 * w)):
            end = (-(columns + start)) % w + w
            pad_case(dtype, (5, columns), (1, start), (2, end), mode, seed=start, fresh=True)


@pytest.mark.parametrize("dtype", [np.dtype("float32"), np.dtype("int64")], ids=str)
@pytest.mark.parametrize("mode", MODES, ids=[m[17:].lower() for m in MODES])
@pytest.mark.parametrize("strides", [(16, -1), (-16, 1), (32, 2), (16, 0), (0, 1)],
                         ids=["reversed", "rows-reversed", "every-other", "broadcast-column",
                              "broadcast-row"])
def test_padding_of_strided_views(dtype, mode, strides, small_parts):
    """Inputs read through strides (a reversed or strided view, broadcast rows or columns) and
    an offset: the lanes' addresses are no longer row * C + column."""
    shape = (6, 16)
    steps = [(n - 1) * s for n, s in zip(shape, strides)]
    offset = -sum(s for s in steps if s < 0) + 1
    pad_case(dtype, shape, (1, 3), (0, 1 + (-(16 + 3 + 1)) % width(dtype)), mode, seed=7,
             strides=strides, offset=offset, fresh=True)


@pytest.mark.parametrize("value", [-0.0, float("nan"), float("inf")], ids=str)
def test_padding_constant_bits(value):
    pad_case(np.dtype("float32"), (3, 8), (0, 1), (0, 3), "DML_PADDING_MODE_CONSTANT",
             value=value)


@settings(max_examples=budget(30), deadline=None)
@given(data=st.data())
def test_padding_fuzzed(data):
    """Random types, ranks 1-4, modes and pads; the last dimension's pads chosen so that the
    output rows are mostly whole vectors (where partition and vector_select apply)."""
    dtype = data.draw(st.sampled_from(DATA_TYPES), "dtype")
    w = width(dtype)
    mode = data.draw(st.sampled_from(MODES), "mode")
    rank = data.draw(st.integers(1, 4), "rank")
    shape = [data.draw(st.integers(1, 3)) for _ in range(rank - 1)]
    shape.append(data.draw(st.sampled_from([1, 2, 3, w, 2 * w, 3 * w + 1]), "columns"))

    def limit(n):
        return {"DML_PADDING_MODE_REFLECTION": n - 1, "DML_PADDING_MODE_SYMMETRIC": n,
                "DML_PADDING_MODE_WRAP": n}.get(mode, 2 * w + 1)
    start = [data.draw(st.integers(0, min(limit(n), 3))) for n in shape]
    end = [data.draw(st.integers(0, min(limit(n), 3))) for n in shape]
    start[-1] = data.draw(st.integers(0, limit(shape[-1])), "start")
    fits = [e for e in range(limit(shape[-1]) + 1) if (shape[-1] + start[-1] + e) % w == 0]
    end[-1] = data.draw(st.sampled_from(fits), "end") if fits else 0
    pad_case(dtype, tuple(shape), start, end, mode, seed=3)


# --- join and split: pieces that end inside vectors -----------------------------------------

@pytest.mark.parametrize("dtype", DATA_TYPES, ids=ids)
@pytest.mark.parametrize("pieces", [(1, 3), (3, 5), (1, 1, 2), (5, 2, 1)], ids=str)
def test_join_and_split_pieces_inside_vectors(dtype, pieces):
    """Pieces along the last axis, in units of w/4 (all of them together: whole vectors when
    the units add up to 4): edges inside vectors."""
    w = width(dtype)
    unit = max(1, w // 4)
    xs = [random_bits(k, (5, p * unit), dtype) for k, p in enumerate(pieces)]
    joined = np.concatenate(xs, axis=1)
    checked(dmlc.JoinDesc(inputs=tuple(T(dtype, x.shape) for x in xs), axis=1), xs, joined)
    checked(dmlc.SplitDesc(input=T(dtype, joined.shape), outputs=tuple(T(dtype, x.shape)
                                                                        for x in xs), axis=1),
            [joined], xs, multi=True)


@pytest.mark.parametrize("dtype", [np.dtype("float32"), np.dtype("int64"), np.dtype("uint8")],
                         ids=str)
def test_join_and_split_many_rows(dtype):
    w = width(dtype)
    xs = [random_bits(k, (2, 1500, p), dtype) for k, p in enumerate((w - 1, 1, 2 * w))]
    joined = np.concatenate(xs, axis=2)
    checked(dmlc.JoinDesc(inputs=tuple(T(dtype, x.shape) for x in xs), axis=2), xs, joined)
    checked(dmlc.SplitDesc(input=T(dtype, joined.shape),
                           outputs=tuple(T(dtype, x.shape) for x in xs), axis=2),
            [joined], xs, multi=True)


# --- one_hot, reverse_subsequences ----------------------------------------------------------

@pytest.mark.parametrize("dtype", DATA_TYPES, ids=ids)
@pytest.mark.parametrize("depth_vectors", [1, 3])
def test_one_hot_classes_in_vectors(dtype, depth_vectors):
    w = width(dtype)
    depth, rows = depth_vectors * w, 300
    rng = np.random.default_rng(4)
    labels = rng.integers(-depth - 1, depth + 2, size=(rows, 1)).astype(np.int64)
    values = random_bits(5, (1, 2), dtype)
    desc = dmlc.OneHotDesc(indices=T("int64", (rows, 1)), values=T(dtype, (1, 2)),
                           output=T(dtype, (rows, depth)), axis=1)
    checked(desc, [labels, values], rn.one_hot(labels.reshape(-1), values.reshape(-1), depth, 1))


@pytest.mark.parametrize("dtype", DATA_TYPES, ids=ids)
@pytest.mark.parametrize("axis", [0, 1])
def test_reverse_subsequences_in_vectors(dtype, axis):
    w = width(dtype)
    shape = (40, 3 * w) if axis == 1 else (3 * w + 1, 2 * w)
    x = random_bits(6, shape, dtype)
    lshape = list(shape)
    lshape[axis] = 1
    n = shape[axis]
    lengths = np.random.default_rng(7).integers(0, n + 1, size=lshape).astype(np.uint32)
    desc = dmlc.ReverseSubsequencesDesc(input=T(dtype, shape), sequence_lengths=T("uint32", lshape),
                                        axis=axis)
    checked(desc, [x, lengths], rn.reverse_subsequences(x, lengths, axis))


# --- slice, slice_grad, copy ----------------------------------------------------------------

@pytest.mark.parametrize("dtype", DATA_TYPES, ids=ids)
@pytest.mark.parametrize("offset,size,stride", [(1, 13, 1), (3, 16, -1), (2, 17, 2), (5, 10, -2),
                                                (0, 33, 3)])
def test_slice_off_vector_boundaries(dtype, offset, size, stride):
    w = width(dtype)
    x = random_bits(8, (7, 40 + w), dtype)
    desc = dmlc.Slice1Desc(input=T(dtype, x.shape), offsets=(1, offset), sizes=(6, size),
                           strides=(1, stride))
    checked(desc, [x], ref.slice1(x, [1, offset], [6, size], [1, stride]))


def slice_grad_expected(dy, shape, offsets, sizes, strides):
    out = np.zeros(shape, dy.dtype)
    axes = [(o + s - 1 if st < 0 else o) + st * np.arange(n)
            for o, s, st, n in zip(offsets, sizes, strides, dy.shape)]
    out[np.ix_(*axes)] = dy
    return out


@pytest.mark.parametrize("dtype", DATA_TYPES, ids=ids)
@pytest.mark.parametrize("offset,size,stride", [(1, 6, 1), (3, 9, -1), (1, 10, 3), (2, 12, -2)])
@pytest.mark.parametrize("rows", [3, 700])
def test_slice_grad_windows_inside_vectors(dtype, offset, size, stride, rows):
    w = width(dtype)
    shape = (rows, max(4 * w, 16))
    n = 1 + (size - 1) // abs(stride)
    dy = random_bits(9, (rows - 1, n), dtype)
    offsets, sizes, strides = (1, offset), (rows - 1, size), (1, stride)
    desc = dmlc.SliceGradDesc(input_gradient=T(dtype, dy.shape), output_gradient=T(dtype, shape),
                              offsets=offsets, sizes=sizes, strides=strides)
    checked(desc, [dy], slice_grad_expected(dy, shape, offsets, sizes, strides))


@pytest.mark.parametrize("dtype", [np.dtype("float32"), np.dtype("int64"), np.dtype("float16")],
                         ids=str)
@pytest.mark.parametrize("strides", [(1, 8), (8, -1), (16, 2), (0, 1)], ids=str)
def test_copy_of_strided_views(dtype, strides):
    shape = (8, 8)
    steps = [(n - 1) * s for n, s in zip(shape, strides)]
    offset = -sum(s for s in steps if s < 0) + 3
    td = T(dtype, shape, strides=strides, offset=offset)
    buf = random_bits(10, (td.buffer_elements,), dtype)
    view = np.lib.stride_tricks.as_strided(buf[offset:], shape=shape,
                                           strides=[s * dtype.itemsize for s in strides])
    checked(dmlc.IdentityDesc(input=td), [buf], np.ascontiguousarray(view))


# --- depth_to_space, space_to_depth, tile ---------------------------------------------------

ORDERS = ("DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW", "DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH")


@pytest.mark.parametrize("dtype", [np.dtype("float32"), np.dtype("int64"), np.dtype("uint8"),
                                   np.dtype("float16")], ids=str)
@pytest.mark.parametrize("block", [2, 3])
@pytest.mark.parametrize("order", ORDERS, ids=["dcr", "crd"])
def test_depth_space_round_trip(dtype, block, order):
    """depth_to_space big enough for the planner to weigh tiles against plain unrolling (which
    reads whole vectors there), and its inverse."""
    dcr = order == ORDERS[0]
    x = random_bits(11, (1, 2 * block * block, 24, 16), dtype)
    d2s = rl.depth_to_space(x, block, dcr)
    checked(dmlc.DepthToSpaceDesc(input=T(dtype, x.shape), block_size=block, order=order), [x],
            d2s)
    checked(dmlc.SpaceToDepthDesc(input=T(dtype, d2s.shape), block_size=block, order=order),
            [d2s], x)


@pytest.mark.parametrize("dtype", [np.dtype("float32"), np.dtype("int64"), np.dtype("int8")],
                         ids=str)
@pytest.mark.parametrize("shape,repeats", [((3, 5), (40, 3)), ((2, 3, 6), (1, 30, 2)),
                                           ((7,), (9,))], ids=str)
def test_tile(dtype, shape, repeats):
    x = random_bits(12, shape, dtype)
    checked(dmlc.TileDesc(input=T(dtype, shape), repeats=repeats), [x], np.tile(x, repeats))
