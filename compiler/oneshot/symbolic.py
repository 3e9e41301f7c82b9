"""Descriptors with symbolic sizes (docs/generic-kernels.md): a TensorDesc whose sizes name a
dimension (a str: one size wherever the name appears) or leave it free (None). dmlc.compile of
such a descriptor returns a SymbolicKernel: each call binds the sizes from its arrays' shapes,
validates the descriptor of those sizes, and runs the kernel compiled for it with
dynamic=True (the family's generic kernel: one compile for every size it admits; a family
without one compiles each size specialized)."""
from __future__ import annotations

import dataclasses
from typing import Any

from ..compiled import CompiledKernel
from ..compiled import compile as compile_desc
from ..errors import ValidationError
from ..family.registry import validate
from ..family.tensor import TensorDesc, list_argument


def _symbolic(t: Any) -> bool:
    return isinstance(t, TensorDesc) and any(s is None or isinstance(s, str) for s in t.sizes)


def has_symbols(desc: Any) -> bool:
    """Whether some tensor of `desc` has a symbolic size."""
    return any(_symbolic(t) for _, _, t in _tensors(desc, with_output=True))


def _tensors(desc: Any, with_output: bool = False) -> list[tuple[str, str, Any]]:
    """(DML field, descriptor field, TensorDesc) of each input tensor in call order (list
    fields item by item), then the output if asked."""
    fields = getattr(type(desc), "dml_fields", None)
    if not dataclasses.is_dataclass(desc) or not isinstance(fields, dict):
        return []
    out = []
    for dml, name in fields.items():
        if name is None or (_is_output(dml, name) and not with_output):
            continue
        value = getattr(desc, name, None)
        items = value if isinstance(value, tuple) else (value,)
        for k, t in enumerate(items):
            if isinstance(t, TensorDesc):
                out.append((f"{dml}[{k}]" if isinstance(value, tuple) else dml, name, t))
    return out


def substitute(desc: Any, names: dict[str, int], shapes: dict[str, tuple[int, ...]]) -> Any:
    """`desc` with the symbolic sizes these bind written as integers: a name wherever it
    appears (`names`), a tensor's every size by its DML field (`shapes`, of its rank); the
    others stay symbolic (`dmlc compile --dim`)."""
    changes: dict[str, Any] = {}
    for dml, name, t in _tensors(desc, with_output=True):
        if not _symbolic(t):
            continue
        given = shapes.get(dml)
        sizes = tuple(given[k] if given is not None else names.get(s, s) if isinstance(s, str)
                      else s for k, s in enumerate(t.sizes))
        value = changes.get(name, getattr(desc, name))
        if isinstance(value, tuple):
            items = list(value)
            items[_position(dml)] = dataclasses.replace(t, sizes=sizes)
            changes[name] = tuple(items)
        else:
            changes[name] = dataclasses.replace(t, sizes=sizes)
    return dataclasses.replace(desc, **changes)


def call_tensors(desc: Any) -> list[tuple[str, str, TensorDesc]]:
    """(DML field, program input, tensor) of each array a SymbolicKernel's call takes, in
    order (InputTensors[1], inputs_1, its TensorDesc of written sizes)."""
    return [(dml, list_argument(name, _position(dml)) if dml.endswith("]") else name, t)
            for dml, name, t in _tensors(desc)]


