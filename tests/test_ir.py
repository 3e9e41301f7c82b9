"""The IR itself: interning, value ranges, pure builders, simplification under a named rule set
(each fold checked by evaluating both sides), the verifier's safety proofs and the printer."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dmlc.dtypes import DataType
from dmlc.ir import Buffer, Kernel, Op, Program
from dmlc.ir import build as b
from dmlc.ir.algebra import ALL_RULES
from dmlc.ir.interp import run_program
from dmlc.ir.printer import render_program
from dmlc.ir.rewrite import fold
from dmlc.ir.verify import IRError, verify_program


def eval_int(node, gid: np.ndarray) -> np.ndarray:
    """Evaluate an INT expression of gid with numpy (the interpreter's own evaluator)."""
    from dmlc.ir.interp import _eval
    from dmlc.ir.ops import toposort
    vals = {}
    for n in toposort([node]):
        vals[n] = _eval(n, vals, {}, gid)
    return np.broadcast_to(vals[node], gid.shape)


N = 97
GID = b.item_id(N)
XS = np.arange(N, dtype=np.int64)

def s(node):
    """`node` simplified under every rule group."""
    return fold(node, ALL_RULES)


# (built expression, the same computation in plain numpy)
FOLDS = [(s(node), fn) for node, fn in [
    (b.add(GID, 0), lambda x: x),
    (b.mul(GID, 1), lambda x: x),
    (b.mul(GID, 0), lambda x: 0 * x),
    (b.add(b.add(GID, 3), 4), lambda x: x + 7),
    (b.floordiv(GID, 1), lambda x: x),
    (b.floordiv(GID, 100), lambda x: x // 100),
    (b.floormod(GID, 97), lambda x: x % 97),
    (b.floormod(GID, 1), lambda x: x % 1),
    (b.floordiv(b.floordiv(GID, 3), 4), lambda x: x // 3 // 4),
    (b.floormod(b.add(GID, -50), 7), lambda x: (x - 50) % 7),
    (b.floordiv(b.add(GID, -50), 7), lambda x: (x - 50) // 7),
    (b.minimum(GID, 200), lambda x: np.minimum(x, 200)),
    (b.maximum(GID, -1), lambda x: np.maximum(x, -1)),
    (b.clamp(b.add(GID, -10), 0, 50), lambda x: np.clip(x - 10, 0, 50)),
    (b.sub(GID, GID), lambda x: 0 * x),
]]


@pytest.mark.parametrize("node,fn", FOLDS, ids=[str(i) for i in range(len(FOLDS))])
def test_folds_preserve_value(node, fn):
    np.testing.assert_array_equal(eval_int(node, XS), fn(XS))
    lo, hi = node.vmin, node.vmax
    values = eval_int(node, XS)
    assert lo <= values.min() and values.max() <= hi  # ranges are sound


def test_folds_simplify():
    assert s(b.add(GID, 0)) is GID and s(b.mul(GID, 1)) is GID and s(b.floordiv(GID, 1)) is GID
    assert s(b.floordiv(GID, 100)).is_const and s(b.floormod(GID, 97)) is GID
    assert s(b.floordiv(b.floordiv(GID, 3), 4)) is s(b.floordiv(GID, 12))
    assert s(b.add(b.add(GID, 3), 4)) is s(b.add(GID, 7))


def test_builders_are_pure():
    """A builder only checks types and interns: what it returns never depends on rules."""
    node = b.add(GID, 0)
    assert node.op is Op.ADD and node.src == (GID, b.const(0))
    assert b.floormod(b.add(b.mul(GID, 4), 3), 4).op is Op.FLOORMOD
    assert fold(node, frozenset()) is node  # no rules: nothing changes
    assert s(s(b.add(b.add(GID, 3), 4))) is s(b.add(b.add(GID, 3), 4))  # a fixed point


def test_nodes_are_interned():
    assert b.add(b.mul(GID, 3), 1) is b.add(b.mul(GID, 3), 1)
    assert b.const(1) is not b.const_bool(True)
    with pytest.raises(AttributeError):
        GID.op = Op.ADD


@given(st.integers(-1000, 1000), st.integers(0, 500), st.integers(1, 50), st.integers(-60, 60))
def test_ranges_are_sound(offset, span, divisor, scale):
    x = b.add(b.var("gid", 0, span), offset)
    gid = np.arange(span + 1, dtype=np.int64)
    for node in (b.floordiv(x, divisor), b.floormod(x, divisor), b.mul(x, scale),
                 b.minimum(x, scale), b.maximum(x, scale)):
        node = s(node)
        v = eval_int(node, gid)
        assert node.vmin <= v.min() and v.max() <= node.vmax


def _program(addr_fn, count=8):
    buf_in = Buffer("input", DataType.FLOAT32, count, "input")
    out = Buffer("output", DataType.FLOAT32, count, "output")
    gid = b.item_id(count)
    k = Kernel("k", count, (b.store(out, gid, b.load(buf_in, addr_fn(gid))),))
    return Program("p", (buf_in, out), (k,), ("input",), "output")


def test_verifier_rejects_unproven_addresses():
    verify_program(_program(lambda g: g))
    with pytest.raises(IRError, match="may leave input"):
        verify_program(_program(lambda g: b.add(g, 1)))
    with pytest.raises(IRError, match="may leave input"):
        verify_program(_program(lambda g: b.add(g, -1)))


def test_vector_loads_may_read_the_last_vectors_padding_only():
    """A 6-element float32 buffer occupies two whole vectors (8 elements): a VLOAD of the
    second vector is inside the binding, one lane further is not; a VSTORE writes elements
    only. The interpreter poisons the padding, so a lane taken from it shows as wrong bits."""
    src = Buffer("input", DataType.FLOAT32, 6, "input")
    out = Buffer("output", DataType.FLOAT32, 2, "output")
    g = b.item_id(1)

    def program(start, lane=1, vstore=False):
        vec = b.vload("input", b.add(b.mul(g, 4), start))
        value = b.vextract(vec, DataType.FLOAT32, lane)
        effects = ((b.vstore("input", b.add(b.mul(g, 4), start), vec),) if vstore else
                   (b.store(out, g, value),))
        return Program("p", (src, out), (Kernel("k", 1, effects),), ("input",), "output")

    x = np.arange(6, dtype=np.float32)
    assert run_program(verify_program(program(4)), x)[0] == x.view(np.uint32)[5]
    assert run_program(program(4, lane=3), x)[0] != 0  # padding: not an element's bits
    with pytest.raises(IRError, match="may leave input"):
        verify_program(program(8))
    with pytest.raises(IRError, match="may leave input"):
        verify_program(program(4, vstore=True))


def test_steps_run_in_order_and_are_bounded():
    """A kernel with steps stores once per step, in order (the last step's value stays); the
    verifier knows the step's range, and refuses loops lavapipe would stop."""
    out = Buffer("output", DataType.UINT32, 3, "output")
    gid, step = b.item_id(3), b.step_id(5)
    value = b.where(b.less(step, 4), b.const_data(DataType.UINT32, 7),
                    b.const_data(DataType.UINT32, 9))
    k = Kernel("k", 3, (b.store(out, gid, value),), steps=5)
    p = verify_program(Program("p", (out,), (k,), (), "output"))
    np.testing.assert_array_equal(run_program(p), [9, 9, 9])  # step 4 writes last
    assert "kernel k(gid < 3, for step < 5)" in render_program(p)
    too_long = Kernel("k", 3, k.effects, steps=70000)
    with pytest.raises(IRError, match="70000 steps"):
        verify_program(Program("p", (out,), (too_long,), (), "output"))
    with pytest.raises(IRError, match="only variables"):  # step ranges over [0, 5), not [0, 2)
        verify_program(Program("p", (out,), (Kernel("k", 3, k.effects, steps=2),), (), "output"))


def test_verifier_rejects_unowned_packed_stores():
    src = Buffer("input", DataType.UINT8, 8, "input")
    out = Buffer("output", DataType.UINT8, 8, "output")
    gid = b.item_id(8)
    k = Kernel("k", 8, (b.store(out, b.sub(7, gid), b.load(src, gid)),))
    with pytest.raises(IRError, match="8/16-bit stores"):
        verify_program(Program("p", (src, out), (k,), ("input",), "output"))


def test_interpreter_checks_addresses_at_run_time():
    unverified = _program(lambda g: b.add(g, 1))
    with pytest.raises(IRError, match="outside"):
        run_program(unverified, np.zeros(8, np.float32))


def test_data_dependent_store_address():
    src = Buffer("input", DataType.UINT32, 4, "input")
    out = Buffer("output", DataType.UINT32, 4, "output")
    gid = b.item_id(4)
    i = b.load(src, gid)
    k = Kernel("k", 4, (b.store(out, b.clamp(b.bits(i), 0, 3), i),))
    p = verify_program(Program("p", (src, out), (k,), ("input",), "output"))
    raw = run_program(p, np.array([3, 2, 1, 0xFFFFFFFF], np.uint32))
    np.testing.assert_array_equal(raw, [0xFFFFFFFF, 1, 2, 3])  # -1 clamps to 0


def test_printer_is_stable():
    p = _program(lambda g: b.sub(7, g))
    text = render_program(p)
    assert text == render_program(_program(lambda g: b.sub(7, g)))
    assert "load input[%1]" in text and "store output[gid] = %2" in text


def test_each_meaning_of_a_nodes_arg_has_its_typed_accessor():
    """Node.arg means a constant's value, a variable, a buffer, a lane, an element size or a
    mode, by op: each meaning is read through its own accessor, which refuses the others."""
    buf = Buffer("x", DataType.FLOAT32, 8, "input")
    vec = b.vload("x", b.mul(b.item_id(2), 4))
    assert b.const(-3).value == -3 and b.const_bool(True).value == 1
    assert b.const_data(DataType.UINT32, 7).value == 7
    assert b.item_id(5).variable == ("gid", 0, 4)
    assert b.load(buf, b.item_id(8)).buffer == "x" and vec.buffer == "x"
    assert b.vextract(vec, DataType.FLOAT32, 3).lane == 3
    assert b.reverse(vec, 4).itemsize == 4
    element = b.load(buf, b.item_id(8))
    assert b.combine("max", element, element).mode == "max"
    assert b.vextract(vec, DataType.FLOAT32, 3).data_type is DataType.FLOAT32
    for wrong in (lambda: vec.value, lambda: b.const(1).buffer, lambda: vec.lane,
                  lambda: vec.itemsize, lambda: vec.variable, lambda: vec.mode,
                  lambda: vec.data_type):
        with pytest.raises(IRError):
            wrong()


def test_a_kernel_with_no_effects_is_refused():
    """Its shader would bind none of the program's buffers (lavapipe crashed binding one)."""
    out = Buffer("output", DataType.FLOAT32, 4, "output")
    store = Kernel("copy", 4, (b.store(out, b.item_id(4), b.const_data(DataType.FLOAT32, 0)),))
    verify_program(Program("p", (out,), (store,), (), "output", (4,)))
    with pytest.raises(IRError, match="no effects"):
        verify_program(Program("p", (out,), (store, Kernel("idle", 4, ())), (), "output", (4,)))
