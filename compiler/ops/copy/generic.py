"""DML_ELEMENT_WISE_IDENTITY as a generic kernel: the copy of a view whose sizes are push
constants (`dmlc.copy(cache[:, :, :t])` for every t; family/generic.py)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...family.generic import GenericProgram, layouts, masked
from ...family.tensor import TensorDesc
from ...family.view_copy import lower_view_copy, view_variants
from .desc import IdentityDesc


def identity_sizes(desc: IdentityDesc) -> tuple[int, ...]:
    """The sizes a generic copy may take at dispatch: the input's (the output's are the same)."""
    return desc.input.sizes


def identity_free(desc: IdentityDesc) -> tuple[int, ...]:
    return tuple(range(desc.input.rank))


def identity_layouts(desc: IdentityDesc, dims: Sequence[int]) -> tuple[Any, ...]:
    return layouts(desc, "input", dims)


def identity_key(desc: IdentityDesc, dims: Sequence[int]) -> tuple[Any, ...]:
    out = desc.output
    assert out is not None
    return (desc.operator, masked(desc.input, dims, offset=True), masked(out, dims),
            desc.scale_bias)


def identity_variants(desc: IdentityDesc, dims: Sequence[int]) -> tuple[str, ...]:
    """family/view_copy.py's view_variants of the input."""
    return view_variants(desc.input, dims)


def _view(desc: IdentityDesc) -> tuple[TensorDesc, TensorDesc]:
    assert desc.output is not None, "validate() first"
    return desc.input, desc.output


def identity_copy(desc: IdentityDesc) -> tuple[TensorDesc, TensorDesc] | None:
    """The input view and the packed output (Rules.copy_of): every identity is a copy."""
    return _view(desc)


def lower_identity_generic(desc: IdentityDesc, dims: Sequence[int],
                           variant: str = "scalar") -> GenericProgram | None:
    """output = input with the sizes at `dims` dynamic (family/view_copy.py)."""
    return lower_view_copy("identity", _view, desc, dims, variant)
