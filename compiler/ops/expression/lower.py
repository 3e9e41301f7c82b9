"""Tensor expressions -> IR: one kernel storing, per output element, the body's one read (or,
through where(), the read or constant its conditions choose).

Subscripts are built by ranges.subscript over the index variables, exactly as validation built
them; the output's coordinates then take the variables' place (same ranges: expression/ranges.py
says why that makes every address validation accepted provable by the verifier).
"""
from __future__ import annotations

from ...dtypes import DataType
from ...family.literal import literal_bits
from ...family.lowering import address, tensor_buffer, unflatten
from ...family.registry import PLAIN, LowerContext
from ...family.tensor import TensorDesc
from ...ir import Buffer, Kernel, Program
from ...ir import build as b
from ...ir.algebra import NO_RULES
from ...ir.ops import Node
from ...ir.rewrite import substitute
from . import tree as E
from .desc import ExpressionDesc
from .ranges import index_variables, subscript

_LESS = {"<": lambda a, c: b.less(a, c), "<=": lambda a, c: b.less(a, b.add(c, 1)),
         ">": lambda a, c: b.less(c, a), ">=": lambda a, c: b.less(b.add(c, -1), a),
         "!=": lambda a, c: b.not_equal(a, c),
         "==": lambda a, c: b.where(b.not_equal(a, c), b.const_bool(False), b.const_bool(True))}


def emit(e: E.Expr, env: dict[str, Node], buffers: dict[str, Buffer],
         tensors: dict[str, TensorDesc], dtype: DataType) -> Node:
    """The IR of body `e`, its index variables bound to the nodes in env (addresses naive).
    A read on one side of a where() has its subscripts clamped into its tensor: validation
    proved them in range where that side is chosen, and the other side's elements must not
    read outside either (the clamps fold away where ranges prove them idle)."""
    def go(x: E.Expr, chosen: bool = False) -> Node:
        if isinstance(x, E.IndexValue):
            return b.index(go(x.load, chosen), x.size, "clamp")
        if isinstance(x, E.Load):
            sizes = tensors[x.tensor].sizes
            coords = [go(s, chosen) if isinstance(s, E.IndexValue) else
                      b.clamp(subscript(s, env), 0, n - 1) if chosen else subscript(s, env)
                      for s, n in zip(x.subscripts, sizes)]
            return b.load(buffers[x.tensor], address(coords, tensors[x.tensor]))
        if isinstance(x, E.Select):
            return b.where(condition(x.cond), go(x.then, True), go(x.other, True))
        if isinstance(x, E.Literal):
            return b.const_data(dtype, literal_bits("expression", x.text, dtype))
        raise TypeError(f"not a value: {E.render(x)}")

    def condition(c: E.Expr) -> Node:
        if isinstance(c, E.And):
            return b.logical_and(condition(c.a), condition(c.b))
        assert isinstance(c, E.Compare)
        return _LESS[c.op](subscript(c.a, env), subscript(c.b, env))
    return go(e)


def lower_expression(desc: ExpressionDesc, ctx: LowerContext = PLAIN) -> Program:
    out = desc.output
    assert out is not None, "validate() first"
    used = {n.tensor for n in E.walk(desc.body) if isinstance(n, E.Load)}
    tensors = {n: t for n, t in desc.tensors if n in used}
    buffers = {n: tensor_buffer(n, t, "input") for n, t in tensors.items()}
    b_out = tensor_buffer(desc.name, out, "output")
    gid = b.item_id(out.element_count)
    env = index_variables(dict(zip(desc.index_vars, out.sizes)))
    coords = dict(zip(env.values(), unflatten(gid, out.sizes)))
    value = substitute([emit(desc.body, env, buffers, tensors, out.data_type)], coords,
                       NO_RULES)[0]
    kernel = Kernel(desc.name, out.element_count, (b.store(b_out, gid, value),))
    return Program(desc.name, (*buffers.values(), b_out), (kernel,), tuple(buffers), desc.name,
                   out.sizes)
