"""A made-up operator family, DML_MIRROR (output[..., i, ...] = input[..., n - 1 - i, ...] along
Axis), written as any family of dmlc/ops is: this folder alone (desc, validate, lower, api),
registered by importing it. tests/test_made_up_family.py shows that nothing outside the folder
needs an edit for dmlc.compile, the .dml front end, the one-shot function and the device to
take it."""
from __future__ import annotations

from dmlc.family.registry import Family, Rules

from .api import mirror
from .desc import MirrorDesc
from .lower import lower_mirror
from .validate import validate_mirror

__all__ = ["mirror", "MirrorDesc"]

FAMILY = Family("made_up_mirror", {MirrorDesc: Rules(validate_mirror, lower_mirror)},
                exports=tuple(__all__))
