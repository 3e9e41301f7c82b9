"""No read or write leaves a buffer, whatever the index values: every buffer of the program
(inputs, output, scratch and status) sits between guard regions of 256 words filled with a known
pattern (`compile(..., guard_words=256)`), and after a call with wild indices the guards are intact
and the output is exactly the reference's. Every operator, every data type, every index type."""
from __future__ import annotations

import numpy as np
import pytest

import dmlc
import reference as ref
from dmlc import GatherDesc, GatherElementsDesc, ScatterDesc, Slice1Desc, TensorDesc
from dmlc.dtypes import DataType
from dmlc.passes.pipeline import env_names
from strategies import DATA_TYPES, INDEX_TYPES, random_bits

pytestmark = pytest.mark.vulkan

GUARD = 256
SHAPE, AXIS = (3, 5), 1


def wild_values(dtype: np.dtype, dim: int) -> list[int]:
    """Every boundary of the axis and of the type, and values far outside both."""
    info = np.iinfo(dtype)
    values = [0, 1, dim - 1, dim, dim + 1, -1, -dim, -dim - 1, info.min, info.max, info.max - 1,
              2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 2**32 - 1, 2**32, 2**40, -(2**40),
              2**63 - 1, 2**64 - 1]
    return sorted({v for v in values if info.min <= v <= info.max})


def tensor(a: np.ndarray) -> TensorDesc:
    return TensorDesc(data_type=DataType.of(a.dtype), sizes=a.shape)


def run_guarded(desc, *arrays, check_indices: bool = False):
    kernel = dmlc.compile(desc, guard_words=GUARD, check_indices=check_indices)
    try:
        return kernel(*arrays)
    finally:
        assert kernel.executable().guard_damage() == []


def wild_indices(index_type: np.dtype, rows: int) -> np.ndarray:
    values = wild_values(index_type, SHAPE[AXIS])
    return np.array([values] * rows, dtype=index_type)


