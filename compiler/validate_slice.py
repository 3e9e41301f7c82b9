"""Validation of DML_SLICE1 (DML_SLICE_GRAD checks its window with the same rules)."""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from .descriptors import Slice1Desc
from .errors import ValidationError
from .tensor_checks import check_int_list, check_tensor, min_size, resolve_output


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
            if o > m:
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
