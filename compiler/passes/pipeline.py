"""The pass pipeline: a named list, run in order, the IR verified after every pass.

Lowering emits naive IR (IR builders are pure). Every pass takes the program and the rule set
of the rule passes run so far (ir/algebra.py): the rule passes (fold_constants, simplify_divmod,
coalesce) each add their group and simplify the program under the set. Then the planner
(planner.py) chooses how each kernel's items map onto invocations, and vectorize, tile and
unroll carry its plan out, simplifying what they build, and proving lanes contiguous, under that
same set; magic_divisors has a generic program's divisions by its pushed sizes multiply instead
(divisors.py). The required steps: plan, legalize (8/16-bit stores as whole words) and
schedule (the plan's launch).
Common subexpressions are shared by construction: nodes are hash-consed, and codegen names each
node once per invocation.

DMLC_DUMP_AFTER=NAME (or "lower" for the IR before any pass, or "all") prints the IR after that
pass to stderr;
DMLC_DISABLE_PASSES=NAME,... (or "all") skips optimization passes (not the required steps): the
test suite runs both ways and the results must agree bit for bit.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Callable

from ..ir import Program
from ..ir.algebra import COALESCE, FOLD_CONSTANTS, GROUPS, SIMPLIFY_DIVMOD, RuleSet, rule_set
from ..ir.printer import render_program
from ..ir.verify import verify_program
from .divisors import magic_divisors
from .legalize import legalize
from .planner import CARRIERS, plan
from .schedule import schedule
from .simplify import simplify_program
from .unroll import tile, unroll
from .vectorize import vectorize

Pass = Callable[[Program, RuleSet], Program]
"""A pass: the program, and the rule groups it may simplify and prove with."""

PIPELINE: list[tuple[str, Pass]] = [
    (FOLD_CONSTANTS, simplify_program),
    (SIMPLIFY_DIVMOD, simplify_program),
    (COALESCE, simplify_program),
    ("plan", plan),
    ("vectorize", vectorize),
    ("tile", tile),
    ("unroll", unroll),
    ("legalize", legalize),
    ("magic_divisors", magic_divisors),
    ("schedule", schedule),
]
REQUIRED = ("plan", "legalize", "schedule")
"""Steps every program takes, whatever DMLC_DISABLE_PASSES says: each kernel gets a plan, among
the candidates the passes not disabled carry out (plan: at least one item per invocation);
the shaders store whole words (legalize); codegen prints the schedule of the plan (schedule)."""


def env_names(env: str) -> set[str]:
    return {x.strip() for x in os.environ.get(env, "").split(",") if x.strip()}


def run_pipeline(p: Program, dump_after: set[str] | None = None,
                 disabled: set[str] | None = None) -> Program:
    dump_after = env_names("DMLC_DUMP_AFTER") if dump_after is None else dump_after
    disabled = env_names("DMLC_DISABLE_PASSES") if disabled is None else disabled
    if "lower" in dump_after or "all" in dump_after:
        print(f"# IR after lower\n{render_program(p)}", file=sys.stderr)
    groups: set[str] = set()
    off = {name for name, _ in PIPELINE if name not in REQUIRED
           and (name in disabled or "all" in disabled)}
    for name, fn in PIPELINE:
        if name in off:
            if name in dump_after or "all" in dump_after:
                print(f"# IR after {name}: skipped (DMLC_DISABLE_PASSES)", file=sys.stderr)
            continue
        if name in GROUPS:
            groups.add(name)
        if name == "plan":  # the planner weighs only what the passes left on carry out
            p = verify_program(plan(p, rule_set(groups), frozenset(CARRIERS) - off))
        else:
            p = verify_program(fn(p, rule_set(groups)))
        if name in dump_after or "all" in dump_after:
            print(f"# IR after {name}\n{render_program(p)}", file=sys.stderr)
    return p


def run_generic_pipeline(p: Program, dump_after: set[str] | None = None) -> Program:
    """The pipeline of a generic program (PARAM sizes, docs/generic-kernels.md): the rule passes
    simplify it under its PARAMs' ranges, so what they prove holds for every size the kernel
    admits; its items map as its lowering made them (the carriers prove alignment and
    divisibility for one size). DMLC_DISABLE_PASSES applies as to any program."""
    return run_pipeline(p, dump_after, env_names("DMLC_DISABLE_PASSES") | set(CARRIERS))


def pass_names() -> list[str]:
    """What --dump-after accepts: the lowering, every pass, or all."""
    return ["lower", *(name for name, _ in PIPELINE), "all"]
