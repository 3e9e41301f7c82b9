"""A stable text form of the IR, for `--emit=ir`, golden tests and debugging."""
from __future__ import annotations

from .kernel import Kernel, Program
from .ops import Node, Op, VType, toposort

_INFIX = {Op.ADD: "+", Op.MUL: "*", Op.FLOORDIV: "//", Op.FLOORMOD: "%", Op.CMPLT: "<",
          Op.CMPNE: "!=", Op.AND: "&&"}
_FORMS = {Op.LOAD: "load {arg}[{0}]", Op.VLOAD: "vload {arg}[{0}:+16B]",
          Op.REVERSE: "reverse.{arg}B({0})", Op.VEXTRACT: "{0}.lane{arg}",
          Op.INDEX: "index.{arg}({0}, dim={1})", Op.WHERE: "{0} ? {1} : {2}"}


def _type(n: Node) -> str:
    return n.dtype.value if isinstance(n.dtype, VType) else n.dtype.name.lower()


def _leaf(n: Node) -> str | None:
    if n.op is Op.CONST:
        return str(n.arg).lower() if n.dtype is VType.BOOL else (
            str(n.arg) if n.dtype is VType.INT else f"{_type(n)}({n.arg:#x})")
    if n.op is Op.VAR:
        return str(n.arg[0])  # type: ignore[index]
    return None


def _expr(n: Node, name) -> str:  # type: ignore[no-untyped-def]
    a = [name(s) for s in n.src]
    if n.op in _INFIX:
        return f"{a[0]} {_INFIX[n.op]} {a[1]}"
    if n.op in _FORMS:
        return _FORMS[n.op].format(*a, arg=n.arg)
    if n.op in (Op.STORE, Op.VSTORE, Op.ATOMIC_MAX):
        verb = n.op.name.lower()
        text = f"{verb} {n.arg}[{a[0]}] = {a[1]}"
        return text + (f" if {a[2]}" if len(a) > 2 else "")
    return f"{n.op.name.lower()}({', '.join(a)})"


def render_expr(n: Node) -> str:
    """One node as a nested expression (for repr and error messages)."""
    leaf = _leaf(n)
    return leaf if leaf is not None else _expr(n, lambda s: (
        _leaf(s) or f"({render_expr(s)})"))


def render_kernel(k: Kernel) -> str:
    names: dict[Node, str] = {}
    count = 0
    unrolled = f", {k.unrolled} items each" if k.unrolled > 1 else ""
    steps = f", for step < {k.steps}" if k.steps > 1 else ""
    lines = [f"kernel {k.name}(gid < {k.items}{unrolled}{steps}) {{"]
    for n in toposort(list(k.effects)):
        leaf = _leaf(n)
        if leaf is not None:
            names[n] = leaf
            continue
        text = _expr(n, lambda s: names[s])
        if n.dtype is VType.VOID:
            lines.append(f"  {text}")
        else:
            names[n], count = f"%{count}", count + 1
            rng = f"  ; [{n.vmin}, {n.vmax}]" if n.dtype is VType.INT else ""
            lines.append(f"  {names[n]}: {_type(n)} = {text}{rng}")
    lines.append("}")
    return "\n".join(lines)


def render_program(p: Program) -> str:
    lines = [f"program {p.name}({', '.join(p.inputs)}) -> {p.output}"]
    lines += [f"  buffer {x.name}: {x.dtype.name.lower()}[{x.count}] {x.role}" for x in p.buffers]
    return "\n".join(lines + [render_kernel(k) for k in p.kernels]) + "\n"
