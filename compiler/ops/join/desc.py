"""DML_JOIN and DML_SPLIT: several tensors meeting along one axis."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...family.tensor import TensorDesc, as_tuple, hash_once


@hash_once
@dataclass(frozen=True, kw_only=True)
class JoinDesc:
    """DML_JOIN_OPERATOR_DESC: the inputs concatenated along `axis` (ONNX Concat).

    Parameters
    ----------
    inputs : tuple of TensorDesc
        InputTensors.
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
    >>> t = dmlc.TensorDesc(data_type="FLOAT32", sizes=(1, 2))
    >>> kernel = dmlc.compile(dmlc.JoinDesc(inputs=(t, t), axis=0))
    >>> print(kernel(np.ones((1, 2), np.float32), np.zeros((1, 2), np.float32)))
    [[1. 1.]
     [0. 0.]]
    """

    inputs: tuple[TensorDesc, ...]
    """InputTensors (InputCount of them, at least 1): one data type, one DimensionCount, equal
    sizes on every dimension but `axis`."""
    axis: int
    """Axis to join along, in [0, DimensionCount)."""
    output: TensorDesc | None = None
    """OutputTensor: the inputs' sizes, summed along `axis`. None: inferred."""

    operator = "DML_JOIN"
    has_indices: ClassVar[bool] = False
    dml_fields: ClassVar[dict[str, str | None]] = {
        "InputCount": None, "InputTensors": "inputs", "OutputTensor": "output", "Axis": "axis"}

    def __post_init__(self) -> None:
        object.__setattr__(self, "inputs", as_tuple(self.operator, "InputTensors", self.inputs))


@hash_once
@dataclass(frozen=True, kw_only=True)
class SplitDesc:
    """DML_SPLIT_OPERATOR_DESC: the input cut along `axis` into consecutive pieces (ONNX
    Split). The outputs are written by one kernel into one buffer, one after another: each is a
    contiguous region of it (dmlc returns them as arrays or device-tensor views of it).

    Parameters
    ----------
    input : TensorDesc
        InputTensor.
    outputs : tuple of TensorDesc
        OutputTensors, their sizes along `axis` summing to the input's.
    axis : int
        Axis.
    output : TensorDesc, optional
        Not used by DML_SPLIT (None).

    Raises
    ------
    ValidationError
        From dmlc.compile: a descriptor that breaks the operator's rules.

    Examples
    --------
    >>> kernel = dmlc.compile(dmlc.SplitDesc(
    ...     input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(1, 3)),
    ...     outputs=(dmlc.TensorDesc(data_type="FLOAT32", sizes=(1, 1)),
    ...              dmlc.TensorDesc(data_type="FLOAT32", sizes=(1, 2))), axis=1))
    >>> for piece in kernel(np.array([[1., 2., 3.]], np.float32)):
    ...     print(piece)
    [[1.]]
    [[2. 3.]]
    """

    input: TensorDesc
    """InputTensor: the tensor to cut."""
    outputs: tuple[TensorDesc, ...]
    """OutputTensors (OutputCount of them, at least 1): the input's data type and sizes on every
    dimension but `axis`, where their sizes sum to the input's."""
    axis: int
    """Axis to split along, in [0, DimensionCount)."""
    output: TensorDesc | None = None
    """dmlc's, not a DirectML field: the buffer the outputs share (all their elements, one
    output after another). None: inferred, as validation always does."""

    operator = "DML_SPLIT"
    has_indices: ClassVar[bool] = False
    dml_fields: ClassVar[dict[str, str | None]] = {
        "InputTensor": "input", "OutputCount": None, "OutputTensors": "outputs", "Axis": "axis"}

    def __post_init__(self) -> None:
        object.__setattr__(self, "outputs", as_tuple(self.operator, "OutputTensors",
                                                     self.outputs))

    @property
    def output_starts(self) -> tuple[int, ...]:
        """Where each output starts in the shared buffer, in elements."""
        starts, at = [], 0
        for t in self.outputs:
            starts.append(at)
            at += t.element_count
        return tuple(starts)

    def output_regions(self) -> tuple[tuple[int, TensorDesc], ...]:
        """The outputs, each with where it starts in the buffer they share (the driver returns
        them as views of it: dmlc.family.registry.output_regions)."""
        return tuple(zip(self.output_starts, self.outputs))
