"""DML_SLICE1 and DML_SLICE.

DML_SLICE1 has one lowering, over sizes that are numbers or push constants: the window read as
the copy of a view of the input (family/view_copy.py), its start and strides folded into the
view's offset and strides (the start is the offset, or offset + size - 1 where the stride is
negative). The specialized kernel (lower_slice) is that lowering with every size its number,
what it leaves pushed bound (ir/specialize.py); a generic kernel (lower_slice_generic) takes
the window's output sizes at dispatch, its start at a pushed offset, positive window strides
only. DML_SLICE is the DML_SLICE1 that reads the same elements.

DML_SLICE_GRAD: grad.py.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...family.generic import GenericProgram, masked, static_program
from ...family.registry import PLAIN, LowerContext
from ...family.tensor import TensorDesc, derived
from ...family.view_copy import lower_view_copy, view_variants
from ...ir import Program
from .desc import Slice1Desc, SliceDesc, SliceGradDesc
from .validate import as_slice1


def window_starts(desc: Slice1Desc | SliceGradDesc) -> list[int]:
    """Start = offset, or offset + size - 1 when the stride is negative."""
    return [o + s - 1 if st < 0 else o for o, s, st in zip(desc.offsets, desc.sizes, desc.strides)]


def lower_slice(desc: Slice1Desc, ctx: LowerContext = PLAIN) -> Program:
    """The specialized kernel: the generic lowering with every size its number, bound."""
    return static_program(lower_slice_generic(desc, (), static=True), desc)


def lower_slice0(desc: SliceDesc, ctx: LowerContext = PLAIN) -> Program:
    return lower_slice(as_slice1(desc))


def slice_view(desc: Slice1Desc) -> tuple[TensorDesc, TensorDesc]:
    """The window as a view of the input's buffer (strides the input's times the window's,
    offset at the window's first element, window_starts'), and the output without strides
    (validation takes a packed one only: given packed strides say nothing more, and a copy
    into an output of strides would write it element by element)."""
    inp, out = desc.input, desc.output
    assert out is not None, "validate() first"
    st = inp.element_strides
    view = TensorDesc(data_type=inp.data_type, sizes=out.sizes,
                      strides=tuple(a * s for a, s in zip(st, desc.strides)),
                      offset=inp.offset + sum(o * a for o, a in zip(window_starts(desc), st)))
    return view, (out if out.strides is None else derived(out, strides=None))


def slice_copy(desc: Slice1Desc) -> tuple[TensorDesc, TensorDesc] | None:
    """The window as a view and the packed output (Rules.copy_of), where its strides are
    positive (slice_view's view)."""
    return slice_view(desc) if all(s > 0 for s in desc.strides) else None


def slice_sizes(desc: Slice1Desc) -> tuple[int, ...]:
    """The sizes a generic slice may take at dispatch: the output's."""
    return slice_view(desc)[1].sizes


def slice_offsets(desc: Slice1Desc) -> tuple[int, ...]:
    """The offset a generic slice takes at dispatch: its view's (the window's start)."""
    return (slice_view(desc)[0].offset,)


def slice_free(desc: Slice1Desc) -> tuple[int, ...]:
    return tuple(range(desc.input.rank))


def slice_key(desc: Slice1Desc, dims: Sequence[int]) -> tuple[Any, ...]:
    """The view's key, and which window strides are negative: no generic kernel is lowered for
    a negative one (lower_slice_generic), so such a call must never find one by its key (a
    reversed input read by a reversing window is a view of positive strides too)."""
    view, out = slice_view(desc)
    return (desc.operator, masked(view, dims, offset=True), masked(out, dims),
            tuple(s < 0 for s in desc.strides))


def slice_variants(desc: Slice1Desc, dims: Sequence[int]) -> tuple[str, ...]:
    return view_variants(slice_view(desc)[0], dims)


def lower_slice_generic(desc: Slice1Desc, dims: Sequence[int], variant: str = "scalar",
                        static: bool = False) -> GenericProgram | None:
    """The window of `desc` with its output sizes at `dims` dynamic (None for a negative
    window stride); static: the specialized kernel's lowering (lower_slice binds it), which
    takes every descriptor."""
    if not static and any(s < 0 for s in desc.strides):
        return None
    return lower_view_copy("slice", slice_view, desc, dims, variant, static, desc.input)
