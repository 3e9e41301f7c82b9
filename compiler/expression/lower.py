"""Tensor expressions -> IR: one kernel storing, per output element, the body's one read.

Subscripts are built by ranges.subscript over the index variables, exactly as validation built
them; the output's coordinates then take the variables' place (same ranges: expression/ranges.py
says why that makes every address validation accepted provable by the verifier).
"""
from __future__ import annotations

from ..descriptors import ExpressionDesc, TensorDesc
from ..ir import Buffer, Kernel, Program
from ..ir import build as b
from ..ir.algebra import NO_RULES
from ..ir.ops import Node
from ..ir.rewrite import substitute
from ..lower.common import address, tensor_buffer, unflatten
from . import tree as E
from .ranges import index_variables, subscript


def emit(e: E.Expr, env: dict[str, Node], buffers: dict[str, Buffer],
         tensors: dict[str, TensorDesc]) -> Node:
    """The IR of body `e`, its index variables bound to the nodes in env (addresses naive)."""
    def go(x: E.Expr) -> Node:
        if isinstance(x, E.IndexValue):
            return b.index(go(x.load), x.size, "clamp")
        if isinstance(x, E.Load):
            coords = [go(s) if isinstance(s, E.IndexValue) else subscript(s, env)
                      for s in x.subscripts]
            return b.load(buffers[x.tensor], address(coords, tensors[x.tensor]))
        raise TypeError(f"not a read: {E.render(x)}")
    return go(e)


def lower_expression(desc: ExpressionDesc) -> Program:
    out = desc.output
    assert out is not None, "validate() first"
    used = {n.tensor for n in E.walk(desc.body) if isinstance(n, E.Load)}
    tensors = {n: t for n, t in desc.tensors if n in used}
    buffers = {n: tensor_buffer(n, t, "input") for n, t in tensors.items()}
    b_out = tensor_buffer(desc.name, out, "output")
    gid = b.item_id(out.element_count)
    env = index_variables(dict(zip(desc.index_vars, out.sizes)))
    coords = dict(zip(env.values(), unflatten(gid, out.sizes)))
    value = substitute([emit(desc.body, env, buffers, tensors)], coords, NO_RULES)[0]
    kernel = Kernel(desc.name, out.element_count, (b.store(b_out, gid, value),))
    return Program(desc.name, (*buffers.values(), b_out), (kernel,), tuple(buffers), desc.name,
                   out.sizes)
