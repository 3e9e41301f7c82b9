"""Literal data in .dml files: nested rows of numbers -> numpy arrays of a DirectML type."""
from __future__ import annotations

import math

import numpy as np

from ..dtypes import DataType
from ..errors import ParseError
from ..family.checks import fmt
from ..family.literal import decimal_to_float, int_to_float
from ..family.tensor import TensorDesc
from .parser import Array, Loc, Number


class Source:
    """The text being read and its name, to point errors at a line and column."""

    def __init__(self, text: str, filename: str) -> None:
        self.text, self.filename = text, filename

    def error(self, message: str, loc: Loc | None) -> ParseError:
        line, column = (loc.line, loc.column) if loc else (0, 0)
        lines = self.text.splitlines()
        source_line = lines[line - 1].rstrip() if 0 < line <= len(lines) else ""
        return ParseError(message, filename=self.filename, line=line, column=column,
                          source_line=source_line)


def _shape(a: Array, src: Source, what: str) -> tuple[int, ...]:
    if not a.items or all(isinstance(x, Number) for x in a.items):
        return (len(a.items),)
    if not all(isinstance(x, Array) for x in a.items):
        raise src.error(f"{what}: mixes numbers and rows at one nesting level", a.loc)
    inner = [_shape(x, src, what) for x in a.items]  # type: ignore[arg-type]
    for x, s in zip(a.items, inner):
        if s != inner[0]:
            raise src.error(f"{what}: ragged rows: {fmt(s)} after {fmt(inner[0])}", x.loc)
    return (len(a.items),) + inner[0]


def _numbers(a: Array) -> list[Number]:
    out: list[Number] = []
    for x in a.items:
        out.extend(_numbers(x) if isinstance(x, Array) else [x])
    return out


def _convert(n: Number, dtype: DataType, src: Source, what: str) -> object:
    value = n.value()
    if dtype.value.startswith("float"):
        # an integer or a decimal rounds once, into the tensor's type (it is then a float64
        # exactly): through a float64 first, a decimal would round twice
        x = float(int_to_float(value, dtype)) if isinstance(value, int) else \
            decimal_to_float(n.text, dtype) if math.isfinite(value) else value
        # A finite literal must stay finite in the tensor's type (`inf` is written as inf),
        # after numpy's round-to-nearest (65519 is float16's 65504; 65520 is too large).
        with np.errstate(over="ignore"):
            rounded = float(np.asarray(x).astype(dtype.numpy))
        if "inf" not in n.text.lower() and math.isinf(rounded):
            raise src.error(f"{what}: {_short(n.text)} is outside {dtype.name}'s range "
                            f"(largest magnitude {np.finfo(dtype.numpy).max})", n.loc)
        return x
    if isinstance(value, float):
        if not math.isfinite(value) or value != int(value):
            raise src.error(f"{what}: {n.text} is not an integer ({dtype.name} data)", n.loc)
        value = int(value)
    info = np.iinfo(dtype.numpy)
    if not info.min <= value <= info.max:
        raise src.error(f"{what}: {n.text} is outside {dtype.name}'s range "
                        f"[{info.min}, {info.max}]", n.loc)
    return value


def _short(text: str) -> str:
    """A literal for a message: long ones shortened."""
    return text if len(text) <= 40 else f"{text[:20]}...{text[-8:]} ({len(text)} characters)"


def array_data(a: Array, t: TensorDesc, src: Source, what: str) -> np.ndarray:
    """The data as an array of t's logical sizes (strides are applied by `buffer_for`)."""
    shape = _shape(a, src, what)
    if math.prod(shape) != t.element_count or (shape != t.sizes and len(shape) > 1):
        raise src.error(f"{what}: expected {fmt(t.sizes)} values (Sizes), got rows of "
                        f"{fmt(shape)}", a.loc)
    values = [_convert(n, t.data_type, src, what) for n in _numbers(a)]
    return np.array(values, dtype=t.data_type.numpy).reshape(t.sizes)


def written_data(a: Array, dtype: DataType, src: Source, what: str) -> np.ndarray:
    """The data of a tensor of symbolic sizes: an array of the rows' own shape (the caller
    binds the sizes from it: lang/symbols.py)."""
    shape = _shape(a, src, what)
    values = [_convert(n, dtype, src, what) for n in _numbers(a)]
    return np.array(values, dtype=dtype.numpy).reshape(shape)


def buffer_for(values: np.ndarray, t: TensorDesc, src: Source, what: str,
               loc: Loc | None) -> np.ndarray:
    """The flat buffer a strided tensor reads `values` from (the array itself when packed)."""
    if t.is_packed:
        return values
    buf = np.zeros(t.buffer_elements, values.dtype)
    view = np.lib.stride_tricks.as_strided(buf, t.sizes, [s * buf.itemsize for s in
                                                          t.element_strides])
    view[...] = values
    if not np.array_equal(view.view(t.data_type.bits_dtype), values.view(t.data_type.bits_dtype)):
        raise src.error(f"{what}: values differ where Strides {fmt(t.element_strides)} make "
                        "elements share memory (a stride 0 repeats one value)", loc)
    return buf
