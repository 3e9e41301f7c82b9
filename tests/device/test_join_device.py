"""DML_JOIN and DML_SPLIT on the device: ONNX's Concat and Split (its reference evaluator) for
every data type, device tensors in and out (split's outputs are views of one buffer), out=,
and guard words around every buffer."""
from __future__ import annotations

import numpy as np
import pytest

import dmlc
from dmlc import JoinDesc, SplitDesc, TensorDesc
from dmlc.dtypes import DataType
from dmlc.passes.pipeline import env_names
from reference import assert_bits_equal
from strategies import DATA_TYPES, random_bits

VECTORIZING = not env_names("DMLC_DISABLE_PASSES") & {"vectorize", "all"}
"""Whether the shape of the kernels is asserted (make test-nopasses runs the bits alone)."""

pytestmark = pytest.mark.vulkan

GUARD = 256


def tensor(a: np.ndarray) -> TensorDesc:
    return TensorDesc(data_type=DataType.of(a.dtype), sizes=a.shape)


def pieces(dtype: np.dtype, axis: int, widths=(2, 1, 3), shape=(2, 3, 4)) -> list[np.ndarray]:
    return [random_bits(k, tuple(w if d == axis else s for d, s in enumerate(shape)), dtype)
            for k, w in enumerate(widths)]


@pytest.mark.parametrize("dtype", DATA_TYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("axis", [0, -1, 1])
def test_join_is_onnx_concat(onnx_reference, dtype, axis):
    xs = pieces(dtype, axis % 3)
    (expected,) = onnx_reference.run_node("Concat", xs, axis=axis)
    assert_bits_equal(dmlc.join(xs, axis=axis), expected)


@pytest.mark.parametrize("dtype", DATA_TYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("axis", [0, -1, 1])
def test_split_is_onnx_split(onnx_reference, dtype, axis):
    x = random_bits(7, (4, 6, 4), dtype)
    sizes = [1, 3] if axis == 0 else [2, 1, 3] if axis == 1 else [3, 1]
    expected = onnx_reference.run_node("Split", [x, np.array(sizes, np.int64)],
                                       n_outputs=len(sizes), axis=axis)
    got = dmlc.split(x, sizes, axis=axis)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert_bits_equal(g, e)


def test_split_into_equal_pieces_is_onnx_num_outputs(onnx_reference):
    x = random_bits(3, (6, 5), np.dtype("int16"))
    expected = onnx_reference.run_node("Split", [x], n_outputs=3, opset=18, axis=0,
                                       num_outputs=3)
    for g, e in zip(dmlc.split(x, 3, axis=0), expected):
        assert_bits_equal(g, e)


def test_device_tensors_in_views_out_and_back_in():
    x = random_bits(1, (5, 8), np.dtype("float16"))
    t = dmlc.to_device(x)
    a, b, c = dmlc.split(t, [3, 1, 4], axis=1)
    assert all(isinstance(p, type(t)) for p in (a, b, c))
    assert a.shape == (5, 3) and b.shape == (5, 1) and c.shape == (5, 4)
    assert a.base is b.base is c.base, "one kernel, one buffer: the pieces are views of it"
    for p, e in zip((a, b, c), np.split(x, [3, 4], axis=1)):
        assert_bits_equal(p.numpy(), e)
    # The views go straight into the next kernel: joined back in another order.
    back = dmlc.join([c, a, b], axis=1)
    assert isinstance(back, type(t))
    assert_bits_equal(back.numpy(), np.concatenate([x[:, 4:], x[:, :3], x[:, 3:4]], axis=1))


def test_join_writes_into_out():
    xs = pieces(np.dtype("uint64"), 1)
    out = np.zeros((2, 6, 4), np.uint64)
    assert dmlc.join(xs, axis=1, out=out) is out
    assert_bits_equal(out, np.concatenate(xs, axis=1))
    dev = dmlc.to_device(np.zeros((2, 6, 4), np.uint64))
    assert dmlc.join([dmlc.to_device(x) for x in xs], axis=1, out=dev) is dev
    assert_bits_equal(dev.numpy(), np.concatenate(xs, axis=1))


def test_join_into_one_of_its_inputs():
    """out= the buffer the inputs are views of: numpy's result (through a temporary)."""
    x, y = random_bits(2, (4, 3), np.dtype("float32")), random_bits(3, (4, 3), np.dtype("float32"))
    dev = dmlc.to_device(np.concatenate([x, y]))
    assert dmlc.join([dev[4:], dev[:4]], axis=0, out=dev) is dev  # reads what it overwrites
    assert_bits_equal(dev.numpy(), np.concatenate([y, x]))


@pytest.mark.parametrize("dtype", DATA_TYPES, ids=lambda d: d.name)
def test_join_and_split_stay_inside_their_buffers(dtype):
    xs = pieces(dtype, 1)
    join = dmlc.compile(JoinDesc(inputs=tuple(tensor(x) for x in xs), axis=1), guard_words=GUARD)
    joined = join(*xs)
    assert join.executable().guard_damage() == []
    assert_bits_equal(joined, np.concatenate(xs, axis=1))
    split = dmlc.compile(SplitDesc(input=tensor(joined), outputs=tuple(tensor(x) for x in xs),
                                   axis=1), guard_words=GUARD)
    for got, x in zip(split(joined), xs):
        assert_bits_equal(got, x)
    assert split.executable().guard_damage() == []


@pytest.mark.parametrize("axis", [0, 1])
def test_more_inputs_than_a_shader_binds(axis):
    """40 inputs: more storage buffers than lavapipe binds to one shader (32), so join runs a
    kernel per group of inputs, each writing its slab; split has one input and one buffer."""
    xs = [random_bits(k, (2, 1 + k % 3, 3) if axis == 1 else (1 + k % 3, 2, 3),
                      np.dtype("int16")) for k in range(40)]
    joined = dmlc.join(xs, axis=axis)
    assert_bits_equal(joined, np.concatenate(xs, axis=axis))
    widths = [x.shape[axis] for x in xs]
    for got, x in zip(dmlc.split(joined, widths, axis=axis), xs):
        assert_bits_equal(got, x)
    guarded = dmlc.compile(JoinDesc(inputs=tuple(tensor(x) for x in xs), axis=axis),
                           guard_words=GUARD)
    assert_bits_equal(guarded(*xs), joined)
    assert guarded.executable().guard_damage() == []


@pytest.mark.parametrize("dtype", DATA_TYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("axis", [1, 0])
def test_whole_vector_pieces_on_the_device(dtype, axis):
    """Pieces of whole 16-byte vectors: the kernels move vectors and load only the chosen
    input (passes/vector_select.py, an if/else in the shader); still the bits, inside."""
    v = 16 // dtype.itemsize
    xs = pieces(dtype, axis, widths=(v, 2 * v, 3 * v), shape=(3, 5) if axis == 1 else (5, 1))
    join = dmlc.compile(JoinDesc(inputs=tuple(tensor(x) for x in xs), axis=axis),
                        guard_words=GUARD, dynamic=False)  # the planner's vectors
    if VECTORIZING:
        assert "vload" in join.ir and " if (" in join.glsl
    joined = join(*xs)
    assert join.executable().guard_damage() == []
    assert_bits_equal(joined, np.concatenate(xs, axis=axis))
    split = dmlc.compile(SplitDesc(input=tensor(joined), outputs=tuple(tensor(x) for x in xs),
                                   axis=axis), guard_words=GUARD, dynamic=False)
    if VECTORIZING:
        assert "vload" in split.ir
    for got, x in zip(split(joined), xs):
        assert_bits_equal(got, x)
    assert split.executable().guard_damage() == []
