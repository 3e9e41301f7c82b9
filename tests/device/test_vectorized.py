"""Vectorized kernels (16 bytes per item, forward and reversed) on the device, every data type."""
from __future__ import annotations

import numpy as np
import pytest

import dmlc
import reference as ref
import reference_layout as rl
from dmlc.ir.ops import Op
from dmlc.ops.space_depth.desc import DEPTH_SPACE_ORDERS
from dmlc.passes.pipeline import env_names
from reference import assert_bits_equal
from strategies import DATA_TYPES, random_bits

PASSES = not env_names("DMLC_DISABLE_PASSES")
"""Whether the passes run: what each kernel looks like (vectors, partitions, unrolling) is
checked only then; its values always (make test-nopasses runs them too)."""


def T(dtype, sizes):
    return dmlc.TensorDesc(data_type=np.dtype(dtype).name, sizes=sizes)


@pytest.mark.vulkan
@pytest.mark.parametrize("dtype", DATA_TYPES, ids=[d.name for d in DATA_TYPES])
@pytest.mark.parametrize("col_stride", [1, -1])
def test_vectorized_slice(dtype, col_stride):
    x = random_bits(7, (8, 64), dtype)
    desc = dmlc.Slice1Desc(input=T(dtype, (8, 64)), offsets=(1, 0), sizes=(7, 64),
                           strides=(2, col_stride))
    kernel = dmlc.compile(desc)
    assert not PASSES or "vload input" in kernel.ir and ("reverse" in kernel.ir) == (col_stride < 0)
    expected = ref.slice1(x, [1, 0], [7, 64], [2, col_stride])
    assert_bits_equal(kernel(x), expected)
    assert_bits_equal(kernel.reference(x), expected)


@pytest.mark.vulkan
@pytest.mark.parametrize("dtype", DATA_TYPES, ids=[d.name for d in DATA_TYPES])
def test_vectorized_row_gather(dtype):
    x = random_bits(8, (10, 32), dtype)
    idx = np.array([[9, -1, 0, 12, -20, 3]], np.int64)
    desc = dmlc.GatherDesc(input=T(dtype, (10, 32)), indices=T("int64", (1, 6)), axis=0,
                           index_dimensions=1)
    kernel = dmlc.compile(desc)
    assert not PASSES or "vload input" in kernel.ir
    assert_bits_equal(kernel(x, idx), ref.gather(x, idx, 0, 1))


@pytest.mark.vulkan
def test_unvectorizable_shapes_fall_back():
    x = random_bits(9, (5, 7), np.float32)  # 7 columns: no whole 16-byte vectors
    kernel = dmlc.compile(dmlc.Slice1Desc(input=T(np.float32, (5, 7)), offsets=(0, 0),
                                          sizes=(5, 7), strides=(1, -1)))
    assert "vload" not in kernel.ir
    assert_bits_equal(kernel(x), x[:, ::-1].copy())


NP_PAD_MODES = {"constant": "DML_PADDING_MODE_CONSTANT", "edge": "DML_PADDING_MODE_EDGE",
                "reflect": "DML_PADDING_MODE_REFLECTION",
                "symmetric": "DML_PADDING_MODE_SYMMETRIC", "wrap": "DML_PADDING_MODE_WRAP"}
WORD_TYPES = [d for d in DATA_TYPES if d.itemsize >= 4]


def padded(x: np.ndarray, start, end, mode: str, guard_words: int = 0):
    """The compiled padding, its output on the device and in the interpreter, and numpy's."""
    desc = dmlc.PaddingDesc(input=T(x.dtype, x.shape), mode=NP_PAD_MODES[mode],
                            start_padding=tuple(start), end_padding=tuple(end), value=3)
    kernel = dmlc.compile(desc, guard_words=guard_words, dynamic=False)  # the planner's
    extra = {"constant_values": np.array(3).astype(x.dtype)} if mode == "constant" else {}
    expected = np.pad(x, list(zip(start, end)), mode=mode, **extra)
    return kernel, expected