@pytest.mark.parametrize("index_type", INDEX_TYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("dtype", DATA_TYPES, ids=lambda d: d.name)
def test_gather_stays_inside(dtype, index_type):
    x = random_bits(1, SHAPE, dtype)
    idx = wild_indices(index_type, 1)
    got = run_guarded(GatherDesc(input=tensor(x), indices=tensor(idx), axis=AXIS,
                                 index_dimensions=1), x, idx)
    ref.assert_bits_equal(got, ref.gather(x, idx, AXIS, 1))


@pytest.mark.parametrize("index_type", INDEX_TYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("dtype", DATA_TYPES, ids=lambda d: d.name)
def test_gather_elements_stays_inside(dtype, index_type):
    x = random_bits(2, SHAPE, dtype)
    idx = wild_indices(index_type, SHAPE[0])
    got = run_guarded(GatherElementsDesc(input=tensor(x), indices=tensor(idx), axis=AXIS), x, idx)
    ref.assert_bits_equal(got, ref.gather_elements(x, idx, AXIS))


@pytest.mark.parametrize("index_type", INDEX_TYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("dtype", DATA_TYPES, ids=lambda d: d.name)
def test_scatter_stays_inside(dtype, index_type, scatter_design):
    x = random_bits(3, SHAPE, dtype)
    idx = wild_indices(index_type, SHAPE[0])
    upd = random_bits(4, idx.shape, dtype)
    desc = ScatterDesc(input=tensor(x), indices=tensor(idx), updates=tensor(upd), axis=AXIS)
    ref.assert_bits_equal(run_guarded(desc, x, idx, upd), ref.scatter(x, idx, upd, AXIS))
    with pytest.raises(dmlc.IndexOutOfRangeError):  # the checking kernels stay inside too
        run_guarded(desc, x, idx, upd, check_indices=True)


@pytest.mark.parametrize("dtype", DATA_TYPES, ids=lambda d: d.name)
def test_slice_stays_inside(dtype):
    x = random_bits(5, (4, 7, 5), dtype)
    windows = [((0, 0, 0), (4, 7, 5), (1, 1, 1)),      # everything
               ((3, 6, 4), (1, 1, 1), (1, 1, 1)),      # the last element
               ((1, 0, 2), (3, 7, 3), (-2, -3, -1)),   # reversed, strided, to the far edges
               ((0, 1, 0), (4, 6, 5), (3, 7, -5))]     # strides past the window
    for offsets, sizes, strides in windows:
        desc = Slice1Desc(input=tensor(x), offsets=offsets, sizes=sizes, strides=strides)
        ref.assert_bits_equal(run_guarded(desc, x), ref.slice1(x, offsets, sizes, strides))


def test_the_guards_detect_a_stray_write():
    """The guard check itself can fail: damage one word just past the output."""
    x = np.arange(15, dtype=np.float32).reshape(SHAPE)
    idx = np.zeros(SHAPE, np.int32)
    kernel = dmlc.compile(GatherElementsDesc(input=tensor(x), indices=tensor(idx), axis=AXIS),
                          guard_words=GUARD)
    kernel(x, idx)
    exe = kernel.executable()
    exe.slot_tensor("output").data()[GUARD + exe.plan.buffer("output").words] ^= 1
    exe.slot_tensor("input").data()[GUARD - 1] ^= 1
    assert exe.guard_damage() == ["input before[0]", "output after[0]"]


@pytest.fixture
def unroll_all(monkeypatch):
    """Several items per invocation for these small kernels too (passes/planner.py's size
    threshold set to 1)."""
    import dmlc.passes.planner as planner
    from dmlc.compiled import clear_caches
    monkeypatch.setattr(planner, "MIN_ITEMS", 1)
    clear_caches()
    yield
    clear_caches()


@pytest.mark.parametrize("index_type", [np.dtype("int64"), np.dtype("uint32")], ids=str)
@pytest.mark.parametrize("dtype", [np.dtype(t) for t in ("float32", "int64", "float16", "uint8")],
                         ids=str)
def test_unrolled_kernels_stay_inside(dtype, index_type, unroll_all, scatter_design):
    """Unrolled kernels, with their combined vector loads and stores (8 items per invocation)."""
    shape, axis = (4, 8), 1
    wild = (wild_values(index_type, shape[axis]) * 4)[:32]
    x = random_bits(6, shape, dtype)
    idx = np.array(wild, dtype=index_type).reshape(shape)
    upd = random_bits(7, idx.shape, dtype)
    cases = [
        (GatherElementsDesc(input=tensor(x), indices=tensor(idx), axis=axis), (x, idx),
         ref.gather_elements(x, idx, axis)),
        (ScatterDesc(input=tensor(x), indices=tensor(idx), updates=tensor(upd), axis=axis),
         (x, idx, upd), ref.scatter(x, idx, upd, axis)),
        (GatherDesc(input=tensor(x), indices=tensor(idx[:1]), axis=0, index_dimensions=1),
         (x, idx[:1]), ref.gather(x, idx[:1], 0, 1)),
        (Slice1Desc(input=tensor(x), offsets=(0, 0), sizes=shape, strides=(1, -1)), (x,),
         ref.slice1(x, (0, 0), shape, (1, -1)))]
    for desc, args, expected in cases:
        kernel = dmlc.compile(desc, guard_words=GUARD)
        ref.assert_bits_equal(run_guarded(desc, *args), expected)
        unrolling = not env_names("DMLC_DISABLE_PASSES") & {"unroll", "all"}
        specialized = not kernel.compiled.params  # (make test-generic: generic kernels map
        # their items themselves; their variants move vectors by their own blocks)
        if unrolling and specialized and dtype.itemsize >= 4 and not isinstance(desc, Slice1Desc):
            assert "items each" in kernel.ir, kernel.ir


@pytest.mark.parametrize("row_step,pad", [(1, None), (2, None), (1, 1), (3, None)])
@pytest.mark.parametrize("dtype", DATA_TYPES, ids=str)
def test_tiled_kernels_stay_inside(dtype, row_step, pad, unroll_all):
    """Slices of transposed inputs, tiled where the layout allows (8 x 16 blocks of vector loads
    that may read the padding of the input's last vector), on the device: the same bits as
    numpy, and no access outside a buffer."""
    from test_tiled_maps import transposed_slice
    desc, buf, expected = transposed_slice(dtype, 16, 32, row_step, 1, (1, 2), pad)
    kernel = dmlc.compile(desc, guard_words=GUARD, dynamic=False)  # the planner's tiles
    ref.assert_bits_equal(run_guarded(desc, buf), expected)
    if dtype.itemsize < 4 or env_names("DMLC_DISABLE_PASSES"):
        assert "128 items each" not in kernel.ir, kernel.ir
    elif pad is None and row_step * dtype.itemsize < 16:  # columns aligned, rows share vectors
        assert "128 items each" in kernel.ir, kernel.ir


@pytest.mark.parametrize("index_type", ["int32", "int64", "uint32"])
@pytest.mark.parametrize("dtype", DATA_TYPES, ids=str)
def test_column_tiled_gathers_stay_inside(dtype, index_type, unroll_all):
    """Gathers from a transposed input, tiled down columns (4 x 16 blocks) where the type
    allows, with out-of-range index values: the same bits as numpy, no access outside."""
    from test_tiled_maps import transposed_gather
    desc, args, expected = transposed_gather(dtype, 16, 32, index_type, pad=1)
    kernel = dmlc.compile(desc, guard_words=GUARD, dynamic=False)  # the planner's tiles
    ref.assert_bits_equal(run_guarded(desc, *args), expected)
    tiles = dtype.itemsize >= 4 and not env_names("DMLC_DISABLE_PASSES")
    assert ("64 items each" in kernel.ir) == tiles, kernel.ir
