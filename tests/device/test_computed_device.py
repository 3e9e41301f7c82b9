"""Index arithmetic on the device (shaders/dmlc_int.glsl): every kind, comparison and cast on
every integer type, over each type's edge values, bit for bit against Python's integers
(tests/integer_oracle.py); and fused operands inside the operators that read them."""
from __future__ import annotations

import numpy as np
import pytest

import dmlc
from dmlc.artifact import is_device_tensor
from dmlc.family import computed as C
from dmlc.oneshot.computed import Computed
from dmlc.ops.copy.api import materialize
from dmlc.ops.gather.api import gather, gather_elements
from dmlc.ops.scatter.api import scatter_nd
from integer_oracle import INTEGER_TYPES, KINDS, arith, edge_values, wrap
from reference import assert_bits_equal
from test_computed import pairs

pytestmark = pytest.mark.vulkan


@pytest.mark.parametrize("dtype", INTEGER_TYPES)
def test_arithmetic_on_the_device(dtype):
    a, b = pairs(dtype)
    for kind in KINDS:
        c = Computed(C.Arith(kind, C.Input(0), C.Input(1)), [a, b], a.shape)
        want = np.array([arith(kind, int(x), int(y), dtype) for x, y in zip(a, b)], dtype)
        assert_bits_equal(materialize(c), want)


@pytest.mark.parametrize("dtype", INTEGER_TYPES)
def test_comparisons_and_casts_on_the_device(dtype):
    a, b = pairs(dtype)
    for kind, fn in (("lt", np.less), ("eq", np.equal)):
        c = Computed(C.Cast(C.Compare(kind, C.Input(0), C.Input(1)), "float16"), [a, b],
                     a.shape)
        want = np.array([fn(int(x), int(y)) for x, y in zip(a, b)]).astype(np.float16)
        assert_bits_equal(materialize(c), want)
    x = np.array(edge_values(dtype), dtype)
    for to in INTEGER_TYPES:
        c = Computed(C.Cast(C.Input(0), to), [x], x.shape)
        assert_bits_equal(materialize(c), np.array([wrap(int(v), to) for v in x], to))


def test_fused_operands_in_the_operators():
    """GatherElements(x, Mod(idx, n)), Gather(flat, i * 5 + j) and ScatterND over Add(idx,
    Range): one kernel each, against numpy."""
    x = np.arange(40, dtype=np.float32).reshape(8, 5)
    idx = np.array([[1, -3, 12], [7, 0, -5]], np.int64)
    mod = Computed(C.Arith("floormod", C.Input(0), C.Const("int64", 5)), [idx], idx.shape)
    assert_bits_equal(gather_elements(x[:2], mod, axis=1, check_indices=True),
                      np.take_along_axis(x[:2], np.mod(idx, 5), axis=1))
    i, j = np.array([0, 3, 7, -1]), np.array([4, 0, 2, 1])
    flat = Computed(C.Arith("add", C.Arith("mul", C.Input(0), C.Const("int64", 5)),
                            C.Input(1)), [i, j], (4,))
    assert_bits_equal(gather(x.reshape(-1), flat, axis=0, check_indices=True),
                      x.reshape(-1)[i * 5 + j])
    start = np.array([2], np.int64)
    rows = Computed(C.Arith("add", C.Input(0), C.Coord(0)), [start], (3,)).reshape(3, 1)
    u = np.full((3, 5), -1.0, np.float32)
    want = x.copy()
    want[2:5] = -1.0
    assert_bits_equal(scatter_nd(x, rows, u, check_indices=True), want)


def test_device_tensor_inputs_and_a_device_result():
    idx = dmlc.to_device(np.array([[0, 3], [4, 1]], np.int32))
    c = Computed(C.Arith("mul", C.Input(0), C.Const("int32", 2)), [idx], (2, 2))
    out = materialize(c)
    assert is_device_tensor(out)
    assert out.numpy().tolist() == [[0, 6], [8, 2]]
