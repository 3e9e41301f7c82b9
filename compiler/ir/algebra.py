"""The rewrite rules of index arithmetic: one table per op, each rule named by its identity.

A rule takes a node's operands (for // and % the operand and the constant divisor; for where the
condition and both values) and returns the node it rewrites to, built with the pure builders of
ir/build.py, or None where it does not apply. ir/rewrite.py applies the tables: the first rule of
an enabled group that matches (of those whose `ops` its operands meet), then the rules again on
what it built, to a fixed point. Each rule belongs to the group of the pass that owns it; a
caller names the groups it relies on (`simplify(roots, rules)`), so the same IR never means two
things in two places.

tests/test_rules.py evaluates both sides of every rule on many inputs, checks value ranges and
divisibility, and fails if any rule never fired.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from .build import add, const, const_bool, floordiv, floormod, mul
from .extents import fits
from .ops import Node, Op
from .terms import big_offset, const_tail, mul_by, negative_offset, scaled, small_offset

FOLD_CONSTANTS = "fold_constants"
"""Constant folding and constant offsets: c1 op c2, x + 0, x * 1, constants outermost."""
SIMPLIFY_DIVMOD = "simplify_divmod"
"""Division, modulo, min/max and comparisons decided by value ranges and divisibility, and
min/max and comparisons by an affine bound of one side against the other (ir/extents.py)."""
COALESCE = "coalesce"
"""Coordinates split from one index and re-flattened with chaining strides merge back."""
GROUPS = (FOLD_CONSTANTS, SIMPLIFY_DIVMOD, COALESCE)

RuleSet = frozenset
"""The rule groups a simplification applies (a frozenset of group names)."""
NO_RULES: frozenset[str] = frozenset()
ALL_RULES: frozenset[str] = frozenset(GROUPS)
C, ADD, MUL, DIV, MOD = Op.CONST, Op.ADD, Op.MUL, Op.FLOORDIV, Op.FLOORMOD


def rule_set(groups: set[str] | frozenset[str] | tuple[str, ...]) -> frozenset[str]:
    """A RuleSet of these groups, refusing names that are not groups."""
    unknown = set(groups) - set(GROUPS)
    if unknown:
        raise ValueError(f"unknown rule groups {sorted(unknown)}")
    return frozenset(groups)


@dataclass(frozen=True)
class Rule:
    name: str
    """The identity the rule applies, left to right, with its side conditions."""
    group: str
    fn: Callable[..., Node | None]
    """Returns the rewritten node, or None where the rule does not match."""
    ops: tuple[Op | tuple[Op, ...] | None, ...] = ()
    """Each operand's op where fn may match (// and %: the dividend's): op, ops or None (any)."""


# +

def _add_consts(a: Node, b: Node) -> Node | None:
    return const(a.value + b.value) if a.is_const and b.is_const else None


def _add_tail_const(a: Node, b: Node) -> Node | None:
    t = const_tail(a)
    return add(t[0], t[1] + b.value) if b.is_const and t else None


def _add_hoist_right(a: Node, b: Node) -> Node | None:
    t = const_tail(b)
    return add(add(a, t[0]), t[1]) if t else None


def _add_hoist_left(a: Node, b: Node) -> Node | None:
    t = const_tail(a)
    return add(add(t[0], b), t[1]) if t and not b.is_const else None


def _merge_terms(p: Node, q: Node) -> Node | None:
    """Coalescing: the terms of two adjacent dimensions of one split index, as one term.
    q = (x % d) * k and p = (x // d) * (d * k)          -> x * k
    q = (x % d) * k and p = ((x // d) % m) * (d * k)    -> (x % (m * d)) * k"""
    (u, kp), (r, kq) = scaled(p), scaled(q)
    if r.op is not Op.FLOORMOD or not r.src[1].is_const or kp != kq * r.src[1].value:
        return None
    x, d = r.src[0], r.src[1].value
    if u.op is Op.FLOORDIV and u.src[0] is x and u.src[1].arg == d:
        return mul(x, kq)
    if (u.op is Op.FLOORMOD and u.src[1].is_const and u.src[0].op is Op.FLOORDIV
            and u.src[0].src[0] is x and u.src[0].src[1].arg == d):
        return mul(floormod(x, u.src[1].value * d), kq)
    return None


def _coalesce_last(a: Node, b: Node) -> Node | None:
    """Sums are built dimension by dimension, so the term to merge b with is a's last one."""
    if a.op is Op.ADD and not a.src[1].is_const:
        merged = _merge_terms(a.src[1], b)
        if merged is not None:
            return add(a.src[0], merged)
    return None


ADD_RULES = [
    Rule("c1 + c2 -> (c1 + c2)", FOLD_CONSTANTS, _add_consts, (C, C)),
    Rule("c + x -> x + c", FOLD_CONSTANTS,
         lambda a, b: add(b, a) if a.is_const and not b.is_const else None, (C,)),
    Rule("x + 0 -> x", FOLD_CONSTANTS, lambda a, b: a if b.is_const and b.arg == 0 else None,
         (None, C)),
    Rule("(x + c1) + c2 -> x + (c1 + c2)", FOLD_CONSTANTS, _add_tail_const, (ADD, C)),
    Rule("a + (y + c) -> (a + y) + c", FOLD_CONSTANTS, _add_hoist_right, (None, ADD)),
    Rule("(x + c) + b -> (x + b) + c", FOLD_CONSTANTS, _add_hoist_left, (ADD,)),
    Rule("(x // d) * (d * k) + (x % d) * k -> x * k", COALESCE,
         lambda a, b: _merge_terms(a, b) or _merge_terms(b, a), ((MUL, DIV, MOD),) * 2),
    Rule("(s + ((x // d) % m) * (d * k)) + (x % d) * k -> s + (x % (m * d)) * k", COALESCE,
         _coalesce_last, (ADD, (MUL, MOD))),
]


# *

def _mul_consts(a: Node, b: Node) -> Node | None:
    return const(a.value * b.value) if a.is_const and b.is_const else None


def _mul_distribute(a: Node, b: Node) -> Node | None:
    t = const_tail(a)
    return add(mul(t[0], b), t[1] * b.value) if b.is_const and t else None


def _mul_fold_factors(a: Node, b: Node) -> Node | None:
    if b.is_const and a.op is Op.MUL and a.src[1].is_const:
        return mul(a.src[0], a.src[1].value * b.value)
    return None


MUL_RULES = [
    Rule("c1 * c2 -> (c1 * c2)", FOLD_CONSTANTS, _mul_consts, (C, C)),
    Rule("c * x -> x * c", FOLD_CONSTANTS,
         lambda a, b: mul(b, a) if a.is_const and not b.is_const else None, (C,)),
    Rule("x * 0 -> 0", FOLD_CONSTANTS,
         lambda a, b: const(0) if b.is_const and b.arg == 0 else None, (None, C)),
    Rule("x * 1 -> x", FOLD_CONSTANTS, lambda a, b: a if b.is_const and b.arg == 1 else None,
         (None, C)),
    Rule("x * k -> 0  when x's range is {0}", SIMPLIFY_DIVMOD,
         lambda a, b: const(0) if a.vmin == a.vmax == 0 else None),
    Rule("(x + c) * k -> x * k + c * k", FOLD_CONSTANTS, _mul_distribute, (ADD, C)),
    Rule("(x * c1) * c2 -> x * (c1 * c2)", FOLD_CONSTANTS, _mul_fold_factors, (MUL, C)),
]


# // by a positive constant d

def _split_multiples(a: Node, d: int) -> tuple[Node, Node] | None:
    """(m, y) with a = m + y and d | m, when some term of the sum a (nested sums flattened)
    is a multiple of d and some is not: row * R + column + c splits into the row's part and
    the rest, wherever the constant went."""
    if a.op is not Op.ADD:
        return None
    whole: list[Node] = []
    rest: list[Node] = []
    for t in _terms(a):  # (one pass, inline: tried on every // and % of a sum)
        (rest if t.divisor % d else whole).append(t)
    return (_sum(whole), _sum(rest)) if whole and rest else None


def _terms(a: Node) -> list[Node]:
    terms, stack = [], [a]
    while stack:
        n = stack.pop()
        if n.op is Op.ADD:
            stack += n.src[::-1]
        else:
            terms.append(n)
    return terms


def _sum(terms: list[Node]) -> Node:
    total = terms[0]
    for t in terms[1:]:
        total = add(total, t)
    return total


def _small_rest(a: Node, d: int) -> tuple[Node, Node] | None:
    """(x, y) with a = x + y, m | x, m | d and 0 <= y < m for some m > 1 (y not a constant:
    a row's start plus a column, row * R + column, divided by a multiple of R)."""
    terms = _terms(a) if a.op is Op.ADD else []
    for m in sorted({math.gcd(t.divisor, d) for t in terms} - {1}, reverse=True):
        x = [t for t in terms if t.divisor % m == 0]
        y = [t for t in terms if t.divisor % m]
        # the range of y's sum is the sum of their ranges: the sum is built only if it is used
        if (x and y and not (len(y) == 1 and y[0].is_const)
                and 0 <= sum(t.vmin for t in y) and sum(t.vmax for t in y) < m):
            return _sum(x), _sum(y)
    return None


def _div_sum(a: Node, d: int) -> Node | None:
    t = _split_multiples(a, d)
    return add(floordiv(t[0], d), floordiv(t[1], d)) if t else None


def _div_scaled_multiple(a: Node, d: int) -> Node | None:
    c = mul_by(a)
    return mul(a.src[0], c // d) if c and c % d == 0 else None


def _div_scaled_divisor(a: Node, d: int) -> Node | None:
    c = mul_by(a)
    return floordiv(a.src[0], d // c) if c and d % c == 0 else None


def _div_small_offset(a: Node, d: int) -> Node | None:
    t = small_offset(a, d)
    return floordiv(t[0], d) if t else None


def _div_negative_offset(a: Node, d: int) -> Node | None:
    t = negative_offset(a, d)
    return floordiv(t[0], d) if t else None


def _div_big_offset(a: Node, d: int) -> Node | None:
    t = big_offset(a, d)
    return add(floordiv(add(t[0], t[1] % d), d), t[1] // d) if t else None


FLOORDIV_RULES = [
    Rule("x // 1 -> x", FOLD_CONSTANTS, lambda a, d: a if d == 1 else None),
    Rule("c // d -> (c // d)", FOLD_CONSTANTS,
         lambda a, d: const(a.arg // d) if a.is_const else None, (C,)),
    Rule("x // d -> q  when x's whole range has quotient q", SIMPLIFY_DIVMOD,
         lambda a, d: const(a.vmin // d) if a.vmin // d == a.vmax // d else None),
    Rule("(x // c1) // c2 -> x // (c1 * c2)", COALESCE,
         lambda a, d: floordiv(a.src[0], a.src[1].value * d)
         if a.op is DIV and a.src[1].is_const else None, (DIV,)),
    Rule("(x * c) // d -> x * (c / d)  when d | c", SIMPLIFY_DIVMOD, _div_scaled_multiple, (MUL,)),
    Rule("(x * c) // d -> x // (d / c)  when c | d", SIMPLIFY_DIVMOD, _div_scaled_divisor, (MUL,)),
    Rule("(d*k + y) // d -> k + y // d", SIMPLIFY_DIVMOD, _div_sum, (ADD,)),
    Rule("(x + c) // d -> x // d  when m | x, m | d, 0 <= c < m", SIMPLIFY_DIVMOD,
         _div_small_offset, (ADD,)),
    Rule("(x + y) // d -> x // d  when m | x, m | d, 0 <= y < m", SIMPLIFY_DIVMOD,
         lambda a, d: (lambda t: floordiv(t[0], d) if t else None)(_small_rest(a, d)), (ADD,)),
    Rule("(x + c) // d -> (x + c - r) // d  when c < 0, m | x, m | d, r = c mod m",
         SIMPLIFY_DIVMOD, _div_negative_offset, (ADD,)),
    Rule("(x + c) // d -> (x + c % d) // d + c // d  when c >= d", SIMPLIFY_DIVMOD,
         _div_big_offset, (ADD,)),
]


# % by a positive constant d

def _mod_sum(a: Node, d: int) -> Node | None:
    t = _split_multiples(a, d)
    return floormod(t[1], d) if t else None


def _mod_of_mod(a: Node, d: int) -> Node | None:
    if a.op is Op.FLOORMOD and a.src[1].is_const and a.src[1].value % d == 0:
        return floormod(a.src[0], d)
    return None


def _mod_scaled(a: Node, d: int) -> Node | None:
    c = mul_by(a)
    return mul(floormod(a.src[0], d // c), c) if c and d % c == 0 else None


def _mod_small_offset(a: Node, d: int) -> Node | None:
    t = small_offset(a, d)
    return add(floormod(t[0], d), t[1]) if t else None


def _mod_negative_offset(a: Node, d: int) -> Node | None:
    t = negative_offset(a, d)
    return add(floormod(t[0], d), t[1]) if t else None


def _mod_big_offset(a: Node, d: int) -> Node | None:
    t = big_offset(a, d)
    return floormod(add(t[0], t[1] % d), d) if t else None


FLOORMOD_RULES = [
    Rule("x % 1 -> 0", FOLD_CONSTANTS, lambda a, d: const(0) if d == 1 else None),
    Rule("c % d -> (c % d)", FOLD_CONSTANTS,
         lambda a, d: const(a.arg % d) if a.is_const else None, (C,)),
    Rule("x % d -> x  when 0 <= x < d", SIMPLIFY_DIVMOD,
         lambda a, d: a if 0 <= a.vmin and a.vmax < d else None),
    Rule("(d * k) % d -> 0", SIMPLIFY_DIVMOD,
         lambda a, d: const(0) if a.divisor % d == 0 else None),
    Rule("(x % e) % d -> x % d  when d | e", SIMPLIFY_DIVMOD, _mod_of_mod, (MOD,)),
    Rule("(x * c) % d -> (x % (d / c)) * c  when c | d", SIMPLIFY_DIVMOD, _mod_scaled, (MUL,)),
    Rule("(d*k + y) % d -> y % d", SIMPLIFY_DIVMOD, _mod_sum, (ADD,)),
    Rule("(x + c) % d -> x % d + c  when m | x, m | d, 0 <= c < m", SIMPLIFY_DIVMOD,
         _mod_small_offset, (ADD,)),
    Rule("(x + y) % d -> x % d + y  when m | x, m | d, 0 <= y < m", SIMPLIFY_DIVMOD,
         lambda a, d: (lambda t: add(floormod(t[0], d), t[1]) if t else None)(
             _small_rest(a, d)), (ADD,)),
    Rule("(x + c) % d -> (x + c - r) % d + r  when c < 0, m | x, m | d, r = c mod m",
         SIMPLIFY_DIVMOD, _mod_negative_offset, (ADD,)),
    Rule("(x + c) % d -> (x + c % d) % d  when c >= d", SIMPLIFY_DIVMOD, _mod_big_offset, (ADD,)),
]


# min, max, comparisons, logic and selects

def _min_decided(a: Node, b: Node) -> Node | None:
    return a if a.vmax <= b.vmin else (b if b.vmax <= a.vmin else None)


def _max_decided(a: Node, b: Node) -> Node | None:
    return a if a.vmin >= b.vmax else (b if b.vmin >= a.vmax else None)


def _min_bounded(a: Node, b: Node) -> Node | None:
    """a where an affine upper bound of a is at most b (extents.fits: the terms both share
    cancel, as in min(min(x, p - 9) + 8, p - 1), a row block's last column within its row of
    p columns), b the other way round; only where the range it leaves is the min's (what
    ranges prove downstream, the verifier's bounds, stays proven). Tried after _min_decided,
    which decides every pair of constants."""
    if a.vmax <= b.vmax and fits(a, b, 0):
        return a
    return b if b.vmax <= a.vmax and fits(b, a, 0) else None


def _max_bounded(a: Node, b: Node) -> Node | None:
    """max's twin of _min_bounded: a where b's affine upper bound is at most a."""
    if a.vmin >= b.vmin and fits(b, a, 0):
        return a
    return b if b.vmin >= a.vmin and fits(a, b, 0) else None


def _less_bounded(a: Node, b: Node) -> Node | None:
    if fits(a, b, 1):
        return const_bool(True)
    return const_bool(False) if fits(b, a, 0) else None


def _less_decided(a: Node, b: Node) -> Node | None:
    if a.vmax < b.vmin:
        return const_bool(True)
    return const_bool(False) if a.vmin >= b.vmax else None


def _and_constant(a: Node, b: Node) -> Node | None:
    for x, y in ((a, b), (b, a)):
        if x.is_const:
            return y if x.arg else x
    return None


MIN_RULES = [Rule("min(a, b) -> a  when a <= b over their ranges", SIMPLIFY_DIVMOD,
                  _min_decided),
             Rule("min(a, b) -> a  when an affine bound of a is <= b", SIMPLIFY_DIVMOD,
                  _min_bounded)]
MAX_RULES = [Rule("max(a, b) -> a  when a >= b over their ranges", SIMPLIFY_DIVMOD,
                  _max_decided),
             Rule("max(a, b) -> a  when an affine bound of b is <= a", SIMPLIFY_DIVMOD,
                  _max_bounded)]
LESS_RULES = [Rule("a < b -> true / false  when their ranges decide it", SIMPLIFY_DIVMOD,
                   _less_decided),
              Rule("a < b -> true / false  when an affine bound decides it", SIMPLIFY_DIVMOD,
                   _less_bounded)]
NOT_EQUAL_RULES = [
    Rule("x != x -> false", FOLD_CONSTANTS, lambda a, b: const_bool(False) if a is b else None),
    Rule("a != b -> true  when their ranges do not meet", SIMPLIFY_DIVMOD,
         lambda a, b: const_bool(True) if a.vmax < b.vmin or b.vmax < a.vmin else None),
]
AND_RULES = [Rule("true && y -> y, false && y -> false (either side)", FOLD_CONSTANTS,
                  _and_constant)]
WHERE_RULES = [
    Rule("true ? a : b -> a, false ? a : b -> b", FOLD_CONSTANTS,
         lambda c, a, b: (a if c.arg else b) if c.is_const else None, (C,)),
    Rule("c ? a : a -> a", FOLD_CONSTANTS, lambda c, a, b: a if a is b else None),
]

RULES: dict[Op, list[Rule]] = {
    Op.ADD: ADD_RULES, Op.MUL: MUL_RULES, Op.FLOORDIV: FLOORDIV_RULES,
    Op.FLOORMOD: FLOORMOD_RULES, Op.MIN: MIN_RULES, Op.MAX: MAX_RULES, Op.CMPLT: LESS_RULES,
    Op.CMPNE: NOT_EQUAL_RULES, Op.AND: AND_RULES, Op.WHERE: WHERE_RULES}
"""Each op's rules, in the order they are tried."""
