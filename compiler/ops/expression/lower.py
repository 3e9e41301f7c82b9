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
from ...ir.ops import INT32_MAX, INT32_MIN, Node
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
            raw = go(x.load, chosen) if isinstance(x.load, E.Load) else loaded(x.load, chosen)
            return b.index(raw, x.size, "clamp")
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

    def loaded(x: E.Expr, chosen: bool, wide: DataType | None = None) -> Node:
        """Integer arithmetic on loaded index values, in 64 bits (uint64 where a load is)."""
        if wide is None:
            wide = DataType.UINT64 if any(isinstance(n, E.Load) and tensors[n.tensor].data_type
                                          is DataType.UINT64 for n in E.walk(x)) \
                else DataType.INT64
        if isinstance(x, E.Load):
            return b.convert(go(x, chosen), wide)
        if isinstance(x, E.IndexValue):
            return b.convert(go(x, chosen), wide)
        if not any(isinstance(n, (E.Load, E.IndexValue)) for n in E.walk(x)):
            affine = subscript(x, env)  # index arithmetic alone: in int where its range fits
            if INT32_MIN <= affine.vmin and affine.vmax <= INT32_MAX:
                return b.convert(affine, wide)
            if isinstance(x, (E.Var, E.Const)):
                return b.convert(env[x.name] if isinstance(x, E.Var) else x.value, wide)
        if isinstance(x, E.Add):
            return b.arith("add", loaded(x.a, chosen, wide), loaded(x.b, chosen, wide))
        constant = _bits(x.factor if isinstance(x, E.Mul) else x.divisor, wide)  # type: ignore
        kind = {E.Mul: "mul", E.FloorDiv: "floordiv", E.Mod: "floormod"}[type(x)]
        return b.arith(kind, loaded(x.a, chosen, wide), b.const_data(wide, constant))  # type: ignore

    def condition(c: E.Expr) -> Node:
        if isinstance(c, E.And):
            return b.logical_and(condition(c.a), condition(c.b))
        assert isinstance(c, E.Compare)
        if any(isinstance(n, (E.Load, E.IndexValue)) for n in E.walk(c)):
            x, y = loaded(c.a, False), loaded(c.b, False)
            if x.dtype != y.dtype:  # one side reads uint64: both compare as uint64
                x, y = (loaded(c.a, False, DataType.UINT64),
                        loaded(c.b, False, DataType.UINT64))
            return _COMPARE[c.op](x, y)
        return _LESS[c.op](subscript(c.a, env), subscript(c.b, env))
    return go(e)


def _bits(value: int, dtype: DataType) -> int:
    """A constant's raw bits in a 64-bit integer type (two's complement)."""
    return value % (1 << dtype.bits)


def _not(c: Node) -> Node:
    return b.where(c, b.const_bool(False), b.const_bool(True))


_COMPARE = {"<": lambda x, y: b.compare("lt", x, y), ">": lambda x, y: b.compare("lt", y, x),
            "<=": lambda x, y: _not(b.compare("lt", y, x)),
            ">=": lambda x, y: _not(b.compare("lt", x, y)),
            "==": lambda x, y: b.compare("eq", x, y),
            "!=": lambda x, y: _not(b.compare("eq", x, y))}
"""Comparisons of loaded index values (COMPARE: < and == of integer elements)."""


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
