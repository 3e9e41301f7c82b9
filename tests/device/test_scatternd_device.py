"""DML_SCATTER_ND on the Vulkan device: random cases by both lowerings, ONNX-shaped calls of
dmlc.scatter_nd (ranks differ), device tensors and out=, in place on the data tensor, checked
mode, and guard words around every buffer with wild indices (every data and index type)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_properties import check_cases

import cases  # noqa: F401  (registers cases_scatternd's generators first)
import dmlc
import reference_scatternd as ref
from cases_scatternd import tuple_indices
from reference import assert_bits_equal
from strategies import DATA_TYPES, INDEX_TYPES, random_bits, shapes

pytestmark = pytest.mark.vulkan

GUARD = 256


def test_both_lowerings_match_the_reference(scatter_design):
    check_cases("scatter_nd")


@st.composite
def onnx_shaped(draw, max_rank: int = 5):
    """ONNX shapes: data rank r, indices (*batch, k), updates batch + data.shape[k:]."""
    data_shape = draw(shapes(1, max_rank, 48))
    k = draw(st.integers(1, len(data_shape)))
    batch = draw(shapes(1, 3, 6))
    dtype, itype = draw(st.sampled_from(DATA_TYPES)), draw(st.sampled_from(INDEX_TYPES))
    idx = draw(tuple_indices(batch, data_shape[:k], itype))
    seed = draw(st.integers(0, 2**32 - 1))
    x = random_bits(seed, data_shape, dtype)
    return x, idx, random_bits(seed + 1, batch + data_shape[k:], dtype)


@given(onnx_shaped(), st.sampled_from(["numpy", "device", "out", "in place"]))
def test_onnx_shaped_calls(case, how):
    """Ranks padded to one DimensionCount and the result given back in the data's shape: numpy
    arrays, device tensors, out= a device tensor, out= the data tensor itself."""
    x, idx, upd = case
    expected = ref.scatter_nd(x, idx, upd)
    if how == "numpy":
        got = dmlc.scatter_nd(x, idx, upd)
    elif how == "device":
        got = dmlc.scatter_nd(dmlc.to_device(x), dmlc.to_device(idx), dmlc.to_device(upd))
        assert not isinstance(got, np.ndarray)
        got = got.numpy()
    elif how == "out":
        out = dmlc.empty(x.shape, x.dtype)
        assert dmlc.scatter_nd(x, idx, upd, out=out) is out
        got = out.numpy()
    else:
        t = dmlc.to_device(x)
        assert dmlc.scatter_nd(t, idx, upd, out=t) is t
        got = t.numpy()
    assert_bits_equal(got, expected)


def test_numpy_out():
    x = np.arange(12, dtype=np.int8).reshape(4, 3)
    out = np.empty_like(x)
    idx, upd = np.array([[2], [0]], np.uint64), np.full((2, 3), -1, np.int8)
    assert dmlc.scatter_nd(x, idx, upd, out=out) is out
    assert_bits_equal(out, ref.scatter_nd(x, idx, upd))
    with pytest.raises(dmlc.ValidationError, match="out shape"):
        dmlc.scatter_nd(x, idx, upd, out=np.empty((3, 4), np.int8))
    # ranks padded (data [4, 3], indices [1, 2, 1]): out= still written, views included
    idx3 = idx.reshape(1, 2, 1)
    upd3 = upd.reshape(1, 2, 3)
    for o in (np.empty_like(x), np.empty((3, 4), np.int8).T, dmlc.empty(x.shape, x.dtype)):
        assert dmlc.scatter_nd(x, idx3, upd3, out=o) is o
        assert_bits_equal(o if isinstance(o, np.ndarray) else o.numpy(),
                          ref.scatter_nd(x, idx, upd))
    with pytest.raises(dmlc.ValidationError, match="out"):
        dmlc.scatter_nd(x, idx3, upd3, out=np.empty((3, 4), np.int16).T)
    o = dmlc.empty((3, 4), x.dtype)  # out= a transposed device view: written where it lies
    assert dmlc.scatter_nd(x, idx3, upd3, out=o.T) is not None
    assert_bits_equal(o.numpy(), ref.scatter_nd(x, idx, upd).T)


@pytest.mark.parametrize("dtype", DATA_TYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("target", ["cpu", "gpu"])
def test_in_place_every_type_both_targets(dtype, target, monkeypatch):
    """Lines in place (8/16-bit: atomic stores into shared words) and the vote in place."""
    monkeypatch.setenv("DMLC_TARGET", target)
    x = random_bits(5, (6, 5, 3), dtype)
    idx = np.array([[1, 4], [-1, 0], [1, 4], [9, 0], [0, -5]], np.int32)
    upd = random_bits(6, (5, 3), dtype)
    t = dmlc.to_device(x)
    dmlc.scatter_nd(t, idx, upd, out=t)
    assert_bits_equal(t.numpy(), ref.scatter_nd(x, idx, upd))


@pytest.mark.parametrize("dtype", DATA_TYPES, ids=lambda d: d.name)
def test_in_place_by_vote(dtype):
    """Many rows along few lines (whole-element tuples): the vote, the data its own original."""
    x = random_bits(5, (6, 5), dtype)
    idx = np.random.default_rng(1).integers(-7, 7, (100, 2)).astype(np.int64)
    upd = random_bits(6, (100,), dtype)
    d = dmlc.ScatterNDDesc(input=dmlc.TensorDesc(data_type=x.dtype.name, sizes=(1, 6, 5)),
                           indices=dmlc.TensorDesc(data_type="INT64", sizes=(1, 100, 2)),
                           updates=dmlc.TensorDesc(data_type=x.dtype.name, sizes=(1, 1, 100)),
                           input_dimension_count=2, indices_dimension_count=2)
    k = dmlc.compile(d, dynamic=False)  # the specialized kernel's plan
    assert [s.name for s in k._in_place().stages] == ["scatter_nd_vote", "scatter_nd_resolve"]
    t = dmlc.to_device(x)
    dmlc.scatter_nd(t, idx, upd, out=t)
    assert_bits_equal(t.numpy(), ref.scatter_nd(x, idx, upd))


def test_in_place_runs_no_copy():
    """A KV-cache row: one kernel over the row's elements; few long lines take the vote."""
    d = dmlc.ScatterNDDesc(input=dmlc.TensorDesc(data_type="FLOAT16", sizes=(4096, 64)),
                           indices=dmlc.TensorDesc(data_type="INT32", sizes=(1, 1)),
                           updates=dmlc.TensorDesc(data_type="FLOAT16", sizes=(1, 64)),
                           input_dimension_count=2, indices_dimension_count=2)
    k = dmlc.compile(d, dynamic=False)  # the specialized kernel's plan
    assert [s.name for s in k._in_place().stages] == ["scatter_nd_lines"]
    assert k._in_place().stages[0].invocations <= 64
    assert k._in_place().plan.inputs == ("indices", "updates")


