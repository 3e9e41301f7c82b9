"""Every rewrite rule of ir/algebra.py, checked by evaluating both sides.

Random index expressions are built twice: evaluated directly with Python integers (the meaning),
and built with the pure builders, simplified under every rule group, then evaluated by the IR
interpreter. They must agree on every item, and the simplified node's value range and
divisibility must hold for every value.
"""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.strategies import budget

from dmlc.dtypes import DataType
from dmlc.ir import Buffer
from dmlc.ir import build as b
from dmlc.ir.algebra import ALL_RULES
from dmlc.ir.interp import _eval
from dmlc.ir.ops import toposort
from dmlc.ir.rewrite import fold

N = 64


def exprs():
    leaf = st.one_of(st.just(("var",)), st.tuples(st.just("const"), st.integers(-40, 40)),
                     st.tuples(st.just("scaled"), st.sampled_from([1, 2, 4, 8, 16, 3, 12])),
                     st.tuples(st.just("affine"), st.sampled_from([2, 4, 8, 16]),
                               st.integers(-2, 17)))

    def extend(children):
        return st.one_of(
            st.tuples(st.just("add"), children, children),
            st.tuples(st.just("mul"), children, st.integers(-6, 16)),
            st.tuples(st.just("div"), children, st.sampled_from([1, 2, 3, 4, 8, 12, 16, 64])),
            st.tuples(st.just("mod"), children, st.sampled_from([1, 2, 3, 4, 8, 12, 16, 64])),
            st.tuples(st.just("min"), children, children),
            st.tuples(st.just("max"), children, children),
            st.tuples(st.just("cmul"), st.integers(-6, 16), children),
            st.tuples(st.just("zero_times"), children),
            # integer-valued selects, so the comparison and boolean rules evaluate as numbers
            st.tuples(st.just("lt"), children, children, children, children),
            st.tuples(st.just("ne"), children, children, children, children),
            st.tuples(st.just("and"), children, children, children, children, children),
            # a split index re-flattened with chaining strides (the coalescing rules' input)
            st.tuples(st.just("coal"), children, children, st.sampled_from([2, 3, 4, 8]),
                      st.sampled_from([2, 3, 5]), st.sampled_from([1, 2, -1, 3])))
    return st.recursive(leaf, extend, max_leaves=10)