class SymbolicKernel:
    """A descriptor with symbolic sizes, compiled for every size its calls bring."""

    def __init__(self, desc: Any, options: dict[str, Any],
                 probe: dict[str, tuple[int, ...]] | None = None) -> None:
        """probe: sizes (by DML field) to validate the other fields at now (default: 1 for
        every symbolic size; a .dml file's data gives its own)."""
        self.descriptor = desc
        self.options = {"dynamic": True, **options}
        op = desc.operator
        for dml, _, t in _tensors(desc, with_output=True):
            if _symbolic(t) and t.strides is not None:
                raise ValidationError(op, f"{dml}.Strides", "none: a tensor of symbolic sizes "
                                      "is packed", t.strides)
        validate(self._bind(probe or self.ones()))  # a bad field now, not at the first call

    def ones(self) -> dict[str, tuple[int, ...]]:
        """Every tensor's sizes, 1 for each symbolic size."""
        return {dml: tuple(1 if s is None or isinstance(s, str) else s for s in t.sizes)
                for dml, _, t in _tensors(self.descriptor)}

    def at(self, shapes: dict[str, tuple[int, ...]]) -> CompiledKernel:
        """The kernel for these sizes (by DML field), as a call of arrays of them would run."""
        return compile_desc(self._bind(shapes), **self.options)

    def _bind(self, shapes: dict[str, tuple[int, ...]]) -> Any:
        """The descriptor with each symbolic tensor's sizes from `shapes` (by DML field), a
        symbolic output inferred."""
        desc, op = self.descriptor, self.descriptor.operator
        names: dict[str, tuple[int, str]] = {}
        replaced: dict[str, list[Any]] = {}
        for dml, name, t in _tensors(desc):
            value = getattr(desc, name)
            items = replaced.setdefault(name, list(value) if isinstance(value, tuple) else [value])
            if not _symbolic(t):
                continue
            shape = shapes[dml]
            if len(shape) != len(t.sizes):
                raise ValidationError(op, f"{dml} rank", len(t.sizes), len(shape))
            for k, (s, n) in enumerate(zip(t.sizes, shape)):
                if isinstance(s, str):
                    size, first = names.setdefault(s, (n, dml))
                    if size != n:
                        raise ValidationError(op, f"{dml}.Sizes[{k}] ({s})",
                                              f"{size}, the size {first} gives {s}", n)
                elif s is not None and s != n:
                    raise ValidationError(op, f"{dml}.Sizes[{k}]", s, n)
            bound = dataclasses.replace(t, sizes=tuple(shape))
            items[_position(dml) if isinstance(value, tuple) else 0] = bound
        changes = {name: tuple(v) if isinstance(getattr(desc, name), tuple) else v[0]
                   for name, v in replaced.items()}
        for dml, name, t in _tensors(desc, with_output=True):
            if not _is_output(dml, name) or not _symbolic(t):
                continue
            if not isinstance(getattr(desc, name), tuple):  # inferred from the inputs
                changes[name] = None
                continue
            sizes = tuple(names[s][0] if isinstance(s, str) and s in names else s
                          for s in t.sizes)  # DML_SPLIT's outputs: sizes the inputs name
            for k, s in enumerate(sizes):
                if not isinstance(s, int):
                    raise ValidationError(op, f"{dml}.Sizes[{k}]", "an integer or a name an "
                                          "input's Sizes give", "?" if s is None else s)
            items = list(changes.get(name, getattr(desc, name)))
            items[_position(dml)] = dataclasses.replace(t, sizes=sizes)
            changes[name] = tuple(items)
        return dataclasses.replace(desc, **changes)

    def kernel(self, *arrays: Any) -> CompiledKernel:
        """The kernel for these arrays' sizes (compiled on the first call of a signature)."""
        tensors = _tensors(self.descriptor)
        if len(arrays) != len(tensors):
            raise ValidationError(self.descriptor.operator, "arrays",
                                  f"{len(tensors)} ({', '.join(d for d, _, _ in tensors)})",
                                  len(arrays))
        return self.at({dml: tuple(getattr(a, "shape", ()))
                        for (dml, _, _), a in zip(tensors, arrays)})

    def __call__(self, *arrays: Any, out: Any = None) -> Any:
        return self.kernel(*arrays)(*arrays, out=out)

    def reference(self, *arrays: Any) -> Any:
        """The same computation by the IR interpreter (no Vulkan)."""
        return self.kernel(*arrays).reference(*arrays)


def _is_output(dml: str, name: str) -> bool:
    """OutputTensor, OutputTensors (DML_SPLIT), OutputGradientTensor: DirectML names every
    output Output..."""
    return name == "output" or dml.startswith("Output")


def _position(dml: str) -> int:
    """k of "InputTensors[k]"."""
    return int(dml[dml.index("[") + 1:-1])
