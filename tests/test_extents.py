"""ir/extents.py: fits() proves an access inside a runtime extent through what the rule passes
make of the lowered clamps (the terms an address shares with the extent cancel); it never
proves one that may pass the extent, for any admissible PARAM value (checked exhaustively over
small ranges)."""
from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.strategies import budget

from dmlc.ir import build as b
from dmlc.ir.extents import fits, upper_bounds
from dmlc.ir.ops import Node, Op

P = b.param(0, 1, 9)
Q = b.param(1, 1, 5)


def test_what_the_rule_passes_leave_of_a_clamp_is_proven():
    assert fits(b.add(b.mul(P, 2), -2), b.mul(P, 2), 2)  # (p - 1) * 2: the last vector
    assert not fits(b.add(b.mul(P, 2), -1), b.mul(P, 2), 2)  # half a vector past
    assert fits(b.minimum(b.mul(Q, 7), b.add(P, -1)), P, 1)  # min(x, p - 1)
    assert fits(b.add(b.mul(b.floordiv(b.add(P, -1), 4), 4), 0), P, 1)  # ((p - 1) // 4) * 4
    assert fits(b.add(b.minimum(b.mul(Q, 3), b.add(P, -3)), 2), P, 1)  # min(.., p - 3) + 2
    assert not fits(b.add(b.minimum(b.mul(Q, 3), b.add(P, -3)), 3), P, 1)
    assert fits(b.const(0), b.mul(P, 2), 2)  # a kernel of one item's gid * 2
    assert not fits(P, P, 1)


def _values(n: Node) -> list[dict[Node, int]]:
    params = sorted({x for x in n.toposort() if x.op is Op.PARAM}, key=lambda x: x.arg)
    return [dict(zip(params, vs)) for vs in itertools.product(
        *(range(p.vmin, p.vmax + 1) for p in params))]


def _eval(n: Node, env: dict[Node, int]) -> int:
    if n.op is Op.PARAM:
        return env[n]
    if n.op is Op.CONST:
        return n.value
    a = [_eval(s, env) for s in n.src]
    return {Op.ADD: lambda: a[0] + a[1], Op.MUL: lambda: a[0] * a[1],
            Op.MIN: lambda: min(a), Op.FLOORDIV: lambda: a[0] // a[1]}[n.op]()


@st.composite
def addresses(draw: st.DrawFn, extent: Node, depth: int = 3) -> Node:
    """Sums, constant multiples, mins, floor divisions and roundings down of P, Q, small
    constants and the extent less a constant (what a clamp is made of)."""
    if depth == 0 or draw(st.booleans()):
        return draw(st.sampled_from([P, Q, b.const(draw(st.integers(0, 6))),
                                     b.add(extent, -draw(st.integers(1, 4)))]))
    kind = draw(st.sampled_from(["add", "mul", "min", "min", "div", "floor", "shift"]))
    x = draw(addresses(extent, depth - 1))
    if kind == "add":
        return b.add(x, draw(addresses(extent, depth - 1)))
    if kind == "mul":
        return b.mul(x, draw(st.integers(1, 4)))
    if kind == "min":
        return b.minimum(x, draw(addresses(extent, depth - 1)))
    if kind == "div":
        return b.floordiv(x, draw(st.integers(1, 4)))
    if kind == "floor":  # x rounded down to a multiple of m
        m = draw(st.integers(2, 4))
        return b.mul(b.floordiv(x, m), m)
    return b.add(x, draw(st.integers(-3, 3)))


@settings(max_examples=budget(300), deadline=None)
@given(st.data(), st.sampled_from([P, b.mul(P, 2), b.add(P, Q)]), st.integers(1, 4),
       st.integers(1, 2))
def test_fits_never_proves_an_access_that_passes_the_extent(data, extent, room, scale):
    addr = data.draw(addresses(extent))
    if data.draw(st.booleans()):  # a clamp, then an offset that may or may not pass it
        addr = b.add(b.minimum(addr, b.add(extent, -data.draw(st.integers(1, 4)))),
                     data.draw(st.integers(0, 3)))
    if addr.vmin < 0:
        return
    if fits(addr, extent, room, scale):
        for env in _values(b.add(addr, extent)):
            assert scale * _eval(addr, env) + room <= _eval(extent, env), env
    for bound, env in itertools.product(upper_bounds(addr), _values(addr)):
        terms, const = bound
        assert _eval(addr, env) <= const + sum(c * _eval(t, env) for t, c in terms.items())