def meaning(e, g: int) -> int:
    op = e[0]
    if op == "var":
        return g
    if op == "const":
        return e[1]
    if op == "scaled":
        return g * e[1]
    if op == "affine":
        return g * e[1] + e[2]
    if op == "cmul":
        return e[1] * meaning(e[2], g)
    if op == "zero_times":
        return 0
    if op in ("lt", "ne"):
        a, b = meaning(e[1], g), meaning(e[2], g)
        return meaning(e[3] if (a < b if op == "lt" else a != b) else e[4], g)
    if op == "and":
        cond = meaning(e[1], g) < meaning(e[2], g) and meaning(e[2], g) != meaning(e[3], g)
        return meaning(e[4] if cond else e[5], g)
    if op == "coal":
        s, x, d, m, k = meaning(e[1], g), meaning(e[2], g), e[3], e[4], e[5]
        return s + ((x // d) % m) * (d * k) + (x % d) * k
    a = meaning(e[1], g)
    if op == "add":
        return a + meaning(e[2], g)
    if op == "mul":
        return a * e[2]
    if op == "div":
        return a // e[2]
    if op == "mod":
        return a % e[2]
    return (min if op == "min" else max)(a, meaning(e[2], g))


def build(e):
    op, gid = e[0], b.item_id(N)
    if op == "var":
        return gid
    if op == "const":
        return b.const(e[1])
    if op == "scaled":
        return b.mul(gid, e[1])
    if op == "affine":
        return b.add(b.mul(gid, e[1]), e[2])
    if op == "cmul":
        return b.mul(b.const(e[1]), build(e[2]))
    if op == "zero_times":  # an INT node whose range is {0} but is no constant, times e
        return b.mul(ZERO_INDEX, build(e[1]))
    if op in ("lt", "ne"):
        cond = (b.less if op == "lt" else b.not_equal)(build(e[1]), build(e[2]))
        return b.where(cond, build(e[3]), build(e[4]))
    if op == "and":
        cond = b.logical_and(b.less(build(e[1]), build(e[2])),
                             b.not_equal(build(e[2]), build(e[3])))
        return b.where(cond, build(e[4]), build(e[5]))
    if op == "coal":
        x, d, m, k = build(e[2]), e[3], e[4], e[5]
        term = b.mul(b.floormod(b.floordiv(x, d), m), d * k)
        return b.add(b.add(build(e[1]), term), b.mul(b.floormod(x, d), k))
    a = build(e[1])
    if op == "add":
        return b.add(a, build(e[2]))
    if op == "mul":
        return b.mul(a, e[2])
    if op == "div":
        return b.floordiv(a, e[2])
    if op == "mod":
        return b.floormod(a, e[2])
    return (b.minimum if op == "min" else b.maximum)(a, build(e[2]))


# index.clamp(load, dim=1) is always 0, which only its range says.
ZERO_BUFFER = Buffer("zero", DataType.INT32, N, "input")
ZERO_INDEX = b.index(b.load(ZERO_BUFFER, b.item_id(N)), 1, "clamp")


def evaluate(node) -> np.ndarray:
    gid = np.arange(N, dtype=np.int64)
    vals = {}
    bufs = {"zero": np.arange(N, dtype=np.uint32) * np.uint32(2654435761)}  # any index values
    for n in toposort([node]):
        vals[n] = _eval(n, vals, bufs, gid)
    return np.broadcast_to(vals[node], gid.shape)


@settings(max_examples=budget(600))
@given(exprs())
def test_folded_expressions_keep_their_meaning(e):
    check_meaning(e)


def check_meaning(e):
    node = fold(build(e), ALL_RULES)
    got = evaluate(node)
    want = np.array([meaning(e, g) for g in range(N)], dtype=np.int64)
    np.testing.assert_array_equal(got, want, err_msg=f"{e} built as {node!r}")
    assert node.vmin <= want.min() and want.max() <= node.vmax, (e, node.bounds)
    if node.divisor:
        assert np.all(want % node.divisor == 0), (e, node.divisor)
    else:
        assert np.all(want == 0)


# Rule table: (built, expected structure) pairs that must fold exactly as stated.
G = b.item_id(1 << 20)
P = b.param(0, 9, 4096)
RULES = [
    ("(x + 3) + 4 -> x + 7", b.add(b.add(G, 3), 4), b.add(G, 7)),
    ("a + (y + c) -> (a + y) + c", b.add(G, b.add(b.mul(G, 2), 5)),
     b.add(b.add(G, b.mul(G, 2)), 5)),
    ("(x + c) * k -> x * k + c * k", b.mul(b.add(G, 3), 4), b.add(b.mul(G, 4), 12)),
    ("(x * 4) // 256 -> x // 64", b.floordiv(b.mul(G, 4), 256), b.floordiv(G, 64)),
    ("(x * 256) // 4 -> x * 64", b.floordiv(b.mul(G, 256), 4), b.mul(G, 64)),
    ("(x * 4 + 3) // 256 -> x // 64", b.floordiv(b.add(b.mul(G, 4), 3), 256), b.floordiv(G, 64)),
    ("(x * 4 + 3) % 256 -> (x % 64) * 4 + 3", b.floormod(b.add(b.mul(G, 4), 3), 256),
     b.add(b.mul(b.floormod(G, 64), 4), 3)),
    ("(x * 256 + y) // 256 -> x + y // 256", b.floordiv(b.add(b.mul(G, 256), G), 256),
     b.add(G, b.floordiv(G, 256))),
    ("(x * 256 + y) % 256 -> y % 256", b.floormod(b.add(b.mul(G, 256), G), 256),
     b.floormod(G, 256)),
    ("(x % 512) % 256 -> x % 256", b.floormod(b.floormod(G, 512), 256), b.floormod(G, 256)),
    ("(x // 8) * 8 + x % 8 -> x", b.add(b.mul(b.floordiv(G, 8), 8), b.floormod(G, 8)), G),
    ("(x * 6) % 3 -> 0", b.floormod(b.mul(G, 6), 3), b.const(0)),
    ("(x * 16 + 4097) // 4096 -> x // 256 + 1", b.floordiv(b.add(b.mul(G, 16), 4097), 4096),
     b.add(b.floordiv(G, 256), 1)),
    ("(x * 16 + 4097) % 4096 -> (x % 256) * 16 + 1", b.floormod(b.add(b.mul(G, 16), 4097), 4096),
     b.add(b.mul(b.floormod(G, 256), 16), 1)),
    ("(x * 4 - 11) // 8 -> (x * 4 - 12) // 8", b.floordiv(b.add(b.mul(G, 4), -11), 8),
     b.floordiv(b.add(b.mul(G, 4), -12), 8)),
    ("(x * 4 - 11) % 8 -> (x * 4 - 12) % 8 + 1", b.floormod(b.add(b.mul(G, 4), -11), 8),
     b.add(b.floormod(b.add(b.mul(G, 4), -12), 8), 1)),
    # a row's start plus a column inside the row, over a multiple of the row (partition.py)
    ("(x * 260 + (x % 63) * 4 + 5) // 520 -> x // 2",
     b.floordiv(b.add(b.add(b.mul(G, 260), b.mul(b.floormod(G, 63), 4)), 5), 520),
     b.floordiv(G, 2)),
    ("(x * 260 + (x % 63) * 4 + 5) % 520 -> (x % 2) * 260 + (x % 63) * 4 + 5",
     b.floormod(b.add(b.add(b.mul(G, 260), b.mul(b.floormod(G, 63), 4)), 5), 520),
     b.add(b.add(b.mul(b.floormod(G, 2), 260), b.mul(b.floormod(G, 63), 4)), 5)),
    # a row block's last column within its row of P columns (family/rows.py), which ranges
    # alone do not decide: an affine bound of one side against the other (ir/extents.fits)
    ("min(min(x, p - 9) + 8, p - 1) -> min(x, p - 9) + 8",
     b.minimum(b.add(b.minimum(G, b.add(P, -9)), 8), b.add(P, -1)),
     b.add(b.minimum(G, b.add(P, -9)), 8)),
    ("max(p - 1, min(x, p - 9) + 8) -> p - 1",
     b.maximum(b.add(P, -1), b.add(b.minimum(G, b.add(P, -9)), 8)), b.add(P, -1)),
    ("min(x, p - 9) + 8 < p -> true", b.less(b.add(b.minimum(G, b.add(P, -9)), 8), P),
     b.const_bool(True)),
    ("p < min(x, p - 9) + 9 -> false", b.less(P, b.add(b.minimum(G, b.add(P, -9)), 9)),
     b.const_bool(False)),
]


def test_rule_table():
    for name, built, expected in RULES:
        got, want = fold(built, ALL_RULES), fold(expected, ALL_RULES)
        assert got is want, f"{name}: got {got!r}, expected {want!r}"


def test_affine_div_mod_exhaustively():
    """(g*s + c) // d and % d, and nested once more, over a grid that hits every side condition
    (m | x, m | d, 0 <= c < m) at and around its boundaries."""
    for s in (1, 2, 3, 4, 8, 16):
        for c in range(-19, 18):
            for d in (1, 2, 3, 4, 8, 12, 16, 64):
                for outer in (("div", 4), ("mod", 4), ("div", 1)):
                    for op in ("div", "mod"):
                        e = (outer[0], (op, ("affine", s, c), d), outer[1])
                        want = np.array([meaning(e, g) for g in range(N)])
                        got = evaluate(fold(build(e), ALL_RULES))
                        np.testing.assert_array_equal(got, want, err_msg=str(e))


def test_every_rule_fires():
    """Each rule of every table fires while both sides are evaluated on many inputs: the
    property test above (derandomized, so the coverage does not depend on luck), the rule
    table and the exhaustive affine grid, run again here so this test stands alone."""
    from dmlc.ir.algebra import RULES
    from dmlc.ir.rewrite import FIRED, clear_memo
    clear_memo()
    FIRED.clear()
    settings(derandomize=True, max_examples=budget(600))(given(exprs())(check_meaning))()
    test_rule_table()
    test_affine_div_mod_exhaustively()
    missing = [r.name for table in RULES.values() for r in table if not FIRED[r.name]]
    assert not missing, missing


def test_rule_ops_are_necessary(monkeypatch):
    """No rule matches operands whose ops its `ops` condition refuses (the engine never calls it
    on those): the inputs of test_every_rule_fires, through tables that try every rule on every
    node, each match checked against the condition."""
    import dataclasses

    from dmlc.ir import rewrite
    from dmlc.ir.algebra import RULES
    from dmlc.ir.ops import Node
    refused: list[str] = []

    def unguarded(rule):
        def fn(*args):
            out = rule.fn(*args)
            ops = [a.op for a in args if isinstance(a, Node)]  # // and %: the dividend's only
            if out is not None and not rewrite.admits(rule, ops):
                refused.append(f"{rule.name} on {[repr(a) for a in args]}")
            return out
        return dataclasses.replace(rule, fn=fn, ops=())

    monkeypatch.setattr(rewrite, "RULES", {op: [unguarded(r) for r in table]
                                           for op, table in RULES.items()})
    rewrite._TABLES.clear()
    rewrite.clear_memo()
    try:
        settings(derandomize=True, max_examples=budget(300))(given(exprs())(check_meaning))()
        test_rule_table()
        test_affine_div_mod_exhaustively()
    finally:
        rewrite._TABLES.clear()
        rewrite.clear_memo()
    assert not refused, refused[:5]
