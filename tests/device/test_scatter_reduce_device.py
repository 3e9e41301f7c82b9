"""Scatter reductions on the Vulkan device, bit for bit against numpy applying the updates one
at a time: float bit patterns of every kind (NaN payloads, signaling NaNs, infinities,
denormals, -0.0, rounding ties) for add/mul/max/min on f16/f32/f64 (f16: every pattern),
long chains of updates, twice the same bits, in place, lines longer than one kernel, and guard
words around every buffer with wild indices."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dmlc
import reference_scatternd as ref
from reference import assert_bits_equal
from strategies import DATA_TYPES, INDEX_TYPES, random_bits

pytestmark = pytest.mark.vulkan

KINDS = ["add", "mul", "max", "min"]
FLOATS = [np.dtype(t) for t in ("float16", "float32", "float64")]
N = 64


def specials(dtype: np.dtype) -> list[int]:
    """Bit patterns at every edge of the format."""
    bits = 8 * dtype.itemsize
    m = {16: 10, 32: 23, 64: 52}[bits]
    sign, exp_all, quiet = 1 << (bits - 1), ((1 << (bits - 1 - m)) - 1) << m, 1 << (m - 1)
    one = ((1 << (bits - 2 - m)) - 1) << m
    values = [0, 1, 2, 3, (1 << m) - 1, 1 << m, (1 << m) + 1, one, one + 1, one - 1,
              exp_all - 1, exp_all - (1 << m), exp_all, exp_all | quiet, exp_all | 1,
              exp_all | quiet | 5, exp_all | 2, one + (1 << m), one | (1 << (m - 1))]
    return values + [v | sign for v in values]


@st.composite
def float_pairs(draw, dtype: np.dtype):
    """N (current, update) pairs: edges, random bits, and neighbours of the same binade
    (where rounding ties and cancellations happen)."""
    bits = 8 * dtype.itemsize
    edge = st.sampled_from(specials(dtype))
    anything = st.integers(0, 2**bits - 1)
    value = st.one_of(edge, anything)
    pairs = []
    for _ in range(N):
        a = draw(value)
        how = draw(st.sampled_from(["any", "near", "negated near"]))
        if how == "any":
            b = draw(value)
        else:
            b = a ^ draw(st.integers(0, 2**draw(st.integers(1, 12)) - 1))
            b ^= (1 << (bits - 1)) if how == "negated near" else 0
        pairs.append((a, b))
    u = np.dtype(f"uint{bits}")
    a = np.array([p[0] for p in pairs], u).view(dtype)
    b = np.array([p[1] for p in pairs], u).view(dtype)
    return a, b


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_float_bit_patterns(dtype, kind):
    idx = np.arange(N, dtype=np.int32)[:, None]

    @given(float_pairs(dtype))
    def check(pair):
        a, b = pair
        assert_bits_equal(dmlc.scatter_nd(a, idx, b, reduction=kind),
                          ref.scatter_nd(a, idx, b, reduction=kind))
    check()


@pytest.mark.parametrize("kind", KINDS)
def test_every_float16_pattern(kind):
    """All 65,536 float16 patterns combined with random ones, and with random ones first."""
    a = np.arange(2**16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    b = random_bits(11, a.shape, np.float16)
    idx = np.arange(a.size, dtype=np.int32)[:, None]
    for x, u in ((a, b), (b, a)):
        assert_bits_equal(dmlc.scatter_nd(x, idx, u, reduction=kind),
                          ref.scatter_nd(x, idx, u, reduction=kind))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", DATA_TYPES, ids=lambda d: d.name)
def test_chains_in_order_and_twice_the_same_bits(dtype, kind):
    """300 updates into 3 elements of each column, in row-major order; a second run gives the
    same bits (no atomics decide anything)."""
    x = random_bits(1, (3, 4), dtype)
    idx = np.random.default_rng(2).integers(-3, 3, (300, 4)).astype(np.int64)
    upd = random_bits(3, (300, 4), dtype)
    if dtype.kind == "f":  # finite values near 1, so that long sums and products stay finite
        upd = (1 + (np.random.default_rng(4).random((300, 4)) - 0.5) / 64).astype(dtype)
    want = ref.scatter(x, idx, upd, 0, kind)
    first = dmlc.scatter(x, idx, upd, axis=0, reduction=kind)
    assert_bits_equal(first, want)
    assert_bits_equal(dmlc.scatter(x, idx, upd, axis=0, reduction=kind), first)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", DATA_TYPES, ids=lambda d: d.name)
def test_in_place(dtype, kind):
    x = random_bits(5, (5, 2, 3), dtype)
    idx = np.array([[1, 0], [4, 1], [1, 0], [-1, -2], [7, 0]], np.int32)
    upd = random_bits(6, (5, 3), dtype)
    t = dmlc.to_device(x)
    assert dmlc.scatter_nd(t, idx, upd, reduction=kind, out=t) is t
    assert_bits_equal(t.numpy(), ref.scatter_nd(x, idx, upd, reduction=kind))
    e_idx = np.array([[0, 4, 4], [4, -5, 9]], np.int64)
    e_upd = random_bits(7, (2, 3), dtype)
    y = random_bits(8, (5, 3), dtype)
    t = dmlc.to_device(y)
    assert dmlc.scatter(t, e_idx, e_upd, axis=0, reduction=kind, out=t) is t
    assert_bits_equal(t.numpy(), ref.scatter(y, e_idx, e_upd, 0, kind))


def test_lines_longer_than_one_kernel():
    """70,000 updates along one line: consecutive kernels, still in order."""
    x = np.array([7], np.int32)
    idx = np.zeros((70_000, 1), np.int32)
    upd = np.arange(70_000, dtype=np.int32)
    kernel = dmlc.compile(dmlc.ScatterNDDesc(
        input=dmlc.TensorDesc(data_type="INT32", sizes=(1, 1)),
        indices=dmlc.TensorDesc(data_type="INT32", sizes=(70_000, 1)),
        updates=dmlc.TensorDesc(data_type="INT32", sizes=(1, 70_000)),
        input_dimension_count=1, indices_dimension_count=2, reduction="add"))
    assert [s.name for s in kernel.stages] == ["scatter_nd_copy", "scatter_add", "scatter_add"]
    got = kernel(x.reshape(1, 1), idx, upd.reshape(1, -1))
    assert int(got[0, 0]) == int((7 + upd.astype(np.int64).sum()) % 2**32 - 2**32 * (
        (7 + upd.astype(np.int64).sum()) % 2**32 >= 2**31))
    last = dmlc.scatter_nd(x, idx, upd, reduction="max")
    assert int(last[0]) == 69_999


@pytest.mark.parametrize("index_type", INDEX_TYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("dtype", DATA_TYPES, ids=lambda d: d.name)
def test_stays_inside(dtype, index_type):
    info = np.iinfo(index_type)
    wild = sorted({v for v in [0, 1, 2, 3, -1, -3, -4, info.min, info.max, 2**31, 2**32,
                               -(2**31) - 1, 2**63 - 1] if info.min <= v <= info.max})
    x = random_bits(9, (3, 4), dtype)
    idx = np.array([wild] * 4, index_type).T.copy()  # [len(wild), 4]
    upd = random_bits(10, idx.shape, dtype)

    def tensor(a):
        return dmlc.TensorDesc(data_type=a.dtype.name, sizes=a.shape)
    for kind in KINDS:
        d = dmlc.ScatterDesc(input=tensor(x), indices=tensor(idx), updates=tensor(upd), axis=0,
                             reduction=kind)
        kernel = dmlc.compile(d, guard_words=256)
        try:
            assert_bits_equal(kernel(x, idx, upd), ref.scatter(x, idx, upd, 0, kind))
        finally:
            assert kernel.executable().guard_damage() == []


@st.composite
def onnx_cases(draw, elements: bool):
    """In-range, non-negative indices (ONNX's evaluator needs them); few targets, so updates
    pile up. ScatterElements' evaluator takes max/min from Python's builtins, which differ from
    numpy on NaN and on -0.0 vs 0.0: its float data are then drawn without those."""
    dtype = draw(st.sampled_from(DATA_TYPES))
    kind = draw(st.sampled_from(KINDS))
    x = random_bits(draw(st.integers(0, 2**32 - 1)), (3, 4), dtype)
    if elements:
        idx = np.array(draw(st.lists(st.integers(0, 2), min_size=20, max_size=20)),
                       np.int64).reshape(5, 4)
        shape = idx.shape
    else:
        idx = np.array(draw(st.lists(st.integers(0, 2), min_size=6, max_size=6)),
                       np.int64).reshape(6, 1)
        shape = (6, 4)
    upd = random_bits(draw(st.integers(0, 2**32 - 1)), shape, dtype)
    if dtype.kind == "f" and elements:
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        x, upd = (rng.integers(1, 9, a.shape) * rng.choice([-1.0, 1.0], a.shape) / 4
                  for a in (x, upd))
        x, upd = x.astype(dtype), upd.astype(dtype)
    return x, idx, upd, kind


@given(onnx_cases(elements=True))
def test_onnx_scatter_elements_agrees(case):
    from onnx_reference import run_node
    x, idx, upd, kind = case
    expected = run_node("ScatterElements", [x, idx, upd], axis=0, reduction=kind)[0]
    assert_bits_equal(dmlc.scatter(x, idx, upd, axis=0, reduction=kind), expected)


@given(onnx_cases(elements=False))
def test_onnx_scatter_nd_agrees(case):
    from onnx_reference import run_node
    x, idx, upd, kind = case
    expected = run_node("ScatterND", [x, idx, upd], reduction=kind)[0]
    assert_bits_equal(dmlc.scatter_nd(x, idx, upd, reduction=kind), expected)


def test_checked_mode_in_place_raises_and_leaves_the_data_as_it_was():
    """Also when the lines run as several kernels (every one of them writes nothing)."""
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    idx = np.zeros((70_000, 1), np.int32)
    idx[-1, 0] = 2
    t = dmlc.to_device(data)
    with pytest.raises(dmlc.IndexOutOfRangeError, match=r"IndicesTensor\[69999, 0\] = 2"):
        dmlc.scatter_nd(t, idx, np.ones((70_000, 3), np.float32), reduction="add",
                        check_indices=True, out=t)
    assert_bits_equal(t.numpy(), data)
