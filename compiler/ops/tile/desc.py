"""DML_TILE."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...family.tensor import TensorDesc, as_tuple, hash_once


@hash_once
@dataclass(frozen=True, kw_only=True)
class TileDesc:
    """DML_TILE_OPERATOR_DESC: the input repeated `repeats[d]` times along each dimension d
    (ONNX Tile, numpy.tile).

    Parameters
    ----------
    input : TensorDesc
        InputTensor.
    repeats : tuple of int
        Repeats, one per dimension.
    output : TensorDesc, optional
        OutputTensor (inferred when None).

    Raises
    ------
    ValidationError
        From dmlc.compile: a descriptor that breaks the operator's rules.

    Examples
    --------
    >>> kernel = dmlc.compile(dmlc.TileDesc(
    ...     input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(1, 2)), repeats=(2, 1)))
    >>> print(kernel(np.array([[1., 2.]], np.float32)))
    [[1. 2.]
     [1. 2.]]
    """

    input: TensorDesc
    """InputTensor."""
    repeats: tuple[int, ...]
    """Repeats (RepeatsCount of them: one per dimension, each >= 1)."""
    output: TensorDesc | None = None
    """OutputTensor: sizes[d] * repeats[d]. None: inferred."""

    operator = "DML_TILE"
    has_indices: ClassVar[bool] = False
    dml_fields: ClassVar[dict[str, str | None]] = {
        "InputTensor": "input", "OutputTensor": "output", "RepeatsCount": None,
        "Repeats": "repeats"}

    def __post_init__(self) -> None:
        object.__setattr__(self, "repeats", as_tuple(self.operator, "Repeats", self.repeats))
