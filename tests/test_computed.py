"""Operands computed by index arithmetic (family/computed.py): the IR interpreter and the host
evaluator against an independent oracle (tests/integer_oracle.py), validation, and the fused
program's shape (one kernel, no buffer for the computed operand)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import dmlc
from dmlc.errors import ValidationError
from dmlc.family import computed as C
from dmlc.oneshot.computed import Computed
from integer_oracle import INTEGER_TYPES, KINDS, arith, edge_values, wrap


def pairs(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of the type's edge values: two arrays, element by element."""
    values = edge_values(dtype)
    a, b = zip(*itertools.product(values, values))
    return np.array(a, dtype), np.array(b, dtype)


def materialized(c: Computed, check: bool = True) -> dmlc.CompiledKernel:
    """The identity kernel that stores c's elements (what Computed.materialize runs)."""
    return dmlc.compile(dmlc.IdentityDesc(input=c.tensor))


@pytest.mark.parametrize("dtype", INTEGER_TYPES)
@pytest.mark.parametrize("kind", KINDS)
def test_arithmetic_matches_python_integers(dtype, kind):
    a, b = pairs(dtype)
    c = Computed(C.Arith(kind, C.Input(0), C.Input(1)), [a, b], a.shape)
    want = np.array([arith(kind, int(x), int(y), dtype) for x, y in zip(a, b)], dtype)
    got = materialized(c).reference(c)
    assert got.dtype == want.dtype and (got.view(f"u{want.itemsize}") ==
                                        want.view(f"u{want.itemsize}")).all(), kind
    assert (c.numpy() == want).all()


@pytest.mark.parametrize("dtype", INTEGER_TYPES)
def test_comparisons_are_bools_cast_to_any_type(dtype):
    a, b = pairs(dtype)
    for kind, fn in (("lt", lambda x, y: x < y), ("eq", lambda x, y: x == y)):
        for to in ("uint8", "int64", "float16", "float32", "float64"):
            c = Computed(C.Cast(C.Compare(kind, C.Input(0), C.Input(1)), to), [a, b], a.shape)
            want = np.array([fn(int(x), int(y)) for x, y in zip(a, b)]).astype(to)
            got = materialized(c).reference(c)
            assert got.dtype == want.dtype
            assert (got.view(f"u{got.itemsize}") == want.view(f"u{got.itemsize}")).all()


@pytest.mark.parametrize("src", INTEGER_TYPES)
def test_casts_between_integers_wrap(src):
    a = np.array(edge_values(src), src)
    for to in INTEGER_TYPES:
        c = Computed(C.Cast(C.Input(0), to), [a], a.shape)
        want = np.array([wrap(int(x), to) for x in a], to)
        assert (materialized(c).reference(c) == want).all(), to


def test_coordinates_and_broadcast_inputs():
    """Equal(Unsqueeze(idx, -1), Range(0, depth)) cast to float: one-hot, by coordinates."""
    idx = np.array([[3, 0], [-1, 9]], np.int64)
    onehot = C.Cast(C.Compare("eq", C.Input(0), C.Coord(2)), "float32")
    c = Computed(onehot, [idx.reshape(2, 2, 1)], (2, 2, 5))
    want = (idx[..., None] == np.arange(5)).astype(np.float32)
    assert (materialized(c).reference(c) == want).all()
    assert (c.numpy() == want).all()


def test_logic_and_where():
    a = np.array([-3, 0, 4, 9], np.int32)
    big = C.Compare("lt", C.Const("int32", 2), C.Input(0))
    neg = C.Compare("lt", C.Input(0), C.Const("int32", 0))
    value = C.Select(C.Logic("or", big, C.Logic("not", neg)), C.Input(0),
                     C.Arith("sub", C.Const("int32", 0), C.Input(0)))
    c = Computed(value, [a], a.shape)
    assert materialized(c).reference(c).tolist() == [3, 0, 4, 9]
    both = Computed(C.Cast(C.Logic("and", big, neg), "uint8"), [a], a.shape)
    assert materialized(both).reference(both).tolist() == [0, 0, 0, 0]


def test_a_fused_gather_has_one_kernel_and_no_index_buffer():
    """Gather(x.reshape(-1), i * 5 + j): the computed indices are never stored."""
    x = np.arange(40, dtype=np.float32).reshape(8, 5)
    i, j = np.array([0, 3, 7, -1], np.int64), np.array([4, 0, 2, 1], np.int64)
    value = C.Arith("add", C.Arith("mul", C.Input(0), C.Const("int64", 5)), C.Input(1))
    c = Computed(value, [i, j], (4,))
    kernel = dmlc.compile(dmlc.GatherDesc(input=dmlc.TensorDesc(data_type="float32",
                                                                sizes=(40,)),
                                          indices=c.tensor, axis=0, index_dimensions=1))
    assert [b.name for b in kernel.program.buffers if b.role == "input"] == [
        "input", "indices_in0", "indices_in1"]
    assert len(kernel.program.kernels) == 1
    got = kernel.reference(x.reshape(-1), c)
    assert got.tolist() == [4.0, 15.0, 37.0, 36.0]  # -1 * 5 + 1 = -4 counts from the end


def test_checked_mode_reports_the_computed_value():
    x = np.arange(6, dtype=np.float32)
    c = Computed(C.Arith("add", C.Input(0), C.Const("int64", 4)), [np.array([0, 1, 2])],
                 (3,))
    kernel = dmlc.compile(dmlc.GatherDesc(input=dmlc.TensorDesc(data_type="float32",
                                                                sizes=(6,)),
                                          indices=c.tensor, axis=0, index_dimensions=1),
                          check_indices=True)
    with pytest.raises(dmlc.IndexOutOfRangeError, match=r"\[2\] = 6"):
        kernel.reference(x, c)


@pytest.mark.parametrize("value, inputs, shape, match", [
    (C.Arith("add", C.Input(0), C.Const("int32", 1)), [np.zeros(3, np.int64)], (3,),
     "integers of one type"),
    (C.Cast(C.Input(0), "float32"), [np.zeros(3, np.int64)], (3,), "does not convert"),
    (C.Arith("pow", C.Input(0), C.Input(0)), [np.zeros(3, np.int64)], (3,), "floordiv"),
    (C.Input(0), [np.zeros(4, np.int64)], (3,), "broadcast to"),
    (C.Coord(1), [], (3,), "an axis in"),
    (C.Select(C.Input(0), C.Input(0), C.Input(0)), [np.zeros(3, np.int64)], (3,), "bool"),
])
def test_bad_expressions_are_refused_naming_the_operand(value, inputs, shape, match):
    c = Computed(value, inputs, shape)
    desc = dmlc.GatherDesc(input=dmlc.TensorDesc(data_type="float32", sizes=(6,)),
                           indices=c.tensor, axis=0, index_dimensions=1)
    with pytest.raises(ValidationError, match=f"DML_GATHER: IndicesTensor .*{match}"):
        dmlc.compile(desc)
