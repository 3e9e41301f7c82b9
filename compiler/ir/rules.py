"""Rewrite rules, grouped by the pass that owns them, and which groups are on.

The smart constructors of ir/build.py look up their op's rule table and apply the first enabled
rule that matches. Each rule's name is its identity (`(x + c1) + c2 -> x + (c1 + c2)`), and
tests/test_rules.py evaluates both sides of every rule on many inputs and fails if any rule never
fired. Lowering builds with every group off (naive IR); each rule pass of the pipeline turns its
group on and rebuilds the program, so disabling a pass disables its rules for the passes after
it too.
"""
from __future__ import annotations

import contextlib
from collections import Counter
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Callable, Iterator, Optional, Sequence

from .ops import Node

FOLD_CONSTANTS = "fold_constants"
"""Constant folding and constant offsets: c1 op c2, x + 0, x * 1, constants outermost."""
SIMPLIFY_DIVMOD = "simplify_divmod"
"""Division, modulo, min/max and comparisons decided by value ranges and divisibility."""
COALESCE = "coalesce"
"""Coordinates split from one index and re-flattened with chaining strides merge back."""
GROUPS = (FOLD_CONSTANTS, SIMPLIFY_DIVMOD, COALESCE)

_active: ContextVar[frozenset[str]] = ContextVar("dmlc_rule_groups", default=frozenset(GROUPS))
FIRED: Counter[str] = Counter()
"""How often each rule fired in this process, memoized rewrites not counted again (tests clear
the memo, then check that every rule is exercised)."""


@dataclass(frozen=True)
class Rule:
    name: str
    """The identity the rule applies, left to right, with its side conditions."""
    group: str
    fn: Callable[..., Optional[Node]]
    """Returns the rewritten node, or None where the rule does not match."""


_MEMO: dict[tuple, Optional[Node]] = {}
_MISSING = object()
MEMO_SIZE = 1 << 14
"""Rewrites remembered (nodes are interned and rules are pure, so the same arguments under the
same groups always rewrite the same way): unrolling rebuilds many alike expressions."""


def clear_memo() -> None:
    _MEMO.clear()


def apply(table: Sequence[Rule], *args: object) -> Optional[Node]:
    """The first enabled rule's rewrite of `args`, or None."""
    groups = _active.get()
    key = (id(table), groups, *args)  # holds the args, so their ids stay theirs
    hit = _MEMO.get(key, _MISSING)  # one lookup: another thread may clear the memo meanwhile
    if hit is not _MISSING:
        return hit  # type: ignore[return-value]
    out = None
    for rule in table:
        if rule.group in groups:
            out = rule.fn(*args)
            if out is not None:
                FIRED[rule.name] += 1
                break
    if len(_MEMO) >= MEMO_SIZE:
        _MEMO.clear()
    _MEMO[key] = out
    return out


@contextlib.contextmanager
def only(groups: "frozenset[str] | set[str]") -> Iterator[None]:
    """Build IR with exactly these rule groups on (per thread and task)."""
    unknown = set(groups) - set(GROUPS)
    if unknown:
        raise ValueError(f"unknown rule groups {sorted(unknown)}")
    token = _active.set(frozenset(groups))
    try:
        yield
    finally:
        _active.reset(token)

