"""DML_REVERSE_SUBSEQUENCES."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...family.tensor import IndexBounds, TensorDesc, hash_once


@hash_once
@dataclass(frozen=True, kw_only=True)
class ReverseSubsequencesDesc:
    """DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC (ONNX ReverseSequence): along `axis`, the first
    lengths[...] elements of each sequence reversed, the rest as they are.

    Parameters
    ----------
    input : TensorDesc
        InputTensor.
    sequence_lengths : TensorDesc
        SequenceLengthsTensor: the input's sizes with 1 along `axis`.
    axis : int
        Axis.
    output : TensorDesc, optional
        OutputTensor (inferred when None).

    Raises
    ------
    ValidationError
        From dmlc.compile: a descriptor that breaks the operator's rules.

    Examples
    --------
    >>> kernel = dmlc.compile(dmlc.ReverseSubsequencesDesc(
    ...     input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(1, 4)),
    ...     sequence_lengths=dmlc.TensorDesc(data_type="INT32", sizes=(1, 1)), axis=1))
    >>> print(kernel(np.array([[1., 2., 3., 4.]], np.float32), np.array([[3]], np.int32)))
    [[3. 2. 1. 4.]]
    """

    input: TensorDesc
    """InputTensor."""
    sequence_lengths: TensorDesc
    """SequenceLengthsTensor: int32/int64/uint32/uint64, the input's sizes but 1 along Axis
    (strides 0 broadcast one length over several sequences)."""
    axis: int
    """Axis: the sequences' dimension."""
    output: TensorDesc | None = None
    """OutputTensor: the input's sizes. None: inferred."""

    operator = "DML_REVERSE_SUBSEQUENCES"
    has_indices: ClassVar[bool] = True
    dml_fields: ClassVar[dict[str, str | None]] = {
        "InputTensor": "input", "SequenceLengthsTensor": "sequence_lengths",
        "OutputTensor": "output", "Axis": "axis"}

    def index_bounds(self) -> IndexBounds:
        """A length is valid in [0, n] (a position of the n + 1 between elements)."""
        return IndexBounds("SequenceLengthsTensor", self.sequence_lengths,
                           (self.input.sizes[self.axis] + 1,))
