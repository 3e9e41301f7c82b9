"""DML_ELEMENT_WISE_IDENTITY: a strided view made contiguous, or written through."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ...family.tensor import TensorDesc, hash_once


@hash_once
@dataclass(frozen=True, kw_only=True)
class IdentityDesc:
    """DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC: output = input, element by element. The input's
    strides make it any view (a transpose, a broadcast with stride 0, NHWC read as NCHW). The
    output is packed by default (the view made contiguous); given with strides and an offset, it
    is a view written in place (each element at its own address), and the kernel then takes its
    whole buffer as `out=`.

    Parameters
    ----------
    input : TensorDesc
        InputTensor (its strides: any view).
    output : TensorDesc, optional
        OutputTensor (packed when None).
    scale_bias : optional
        ScaleBias; None.

    Raises
    ------
    ValidationError
        From dmlc.compile: a descriptor that breaks the operator's rules.

    Examples
    --------
    >>> kernel = dmlc.compile(dmlc.IdentityDesc(
    ...     input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(2, 3), strides=(1, 2))))
    >>> print(kernel(np.arange(6, dtype=np.float32)))
    [[0. 2. 4.]
     [1. 3. 5.]]
    """

    input: TensorDesc
    """InputTensor."""
    output: TensorDesc | None = None
    """OutputTensor: the input's sizes and type. None: inferred."""
    scale_bias: Any = None
    """ScaleBias: must be absent (it would compute, and dmlc only moves data)."""

    operator = "DML_ELEMENT_WISE_IDENTITY"
    has_indices: ClassVar[bool] = False
    dml_fields: ClassVar[dict[str, str | None]] = {
        "InputTensor": "input", "OutputTensor": "output", "ScaleBias": "scale_bias"}
