"""The one-shot pad: DirectML's start/end form and numpy's pad_width form."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...compiled import cached_compile
from ...dtypes import DataType
from ...errors import ValidationError
from ...oneshot import as_array, buffer_of, call, tensor_of
from ...oneshot.bools import moves_bools
from ...oneshot.empty import is_empty, result, validate_empty
from ...oneshot.numbers import int_arguments
from .desc import PADDING_MODES, ElementBits, PaddingDesc
from .validate import padding_bits

_MODES = {"constant": PADDING_MODES[0], "edge": PADDING_MODES[1], "reflect": PADDING_MODES[2],
          "symmetric": PADDING_MODES[3], "wrap": PADDING_MODES[4],
          # DirectML's names: the bare word of DML_PADDING_MODE_REFLECTION, and each in full
          "reflection": PADDING_MODES[2], **{m: m for m in PADDING_MODES}}


@moves_bools(PaddingDesc.operator, "x", scalars=("value", "constant_values"))
def pad(x: Any, start: Any, end: Any = None, mode: str = "constant", value: Any = 0,
        out: Any = None, *, constant_values: Any = None) -> Any:
    """DML_PADDING1: `x` with start[d] elements before and end[d] after it on each dimension
    (an integer: every dimension), filled as numpy.pad's mode says: "constant" (with `value`,
    exact for every integer type; a numpy float NaN keeps its payload), "edge", "reflect",
    "symmetric" or "wrap" (DirectML's names too: "reflection", or DML_PADDING_MODE_REFLECTION
    and the others in full). The mirrors and wrap reach at most one width of x beyond its edge
    (reflect: one less). A bool x is filled with `value` cast to bool, as numpy casts it.

    numpy's form too: pad(x, pad_width, mode, constant_values=...), pad_width an integer, a
    (before, after) pair for every dimension, or one pair per dimension; constant_values one
    value (DML_PADDING has one; pairs of it are taken when they are all the same).

    Parameters
    ----------
    x : array_like or DeviceTensor
        The tensor to pad.
    start : int or sequence of int
        Elements before x on each dimension (numpy's form: its pad_width).
    end : int or sequence of int, optional
        Elements after x on each dimension.
    mode : str, default "constant"
        "constant", "edge", "reflect", "symmetric" or "wrap".
    value : scalar, default 0
        The constant mode's fill.
    out : ndarray or DeviceTensor, optional
        Written with the result and returned.
    constant_values : scalar, optional
        numpy's name for `value`.

    Returns
    -------
    ndarray or DeviceTensor
        x padded, x's dtype.

    Raises
    ------
    ValidationError
        Paddings or a mode that DML_PADDING1 refuses (a mirror wider than x).

    Examples
    --------
    >>> x = np.array([1., 2., 3.], np.float32)
    >>> print(dmlc.pad(x, [1], [2], value=9))
    [9. 1. 2. 3. 9. 9.]
    >>> print(dmlc.pad(x, 2, mode="reflect"))
    [3. 2. 1. 2. 3. 2. 1.]
    >>> print(dmlc.pad(x, (1, 0), "edge"))
    [1. 1. 2. 3.]
    """
    op = PaddingDesc.operator
    a = as_array(op, "InputTensor", x)
    if isinstance(end, str):  # numpy's positional mode: pad(x, pad_width, "edge")
        if not (isinstance(mode, str) and mode == "constant"):
            raise ValidationError(op, "mode", "one mode", f"{end!r} and mode={mode!r}")
        end, mode = None, end
    if end is None:
        start, end = _pad_width(op, start, a.ndim)
    if not isinstance(mode, str) or mode not in _MODES:
        raise ValidationError(op, "mode", ", ".join(repr(m) for m in _MODES), repr(mode),
                              "numpy's linear_ramp, maximum, mean, median, minimum and empty "
                              "have no DirectML operator" if isinstance(mode, str)
                              and mode in _NUMPY_ONLY else "")
    if constant_values is not None:
        if not (isinstance(value, int) and value == 0):
            raise ValidationError(op, "constant_values", "value= or constant_values=, not "
                                  "both", f"value={value!r}")
        value = _one_constant(op, constant_values, a.ndim)
    if isinstance(value, np.floating) and np.isnan(value) and value.dtype == a.dtype:
        bits = np.asarray(value).view(f"u{a.dtype.itemsize}")  # its payload, kept
        value = ElementBits(a.dtype.name, int(bits))
    desc = PaddingDesc(input=tensor_of(a), mode=_MODES[mode],
                       start_padding=int_arguments(op, "StartPadding", start, a.ndim),
                       end_padding=int_arguments(op, "EndPadding", end, a.ndim), value=value)
    if is_empty(a):  # only the constant extends an empty dimension: all of it, or nothing
        t = validate_empty(desc).output
        dtype = DataType.of(a.dtype)
        fill = padding_bits(op, value, dtype) if t.element_count else 0
        return result(op, np.full(t.sizes, fill, dtype.bits_dtype).view(a.dtype), (a,), out)
    return call(cached_compile(desc), (buffer_of(a),), out)


_NUMPY_ONLY = ("linear_ramp", "maximum", "mean", "median", "minimum", "empty")


def _pad_width(op: str, pad_width: Any, rank: int) -> tuple[list[int], list[int]]:
    """numpy.pad's pad_width (its _as_pairs): n, (n,), (before, after) or ((before, after),)
    for every dimension, or one (before, after) per dimension; integers >= 0 (numpy refuses
    floats and bools too; unsigned ones, which numpy also refuses, are taken)."""
    try:
        widths = np.asarray(pad_width)
    except ValueError:  # ragged
        widths = np.asarray(None)
    if widths.dtype.kind not in "iu" or widths.size == 0:
        raise ValidationError(op, "pad_width", "integers: n, (before, after) or one (before, "
                              "after) per dimension", repr(pad_width),
                              "`pad_width` must be of integral type.")
    if widths.min() < 0:
        raise ValidationError(op, "pad_width", "widths >= 0", repr(pad_width),
                              "index can't contain negative values")
    if widths.size == 1:
        pairs = [(int(widths.flat[0]),) * 2] * rank
    elif widths.size == 2 and widths.shape != (2, 1):
        pairs = [(int(widths.flat[0]), int(widths.flat[1]))] * rank
    else:
        try:
            pairs = [(int(b), int(e)) for b, e in np.broadcast_to(widths, (rank, 2)).tolist()]
        except ValueError:
            raise ValidationError(op, "pad_width", f"a shape that broadcasts to ({rank}, 2)",
                                  widths.shape) from None
    return [b for b, _ in pairs], [e for _, e in pairs]


def _one_constant(op: str, values: Any, rank: int) -> Any:
    """numpy.pad's constant_values as DML_PADDING's one value: a number, or pairs of it."""
    if not isinstance(values, (list, tuple, np.ndarray)):
        return values
    try:
        items = np.asarray(values, dtype=object)
        np.broadcast_to(items, (rank, 2))
        first = items.flat[0]
        same = all(type(v) is type(first) and bool(v == first) for v in items.flat)
    except (ValueError, TypeError, IndexError):  # ragged, not pairs, empty, arrays inside
        same = False
    if not same:
        raise ValidationError(op, "constant_values", "one value (DML_PADDING's PaddingValue), "
                              "or pairs of that one value", repr(values))
    return first
