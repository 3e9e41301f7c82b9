"""DML_SLICE1, DML_SLICE and DML_SLICE_GRAD: strided windows, read and written back."""
from __future__ import annotations

from ...family.generic import GenericRules
from ...family.registry import Family, Rules
from .api import slice, slice_grad
from .desc import Slice1Desc, SliceDesc, SliceGradDesc
from .grad import (
    grad_free,
    grad_key,
    grad_layouts,
    grad_offsets,
    grad_sizes,
    lower_slice_grad,
    lower_slice_grad_generic,
)
from .lower import (
    lower_slice,
    lower_slice0,
    lower_slice_generic,
    slice_copy,
    slice_free,
    slice_key,
    slice_offsets,
    slice_sizes,
    slice_variants,
)
from .validate import validate_slice, validate_slice0, validate_slice_grad

__all__ = ['slice', 'slice_grad', 'Slice1Desc', 'SliceDesc', 'SliceGradDesc']

GENERIC = GenericRules(slice_sizes, slice_free, slice_key, lower_slice_generic,
                       variants=slice_variants, offsets=slice_offsets)
"""DML_SLICE1's generic kernels, and DML_SLICE's (the same fields, strides >= 1): a window read
as the copy of a view of the input (lower.py); the key holds the operator."""

GRAD_GENERIC = GenericRules(grad_sizes, grad_free, grad_key, lower_slice_grad_generic,
                            grad_layouts, offsets=grad_offsets)
"""DML_SLICE_GRAD's generic kernels: the input gradient's and the output's sizes at dispatch,
the window's offsets and strides fixed, a negative stride's start pushed (grad.py)."""

FAMILY = Family(
    "slice",
    {
        Slice1Desc: Rules(validate_slice, lower_slice, generic=GENERIC, copy_of=slice_copy),
        SliceDesc: Rules(validate_slice0, lower_slice0, generic=GENERIC,  # Slice1's fields
                         copy_of=slice_copy),
        SliceGradDesc: Rules(validate_slice_grad, lower_slice_grad, generic=GRAD_GENERIC),
    },
    exports=tuple(__all__))
