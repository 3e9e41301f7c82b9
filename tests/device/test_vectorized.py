"""Vectorized kernels (16 bytes per item, forward and reversed) on the device, every data type."""
from __future__ import annotations

import os

import numpy as np
import pytest

import dmlc
import reference as ref
from reference import assert_bits_equal
from strategies import DATA_TYPES, random_bits

pytestmark = pytest.mark.skipif(bool(os.environ.get("DMLC_DISABLE_PASSES")),
                                reason="checks what the vectorize pass produces")


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
    assert "vload input" in kernel.ir and ("reverse" in kernel.ir) == (col_stride < 0)
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
    assert "vload input" in kernel.ir
    assert_bits_equal(kernel(x, idx), ref.gather(x, idx, 0, 1))


@pytest.mark.vulkan
def test_unvectorizable_shapes_fall_back():
    x = random_bits(9, (5, 7), np.float32)  # 7 columns: no whole 16-byte vectors
    kernel = dmlc.compile(dmlc.Slice1Desc(input=T(np.float32, (5, 7)), offsets=(0, 0),
                                          sizes=(5, 7), strides=(1, -1)))
    assert "vload" not in kernel.ir
    assert_bits_equal(kernel(x), x[:, ::-1].copy())
