"""DML_MIRROR_OPERATOR_DESC (made up for the test): a tensor reversed along one axis."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from dmlc import TensorDesc


@dataclass(frozen=True, kw_only=True)
class MirrorDesc:
    input: TensorDesc
    axis: int
    output: TensorDesc | None = None

    operator = "DML_MIRROR"
    has_indices: ClassVar[bool] = False
    dml_fields: ClassVar[dict[str, str | None]] = {
        "InputTensor": "input", "OutputTensor": "output", "MirrorAxis": "axis"}
