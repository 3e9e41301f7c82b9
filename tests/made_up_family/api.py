"""The one-shot mirror, as every family's one-shot function is built."""
from __future__ import annotations

from typing import Any

from dmlc.compiled import cached_compile
from dmlc.oneshot import as_array, buffer_of, call, tensor_of
from dmlc.oneshot.numbers import axis_of

from .desc import MirrorDesc


def mirror(x: Any, axis: int = 0, out: Any = None) -> Any:
    """`x` reversed along `axis` (negative counts from the end)."""
    a = as_array(MirrorDesc.operator, "InputTensor", x)
    desc = MirrorDesc(input=tensor_of(a), axis=axis_of(MirrorDesc.operator, axis, a.ndim))
    return call(cached_compile(desc), (buffer_of(a),), out)
