"""DML_GATHER and DML_GATHER_ELEMENTS (numpy's take and take_along_axis are in dmlc.numpy_api)."""
from __future__ import annotations

from ...family.generic import GenericRules
from ...family.registry import Family, Rules
from .api import gather, gather_elements
from .desc import GatherDesc, GatherElementsDesc
from .elements import (
    elements_free,
    elements_key,
    elements_sizes,
    elements_variants,
    lower_elements_checked,
    lower_elements_generic,
    lower_gather_elements,
)
from .lower import (
    gather_always,
    gather_free,
    gather_key,
    gather_layouts,
    gather_sizes,
    gather_variants,
    lower_gather,
    lower_gather_checked,
    lower_gather_generic,
)
from .validate import validate_gather, validate_gather_elements

__all__ = ['gather', 'gather_elements', 'GatherDesc', 'GatherElementsDesc']

FAMILY = Family(
    "gather",
    {
        GatherDesc: Rules(validate_gather, lower_gather, generic=GenericRules(
            gather_sizes, gather_free, gather_key, lower_gather_generic, gather_layouts,
            variants=gather_variants, checked=lower_gather_checked, always=gather_always)),
        GatherElementsDesc: Rules(validate_gather_elements, lower_gather_elements,
                                  generic=GenericRules(
                                      elements_sizes, elements_free, elements_key,
                                      lower_elements_generic, variants=elements_variants,
                                      checked=lower_elements_checked)),
    },
    exports=tuple(__all__))
