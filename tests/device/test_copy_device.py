"""copy, DML_SLICE and slice_grad on the device: ONNX Transpose (reference evaluator) for every
data type, device-tensor views, guard words."""
from __future__ import annotations

import numpy as np
import pytest

import dmlc
from dmlc.oneshot import tensor_of
from reference import assert_bits_equal
from strategies import DATA_TYPES, random_bits

pytestmark = pytest.mark.vulkan
GUARD = 256


@pytest.mark.parametrize("dtype", DATA_TYPES, ids=lambda d: d.name)
def test_copy_of_a_transpose_is_onnx_transpose(onnx_reference, dtype):
    x = random_bits(1, (2, 3, 4, 5), dtype)
    (expected,) = onnx_reference.run_node("Transpose", [x], perm=[0, 3, 1, 2])
    assert_bits_equal(dmlc.copy(x.transpose(0, 3, 1, 2)), expected)  # NHWC -> NCHW
    t = dmlc.to_device(x)
    assert_bits_equal(dmlc.copy(t.transpose(0, 3, 1, 2)).numpy(), expected)


@pytest.mark.parametrize("dtype", DATA_TYPES, ids=lambda d: d.name)
def test_every_kind_stays_inside_its_buffers(dtype):
    x = random_bits(2, (5, 6), dtype)
    view = x.T[::-2]
    kernel = dmlc.compile(dmlc.IdentityDesc(input=tensor_of(view)), guard_words=GUARD)
    from dmlc.oneshot import buffer_of
    assert_bits_equal(kernel(np.asarray(buffer_of(view))), np.ascontiguousarray(view))
    assert kernel.executable().guard_damage() == []
    grad = dmlc.SliceGradDesc(input_gradient=dmlc.TensorDesc(data_type=dtype.name, sizes=(2, 3)),
                              output_gradient=dmlc.TensorDesc(data_type=dtype.name, sizes=(5, 6)),
                              offsets=(1, 0), sizes=(4, 5), strides=(-2, 2))
    dy = random_bits(3, (2, 3), dtype)
    kernel = dmlc.compile(grad, guard_words=GUARD)
    assert_bits_equal(kernel(dy), dmlc.compile(grad).reference(dy))
    assert kernel.executable().guard_damage() == []


def test_slice_then_its_gradient_round_trips_the_window():
    x = random_bits(4, (6, 7), np.dtype("float16"))
    args = ([1, 0], [5, 7], [2, -3])
    window = dmlc.slice(x, *args)
    back = dmlc.slice_grad(window, x.shape, *args)
    assert_bits_equal(dmlc.slice(back, *args), window)
    mask = np.zeros(x.shape, bool)
    mask[dmlc.slice(np.arange(x.size).reshape(x.shape), *args).reshape(-1) // 7,
         dmlc.slice(np.arange(x.size).reshape(x.shape), *args).reshape(-1) % 7] = True
    assert not back.view(np.uint16)[~mask].any()  # zeros (+0.0) off the window
