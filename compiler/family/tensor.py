"""Tensors as DirectML describes them (DML_BUFFER_TENSOR_DESC), list fields as tuples, and what
checked mode needs to know of an index tensor."""
from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, cast

from ..dtypes import DataType
from ..errors import ValidationError


def as_tuple(op: str, field: str, values: object) -> tuple[object, ...]:
    """A list field as a tuple (its items are checked by validate()); anything that is not a
    sequence is a ValidationError, not a TypeError."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise ValidationError(op, field, "a list of integers", repr(values))
    try:
        return tuple(values)
    except Exception as e:
        raise ValidationError(op, field, "a list of integers", repr(values), str(e)) from None


_D = TypeVar("_D")


@functools.cache
def _field_names(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(cls))


def derived(obj: _D, **changes: Any) -> _D:
    """dataclasses.replace(obj, **changes) without __init__ or __post_init__: for a copy of a
    frozen dataclass already checked (a validated descriptor, an artifact) whose new values are
    in the form its __post_init__ would leave them (tuples, DataType members). What the hot
    path derives at every new size (a generic kernel's lookup forms, its artifact bound to a
    call): a replace() costs microseconds there. Cached properties are not carried over."""
    cls: type = type(obj)
    names = _field_names(cls)
    new: Any = object.__new__(cls)
    state = new.__dict__
    for name, value in obj.__dict__.items():
        if name in names:
            state[name] = value
    for name, value in changes.items():
        assert name in names, f"{cls.__name__} has no field {name}"
        state[name] = value
    return new


def hash_once(cls: type[_D]) -> type[_D]:
    """A frozen dataclass whose hash is computed once per object and kept (dataclass's own
    hashes every field, nested ones too, at each ask: a descriptor is hashed several times by
    every call, as the key of the caches it meets). Not pickled: str hashes differ between
    processes."""
    raw = cls.__hash__

    def __hash__(self: Any) -> int:
        state = self.__dict__
        found = state.get("_hash")
        if found is None:
            found = state["_hash"] = raw(self)
        return cast(int, found)

    def __getstate__(self: Any) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}

    cls.__hash__ = __hash__  # type: ignore[method-assign]
    cls.__getstate__ = __getstate__  # type: ignore[method-assign]
    return cls


@hash_once
@dataclass(frozen=True, kw_only=True)
class TensorDesc:
    """DML_BUFFER_TENSOR_DESC.

    Parameters
    ----------
    data_type : DataType or str
        The element type ("FLOAT32" or DataType.FLOAT32, ...).
    sizes : tuple of int
        Sizes, one per dimension.
    strides : tuple of int, optional
        Strides in elements (None: packed).
    total_bytes : int, optional
        TotalTensorSizeInBytes (None: computed).
    offset : int, default 0
        Elements before element 0 (dmlc's extension).

    Examples
    --------
    >>> t = dmlc.TensorDesc(data_type="FLOAT16", sizes=(2, 3), strides=(1, 2))
    >>> t.sizes, t.strides
    ((2, 3), (1, 2))
    """

    data_type: DataType
    """Element type; one of the 11 DataType members."""
    sizes: tuple[int, ...]
    """Size of each dimension, outermost first; 1 to 8 dimensions, each at least 1."""
    strides: tuple[int, ...] | None = None
    """Distance between neighbours of each dimension, in elements. None: packed row-major.
    0 broadcasts a dimension; a permutation describes a transposed layout."""
    total_bytes: int | None = None
    """TotalTensorSizeInBytes. None: the minimum the sizes and strides need (see min_bytes)."""
    offset: int = 0
    """dmlc's extension, not a DML_BUFFER_TENSOR_DESC field: elements of the buffer before
    element 0 (what a DML_BUFFER_BINDING.Offset of offset * element size does), baked into the
    kernel. With it, strides may be negative while every element stays in the buffer: how a
    view such as t[1:, ::-1] is read where it lies, without a copy."""

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "data_type", DataType.of(self.data_type))
        except ValueError:
            raise ValidationError("DML_BUFFER_TENSOR_DESC", "DataType",
                                  "one of " + ", ".join(DataType.__members__),
                                  repr(self.data_type)) from None
        object.__setattr__(self, "sizes", as_tuple("DML_BUFFER_TENSOR_DESC", "Sizes", self.sizes))
        if self.strides is not None:
            object.__setattr__(self, "strides",
                               as_tuple("DML_BUFFER_TENSOR_DESC", "Strides", self.strides))

    @classmethod
    def of_layout(cls, data_type: DataType, sizes: tuple[int, ...],
                  strides: tuple[int, ...] | None = None, offset: int = 0) -> TensorDesc:
        """The TensorDesc of values already as __init__ would make them (a DataType, tuples of
        ints), made without converting them again: the one-shot functions describe every
        argument of every call this way (an array's shape, a device view's layout)."""
        t = object.__new__(cls)
        t.__dict__.update(data_type=data_type, sizes=sizes, strides=strides, total_bytes=None,
                          offset=offset)
        return t

    @property
    def rank(self) -> int:
        return len(self.sizes)

    @property
    def element_count(self) -> int:
        return math.prod(self.sizes)

    @property
    def packed_strides(self) -> tuple[int, ...]:
        """Row-major strides of a packed tensor of these sizes."""
        out, acc = [], 1
        for s in reversed(self.sizes):
            out.append(acc)
            acc *= s
        return tuple(reversed(out))

    @property
    def element_strides(self) -> tuple[int, ...]:
        return self.strides if self.strides is not None else self.packed_strides

    @property
    def is_packed(self) -> bool:
        return self.offset == 0 and (self.strides is None or all(
            st == p for st, p, sz in zip(self.strides, self.packed_strides, self.sizes) if sz > 1))

    @property
    def reach(self) -> tuple[int, int]:
        """The lowest and highest element the tensor touches, counted from the buffer's start:
        offset + the sum of each dimension's (size - 1) * stride where that is < 0, or > 0."""
        # by the strides' signs, not the products': a traced size of 1 then pins nothing
        pairs = tuple(zip(self.sizes, self.element_strides))  # (family/formula.py)
        return (self.offset + sum((s - 1) * st for s, st in pairs if st < 0),
                self.offset + sum((s - 1) * st for s, st in pairs if st > 0))

    @property
    def buffer_elements(self) -> int:
        """Elements the buffer must hold: offset + sum((size - 1) * stride) + 1 (strides >= 0)."""
        return self.reach[1] + 1

    @property
    def min_bytes(self) -> int:
        """DML_BUFFER_TENSOR_DESC's TotalTensorSizeInBytes at least: bytes needed, rounded up
        to a multiple of 4."""
        return -(-self.buffer_elements * self.data_type.itemsize // 4) * 4


@dataclass(frozen=True)
class IndexBounds:
    """What checked mode (family/index_check.py) checks of an operator's indices: which tensor holds
    them and the size of the axis each of its elements indexes. Signed indices may count from
    the end once (docs/decisions.md): an element indexing an axis of size n is valid in [-n, n - 1]
    (signed) or [0, n - 1] (unsigned)."""

    field: str
    """The index tensor's DirectML field name (IndicesTensor), for the error."""
    tensor: TensorDesc
    dims: tuple[int, ...]
    """Axis sizes: one for every element, or one per coordinate along `dim_axis`."""
    dim_axis: int | None = None
    """None: every element indexes an axis of size dims[0]; else element c indexes
    dims[c[dim_axis]] (GatherND's index tuples: the last axis picks the input axis)."""

    def dim_at(self, position: tuple[int, ...]) -> int:
        return self.dims[0] if self.dim_axis is None else self.dims[position[self.dim_axis]]


def list_argument(keyword: str, k: int) -> str:
    """The program input of item k of a tensor-list field (JoinDesc.inputs[k]: inputs_k)."""
    return f"{keyword}_{k}"


class AxisIndexed(Protocol):
    """A descriptor whose indices select along one axis of its input (DML_GATHER,
    DML_GATHER_ELEMENTS, DML_SCATTER)."""

    operator: str

    @property
    def input(self) -> TensorDesc: ...

    @property
    def indices(self) -> TensorDesc: ...

    @property
    def axis(self) -> int: ...


def index_bounds(desc: object) -> IndexBounds:
    """What checked mode checks of a descriptor with indices (its index_bounds())."""
    bounds = getattr(desc, "index_bounds", None)
    if bounds is None:
        raise TypeError(f"{type(desc).__name__} has no indices to check")
    return cast(IndexBounds, bounds())


def axis_bounds(desc: AxisIndexed) -> IndexBounds:
    """Every index selects along the input's `axis`."""
    return IndexBounds("IndicesTensor", desc.indices, (desc.input.sizes[desc.axis],))
