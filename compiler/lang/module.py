"""A parsed .dml file: its units (operators or expression statements), each a descriptor with its
data, expected values and source locations. The front end stops here: dmlc.program compiles and
runs a module."""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from ..errors import DmlcError, ParseError, ValidationError
from .data import Source
from .directml import build_unit
from .expression_sizes import SymbolicExpressions, symbolic_units
from .expressions import build_units
from .parser import DeclarationItem, FieldItem, OperatorItem, StatementItem, parse
from .symbols import is_symbolic
from .unit import Unit


@dataclass
class Module:
    kind: str
    """'directml' (one operator in DirectML notation) or 'expressions'."""
    units: list[Unit]
    """Tensor expressions of symbolic sizes: the units at the file's data sizes (none where
    some symbolic tensor has no data: `at` binds them)."""
    source: Source
    symbolic: SymbolicExpressions | None = None
    """Tensor expressions of symbolic sizes (X: float32[N, 4]), to elaborate per binding."""

    def at(self, shapes: Mapping[str, tuple[int, ...]]) -> Module:
        """The module at the sizes these arrays' shapes (by tensor name) and the file's data
        bind: tensor expressions of symbolic sizes elaborated for them; any other module is
        itself (DirectML notation binds per call: dmlc.compile's SymbolicKernel)."""
        if self.symbolic is None:
            return self
        return Module(self.kind, self.symbolic.at(shapes), self.source)

    def located(self, e: ValidationError, u: Unit) -> DmlcError:
        """The error pointed at the line of the field it names (OutputTensor.DataType -> the
        OutputTensor line), when the file has that field."""
        head = e.field.split(".")[0].split("[")[0].split(" ")[0]
        loc = u.locations.get(head)
        if loc is None:
            return e
        return self.source.error(str(e), loc)


def _module(items: list, src: Source) -> Module:
    dml = [i for i in items if isinstance(i, (OperatorItem, FieldItem))]
    expr = [i for i in items if isinstance(i, (DeclarationItem, StatementItem))]
    if dml and expr:
        first = min((dml[0], expr[0]), key=lambda i: (i.loc.line, i.loc.column))
        other = expr[0] if first is dml[0] else dml[0]
        raise src.error("a file is either DirectML notation or tensor expressions, not both "
                        f"(line {first.loc.line} starts the other kind)", other.loc)
    if dml:
        ops = [i for i in dml if isinstance(i, OperatorItem)]
        if len(ops) > 1:
            raise src.error("one operator per file (this is the second)", ops[1].loc)
        if ops and dml[0] is not ops[0]:
            raise src.error("the operator's name comes before its fields", ops[0].loc)
        fields = [i for i in dml if isinstance(i, FieldItem)]
        return Module("directml", [build_unit(ops[0] if ops else None, fields, src)], src)
    decls = [i for i in expr if isinstance(i, DeclarationItem)]
    stmts = [i for i in expr if isinstance(i, StatementItem)]
    if not stmts:
        raise src.error("nothing to compute: expected an operator or a statement such as "
                        "Y[i] = X[i]", decls[-1].loc if decls else None)
    if any(is_symbolic(d.sizes) for d in decls):
        units, symbolic = symbolic_units(decls, stmts, src)
        return Module("expressions", units, src, symbolic)
    return Module("expressions", build_units(decls, stmts, src), src)


def parse_module(text: str | bytes, filename: str = "<input>") -> Module:
    """Parse and check a .dml source, text or UTF-8 bytes (raises ParseError or ValidationError
    with its location)."""
    text = _decoded(text, filename)
    src = Source(text, filename)
    return _module(parse(text, filename), src)


def load(path: str | os.PathLike) -> Module:
    """Parse a .dml file (UTF-8)."""
    if not isinstance(path, (str, os.PathLike)):
        raise ValidationError("dmlc.lang.load", "path", "a file path (str or os.PathLike)",
                              type(path).__name__)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ParseError(f"cannot read {os.fspath(path)}: {e.strerror}",
                         filename=os.fspath(path)) from None
    return parse_module(data, os.fspath(path))


def _decoded(text: object, filename: str) -> str:
    if isinstance(text, str):
        return text
    if not isinstance(text, (bytes, bytearray)):
        raise ValidationError("dmlc.lang.parse_module", "text", ".dml source as str or UTF-8 "
                              "bytes", type(text).__name__)
    try:
        return bytes(text).decode("utf-8")
    except UnicodeDecodeError as e:
        raise ParseError(f"{filename}: not UTF-8 text: byte {e.start} is "
                         f"{bytes(text)[e.start]:#04x}", filename=filename) from None
