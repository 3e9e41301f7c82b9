"""DML_SCATTER and DML_SCATTER_ND lowered, deterministic whatever the device: which kernels
(kernels.py) a scatter becomes, one policy for both.

Copying (out= anything else): the output starts as a copy of the input.
  Lines (32/64-bit data on a CPU target such as lavapipe, with enough lines of at most
  MAX_STEPS updates): copy, then lines. Measured on lavapipe (scatter f32 [2048, 2048] axis 0
  with hand-written shaders, ratio to the copy shader): 0.26 unique and 0.47 colliding,
  against 0.09 and 0.19 for the vote.
  Vote (a GPU target: it needs far more invocations than there are lines; 8/16-bit data, whose
  lines would share 32-bit words; very long or very few lines): vote, then resolve.
In place (out= the data tensor: a KV cache updated per token): the data tensor is the output
and nothing is copied. The lines kernel alone, whose cost follows the updates, for any data
width; where the lines would be few and long (or longer than a kernel's loop may be), the vote
with the output as its own original. The data tensor may be any view (an offset, strides of
any sign: a KV cache's slice, a transpose): the output takes the input's layout, so the updates
land where the view's elements lie.
Reductions (reduce.py) combine in order along the lines, copying or in place.
Either way the last update in row-major order of `updates` wins (docs/decisions.md).
Sizes at dispatch (generic.py): the lines form, copying or in place, on the cpu target.
"""
from __future__ import annotations

import dataclasses
from typing import TypeVar

from ...dtypes import DataType
from ...family.registry import LowerContext
from ...ir import Buffer, Program
from ...ir.verify import MAX_STEPS
from .desc import ScatterDesc, ScatterNDDesc
from .kernels import (
    buffers,
    copy_kernel,
    lines_and_steps,
    lines_kernel,
    prefix,
    program,
    vote_kernels,
)
from .reduce import lower_scatter_reduce

LINES_MIN = 256
"""Fewer lines than this scatter by vote: each line is one invocation's loop, and a few long
loops leave the device idle."""
IN_PLACE_SHORT = 64
"""In place, lines of at most this many steps run as lines however few they are."""

Scatter = TypeVar("Scatter", bound=ScatterDesc | ScatterNDDesc)


def lower_scatter_family(desc: ScatterDesc | ScatterNDDesc, ctx: LowerContext) -> Program:
    if ctx.in_place:
        desc = in_place_layout(desc)
    if desc.reduction != "none":
        return lower_scatter_reduce(desc, ctx.in_place)
    out = desc.output
    assert out is not None, "validate() first"
    lines, steps = lines_and_steps(desc)
    if ctx.in_place:
        by_lines = steps <= MAX_STEPS and (lines >= LINES_MIN or steps <= IN_PLACE_SHORT)
    else:
        by_lines = (ctx.target == "cpu" and out.data_type.bits >= 32 and steps <= MAX_STEPS
                    and lines >= LINES_MIN)
    b_in, b_idx, b_upd, b_out = buffers(desc)
    name = prefix(desc)
    if by_lines:
        k_lines = lines_kernel(desc, b_idx, b_upd, b_out)
        kernels = (k_lines,) if ctx.in_place else (copy_kernel(desc, b_in, b_out), k_lines)
        return program(desc, name, (b_in, b_idx, b_upd, b_out), kernels, ctx.in_place)
    b_win = Buffer("winner", DataType.UINT32, out.element_count, "scratch")
    # in place, the output holds the original (its own element: read before it is written)
    original = (b_out, out) if ctx.in_place else (b_in, desc.input)
    vote = vote_kernels(desc, b_idx, b_upd, *original, b_out, b_win)
    return program(desc, name, (b_in, b_idx, b_upd, b_out, b_win), vote, ctx.in_place)


def in_place_layout(desc: Scatter) -> Scatter:
    """In place, the data tensor is the output: the output takes the input's layout (a view's
    strides and offset; unchanged where the input is the whole buffer: no strides, no
    offset)."""
    if desc.input.strides is None and not desc.input.offset:
        return desc
    return dataclasses.replace(desc, output=desc.input)
