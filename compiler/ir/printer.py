"""A stable text form of kernels and programs, for `--emit=ir`, golden tests and debugging (one
node's text is ir/ops.py's render_expr)."""
from __future__ import annotations

from .kernel import MAGIC_RANGES, Kernel, Program, magic_words
from .ops import Node, Op, VType, leaf_text, node_text, toposort, type_name


def render_kernel(k: Kernel) -> str:
    names: dict[Node, str] = {}
    count = 0
    unrolled = f", {k.unrolled} items each" if k.unrolled > 1 else ""
    steps = f", for step < {k.steps}" if k.steps > 1 else ""
    if k.step_count is not None:
        steps = f", for step < p{k.step_count.param} <= {k.steps}"
    sched = k.schedule
    on = (f" on {sched.local_size}-invocation workgroups" + (
        f", {sched.stride} items each a workgroup apart" if sched.stride > 1 else "")
        if sched else "")
    lines = [f"kernel {k.name}(gid < {k.items}{unrolled}{steps}){on} {{"]
    for n in toposort(list(k.effects)):
        leaf = leaf_text(n)
        if leaf is not None:
            names[n] = leaf
            continue
        text = node_text(n, lambda s: names[s])
        if n.dtype is VType.VOID:
            lines.append(f"  {text}")
        else:
            names[n], count = f"%{count}", count + 1
            rng = f"  ; [{n.vmin}, {n.vmax}]" if n.dtype is VType.INT else ""
            lines.append(f"  {names[n]}: {type_name(n)} = {text}{rng}")
    lines.append("}")
    return "\n".join(lines)


def render_program(p: Program) -> str:
    lines = [f"program {p.name}({', '.join(p.inputs)}) -> {p.output}"]
    lines += [f"  buffer {x.name}: {x.dtype.name.lower()}[{x.count}] {x.role}" for x in p.buffers]
    return "\n".join(lines + [render_kernel(k) for k in p.kernels]) + "\n"


def render_push_words(p: Program) -> list[str]:
    """A generic program's push-constant words, in order (uint32 each: docs/generic-kernels.md):
    each word's admitted range and what reads it (a kernel's items or steps, a buffer's runtime
    extent, the index arithmetic); none for a specialized program."""
    roles: dict[Node, list[str]] = {q: [] for q in p.params}
    for b in p.buffers:
        if b.extent is not None:
            word = b.extent if b.extent.op is Op.PARAM else b.extent.src[0]
            scale = "" if word is b.extent else f" / {b.extent.src[1].value}"
            roles[word].append(f"elements of {b.name}{scale}")
    used: set[Node] = set()
    for k in p.kernels:
        for what, n in (("items", k.count), ("steps", k.step_count)):
            if n is not None:
                roles[n].append(f"{what} of kernel {k.name}")
        used.update(n for n in toposort(list(k.effects)) if n.op is Op.PARAM)
    lines = []
    for q in p.params:
        read = roles[q] + (["index arithmetic"] if q in used else [])
        lines.append(f"  word {q.param}: in [{q.vmin}, {q.vmax}]; {', '.join(read) or 'unused'}")
    for q, words in magic_words(p).items():  # passes/divisors.py
        lines += [f"  word {w}: {what}(word {q.param}), in [{lo}, {hi}]"
                  for w, what, (lo, hi) in zip(words, ("magic", "shift"), MAGIC_RANGES)]
    return lines
