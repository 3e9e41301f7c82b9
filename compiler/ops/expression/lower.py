"""Tensor expressions -> IR: one kernel storing, per output element, the body's one read (or,
through where(), the read or constant its conditions choose).

Subscripts are built by ranges.subscript over the index variables, exactly as validation built
them; the output's coordinates then take the variables' place (same ranges: expression/ranges.py
says why that makes every address validation accepted provable by the verifier).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from ...dtypes import DataType
from ...family.generic import (
    GenericProgram,
    ParamTable,
    Recipe,
    dynamic_limit,
    generic_layouts,
    sym_operand,
    tensor_limit,
)
from ...family.literal import literal_bits
from ...family.lowering import Operand, Size, largest, operand, tensor_buffer, unflatten
from ...family.registry import PLAIN, LowerContext
from ...family.rows import output_kernel, row_block_kernel, vector_sizes
from ...family.tensor import TensorDesc
from ...ir import Kernel, Program
from ...ir import build as b
from ...ir.algebra import NO_RULES
from ...ir.kernel import vector_width
from ...ir.ops import INT32_MAX, INT32_MIN, Node
from ...ir.rewrite import substitute
from . import tree as E
from .desc import ExpressionDesc
from .ranges import index_variables, subscript
from .sizes import position_spans
from .vector_rows import VectorRows, expression_variants, vector_read

_LESS = {"<": lambda a, c: b.less(a, c), "<=": lambda a, c: b.less(a, b.add(c, 1)),
         ">": lambda a, c: b.less(c, a), ">=": lambda a, c: b.less(b.add(c, -1), a),
         "!=": lambda a, c: b.not_equal(a, c),
         "==": lambda a, c: b.where(b.not_equal(a, c), b.const_bool(False), b.const_bool(True))}


def emit(e: E.Expr, env: dict[str, Node], operands: dict[str, Operand],
         tensors: dict[str, TensorDesc], dtype: DataType) -> Node:
    """The IR of body `e`, its index variables bound to the nodes in env, each tensor read as
    its Operand reads it (of sizes that are numbers, or a generic kernel's PARAMs). A read on
    one side of a where() has its subscripts clamped into its tensor: validation proved them in
    range where that side is chosen, and the other side's elements must not read outside
    either (the clamps fold away where ranges prove them idle); so has any subscript whose
    range is not inside its dimension (a generic kernel's, over the largest sizes it admits:
    exact for a call that validates). A loaded index is normalized against its dimension's
    size where IndexValue.size is that size (pushed in a generic kernel: index_size)."""
    def go(x: E.Expr, chosen: bool = False, size: Size | None = None) -> Node:
        if isinstance(x, E.IndexValue):
            raw = go(x.load, chosen) if isinstance(x.load, E.Load) else loaded(x.load, chosen)
            return b.index(raw, x.size if size is None else size, "clamp")
        if isinstance(x, E.Load):
            arg = operands[x.tensor]
            coords = [go(s, chosen, index_size(s, tensors[x.tensor].sizes[k], n))
                      if isinstance(s, E.IndexValue) else inside(subscript(s, env), n, chosen)
                      for k, (s, n) in enumerate(zip(x.subscripts, arg.sizes))]
            return arg.load(coords)
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


def inside(c: Node, n: Size, chosen: bool) -> Node:
    """Subscript c of a dimension of n elements, clamped into it where a where() chose its read
    or its range is not inside [0, n - 1]. Of a pushed size n, into [0, largest n - 1] only
    where its range leaves that: the tensor's every address is clamped to its runtime extent
    (memory safety), and the coordinate of a call that validates is inside its dimension."""
    if isinstance(n, int):
        if not chosen and 0 <= c.vmin and c.vmax <= n - 1:
            return c
        return b.clamp(c, 0, n - 1)
    if c.vmin < 0:
        c = b.maximum(c, 0)
    return b.minimum(c, n.vmax - 1) if c.vmax > n.vmax - 1 else c


def index_size(s: E.IndexValue, dim: int, n: Size) -> Size | None:
    """The size a loaded index at a subscript of a dimension of `dim` elements (n: as the kernel
    has it) is normalized against: n where IndexValue.size is that dimension's (a pushed size
    in a generic kernel), else None (its own: an intermediate tensor's clamping)."""
    return n if s.size == dim and not isinstance(n, int) else None


def expression_value(desc: ExpressionDesc, operands: dict[str, Operand],
                     sizes: Sequence[Size], coords: Sequence[Node]) -> Node:
    """The body's value at output coordinates `coords` of an output of `sizes`: the index
    variables range over [0, size) (a PARAM's largest value in a generic kernel), as
    validation's did, then the coordinates take their place."""
    out = desc.output
    assert out is not None, "validate() first"
    env = index_variables({v: largest(n)
                           for v, n in zip(desc.index_vars, sizes)})
    value = emit(desc.body, env, operands, dict(desc.tensors), out.data_type)
    return substitute([value], dict(zip(env.values(), coords)), NO_RULES)[0]


def used_tensors(desc: ExpressionDesc) -> list[tuple[int, str, TensorDesc]]:
    """(position, name, tensor) of each tensor the body reads, in argument order."""
    used = {n.tensor for n in E.walk(desc.body) if isinstance(n, E.Load)}
    return [(k, n, t) for k, (n, t) in enumerate(desc.tensors) if n in used]


def lower_expression(desc: ExpressionDesc, ctx: LowerContext = PLAIN) -> Program:
    out = desc.output
    assert out is not None, "validate() first"
    operands = {n: operand(t, tensor_buffer(n, t, "input")) for _, n, t in used_tensors(desc)}
    b_out = tensor_buffer(desc.name, out, "output")
    gid = b.item_id(out.element_count)
    value = expression_value(desc, operands, out.sizes, unflatten(gid, out.sizes))
    kernel = Kernel(desc.name, out.element_count, (b.store(b_out, gid, value),))
    return Program(desc.name, (*(a.buf for a in operands.values()), b_out), (kernel,),
                   tuple(operands), desc.name, out.sizes)


def lower_expression_generic(desc: ExpressionDesc, dims: Sequence[int],
                             variant: str = "scalar") -> GenericProgram | None:
    """lower_expression with the sizes at `dims` (positions of sizes.expression_sizes: the
    output's, then each tensor's) push constants: the same expression_value over the output's
    coordinates by family/rows.py's row blocks (or an element or word per item), each tensor
    read at its pushed sizes (and a view's pushed offset), its addresses clamped to its
    runtime extent. variant: "vector" (vector_rows.py: the read moves 16-byte vectors along
    the rows) or "scalar". None for an output with strides, an offset or
    TotalTensorSizeInBytes, a tensor with TotalTensorSizeInBytes or a negative stride, sizes no
    dynamic range admits (int32 addresses), a variant the call does not allow."""
    out = desc.output
    assert out is not None, "validate() first"
    tensors = used_tensors(desc)
    if (not generic_layouts(out, *(t for _, _, t in tensors))
            or (variant != "scalar" and variant not in expression_variants(desc, dims))):
        return None
    found = vector_read(desc) if variant == "vector" else None
    read = None if found is None else found[0]
    lanes = vector_width(out.data_type) if read is not None else 1
    spans = position_spans(desc)
    out_dims = spans[0](dims)
    hi = min([dynamic_limit([s for i, s in enumerate(out.sizes) if i not in out_dims],
                            len(out_dims))]
             + [tensor_limit(t, spans[k + 1](dims)) for k, _, t in tensors])
    if hi < 2 * lanes:
        return None
    table = ParamTable()
    sizes, vsizes = vector_sizes(out.sizes, out_dims, table, hi, lanes, _output_size)
    operands: dict[str, Operand] = {}
    for k, name, t in tensors:
        at, of = spans[k + 1](dims), _tensor(k)
        if name != read:
            t_sizes = [table.add(1, hi, _tensor_size(k, i)) if i in at else s
                       for i, s in enumerate(t.sizes)]
            operands[name] = sym_operand(name, of, t, "input", t_sizes, table)
            continue
        t_sizes, _ = vector_sizes(t.sizes, at, table, hi, lanes, partial(_tensor_size, k))
        a = sym_operand(name, of, t, "input", t_sizes, table, lanes)
        operands[name] = VectorRows(a.buf, a.sizes, a.strides, a.offset, a.extent, lanes=lanes)

    def element(outer: list[Node], col: Node) -> Node:
        return expression_value(desc, operands, sizes,
                                [*outer, col if lanes == 1 else b.mul(col, lanes)])
    if lanes > 1:
        kernel, b_out = row_block_kernel(desc.name, table, vsizes, out.data_type, element,
                                         lanes=lanes, buffer=desc.name)
    else:
        kernel, b_out = output_kernel(desc.name, table, sizes, out.data_type, element,
                                      buffer=desc.name)
    program = Program(desc.name, (*(a.buf for a in operands.values()), b_out), (kernel,),
                      tuple(operands), desc.name, out.sizes, params=tuple(table.params))
    return GenericProgram(program, tuple(table.recipes))


def _output_size(i: int) -> Recipe:
    return lambda d: d.output.sizes[i]


def _tensor(k: int) -> Callable[[Any], TensorDesc]:
    return lambda d: d.tensors[k][1]


def _tensor_size(k: int, i: int) -> Recipe:
    return lambda d: d.tensors[k][1].sizes[i]
