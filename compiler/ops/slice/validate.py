"""Validation of DML_SLICE1, DML_SLICE and DML_SLICE_GRAD (whose window follows DML_SLICE1's
rules)."""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ...errors import ValidationError
from ...family.checks import (
    check_int_list,
    check_same_type,
    check_sizes,
    check_tensor,
    fmt,
    min_size,
    resolve_output,
)
from .desc import Slice1Desc, SliceDesc, SliceGradDesc


def slice_max_sizes(sizes: Sequence[int], strides: Sequence[int]) -> tuple[int, ...]:
    """The largest output each window allows: 1 + (size - 1) // |stride|."""
    return tuple(1 + (s - 1) // abs(st) for s, st in zip(sizes, strides))


def validate_slice(desc: Slice1Desc) -> Slice1Desc:
    op = desc.operator
    check_tensor(op, "InputTensor", desc.input)
    d = desc.input.rank
    offsets = check_int_list(op, "InputWindowOffsets", desc.offsets, d, minimum=0)
    sizes = check_int_list(op, "InputWindowSizes", desc.sizes, d, minimum=min_size())
    strides = check_int_list(op, "InputWindowStrides", desc.strides, d)
    for i, (o, s, st, n) in enumerate(zip(offsets, sizes, strides, desc.input.sizes)):
        if st == 0:
            raise ValidationError(op, f"InputWindowStrides[{i}]", "a non-zero integer", 0)
        if o + s > n:
            raise ValidationError(op, f"InputWindowSizes[{i}]",
                                  f"offset + size <= InputTensor.Sizes[{i}] = {n}",
                                  f"{o} + {s} = {o + s}", "the window leaves the input")
    limit = slice_max_sizes(sizes, strides)
    if desc.output is None:
        out_sizes = limit
    else:
        check_tensor(op, "OutputTensor", desc.output, d)
        out_sizes = desc.output.sizes
        for i, (o, m) in enumerate(zip(out_sizes, limit)):
            # DirectML: 1 <= OutputSizes[i]. An explicit 0 is refused even where the one-shot
            # slice allows zero sizes; only an empty window (InputWindowSizes[i] = 0, numpy's
            # x[2:2]) has an output of 0, and then that is the one size it may have.
            if m == 0 and o != 0:
                raise ValidationError(op, f"OutputTensor.Sizes[{i}]", "0 (InputWindowSizes"
                                      f"[{i}] = 0: the window is empty)", o)
            if m > 0 and not 1 <= o <= m:
                raise ValidationError(op, f"OutputTensor.Sizes[{i}]", f"1 to {m} "
                                      f"(1 + (InputWindowSizes[{i}] - 1) // |stride|)", o)
    out = resolve_output(op, desc, out_sizes, desc.input.data_type)
    # A stride along an axis the output has one element of never moves: one beyond the shaders'
    # 32-bit arithmetic is normalized to +-(the window's size), which fits and keeps both its
    # sign (it picks the window's first or last element) and the window's largest output, 1:
    # validating the normalized descriptor again (DML_SLICE_GRAD's window) gives the same.
    strides = tuple(st if n > 1 or abs(st) < 2**31 else (max(s, 1) if st > 0 else -max(s, 1))
                    for n, st, s in zip(out.sizes, strides, sizes))
    return dataclasses.replace(desc, offsets=offsets, sizes=sizes, strides=strides, output=out)


def validate_slice0(desc: SliceDesc) -> SliceDesc:
    op = desc.operator
    check_tensor(op, "InputTensor", desc.input)
    d = desc.input.rank
    offsets = check_int_list(op, "Offsets", desc.offsets, d, minimum=0)
    sizes = check_int_list(op, "Sizes", desc.sizes, d, minimum=1)
    strides = check_int_list(op, "Strides", desc.strides, d, minimum=1)
    for i, (o, s, st, n) in enumerate(zip(offsets, sizes, strides, desc.input.sizes)):
        last = o + st * (s - 1)
        if last >= n:
            raise ValidationError(op, f"Sizes[{i}]", f"elements inside InputTensor.Sizes[{i}] "
                                  f"= {n}: offset + stride * (size - 1) < {n}",
                                  f"{o} + {st} * {s - 1} = {last}")
    out = resolve_output(op, desc, sizes, desc.input.data_type)
    return dataclasses.replace(desc, offsets=offsets, sizes=sizes, strides=strides, output=out)


def as_slice1(desc: SliceDesc) -> Slice1Desc:
    """The DML_SLICE1 that reads what a validated DML_SLICE reads."""
    assert desc.output is not None
    windows = tuple(st * (s - 1) + 1 for s, st in zip(desc.sizes, desc.strides))
    return Slice1Desc(input=desc.input, offsets=desc.offsets, sizes=windows,
                      strides=desc.strides, output=desc.output)


def validate_slice_grad(desc: SliceGradDesc) -> SliceGradDesc:
    op = desc.operator
    dy, out = desc.input_gradient, desc.output_gradient
    check_tensor(op, "OutputGradientTensor", out)
    check_tensor(op, "InputGradientTensor", dy, out.rank)
    check_same_type(op, "InputGradientTensor", dy, out.data_type)
    if not out.is_packed:
        raise ValidationError(op, "OutputGradientTensor.Strides", "packed", fmt(out.sizes))
    try:
        window = validate_slice(Slice1Desc(input=out, offsets=desc.offsets, sizes=desc.sizes,
                                           strides=desc.strides))
    except ValidationError as e:
        raise ValidationError(op, e.field.replace("InputTensor", "OutputGradientTensor"),
                              e.expected, e.actual) from None
    assert window.output is not None
    check_sizes(op, "InputGradientTensor", dy.sizes, window.output.sizes,
                "the slice's output sizes")
    return dataclasses.replace(desc, offsets=window.offsets, sizes=window.sizes,
                               strides=window.strides)
