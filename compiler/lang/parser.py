"""Parsing .dml text with lark (grammar: dmlc.lark) into located syntax items.

The LALR parser with lark's contextual lexer is fast (no backtracking) and knows, at every error,
which terminals it could have accepted: the ParseError lists them by their spelling.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import lark
from lark import Token, Transformer, v_args

from ..errors import ParseError
from ..ops.expression import tree as E


@dataclass(frozen=True)
class Loc:
    """Where an item starts: line and column, 1-based."""

    line: int
    column: int


@dataclass
class Number:
    text: str
    loc: Loc

    @property
    def is_int(self) -> bool:
        t = self.text.lower().lstrip("+-")
        return t.startswith("0x") or t.isdigit()

    def value(self) -> int | float:
        t = self.text.lower()
        if t.lstrip("+-").startswith("0x"):
            return int(t, 16)
        if self.is_int:
            return int(t)
        return float(t) if "nan" not in t else math.nan


@dataclass
class Array:
    """Nested rows of numbers, as written."""

    items: list[Array | Number]
    loc: Loc


@dataclass
class TensorSyntax:
    props: list[tuple[str, Any, Loc]]
    """(name, value, location) per property: Sizes, DataType, Strides..."""
    data: Array | None
    loc: Loc


@dataclass
class Name:
    """A field's value written as a name: an enumeration's member (DML_PADDING_MODE_EDGE); in
    braces, a symbolic size (B in Sizes:{1, B}; `?` for any size)."""

    text: str
    loc: Loc

    @property
    def size(self) -> str | None:
        """As a TensorDesc size: the name, or None for `?`."""
        return None if self.text == ANY else self.text


ANY = "?"
"""A size left to the data: Sizes:{?, 4}, X: float32[?, 4]."""


@dataclass
class OperatorItem:
    name: str
    loc: Loc


@dataclass
class FieldItem:
    name: str
    value: Any  # Number, list[Number], Name, TensorSyntax or list[TensorSyntax]
    loc: Loc


@dataclass
class DeclarationItem:
    name: str
    dtype: str
    sizes: tuple[int | str | None, ...]
    """Integers; a name for a symbolic size, None for `?`."""
    data: Array | None
    loc: Loc
    dtype_loc: Loc = field(default=Loc(0, 0))


@dataclass
class StatementItem:
    name: str
    index_vars: tuple[str, ...]
    body: E.Load
    loc: Loc
    text: str = ""


Item = OperatorItem | FieldItem | DeclarationItem | StatementItem


def _loc(x: Any) -> Loc:
    return Loc(getattr(x, "line", 0) or 0, getattr(x, "column", 0) or 0)


class _ToItems(Transformer):
    """Parse tree -> Items. Index arithmetic is built as dmlc.expr nodes
    (a - b = a + (-1)*b)."""

    def start(self, items: list[Item]) -> list[Item]:
        return items

    def operator(self, c: list[Token]) -> OperatorItem:
        return OperatorItem(str(c[0]), _loc(c[0]))

    def field(self, c: list[Any]) -> FieldItem:
        return FieldItem(str(c[0]), c[1], _loc(c[0]))

    def number(self, c: list[Token]) -> Number:
        return Number(str(c[0]), _loc(c[0]))

    def int_list(self, c: list[Any]) -> list[Number]:
        return [x for x in c if x is not None]

    def tensor_list(self, c: list[Any]) -> list[TensorSyntax]:
        return [x for x in c if x is not None]

    def name_value(self, c: list[Token]) -> Name:
        return Name(str(c[0]), _loc(c[0]))

    size_name = size_any = name_value

    @v_args(meta=True)
    def array(self, meta: Any, c: list[Any]) -> Array:
        return Array([x for x in c if x is not None], Loc(meta.line, meta.column))

    def tensor_prop(self, c: list[Any]) -> tuple[str, Any, Loc]:
        value = str(c[1]) if isinstance(c[1], Token) else c[1]
        return (str(c[0]), value, _loc(c[0]))

    @v_args(meta=True)
    def tensor_desc(self, meta: Any, c: list[Any]) -> TensorSyntax:
        data = c[-1] if c and isinstance(c[-1], Array) else None
        props = [x for x in c if isinstance(x, tuple)]
        return TensorSyntax(props, data, Loc(meta.line, meta.column))

    def declaration(self, c: list[Any]) -> DeclarationItem:
        name, dtype, *rest = c
        data = rest.pop() if rest and isinstance(rest[-1], Array) else None
        sizes = tuple(_dim(x) for x in rest if x is not None)
        return DeclarationItem(str(name), str(dtype), sizes, data, _loc(name), _loc(dtype))

    @v_args(meta=True)
    def statement(self, meta: Any, c: list[Any]) -> StatementItem:
        name, *index_vars, body = c
        return StatementItem(str(name), tuple(str(v) for v in index_vars if v is not None), body,
                             _loc(name))

    def load(self, c: list[Any]) -> E.Load:
        return E.Load(str(c[0]), tuple(x for x in c[1:] if x is not None))

    source = load

    def select(self, c: list[Any]) -> E.Select:
        return E.Select(c[0], c[1], c[2])

    def literal(self, c: list[Number]) -> E.Literal:
        return E.Literal(c[0].text)

    def condition(self, c: list[E.Compare]) -> E.Compare | E.And:
        out: E.Compare | E.And = c[0]
        for more in c[1:]:
            out = E.And(out, more)
        return out

    def comparison(self, c: list[Any]) -> E.Compare:
        return E.Compare(c[0], str(c[1]), c[2])

    def const(self, c: list[Token]) -> E.Const:
        return E.Const(int(c[0]))

    def var(self, c: list[Token]) -> E.Var:
        return E.Var(str(c[0]))

    def add(self, c: list[E.Expr]) -> E.Expr:
        return E.Add(c[0], c[1])

    def sub(self, c: list[E.Expr]) -> E.Expr:
        return E.Add(c[0], _scale(c[1], -1))

    def neg(self, c: list[E.Expr]) -> E.Expr:
        return _scale(c[0], -1)

    def mul(self, c: list[E.Expr]) -> E.Expr:
        a, b = c
        if isinstance(b, E.Const):
            return _scale(a, b.value)
        if isinstance(a, E.Const):
            return _scale(b, a.value)
        raise _Semantic(f"index arithmetic is affine: {E.render(a)} * {E.render(b)} multiplies "
                        "two non-constant values; one side must be an integer constant")

    def floordiv(self, c: list[Any]) -> E.Expr:
        return E.FloorDiv(c[0], _constant(c[2], "//"))

    def mod(self, c: list[E.Expr]) -> E.Expr:
        return E.Mod(c[0], _constant(c[1], "%"))


def _dim(t: Token) -> int | str | None:
    """A declared size: an integer, a name, or None for `?`."""
    if t.type == "INT":
        return int(t)
    return None if t.type == "ANY" else str(t)


class _Semantic(Exception):
    """Raised inside the transformer; reported with the statement's location."""