def test_checked_mode_names_the_coordinate_and_in_place_leaves_the_data():
    data = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    idx = np.array([[0, 1], [1, 3], [1, 2]], np.int64)  # [1, 1]: 3 is outside axis 1 (size 3)
    upd = np.full((3, 4), -1, np.float32)
    # the position is the caller's (the kernel's indices are padded with a leading 1)
    with pytest.raises(dmlc.IndexOutOfRangeError, match=r"IndicesTensor\[1, 1\] = 3"):
        dmlc.scatter_nd(data, idx, upd, check_indices=True)
    t = dmlc.to_device(data)
    with pytest.raises(dmlc.IndexOutOfRangeError, match=r"\[-3, 2\]"):
        dmlc.scatter_nd(t, idx, upd, check_indices=True, out=t)
    assert_bits_equal(t.numpy(), data)
    good = idx.copy()
    good[1, 1] = -3
    assert_bits_equal(dmlc.scatter_nd(data, good, upd, check_indices=True),
                      ref.scatter_nd(data, good, upd))


def wild(dtype: np.dtype, dims: tuple[int, ...]) -> np.ndarray:
    """Tuples pairing every boundary of each axis and of the type with in-range values."""
    info = np.iinfo(dtype)
    values = [0, 1, -1, 2, 3, 4, 5, -4, -5, -6, info.min, info.max, 2**31 - 1, 2**31,
              -(2**31) - 1, 2**32, 2**40, -(2**40), 2**63 - 1, 2**64 - 1]
    values = sorted({v for v in values if info.min <= v <= info.max})
    rows = [(v, w % dims[1]) for v in values for w in (0, 1)]
    rows += [(w % dims[0], v) for v in values for w in (0, 1)]
    return np.array(rows, dtype=dtype)


