"""Tile, padding and space/depth on the device: ONNX's reference evaluator (Tile, Pad in every
mode ONNX has, DepthToSpace DCR/CRD, SpaceToDepth) for every data type, device tensors and
out=, guard words, and whole-vector padding."""
from __future__ import annotations

import numpy as np
import pytest

import dmlc
import reference_layout as ref
from dmlc.dtypes import DataType
from dmlc.passes.pipeline import env_names
from reference import assert_bits_equal
from strategies import DATA_TYPES, random_bits

VECTORIZING = not env_names("DMLC_DISABLE_PASSES") & {"vectorize", "all"}
"""Whether the shape of the kernels is asserted (make test-nopasses runs the bits alone)."""

pytestmark = pytest.mark.vulkan
GUARD = 256


def tensor(a: np.ndarray) -> dmlc.TensorDesc:
    return dmlc.TensorDesc(data_type=DataType.of(a.dtype), sizes=a.shape)


@pytest.mark.parametrize("dtype", DATA_TYPES, ids=lambda d: d.name)
def test_tile_is_onnx_tile(onnx_reference, dtype):
    x = random_bits(1, (2, 1, 3), dtype)
    (expected,) = onnx_reference.run_node("Tile", [x, np.array([2, 3, 1], np.int64)])
    assert_bits_equal(dmlc.tile(x, [2, 3, 1]), expected)


@pytest.mark.parametrize("dtype", DATA_TYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "wrap"])
def test_pad_is_onnx_pad(onnx_reference, dtype, mode):
    x = random_bits(2, (3, 4), dtype)
    pads = np.array([1, 2, 2, 3], np.int64)  # starts then ends, per ONNX
    value = np.array(5, dtype)
    inputs = [x, pads, value] if mode == "constant" else [x, pads]
    (expected,) = onnx_reference.run_node("Pad", inputs, mode=mode)
    assert_bits_equal(dmlc.pad(x, [1, 2], [2, 3], mode=mode, value=int(value) if
                               dtype.kind in "iu" else float(value)), expected)


@pytest.mark.parametrize("dtype", DATA_TYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("order", ["DCR", "CRD"])
def test_depth_to_space_is_onnx(onnx_reference, dtype, order):
    x = random_bits(3, (2, 8, 2, 3), dtype)
    (expected,) = onnx_reference.run_node("DepthToSpace", [x], blocksize=2, mode=order)
    assert_bits_equal(dmlc.depth_to_space(x, 2, order=order), expected)


@pytest.mark.parametrize("dtype", DATA_TYPES, ids=lambda d: d.name)
def test_space_to_depth_is_onnx(onnx_reference, dtype):
    x = random_bits(4, (1, 3, 4, 6), dtype)
    (expected,) = onnx_reference.run_node("SpaceToDepth", [x], blocksize=2)
    assert_bits_equal(dmlc.space_to_depth(x, 2), expected)
    assert_bits_equal(dmlc.depth_to_space(dmlc.space_to_depth(x, 2, order="CRD"), 2,
                                          order="CRD"), x)


@pytest.mark.parametrize("dtype", DATA_TYPES, ids=lambda d: d.name)
def test_every_kind_stays_inside_its_buffers(dtype):
    x = random_bits(5, (2, 4, 2, 2), dtype)
    descs = [dmlc.TileDesc(input=tensor(x), repeats=(1, 2, 3, 1)),
             dmlc.DepthToSpaceDesc(input=tensor(x), block_size=2),
             dmlc.SpaceToDepthDesc(input=tensor(x), block_size=2,
                                   order="DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH")]
    descs += [dmlc.PaddingDesc(input=tensor(x), mode=m, start_padding=(1, 2, 1, 0),
                               end_padding=(0, 1, 1, 1))
              for m in ("DML_PADDING_MODE_CONSTANT", "DML_PADDING_MODE_EDGE",
                        "DML_PADDING_MODE_REFLECTION", "DML_PADDING_MODE_SYMMETRIC",
                        "DML_PADDING_MODE_WRAP")]
    for desc in descs:
        kernel = dmlc.compile(desc, guard_words=GUARD)
        assert_bits_equal(kernel(x), dmlc.compile(desc).reference(x))
        assert kernel.executable().guard_damage() == []


def test_device_tensors_in_and_out():
    x = random_bits(6, (1, 4, 3, 3), np.dtype("float16"))
    t = dmlc.to_device(x)
    y = dmlc.pad(dmlc.depth_to_space(t, 2), [0, 0, 1, 1], [0, 0, 1, 1], mode="edge")
    assert isinstance(y, type(t))
    assert_bits_equal(y.numpy(), np.pad(ref.depth_to_space(x, 2, True),
                                        ((0, 0), (0, 0), (1, 1), (1, 1)), mode="edge"))
    out = dmlc.empty((2, 4, 3, 3), np.float16)
    assert dmlc.tile(t, [2, 1, 1, 1], out=out) is out
    assert_bits_equal(out.numpy(), np.tile(x, (2, 1, 1, 1)))
    view = t[:, ::-1]  # a view folds into the kernel
    assert_bits_equal(dmlc.tile(view, 2).numpy(), np.tile(x[:, ::-1], 2))
    assert_bits_equal(dmlc.tile(x[0, 0], [2, 1, 3]), np.tile(x[0, 0], [2, 1, 3]))


def test_constant_padding_of_rows_moves_whole_vectors():
    x = random_bits(7, (8, 64), np.dtype("float32"))
    kernel = dmlc.compile(dmlc.PaddingDesc(input=tensor(x), mode="DML_PADDING_MODE_CONSTANT",
                                           start_padding=(0, 4), end_padding=(0, 8),
                                           value=-0.0), dynamic=False)  # the planner's
    if VECTORIZING:
        assert "vload" in kernel.ir and "vpack" in kernel.ir
    assert_bits_equal(kernel(x), np.pad(x, ((0, 0), (4, 8)), constant_values=-0.0))