def _scale(e: E.Expr, factor: int) -> E.Expr:
    if isinstance(e, E.Const):
        return E.Const(e.value * factor)
    return E.Mul(e, factor)


def _constant(e: E.Expr, op: str) -> int:
    if not isinstance(e, E.Const) or e.value <= 0:
        raise _Semantic(f"'{op}' takes a positive integer constant on its right, got "
                        f"{E.render(e)}")
    return e.value


@functools.lru_cache(maxsize=1)
def _parser() -> lark.Lark:
    grammar = resources.files("dmlc.lang").joinpath("dmlc.lark").read_text()
    return lark.Lark(grammar, parser="lalr", lexer="contextual", propagate_positions=True,
                     maybe_placeholders=True)


def _spell(terminal: str) -> str:
    """How a terminal is written: ']' for RSQB, 'a name' for NAME."""
    words = {"NAME": "a name", "INT": "an integer", "NUMBER": "a number", "FLOORDIV": "'//'",
             "ANY": "'?'",
             "$END": "end of file"}
    if terminal in words:
        return words[terminal]
    for t in _parser().terminals:
        if t.name == terminal and t.pattern.type == "str":
            return repr(t.pattern.value)
    return terminal


def _line(text: str, line: int) -> str:
    lines = text.splitlines()
    return lines[line - 1].rstrip() if 0 < line <= len(lines) else ""


MAX_NESTING = 100
"""How deeply a .dml file may nest expressions, loads or data rows (a statement of 100 nested
operations is far past any real program; deeper ones would exhaust Python's recursion in the
layers after the parser, so they are refused here, at their line)."""


def _check_depth(tree: lark.Tree, text: str, filename: str) -> None:
    """Refuse nesting deeper than MAX_NESTING (measured without recursion)."""
    stack: list[tuple[lark.Tree, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING:
            meta = node.meta
            line = getattr(meta, "line", 0) if not meta.empty else 0
            raise ParseError(f"nested more than {MAX_NESTING} levels deep (expressions, loads "
                             "and data rows)", filename=filename, line=line,
                             column=getattr(meta, "column", 0) if line else 0,
                             source_line=_line(text, line))
        stack.extend((c, depth + 1) for c in node.children if isinstance(c, lark.Tree))


def parse(text: str, filename: str = "<input>") -> list[Item]:
    """The items of a .dml source, in order. Raises ParseError (with line and column)."""
    try:
        tree = _parser().parse(text)
    except lark.exceptions.UnexpectedInput as e:
        line, column = e.line, e.column
        if isinstance(e, lark.exceptions.UnexpectedToken) and e.token.type == "$END":
            found, expected = "end of file", e.expected
            lines = text.rstrip().splitlines()
            line, column = len(lines), len(lines[-1]) + 1 if lines else 1
        elif isinstance(e, lark.exceptions.UnexpectedToken):
            found, expected = repr(str(e.token)), e.expected
        else:  # UnexpectedCharacters
            pos = getattr(e, "pos_in_stream", None)
            found = repr(text[pos]) if pos is not None and pos < len(text) else "?"
            expected = getattr(e, "allowed", None) or set()
        want = sorted({_spell(t) for t in expected})
        raise ParseError(f"unexpected {found}; expected " + (
            " or ".join(want) if len(want) <= 2 else "one of " + ", ".join(want)),
            filename=filename, line=line, column=column,
            source_line=_line(text, line)) from None
    _check_depth(tree, text, filename)
    try:
        items: list[Item] = _ToItems().transform(tree)
    except lark.exceptions.VisitError as e:
        if not isinstance(e.orig_exc, _Semantic):
            raise
        meta = getattr(e.obj, "meta", None)
        line = getattr(meta, "line", 0) if meta is not None and not meta.empty else 0
        column = getattr(meta, "column", 0) if line else 0
        raise ParseError(str(e.orig_exc), filename=filename, line=line, column=column,
                         source_line=_line(text, line)) from None
    for item in items:
        if isinstance(item, StatementItem):
            item.text = _line(text, item.loc.line).split("#")[0].strip()
    return items
