"""DML_ELEMENT_WISE_IDENTITY: one lowering, over sizes that are numbers or push constants
(family/view_copy.py): each output element reads the input's view at its coordinates (its
strides fold into the address); an output with strides (dmlc: a view written in place,
`DeviceTensor.__setitem__`) is written where its layout puts each element.

The specialized kernel (lower_identity) is the lowering with every size its number, what it
leaves pushed bound to the call's values (ir/specialize.py). A generic kernel
(lower_identity_generic) takes the sizes at `dims` at dispatch: `dmlc.copy(cache[:, :, :t])`
for every t, one kernel."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...family.generic import GenericProgram, layouts, masked, static_program
from ...family.registry import PLAIN, LowerContext
from ...family.tensor import TensorDesc
from ...family.view_copy import lower_view_copy, view_variants
from ...ir import Program
from .desc import IdentityDesc


def lower_identity(desc: IdentityDesc, ctx: LowerContext = PLAIN) -> Program:
    """The specialized kernel: the generic lowering with every size its number, bound."""
    return static_program(lower_identity_generic(desc, (), static=True), desc)


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


def lower_identity_generic(desc: IdentityDesc, dims: Sequence[int], variant: str = "scalar",
                           static: bool = False) -> GenericProgram | None:
    """output = input with the sizes at `dims` dynamic (family/view_copy.py); static: the
    specialized kernel's lowering (lower_identity binds it)."""
    return lower_view_copy("identity", _view, desc, dims, variant, static)