@pytest.mark.vulkan
@pytest.mark.parametrize("dtype", WORD_TYPES, ids=[d.name for d in WORD_TYPES])
@pytest.mark.parametrize("mode", NP_PAD_MODES)
@pytest.mark.parametrize("rows", [5, 200], ids=["small", "large"])
def test_padding_columns_partitioned_at_its_edges(dtype, mode, rows):
    """Padding whose edges fall inside vectors (half a vector on each side). A large kernel has
    its columns cut at the edges (passes/partition.py): the steady part between them moves whole
    vectors with no scalar load (several of one row per invocation, for 32-bit data). A small
    one stays one kernel, of vectors whose lanes are selected one by one (but for edge mode).
    Bit-exact on the device and in the IR interpreter; the guard regions around every buffer
    stay intact."""
    width = 16 // dtype.itemsize
    x = random_bits(11, (2, rows, 64), dtype)
    start, end = (0, 1, width // 2), (0, 2, width // 2)
    kernel, expected = padded(x, start, end, mode, guard_words=64)
    names = [k.name for k in kernel.program.kernels]
    if PASSES and rows == 5:  # edge's clamps alone leave no select to vectorize through
        assert names == ["padding"] and ("vstore output" in kernel.ir) == (mode != "edge")
    elif PASSES:
        assert len(names) == 3 and all("_columns_" in n for n in names), kernel.ir
        steady = kernel.program.kernels[1]
        assert not any(n.op is Op.LOAD for e in steady.effects for n in e.toposort())
        assert steady.unrolled == (5 if width == 4 else 1)  # 15 vectors a row; 31
    assert_bits_equal(kernel(x), expected)
    assert kernel.executable().guard_damage() == []
    assert_bits_equal(kernel.reference(x), expected)


@pytest.mark.vulkan
@pytest.mark.parametrize("dtype", [np.dtype("float32"), np.dtype("int64")], ids=str)
@pytest.mark.parametrize("mode", ["reflect", "wrap"])
def test_padding_of_unaligned_rows_picks_lanes_from_a_window(dtype, mode):
    """Input rows of 30 elements start at every alignment, so no run is proven: each vector's
    lanes are picked from the two vectors at its lowest address when they all lie there
    (checked as the kernel runs), else loaded one by one. Bit-exact, guards intact."""
    x = random_bits(12, (3, 9, 30), dtype)
    kernel, expected = padded(x, (0, 2, 1), (0, 1, 1), mode, guard_words=64)
    assert not PASSES or "vload input" in kernel.ir and "vstore output" in kernel.ir, kernel.ir
    assert_bits_equal(kernel(x), expected)
    assert kernel.executable().guard_damage() == []
    assert_bits_equal(kernel.reference(x), expected)


@pytest.mark.vulkan
@pytest.mark.parametrize("dtype", WORD_TYPES, ids=[d.name for d in WORD_TYPES])
@pytest.mark.parametrize("order", ["DCR", "CRD"])
def test_space_to_depth_reads_whole_vectors_across_block_columns(dtype, order):
    """Each output reads every other input element, the block column deciding which: the
    unroll pass runs 8 outputs of each block column together (passes/unroll.py, interleaved),
    so that every input vector loaded serves both and no element is loaded alone."""
    x = random_bits(13, (1, 4, 64, 64), dtype)
    desc = dmlc.SpaceToDepthDesc(input=T(dtype, x.shape), block_size=2,
                                 order=DEPTH_SPACE_ORDERS[order == "CRD"])
    kernel = dmlc.compile(desc, guard_words=64, dynamic=False)  # the unroll pass's
    (k,) = kernel.program.kernels
    # DCR: block columns are 2 blocks of channels apart (2 x 8 items); CRD: 4 neighbouring
    # channels hold a position's 4 blocks (4 x 8)
    assert not PASSES or k.unrolled == (16 if order == "DCR" else 32), kernel.ir
    assert not PASSES or not any(n.op is Op.LOAD for e in k.effects for n in e.toposort())
    expected = rl.space_to_depth(x, 2, order == "DCR")
    assert_bits_equal(kernel(x), expected)
    assert kernel.executable().guard_damage() == []
    assert_bits_equal(kernel.reference(x), expected)
