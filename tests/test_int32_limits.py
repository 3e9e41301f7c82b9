"""Values beyond the shaders' 32-bit arithmetic: where they can never matter they are normalized
(a stride along an axis of one element never moves), so the program runs; never an IRError."""
from __future__ import annotations

import numpy as np
import pytest

import dmlc
from dmlc.family.registry import validate
from dmlc.lang import parse_module
from reference import assert_bits_equal

X = np.arange(4, dtype=np.float32)


@pytest.mark.parametrize("stride, expected", [(2**31, X[:1]), (-2**62, X[:1]), (2**40, X[:1])])
def test_a_slice_stride_beyond_int32_along_a_one_element_axis(stride, expected):
    desc = dmlc.Slice1Desc(input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(4,)),
                           offsets=(0,), sizes=(1,), strides=(stride,))
    assert_bits_equal(dmlc.compile(desc).reference(X), expected)


def test_a_negative_huge_stride_still_reads_the_windows_last_element():
    desc = dmlc.Slice1Desc(input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(4,)),
                           offsets=(1,), sizes=(3,), strides=(-2**40,))
    assert_bits_equal(dmlc.compile(desc).reference(X), X[3:4])


def test_a_tensor_stride_beyond_int32_on_a_size_one_dimension():
    t = dmlc.TensorDesc(data_type="FLOAT32", sizes=(1, 4), strides=(2**31, 1))
    desc = dmlc.GatherDesc(input=t, indices=dmlc.TensorDesc(data_type="INT32", sizes=(1, 2)),
                           axis=1, index_dimensions=1)
    got = dmlc.compile(desc).reference(X, np.array([[3, 1]], np.int32))
    assert_bits_equal(got, X[[3, 1]].reshape(1, 2))


@pytest.mark.vulkan
def test_the_one_shot_slice_with_a_huge_stride_runs_on_the_device():
    assert_bits_equal(dmlc.slice(X, offsets=[0], sizes=[1], strides=[2**31]), X[:1])


@pytest.mark.parametrize("stride", [2**31, -2**31, 2**40, -2**40, -2**62])
def test_slice_grad_takes_the_strides_slice_takes(stride):
    """A huge stride is normalized once; validating the normalized window again (as the kernel
    cache does) must give the same one-element output, for DML_SLICE_GRAD too."""
    window = {"offsets": (6,), "sizes": (2,), "strides": (stride,)}
    t8 = dmlc.TensorDesc(data_type="FLOAT32", sizes=(8,))
    sliced = validate(dmlc.Slice1Desc(input=t8, **window))
    assert validate(sliced) == sliced and sliced.output.sizes == (1,)
    grad = dmlc.SliceGradDesc(input_gradient=dmlc.TensorDesc(data_type="FLOAT32", sizes=(1,)),
                              output_gradient=t8, **window)
    want = np.zeros(8, np.float32)
    want[7 if stride < 0 else 6] = 3
    assert_bits_equal(dmlc.compile(grad).reference(np.array([3], np.float32)), want)


def test_slice_grad_with_a_huge_stride_in_dml_notation():
    (unit,) = parse_module("""DML_SLICE_GRAD_OPERATOR_DESC
DimensionCount: 1
InputWindowOffsets: {6}
InputWindowSizes: {2}
InputWindowStrides: {-1099511627776}
InputGradientTensor: (Sizes:{1}, DataType:FLOAT32) [3]
OutputGradientTensor: (Sizes:{8}, DataType:FLOAT32) [0, 0, 0, 0, 0, 0, 0, 3]
""").units
    got = dmlc.compile(unit.descriptor).reference(unit.data["input_gradient"])
    assert_bits_equal(got, unit.expected)


@pytest.mark.vulkan
def test_the_one_shot_slice_grad_with_a_huge_stride_runs_on_the_device():
    assert_bits_equal(dmlc.slice_grad(np.ones(1), [8], [6], [2], [-2**40]),
                      np.eye(8)[7])
    assert_bits_equal(dmlc.slice_grad(np.ones(1), [8], [6], [2], [2**40]), np.eye(8)[6])
