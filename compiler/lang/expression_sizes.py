"""Tensor expressions of symbolic sizes: `X: float32[N, 4]` (N: one size wherever it appears;
`?`: any size), elaborated per binding.

Expressions have no generic kernel (docs/generic-kernels.md): a file of symbolic sizes is
checked and compiled at the sizes its data, or the caller's arrays, bind (one specialized
compile per size); `at(shapes)` gives the units for those sizes. An output's sizes follow from
its inputs: a declared output may name only sizes its inputs name, never `?`.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

from ..dtypes import DataType
from ..errors import ValidationError
from .data import Source, written_data
from .expressions import build_units
from .parser import DeclarationItem, StatementItem
from .symbols import Binding, is_symbolic, names, spell
from .unit import Unit


@dataclass
class SymbolicExpressions:
    decls: list[DeclarationItem]
    stmts: list[StatementItem]
    src: Source

    def inputs(self) -> list[DeclarationItem]:
        outputs = {s.name for s in self.stmts}
        return [d for d in self.decls if d.name not in outputs]

    def at(self, shapes: Mapping[str, tuple[int, ...]]) -> list[Unit]:
        """The units at the sizes that `shapes` (a caller's arrays, by tensor name) and the
        file's data bind; a caller's array replaces the file's data."""
        binding = Binding("expression")
        given: dict[str, DeclarationItem] = {}
        for d in self.inputs():
            if not is_symbolic(d.sizes):
                given[d.name] = d
                continue
            if d.name in shapes:
                shape, d = tuple(shapes[d.name]), dataclasses.replace(d, data=None)
            elif d.data is not None:
                shape = self._data_shape(d)
            else:
                raise ValidationError("expression", d.name, f"data in the file or --input "
                                      f"{d.name}=FILE.npy (its sizes {spell(d.sizes)} are "
                                      "symbolic)", "none")
            try:
                binding.bind(d.name, d.sizes, shape)
            except ValidationError as e:
                if d.name in shapes:
                    raise
                raise self.src.error(str(e), d.loc) from None
            given[d.name] = dataclasses.replace(d, sizes=shape)
        decls = [given.get(d.name) or dataclasses.replace(d, sizes=binding.resolve(d.sizes))
                 for d in self.decls]
        return build_units(decls, self.stmts, self.src)

    def _data_shape(self, d: DeclarationItem) -> tuple[int, ...]:
        assert d.data is not None
        try:
            dtype = DataType.of(d.dtype)
        except ValueError:
            raise self.src.error(f"{d.name}: unknown data type {d.dtype!r}; expected one of "
                                 + ", ".join(t.value for t in DataType), d.dtype_loc) from None
        return tuple(written_data(d.data, dtype, self.src, f"{d.name} data").shape)


def symbolic_units(decls: list[DeclarationItem], stmts: list[StatementItem],
                   src: Source) -> tuple[list[Unit], SymbolicExpressions]:
    """The units at the file's data sizes (none where some symbolic input has no data) and the
    file, for other bindings. Refused here: an output's size that no input gives."""
    sym = SymbolicExpressions(decls, stmts, src)
    given = {n for d in sym.inputs() for n in names(d.sizes)}
    outputs = {s.name for s in stmts}
    for d in decls:
        if d.name not in outputs:
            continue
        for k, s in enumerate(d.sizes):
            if s is None or (isinstance(s, str) and s not in given):
                raise src.error(f"expression: {d.name}.Sizes[{k}]: expected an integer or a "
                                "name an input's sizes give (" + (", ".join(sorted(given))
                                                                 or "none") + "): an output's "
                                f"size follows from its inputs, got {s or '?'}", d.loc)
    if all(d.data is not None for d in sym.inputs() if is_symbolic(d.sizes)):
        return sym.at({}), sym
    return [], sym
