"""A parsed .dml file: its units (operators or expression statements), ready to compile and run."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping, Optional, Union

import numpy as np

from ..compiled import CompiledKernel, cached_compile
from ..compiled import compile as compile_descriptor
from ..lower.checks import CHECKABLE
from ..errors import DmlcError, ParseError, ValidationError
from .data import Source
from .directml import build_unit
from .expressions import build_units
from .parser import DeclarationItem, FieldItem, OperatorItem, StatementItem, parse
from .unit import Unit


@dataclass
class Module:
    kind: str
    """'directml' (one operator in DirectML notation) or 'expressions'."""
    units: list[Unit]
    source: Source

    def compile(self, dump_after: Optional[set[str]] = None,
                target: Optional[str] = None) -> dict[str, CompiledKernel]:
        """Every unit compiled, by output name (memoized per descriptor unless dump_after asks
        for the IR after some passes, which needs a fresh build); target: dmlc.compile's."""
        return {u.name: self._compile(u, dump_after, target=target) for u in self.units}

    def _compile(self, u: Unit, dump_after: Optional[set[str]] = None,
                 check_indices: bool = False, target: Optional[str] = None) -> CompiledKernel:
        check = check_indices and isinstance(u.descriptor, CHECKABLE)
        try:
            if dump_after:
                return compile_descriptor(u.descriptor, dump_after=dump_after,
                                          check_indices=check, target=target)
            return cached_compile(u.descriptor, check, target)
        except ValidationError as e:
            raise self.located(e, u) from None

    def located(self, e: ValidationError, u: Unit) -> DmlcError:
        """The error pointed at the line of the field it names (OutputTensor.DataType -> the
        OutputTensor line), when the file has that field."""
        head = e.field.split(".")[0].split("[")[0].split(" ")[0]
        loc = u.locations.get(head)
        if loc is None:
            return e
        return self.source.error(str(e), loc)

    def run(self, inputs: Optional[Mapping[str, np.ndarray]] = None,
            check_indices: bool = False) -> dict[str, np.ndarray]:
        """Run every unit on the Vulkan device. `inputs` (by the file's tensor names, or the
        operators' argument names input/indices/updates) adds to or replaces the file's data.
        check_indices: operators with an IndicesTensor raise IndexOutOfRangeError for an index
        outside its axis instead of clamping or dropping it."""
        inputs = dict(inputs or {})
        known = {n for u in self.units for n in (*u.arguments, *u.arguments.values())}
        for name in inputs:
            if name not in known:
                raise ValidationError(self.kind, "input name", "one of " + ", ".join(
                    sorted(known)), repr(name))
        results = {}
        for u in self.units:
            kernel = self._compile(u, check_indices=check_indices)
            arrays = []
            for arg in kernel.program.inputs:
                label = u.arguments[arg]
                value = inputs.get(label, inputs.get(arg, u.data.get(arg)))
                if value is None:
                    raise ValidationError(u.name, label, "data in the file or --input "
                                          f"{label}=FILE.npy", "none")
                arrays.append(value)
            results[u.name] = kernel(*arrays)
        return results


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
    return Module("expressions", build_units(decls, stmts, src), src)


def parse_module(text: str, filename: str = "<input>") -> Module:
    """Parse and check a .dml source (raises ParseError or ValidationError with its location)."""
    src = Source(text, filename)
    return _module(parse(text, filename), src)


def load(path: Union[str, os.PathLike]) -> Module:
    """Parse a .dml file."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise ParseError(f"cannot read {os.fspath(path)}: {e.strerror}", filename=os.fspath(path))
    return parse_module(text, os.fspath(path))
