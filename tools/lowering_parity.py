"""Where a family's specialized program and its generic kernel at no dynamic dimension agree.

For every descriptor of tools/ir_snapshot.py's set, the specialized program (the family's
`lower`, through the pipeline; for a family of one lowering, that lowering with no size pushed)
is compared with the family's generic kernel at no dynamic dimension (variant "scalar", its
mapping left to the planner, else the family's most general), every PARAM then bound to the
call's value (ir/specialize.py) and put through the same pipeline. Per family:

- same: the two optimized programs print alike (the generic kernel's mapping is the
  planner's);
- diff: both exist and differ (the first few shown with --show N, as a unified diff);
- none: the generic lowering has no form for the descriptor (a given output layout, a negative
  stride...), or does not admit its values; no generic: the family has no generic lowering.

    .venv/bin/python tools/lowering_parity.py [--family PaddingDesc] [--show 3] [--target cpu]

Needs no Vulkan device.
"""
from __future__ import annotations

import argparse
import collections
import difflib
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))


def compare(desc: object, target: str) -> tuple[str, str]:
    """(verdict, unified diff of the two optimized programs where they differ)."""
    from dmlc.compiled import DEFAULT
    from dmlc.family.registry import LowerContext, rules_of
    from dmlc.ir.printer import render_program
    from dmlc.ir.specialize import specialize
    from dmlc.ir.verify import verify_program
    from dmlc.passes import run_pipeline

    rules = rules_of(desc)
    if rules.generic is None:
        return "no generic", ""
    generic = rules.generic.build(desc, (), "scalar")  # where the family names it so
    if generic is None and rules.generic.variants is not None:
        generic = rules.generic.build(desc, (), rules.generic.choices(desc, ())[-1])
    values = None if generic is None else generic.values(desc)
    if generic is None or values is None:
        return "none", ""
    ctx = LowerContext(target, False, DEFAULT)
    specialized = render_program(run_pipeline(verify_program(rules.lower(desc, ctx))))
    bound = render_program(run_pipeline(verify_program(specialize(generic.program, values))))
    if specialized == bound:
        return "same", ""
    return "diff", "\n".join(difflib.unified_diff(
        specialized.splitlines(), bound.splitlines(), "specialized", "generic, bound",
        lineterm="", n=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", help="one descriptor class (PaddingDesc, TileDesc...)")
    parser.add_argument("--show", type=int, default=0, help="print this many diffs a family")
    parser.add_argument("--target", choices=("cpu", "gpu"), default="gpu")
    args = parser.parse_args()
    import ir_snapshot

    from dmlc.errors import DmlcError
    from dmlc.family.registry import validate

    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for name, desc in ir_snapshot.descriptors():
        family = type(desc).__name__
        if args.family and family != args.family:
            continue
        try:
            checked = validate(desc)
        except DmlcError:
            continue  # the snapshot's error sections: nothing to lower
        verdict, diff = compare(checked, args.target)
        counts[family][verdict] += 1
        if verdict == "diff" and counts[family]["diff"] <= args.show:
            print(f"===== {name}\n{diff}\n")
    width = max(map(len, counts), default=0)
    for family, c in sorted(counts.items()):
        cells = ", ".join(f"{k} {c[k]}" for k in ("same", "diff", "none", "no generic") if c[k])
        print(f"{family:<{width}}  {sum(c.values()):4d}: {cells}")


if __name__ == "__main__":
    main()
