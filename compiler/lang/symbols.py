"""Symbolic sizes in .dml files (docs/generic-kernels.md): a size written as a name (one size
wherever the name appears) or `?` (any size), bound from the data a file or a caller gives.

    InputTensor: (Sizes:{B, 4}, DataType:FLOAT32) [[1, 2, 3, 4], [5, 6, 7, 8]]    # B = 2
    X: float32[N, 4]

A name given two sizes is a ValidationError naming the operator, the field (the tensor, the
dimension and the name), the size bound first and the one that differs, as dmlc.compile's
SymbolicKernel reports it for descriptors.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..errors import ValidationError

Size = int | str | None
"""A written size: an integer, a name, or None for `?`."""


def is_symbolic(sizes: Sequence[Size]) -> bool:
    return any(s is None or isinstance(s, str) for s in sizes)


def spell(sizes: Sequence[Size]) -> str:
    """{1, B, ?} as the file writes it."""
    return "{" + ", ".join("?" if s is None else str(s) for s in sizes) + "}"


def names(sizes: Sequence[Size]) -> list[str]:
    return [s for s in sizes if isinstance(s, str)]


class Binding:
    """Names bound to sizes, each by the first tensor that gave it."""

    def __init__(self, operator: str) -> None:
        self.operator = operator
        self.sizes: dict[str, tuple[int, str]] = {}

    def bind(self, label: str, sizes: Sequence[Size], shape: Sequence[int]) -> None:
        """Bind the names of tensor `label` (written `sizes`) from an array of `shape`."""
        if len(shape) != len(sizes):
            raise ValidationError(self.operator, f"{label} rank", f"{len(sizes)} "
                                  f"(Sizes {spell(sizes)})", f"{len(shape)} (data of sizes "
                                  f"{spell(tuple(shape))})")
        for k, (s, n) in enumerate(zip(sizes, shape)):
            if isinstance(s, str):
                size, first = self.sizes.setdefault(s, (int(n), label))
                if size != n:
                    raise ValidationError(self.operator, f"{label}.Sizes[{k}] ({s})",
                                          f"{size}, the size {first} gives {s}", int(n))
            elif s is not None and s != n:
                raise ValidationError(self.operator, f"{label}.Sizes[{k}]", s, int(n))

    def value(self, name: str) -> int | None:
        bound = self.sizes.get(name)
        return None if bound is None else bound[0]

    def resolve(self, sizes: Sequence[Size]) -> tuple[Size, ...]:
        """`sizes` with every bound name replaced by its size."""
        return tuple(self.sizes[s][0] if isinstance(s, str) and s in self.sizes else s
                     for s in sizes)
