"""Tiled kernels (passes/planner.py's BANDS and STRIPS maps, carried out by passes/unroll.py):
slices of transposed inputs, where each item runs a rows x cols block so that the input's runs
down the block's rows load as vectors. Checked by the IR interpreter against the numpy
reference for many layouts, with small tiles so that small shapes tile too (no Vulkan needed;
tests/device/test_vectorized.py runs them on the device)."""
from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dmlc
import reference as ref
from dmlc.compiled import build_program, clear_caches
from dmlc.ir.interp import run_program
from strategies import DATA_TYPES, random_bits

TILES = [(2, 8), (4, 4), (8, 16)]  # 16 or 128 items: never the plain unroll's 8
PASSES_ON = not os.environ.get("DMLC_DISABLE_PASSES")


def transposed_slice(dtype, rows, cols, row_step, col_step, offsets=(0, 0), pad=None):
    """A Slice1 of a [R_in, C_in] tensor stored column-major (strides (1, R_in + pad); pad None:
    columns start on 16-byte boundaries) whose output is rows x cols; returns (descriptor, flat
    input buffer, expected output)."""
    size0, size1 = (rows - 1) * abs(row_step) + 1, (cols - 1) * abs(col_step) + 1
    r_in, c_in = offsets[0] + size0 + 16, offsets[1] + size1  # columns >= 64 bytes apart
    width = 16 // np.dtype(dtype).itemsize
    col_stride = r_in + pad if pad is not None else -(-r_in // width) * width
    buf = random_bits(rows * 7 + cols, col_stride * c_in, dtype)
    view = np.lib.stride_tricks.as_strided(buf, (r_in, c_in),
                                           (buf.itemsize, col_stride * buf.itemsize))
    desc = dmlc.Slice1Desc(
        input=dmlc.TensorDesc(data_type=np.dtype(dtype).name, sizes=(r_in, c_in),
                              strides=(1, col_stride)),
        offsets=offsets, sizes=(size0, size1), strides=(row_step, col_step))
    return desc, buf, ref.slice1(view, offsets, (size0, size1), (row_step, col_step))


@pytest.fixture
def small_tiles(monkeypatch):
    import dmlc.passes.planner as planner

    def use(tile):
        monkeypatch.setattr(planner, "MIN_ITEMS", 1)
        monkeypatch.setattr(planner, "TILE", tile)
        monkeypatch.setattr(planner, "STRIP_TILE", tile)
        clear_caches()
    yield use
    clear_caches()


def interpret(desc, *args):
    checked, program = build_program(desc)
    out = checked.output
    return program, run_program(program, *args).view(out.data_type.numpy).reshape(out.sizes)


# Outputs of `band` blocks of rows and `width` blocks of columns, any data type.
BLOCKS = dict(dtype=st.sampled_from(DATA_TYPES), band=st.integers(1, 3), width=st.integers(1, 3))


# Layouts that must tile: the input's columns start on 16-byte boundaries, so does each band of
# `rows` output rows (rows * row_step elements), and neighbouring rows share a vector.
MUST_TILE = [(tile, dtype, step) for tile in TILES
             for dtype, step in (("float32", 1), ("float32", 2), ("uint32", 3), ("float64", 1),
                                 ("int64", 1), ("uint64", 2), ("float32", 4))
             if tile[0] * step * np.dtype(dtype).itemsize % 16 == 0
             and step * np.dtype(dtype).itemsize < 16]


@pytest.mark.skipif(not PASSES_ON, reason="checks what the tile pass produces")
@pytest.mark.parametrize("tile,dtype,row_step", MUST_TILE, ids=str)
def test_transposed_slices_tile(small_tiles, tile, dtype, row_step):
    """Every load then comes from a vector (no scalar load is left), each item runs a block."""
    small_tiles(tile)
    rows, cols = tile
    desc, buf, expected = transposed_slice(dtype, rows * 2, max(cols, 4) * 2, row_step, 1)
    program, got = interpret(desc, buf)
    ref.assert_bits_equal(got, expected)
    ir = dmlc.compile(desc).ir
    assert f"{rows * cols} items each" in ir and "load input[" not in ir.replace("vload", ""), ir


@pytest.mark.parametrize("tile", TILES, ids=str)
def test_tiled_or_not_the_bits_are_the_reference(small_tiles, tile):
    """Any transposed slice whose output tiles by shape, aligned or not, any type and step:
    tiled where proven, unrolled or left alone otherwise, the bits are the reference's."""
    small_tiles(tile)
    rows, cols = tile

    @given(**BLOCKS, row_step=st.sampled_from([1, 2, 3, -1, -2]),
           col_step=st.sampled_from([1, 2, -1]),
           offsets=st.tuples(st.integers(0, 5), st.integers(0, 3)),
           pad=st.sampled_from([None, 0, 1, 4]))
    def check(dtype, band, width, row_step, col_step, offsets, pad):
        desc, buf, expected = transposed_slice(dtype, rows * band, max(cols, 4) * width,
                                               row_step, col_step, offsets, pad)
        ref.assert_bits_equal(interpret(desc, buf)[1], expected)
    check()


def transposed_gather(dtype, rows, cols, index_type, pad=0, seed=0, clip=False):
    """A row gather (axis 0) from a [R_in, cols] tensor stored column-major; any index values,
    out of range included (they clamp), or (clip) only valid ones."""
    r_in = 20
    col_stride = r_in + pad
    buf = random_bits(seed, col_stride * cols, dtype)
    view = np.lib.stride_tricks.as_strided(buf, (r_in, cols),
                                           (buf.itemsize, col_stride * buf.itemsize))
    lo = -r_in - 3 if np.dtype(index_type).kind == "i" else 0
    idx = np.random.default_rng(seed).integers(lo, r_in + 3, (1, rows))
    idx = (np.clip(idx, -r_in if lo < 0 else 0, r_in - 1) if clip else idx).astype(index_type)
    desc = dmlc.GatherDesc(
        input=dmlc.TensorDesc(data_type=np.dtype(dtype).name, sizes=(r_in, cols),
                              strides=(1, col_stride)),
        indices=dmlc.TensorDesc(data_type=np.dtype(index_type).name, sizes=(1, rows)),
        axis=0, index_dimensions=1)
    return desc, (buf, idx), ref.gather(view, idx, 0, 1)


@pytest.mark.parametrize("tile", TILES, ids=str)
def test_gathers_from_transposed_inputs_tile_down_columns(small_tiles, tile):
    """Rows chosen by index values: blocks go down strips of columns (tile_kernel); scalar loads
    of the input, vector loads of the indices, the bits are the reference's."""
    small_tiles(tile)
    rows, cols = tile

    @given(**BLOCKS, index_type=st.sampled_from(["int32", "int64", "uint32"]),
           pad=st.sampled_from([0, 3]), seed=st.integers(0, 9))
    def check(dtype, band, width, index_type, pad, seed):
        desc, args, expected = transposed_gather(dtype, rows * band, max(cols, 4) * width,
                                                 index_type, pad, seed)
        program, got = interpret(desc, *args)
        ref.assert_bits_equal(got, expected)
        if PASSES_ON and np.dtype(dtype).itemsize >= 4:
            assert program.kernels[0].unrolled == rows * cols, program
    check()
