"""The rewrite engine: simplification under a named rule set, and substitution.

`simplify(roots, rules)` rewrites every node bottom-up: sources first, then the first rule of the
node's op table (ir/algebra.py) whose group is in `rules`, then the same again on what that rule
built, until no rule applies. The result is a fixed point: simplifying it again under the same
rules returns it unchanged. Nodes are interned and rules are pure, so each rewrite is remembered
per rule set across calls (unrolling rewrites many alike expressions).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from .algebra import RULES, Rule, RuleSet
from .ops import Node, Op, toposort

FIRED: Counter[str] = Counter()
"""How often each rule fired in this process, remembered rewrites not counted again (tests clear
the memo, then check that every rule is exercised)."""

MEMO_SIZE = 1 << 14
"""Rewrites remembered: (rule set, node with simplified sources) -> its fixed point. The keys
hold their nodes, so an interned node's id cannot be reused while it is remembered."""
_MEMO: dict[tuple[frozenset, Node], Node] = {}
_BUILT: dict[tuple, Node] = {}
"""substitute()'s memo: (rule set, op, dtype, simplified sources, arg) -> the fixed point."""
_TABLES: dict[tuple, tuple[bool, tuple[Rule, ...]]] = {}
"""_table's answers by _table_key."""


def clear_memo() -> None:
    """Forget every remembered rewrite."""
    _MEMO.clear()
    _BUILT.clear()


def _table_key(n: Node, rules: RuleSet) -> tuple:
    """The ids of n's op and its sources' ops (enum members are singletons; their ids hash
    faster), and the rule set."""
    s = n.src
    if len(s) == 2:
        return id(n.op), rules, id(s[0].op), id(s[1].op)
    if len(s) == 3:
        return id(n.op), rules, id(s[0].op), id(s[1].op), id(s[2].op)
    return id(n.op), rules  # no op of other arity has rules


def admits(rule: Rule, ops: list[Op]) -> bool:
    """Whether operands of these ops meet rule.ops (ir/algebra.py): elsewhere the rule never
    matches (tests/test_rules.py checks), and the engine does not call it."""
    return all(w is None or (op in w if isinstance(w, tuple) else op is w)
               for w, op in zip(rule.ops, ops))


def _table(n: Node, rules: RuleSet) -> tuple[bool, tuple[Rule, ...]]:
    """Whether n's op divides (its rules take the dividend and the divisor's value), and the
    rules of its table that `rules` enables and whose `ops` n's operands meet, in order (none
    for a runtime divisor)."""
    divides = n.op in (Op.FLOORDIV, Op.FLOORMOD)
    ops = [s.op for s in n.src[:1 if divides else 3]]
    table = tuple(r for r in RULES.get(n.op, ()) if r.group in rules and len(n.src) in (2, 3)
                  and admits(r, ops))
    if divides and not n.src[1].is_const:
        # a runtime divisor (a PARAM: a generic kernel's size) takes no rule: each is written
        # for a constant's value (the table's key holds the divisor's op, so a constant's is
        # apart)
        table = ()
    entry = _TABLES[_table_key(n, rules)] = (divides, table)
    return entry


def _rewrite(n: Node, rules: RuleSet, done: dict[Node, Node]) -> Node:
    """`n` (its sources simplified) rewritten by the first matching rule and simplified again;
    `n` itself where no rule of `rules` matches."""
    s = n.src  # (_table_key, inline: the hottest lookup of the compiler)
    if len(s) == 2:
        entry = _TABLES.get((id(n.op), rules, id(s[0].op), id(s[1].op)))
    elif len(s) == 3:
        entry = _TABLES.get((id(n.op), rules, id(s[0].op), id(s[1].op), id(s[2].op)))
    else:
        entry = _TABLES.get((id(n.op), rules))
    if entry is None:
        entry = _table(n, rules)
    divides, table = entry
    if not table:
        return n
    key = (rules, n)
    hit = _MEMO.get(key)  # one lookup: another thread may clear the memo meanwhile
    if hit is not None:
        return hit
    out = n
    args = (s[0], s[1].arg) if divides else s
    for rule in table:
        rewritten = rule.fn(*args)
        if rewritten is not None:
            FIRED[rule.name] += 1
            out = _simplify(rewritten, rules, done)
            break
    if len(_MEMO) >= MEMO_SIZE - 1:  # (_remember, inline: once per rewrite)
        _MEMO.clear()
    _MEMO[key] = out
    _MEMO[(rules, out)] = out  # a result is its own fixed point: no need to walk it again
    return out


