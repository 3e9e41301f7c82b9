"""Tensor-expression trees: the index arithmetic of `Y[i, j] = X[I[i, j], 2 - j]`, as data.

Small frozen (hashable) nodes, so that an ExpressionDesc can be memoized like any descriptor.
Index arithmetic is affine with constant divisors: + - and * by a constant, // and % by a positive
constant. A `Load` of an index tensor used as a subscript becomes an `IndexValue`: the loaded
index normalized against the dimension it selects (negative counts from the end, then clamped,
as docs/decisions.md says for the operators' IndicesTensor). Loaded indices may take part in
the arithmetic of a subscript or a condition (`X[I[i] * 5 + J[i]]`, `where(I[i] == j, ...)`):
the arithmetic is then computed in 64 bits (int64; uint64 where a load is uint64), wrapping as
ONNX's integers do, and a subscript's result is normalized like a loaded index.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Const:
    value: int


@dataclass(frozen=True)
class Var:
    name: str


@dataclass(frozen=True)
class Add:
    a: Expr
    b: Expr


@dataclass(frozen=True)
class Mul:
    a: Expr
    factor: int


@dataclass(frozen=True)
class FloorDiv:
    a: Expr
    divisor: int


@dataclass(frozen=True)
class Mod:
    a: Expr
    divisor: int


@dataclass(frozen=True)
class Load:
    tensor: str
    subscripts: tuple[Expr, ...]


@dataclass(frozen=True)
class IndexValue:
    """The value of an index tensor's element, or of integer arithmetic on such values
    (`I[i] * 5 + J[i]`, computed in 64 bits), normalized against a dimension of `size`."""

    load: Expr
    size: int


COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")


@dataclass(frozen=True)
class Compare:
    """`a op b` of two index-arithmetic values (op: one of COMPARISONS)."""

    a: Expr
    op: str
    b: Expr


@dataclass(frozen=True)
class And:
    a: Compare | And
    b: Compare | And


@dataclass(frozen=True)
class Literal:
    """A constant element, written as in a .dml file (`0`, `-1.5`, `-inf`, `nan`, `0x7F`): the
    output's data type gives its bits (text, so that -0.0 and 0.0 stay two keys)."""

    text: str


@dataclass(frozen=True)
class Select:
    """`where(cond, then, other)`: per output element, `then` where cond holds, else `other`.
    Only the chosen side's reads happen (the other's subscripts may leave their tensor)."""

    cond: Compare | And
    then: Load | Select | Literal
    other: Load | Select | Literal


Expr = Const | Var | Add | Mul | FloorDiv | Mod | Load | IndexValue | Compare | And | Literal \
    | Select
Value = Load | Select | Literal
"""What a statement's body may be: a read, a constant, or a choice between them."""


def children(e: Expr) -> tuple[Expr, ...]:
    if isinstance(e, (Add, Compare, And)):
        return (e.a, e.b)
    if isinstance(e, (Mul, FloorDiv, Mod)):
        return (e.a,)
    if isinstance(e, Load):
        return e.subscripts
    if isinstance(e, IndexValue):
        return (e.load,)
    if isinstance(e, Select):
        return (e.cond, e.then, e.other)
    return ()


def walk(e: Expr) -> Iterator[Expr]:
    """Every node of `e`, parents before children."""
    yield e
    for c in children(e):
        yield from walk(c)


def transform(e: Expr, fn: Callable[[Expr], Expr | None]) -> Expr:
    """Rebuild `e` bottom-up; where fn returns a node, it replaces the (rebuilt) original."""
    if isinstance(e, Add):
        e = Add(transform(e.a, fn), transform(e.b, fn))
    elif isinstance(e, Mul):
        e = Mul(transform(e.a, fn), e.factor)
    elif isinstance(e, FloorDiv):
        e = FloorDiv(transform(e.a, fn), e.divisor)
    elif isinstance(e, Mod):
        e = Mod(transform(e.a, fn), e.divisor)
    elif isinstance(e, Load):
        e = Load(e.tensor, tuple(transform(s, fn) for s in e.subscripts))
    elif isinstance(e, IndexValue):
        e = IndexValue(transform(e.load, fn), e.size)
    elif isinstance(e, Compare):
        e = Compare(transform(e.a, fn), e.op, transform(e.b, fn))
    elif isinstance(e, And):
        e = And(transform(e.a, fn), transform(e.b, fn))  # type: ignore[arg-type]
    elif isinstance(e, Select):
        e = Select(transform(e.cond, fn), transform(e.then, fn),  # type: ignore[arg-type]
                   transform(e.other, fn))  # type: ignore[arg-type]
    out = fn(e)
    return e if out is None else out


def substitute(e: Expr, env: dict[str, Expr]) -> Expr:
    """`e` with every Var named in env replaced by its expression."""
    return transform(e, lambda n: env.get(n.name) if isinstance(n, Var) else None)


def variables(e: Expr) -> set[str]:
    return {n.name for n in walk(e) if isinstance(n, Var)}


def render(e: Expr) -> str:
    """Source-like text, for messages: 2*i + 1, I[i, j]."""
    if isinstance(e, Const):
        return str(e.value)
    if isinstance(e, Var):
        return e.name
    if isinstance(e, Add):
        if isinstance(e.b, Mul) and e.b.factor == -1:
            return f"{render(e.a)} - {_operand(e.b.a)}"
        if isinstance(e.b, Const) and e.b.value < 0:
            return f"{render(e.a)} - {-e.b.value}"
        return f"{render(e.a)} + {render(e.b)}"
    if isinstance(e, Mul):
        return f"-{_operand(e.a)}" if e.factor == -1 else f"{e.factor}*{_operand(e.a)}"
    if isinstance(e, FloorDiv):
        return f"{_operand(e.a)} // {e.divisor}"
    if isinstance(e, Mod):
        return f"{_operand(e.a)} % {e.divisor}"
    if isinstance(e, Load):
        return f"{e.tensor}[{', '.join(render(s) for s in e.subscripts)}]"
    if isinstance(e, IndexValue):
        return render(e.load)
    if isinstance(e, Compare):
        return f"{render(e.a)} {e.op} {render(e.b)}"
    if isinstance(e, And):
        return f"{render(e.a)} && {render(e.b)}"
    if isinstance(e, Literal):
        return e.text
    if isinstance(e, Select):
        return f"where({render(e.cond)}, {render(e.then)}, {render(e.other)})"
    raise TypeError(e)


def _operand(e: Expr) -> str:
    text = render(e)
    return f"({text})" if isinstance(e, (Add, FloorDiv, Mod)) else text


MAX_NESTING = 100
"""How deeply an expression may nest (the .dml front end has the same limit): the layers after
construction walk trees recursively, so deeper ones are refused when an ExpressionDesc is built,
before anything hashes or walks them."""


def nesting_depth(e: object) -> int:
    """How deep tree `e` nests, measured without recursion (nodes of other types count as
    leaves: validation reports them)."""
    deepest, stack = 0, [(e, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth <= MAX_NESTING and isinstance(node, (Add, Mul, FloorDiv, Mod, Load, IndexValue,
                                                      Compare, And, Select)):
            kids = node.subscripts if isinstance(node, Load) else children(node)
            if isinstance(kids, tuple):
                stack.extend((k, depth + 1) for k in kids)
    return deepest
