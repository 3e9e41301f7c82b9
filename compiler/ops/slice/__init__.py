"""DML_SLICE1, DML_SLICE and DML_SLICE_GRAD: strided windows, read and written back."""
from __future__ import annotations

from ...family.generic import GenericRules
from ...family.registry import Family, Rules
from .api import slice, slice_grad
from .desc import Slice1Desc, SliceDesc, SliceGradDesc
from .generic import (
    lower_slice_generic,
    slice_free,
    slice_key,
    slice_offsets,
    slice_sizes,
    slice_variants,
)
from .lower import lower_slice, lower_slice0, lower_slice_grad
from .validate import validate_slice, validate_slice0, validate_slice_grad

__all__ = ['slice', 'slice_grad', 'Slice1Desc', 'SliceDesc', 'SliceGradDesc']

FAMILY = Family(
    "slice",
    {
        Slice1Desc: Rules(validate_slice, lower_slice, generic=GenericRules(
            slice_sizes, slice_free, slice_key, lower_slice_generic, variants=slice_variants,
            offsets=slice_offsets)),
        SliceDesc: Rules(validate_slice0, lower_slice0),
        SliceGradDesc: Rules(validate_slice_grad, lower_slice_grad),
    },
    exports=tuple(__all__))
