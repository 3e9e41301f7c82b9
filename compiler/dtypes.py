"""DirectML tensor data types (feature level 4.1) and their numpy equivalents."""
from __future__ import annotations

import enum
from typing import Any

import numpy as np

from .errors import ValidationError


class DataType(enum.Enum):
    """DML_TENSOR_DATA_TYPE: the 11 element types a DML_BUFFER_TENSOR_DESC may hold.

    Examples
    --------
    >>> dmlc.DataType.FLOAT16.name
    'FLOAT16'
    >>> len(dmlc.DataType)
    11
    """

    FLOAT64 = "float64"
    FLOAT32 = "float32"
    FLOAT16 = "float16"
    INT64 = "int64"
    INT32 = "int32"
    INT16 = "int16"
    INT8 = "int8"
    UINT64 = "uint64"
    UINT32 = "uint32"
    UINT16 = "uint16"
    UINT8 = "uint8"

    # members are singletons compared by identity: hashed so too (Enum's hashes the name in
    # Python, and every cache key of a call holds several)
    __hash__ = object.__hash__

    @property
    def numpy(self) -> np.dtype:
        return _NUMPY[self._value_]  # built once: np.dtype() costs a microsecond a call

    @property
    def itemsize(self) -> int:
        return _ITEMSIZES[self._value_]  # (numpy's, without building a numpy dtype each time)

    @property
    def bits(self) -> int:
        return 8 * self.itemsize

    @property
    def bits_dtype(self) -> np.dtype:
        """The unsigned integer type of the same width: how dmlc sees an element's raw bits."""
        return np.dtype(f"uint{self.bits}")

    @property
    def is_signed_int(self) -> bool:
        return self.value.startswith("int")

    @property
    def is_index(self) -> bool:
        """May this type hold indices (IndicesTensor)?"""
        return self in INDEX_TYPES

    @classmethod
    def of(cls, value: object) -> DataType:
        """Accept a DataType, a DirectML name ("FLOAT32", "DML_TENSOR_DATA_TYPE_FLOAT32"), numpy's
        exact spelling ("float32") or a numpy dtype or scalar type. Nothing looser: "int",
        "float", "half" or None would each mean a type the caller may not have meant."""
        if isinstance(value, cls):
            return value
        if isinstance(value, str):
            name = value.removeprefix("DML_TENSOR_DATA_TYPE_")
            if name in cls.__members__:
                return cls[name]
            if value in cls._value2member_map_:
                return cls(value)
        elif isinstance(value, np.dtype) or (isinstance(value, type)
                                             and issubclass(value, np.generic)):
            found = _OF_NUMPY.get(np.dtype(value))  # (dtype.name is slow in numpy 1)
            if found is not None:
                return found
            name = np.dtype(value).name  # another byte order
            if name in cls._value2member_map_:
                return cls(name)
        raise ValueError(f"not a DirectML data type: {value!r} (accepted: "
                         + ", ".join(cls.__members__) + ", or numpy's "
                         + ", ".join(t.value for t in cls) + ")")


_NUMPY = {t.value: np.dtype(t.value) for t in DataType}
_ITEMSIZES = {name: dtype.itemsize for name, dtype in _NUMPY.items()}
_OF_NUMPY = {np.dtype(t.value): t for t in DataType}
INDEX_TYPES = (DataType.INT32, DataType.INT64, DataType.UINT32, DataType.UINT64)


def padded_words(count: int, itemsize: int) -> int:
    """32-bit words that `count` elements of `itemsize` bytes occupy on the device: whole
    16-byte vectors (at least one), so that shaders may read any buffer as uvec4s. The one place
    this layout rule is written: IR buffers and the runtime's tensors both use it."""
    return max(4, -(-count * itemsize // 16) * 4)


def as_ndarray(op: str, field: str, value: Any) -> np.ndarray:
    """np.asarray(value), in the machine's byte order (a big-endian array is converted: one
    copy; the device sees its values, not its raw bytes). What numpy refuses (a ragged
    list...) is a ValidationError."""
    try:
        a = np.asarray(value)
    except Exception as e:
        raise ValidationError(op, field, "an array", type(value).__name__, str(e)) from None
    if a.dtype.byteorder not in ("=", "|"):  # "<" or ">" differs from this machine's order
        a = a.astype(a.dtype.newbyteorder("="))
    return a


def data_type_of(op: str, field: str, dtype: Any) -> DataType:
    """The DataType of a numpy dtype (or anything np.dtype takes), else a ValidationError."""
    try:
        return DataType.of(np.dtype(dtype))
    except (TypeError, ValueError):
        raise ValidationError(op, field, "one of " + ", ".join(d.value for d in DataType),
                              getattr(dtype, "name", repr(dtype))) from None
