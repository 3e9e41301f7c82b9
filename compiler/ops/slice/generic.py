"""DML_SLICE1 as a generic kernel: a window whose sizes are push constants, read as the copy of
a view of the input (family/view_copy.py): the window's start and strides fold into the view's
offset and strides. Positive window strides only (a negative one starts at offset + size - 1,
which moves with the size)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...family.generic import GenericProgram, masked
from ...family.tensor import TensorDesc
from ...family.view_copy import lower_view_copy, view_variants
from .desc import Slice1Desc


def slice_view(desc: Slice1Desc) -> tuple[TensorDesc, TensorDesc]:
    """The window as a view of the input's buffer (strides the input's times the window's,
    offset at the window's first element), and the packed output."""
    inp, out = desc.input, desc.output
    assert out is not None, "validate() first"
    st = inp.element_strides
    view = TensorDesc(data_type=inp.data_type, sizes=out.sizes,
                      strides=tuple(a * s for a, s in zip(st, desc.strides)),
                      offset=inp.offset + sum(o * a for o, a in zip(desc.offsets, st)))
    return view, out


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
    """The view's key, and which window strides are negative: slice_view holds only for
    positive ones (a reversed input read by a reversing window is a view of stride +1 too, whose
    first element is not where slice_view puts it), and no generic kernel is lowered for a
    negative one, so such a call must never find one by its key."""
    view, out = slice_view(desc)
    return (desc.operator, masked(view, dims, offset=True), masked(out, dims),
            tuple(s < 0 for s in desc.strides))


def slice_variants(desc: Slice1Desc, dims: Sequence[int]) -> tuple[str, ...]:
    return view_variants(slice_view(desc)[0], dims)


def lower_slice_generic(desc: Slice1Desc, dims: Sequence[int],
                        variant: str = "scalar") -> GenericProgram | None:
    if any(s < 0 for s in desc.strides):
        return None
    return lower_view_copy("slice", slice_view, desc, dims, variant)