@pytest.mark.parametrize("index_type", INDEX_TYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("dtype", DATA_TYPES, ids=lambda d: d.name)
def test_stays_inside(dtype, index_type, scatter_design):
    x = random_bits(7, (4, 5, 3), dtype)
    idx = wild(index_type, (4, 5))
    upd = random_bits(8, (len(idx), 3), dtype)

    def tensor(a):
        return dmlc.TensorDesc(data_type=a.dtype.name, sizes=a.shape)
    idx3 = idx.reshape(1, *idx.shape)
    upd3 = upd.reshape(1, *upd.shape)
    d = dmlc.ScatterNDDesc(input=tensor(x), indices=tensor(idx3), updates=tensor(upd3),
                           input_dimension_count=3, indices_dimension_count=2)
    for check in (False, True):
        kernel = dmlc.compile(d, guard_words=GUARD, check_indices=check)
        try:
            if check:
                with pytest.raises(dmlc.IndexOutOfRangeError):
                    kernel(x, idx3, upd3)
            else:
                assert_bits_equal(kernel(x, idx3, upd3), ref.scatter_nd(x, idx, upd))
        finally:
            assert kernel.executable().guard_damage() == []


def test_the_examples_run_and_check_themselves():
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, str(root / "examples" / "kv_cache_scatter_nd.py")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "exact" in done.stdout, done.stderr
    dml = subprocess.run([str(Path(sys.executable).parent / "dmlc"), "run",
                          str(root / "examples" / "scatter_nd.dml")],
                         capture_output=True, text=True, timeout=300)
    assert dml.returncode == 0 and "matches" in dml.stdout + dml.stderr, dml.stderr


def test_no_tuples_and_0_d_updates_as_onnx_has_them():
    """No index tuples: the input as it was (a copy; out= the data tensor: nothing written),
    no kernel; an empty input: an empty output, and in checked mode every index into an empty
    axis is out of range; a 0-d update where each tuple indexes every axis (ONNX)."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    none, rows = np.zeros((0, 1), np.int64), np.zeros((0, 3), np.float32)
    assert_bits_equal(dmlc.scatter_nd(x, none, rows), x)
    t = dmlc.to_device(x)
    assert dmlc.scatter_nd(t, none, rows, out=t) is t
    assert_bits_equal(t.numpy(), x)
    got = dmlc.scatter_nd(np.zeros((0, 3), np.float32), none, rows)
    assert got.shape == (0, 3) and got.dtype == np.float32
    with pytest.raises(dmlc.IndexOutOfRangeError, match=r"IndicesTensor\[0, 0\] = 0"):
        dmlc.scatter_nd(np.zeros((0, 3), np.float32), np.array([[0]]), np.ones((1, 3), np.float32),
                        check_indices=True)
    want = x.copy()
    want[0, 2] = 9
    assert_bits_equal(dmlc.scatter_nd(x, np.array([0, 2]), np.float32(9)), want)
    assert_bits_equal(dmlc.scatter_nd(x, np.array([0, 2]), dmlc.to_device(
        np.float32(9).reshape(()))).numpy(), want)
