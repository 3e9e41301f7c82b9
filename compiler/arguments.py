"""What a compiled kernel accepts as arguments: arrays or device tensors of exactly the tensors
it was compiled for. Checked the same way before a device call and before the interpreter's
reference run, so both refuse the same calls with the same errors.

Device-free: a DeviceTensor is recognized without importing the runtime (see is_device_tensor),
so `import dmlc` and compiling load no runtime module.
"""
from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from .descriptors import (
    ExpressionDesc,
    OperatorDesc,
    TensorDesc,
    dml_field,
)
from .dtypes import as_ndarray
from .errors import ValidationError
from .tensor_checks import fmt


def is_device_tensor(a: Any) -> bool:
    """Whether `a` is a dmlc DeviceTensor. Until dmlc.runtime.tensor is imported, no device
    tensor can exist, so the answer is False without importing it (and kp with it)."""
    # getattr: while another thread is still importing the module, the class may not exist yet
    # (and so neither can an instance of it)
    cls = getattr(sys.modules.get("dmlc.runtime.tensor"), "DeviceTensor", None)
    return cls is not None and isinstance(a, cls)


def check_device_tensor(op: str, field_name: str, a: Any, t: TensorDesc) -> None:
    """A DeviceTensor argument must hold the tensor the kernel was compiled for, as a numpy
    argument must: its shape, or for a tensor with explicit strides any buffer of at least the
    elements they span (a flat one, say)."""
    if not is_device_tensor(a):
        raise ValidationError(op, field_name, "a dmlc DeviceTensor (dmlc.to_device / "
                              "dmlc.empty)", type(a).__name__)
    a.check_usable(f"{op}: {field_name}")
    if not a.is_packed:  # CompiledKernel.__call__ packs views before this
        raise ValidationError(op, field_name, "a packed tensor (its elements first in its "
                              "buffer, in order)", f"a view with strides {fmt(a.strides)} at "
                              f"offset {a.offset}")
    if a.dtype != t.data_type.numpy:
        raise ValidationError(op, f"{field_name} dtype", t.data_type.numpy.name, a.dtype.name)
    if t.strides is None and a.shape != t.sizes:
        raise ValidationError(op, f"{field_name} shape", fmt(t.sizes), fmt(a.shape))
    if t.strides is not None and a.size < t.buffer_elements:
        raise ValidationError(op, f"{field_name} buffer", f">= {t.buffer_elements} elements "
                              f"for strides {fmt(t.strides)}", a.size)


def same_layout(t: TensorDesc, view: Any) -> bool:
    """Whether a kernel's tensor `t` lies where the device view does in its buffer: the same
    sizes, offset and strides (those of size-1 dimensions never matter)."""
    return t.sizes == view.shape and t.offset == view.offset and all(
        a == b for a, b, n in zip(t.element_strides, view.strides, t.sizes) if n > 1)


def check_out(op: str, out: Any, t: TensorDesc) -> None:
    """out= must be a device tensor of the output's dtype and shape: any view of one (the
    result is written where its elements lie). An output with strides of its own is the
    flat buffer it lies in (as an input with strides is)."""
    if not is_device_tensor(out):
        raise ValidationError(op, "out", "a dmlc DeviceTensor (dmlc.to_device / dmlc.empty) "
                              "or a numpy array", type(out).__name__)
    out.check_usable(f"{op}: out")
    if out.dtype != t.data_type.numpy:
        raise ValidationError(op, "out dtype", t.data_type.numpy.name, out.dtype.name)
    if t.is_packed and out.shape != t.sizes:
        raise ValidationError(op, "out shape", fmt(t.sizes), fmt(out.shape))
    if not t.is_packed and not (out.is_packed and out.size >= t.buffer_elements):
        raise ValidationError(op, "out", f"the tensor OutputTensor's strides lie in: a "
                              f"buffer of >= {t.buffer_elements} elements",
                              f"{fmt(out.shape)} at offset {out.offset}" if not out.is_packed
                              else out.size)


def argument(desc: OperatorDesc, name: str) -> tuple[TensorDesc, str]:
    """The tensor behind the program input `name`, and how errors call it."""
    if isinstance(desc, ExpressionDesc):
        return desc.tensor(name), name
    field, _, k = name.rpartition("_")  # an item of a tensor list (descriptors.list_argument)
    if k.isdigit() and isinstance(getattr(desc, field, None), tuple):
        return getattr(desc, field)[int(k)], f"{dml_field(desc, field)}[{k}]"
    return getattr(desc, name), dml_field(desc, name)


def check_arguments(desc: OperatorDesc, names: Sequence[str],
                    arrays: Sequence[Any]) -> list[Any]:
    """The call's arguments for the program inputs `names`, each checked against its tensor:
    device tensors as they are, anything else as a numpy array of the tensor's dtype and shape
    (or, for a strided tensor, at least the elements its strides span)."""
    op = desc.operator
    if len(arrays) != len(names):
        raise ValidationError(op, "arguments", f"{len(names)} arrays ({', '.join(names)})",
                              len(arrays))
    out = []
    for name, a in zip(names, arrays):
        t, field_name = argument(desc, name)
        if is_device_tensor(a):
            check_device_tensor(op, field_name, a, t)
            out.append(a)
            continue
        a = as_ndarray(op, field_name, a)
        if a.dtype != t.data_type.numpy:
            raise ValidationError(op, f"{field_name} array dtype", t.data_type.numpy.name,
                                  a.dtype.name)
        if t.strides is None and a.shape != t.sizes:
            raise ValidationError(op, f"{field_name} array shape", fmt(t.sizes), fmt(a.shape))
        if t.strides is not None and a.size < t.buffer_elements:
            raise ValidationError(op, f"{field_name} buffer", f">= {t.buffer_elements} "
                                  f"elements for strides {fmt(t.strides)}", a.size)
        out.append(a)
    return out