def _simplify(root: Node, rules: RuleSet, done: dict[Node, Node]) -> Node:
    """`root` simplified; `done` maps the nodes simplified so far in this call to their
    results. (What this call or the memo already knows is looked up inline: the loop runs for
    every node a rewrite builds.)"""
    out = done.get(root)
    if out is not None:
        return out
    memo = _MEMO
    out = memo.get((rules, root))
    if out is not None:
        done[root] = out
        return out
    stack: list[tuple[Node, bool]] = [(root, False)]
    pop, push = stack.pop, stack.append
    while stack:
        n, ready = pop()
        if not ready:
            if n in done:
                continue
            out = memo.get((rules, n))
            if out is not None:
                done[n] = out
                continue
            if not n.src:  # a leaf: no rules take no operands
                done[n] = n
                continue
            push((n, True))
            for x in n.src:  # (a loop: no generator per node)
                if x not in done:
                    push((x, False))
            continue
        if n in done:
            continue
        src = tuple(map(done.__getitem__, n.src))
        m = n if src == n.src else Node(n.op, n.dtype, src, n.arg)
        out = done.get(m) or _rewrite(m, rules, done)
        done[n] = done[m] = done[out] = out  # a result is its own fixed point
    return done[root]


def simplify(roots: list[Node], rules: RuleSet) -> list[Node]:
    """`roots` rewritten by the rules of the groups in `rules` (ir/algebra.py) to a fixed
    point. With no rules, the roots themselves."""
    if not rules:
        return list(roots)
    done: dict[Node, Node] = {}
    return [_simplify(r, rules, done) for r in roots]


def fold(node: Node, rules: RuleSet) -> Node:
    """One node simplified: simplify([node], rules)[0]."""
    return _simplify(node, rules, {}) if rules else node


def substitute(roots: list[Node], mapping: Mapping[Node, Node], rules: RuleSet,
               order: list[Node] | None = None,
               memo: dict[Node, Node] | None = None) -> list[Node]:
    """`roots` with every occurrence of each key replaced by its value, simplified under
    `rules`. Only what changes is rewritten: a node that depends on no key stays as it is (it is
    taken as simplified already, as every pass's input is under the pipeline's rules), and a node
    above a replacement is rewritten with its new sources. order: toposort(roots), when the
    caller substitutes into the same roots several times (nodes outside it are not visited).
    memo: what earlier calls of this same mapping and rules made of each node, read and added
    to (a caller that substitutes into many roots sharing subexpressions: a vector's lanes)."""
    done: dict[Node, Node] = {}
    new: dict[Node, Node] = memo if memo is not None else {}
    for k, v in mapping.items():
        new[k] = _simplify(v, rules, done) if rules else v
    if order is None:  # nodes the memo holds are done, and so is all below them
        order = toposort(roots, stop=memo.keys()) if memo else toposort(roots)
    for n in order:
        if n in new:
            continue
        src = tuple(map(new.__getitem__, n.src))  # (map: no generator frame per node)
        if src == n.src:
            new[n] = done[n] = n
            continue
        if not rules:
            new[n] = Node(n.op, n.dtype, src, n.arg)
            continue
        # The sources are simplified already: only the node itself may rewrite. Unrolling
        # rebuilds the same nodes many times, so the result is looked up before the node is.
        key = (rules, id(n.op), id(n.dtype), src, type(n.arg), n.arg)
        out = _BUILT.get(key)
        if out is None:
            m = Node(n.op, n.dtype, src, n.arg)
            out = done.get(m) or _rewrite(m, rules, done)
            if len(_BUILT) >= MEMO_SIZE:
                _BUILT.clear()
            _BUILT[key] = out
        new[n] = done[out] = out
    return [new[r] for r in roots]
