"""A compiled program as a JSON manifest: enough to run its SPIR-V from any Vulkan code.

`dmlc compile FILE --emit manifest -o DIR` writes DIR/NAME.manifest.json beside each kernel's
DIR/LABEL.spv. Schema (version 1; README "Shaders out"):

- kernels, in dispatch order (each sees every write of the ones before it: put a compute->compute
  memory barrier between them): SPIR-V file, entry point, workgroup size, invocations, the
  workgroups to launch and a dispatch grid that launches them within Vulkan's guaranteed limits
  (the shaders linearize the group id: any grid of at least that many groups works), and the
  buffer at each binding of descriptor set 0 (storage buffers).
- buffers: element type, element count, byte size (whole 16-byte vectors: bind that many bytes),
  access (read, write or read_write, over all kernels), what it must hold before the first
  dispatch (the caller's input, zeros, or nothing), and which program input or output it is.
- inputs and outputs: the buffers the caller fills and reads, with their shapes; an output may
  start at an element offset (DML_SPLIT's outputs share one buffer).
- vulkan: the API version and the features and extensions required (none optional today).
Element layout is little-endian with 8/16-bit elements packed into 32-bit words, 64-bit elements
as two words, low first: exactly the bytes of a C array (or numpy array) of the element type.
"""
from __future__ import annotations

import math
from typing import Any

from .arguments import argument
from .artifact import CompiledProgram
from .descriptors import SplitDesc
from .ir.kernel import Kernel
from .ir.ops import Op, toposort
from .toolchain import TARGET_ENV

VERSION = 1
GUARANTEED_GROUPS = 65535
"""maxComputeWorkGroupCount[0] and [1] that every Vulkan device supports."""

_READS = (Op.LOAD, Op.VLOAD)
_WRITES = (Op.STORE, Op.VSTORE, Op.WSTORE)
_BOTH = (Op.ATOMIC_MAX, Op.ATOMIC_STORE)


def dispatch(workgroups: int) -> list[int]:
    """A grid of at least `workgroups` groups within the guaranteed per-axis limits."""
    gx = min(max(workgroups, 1), GUARANTEED_GROUPS)
    return [gx, -(-workgroups // gx), 1]


def _access(kernels: tuple[Kernel, ...]) -> dict[str, set[str]]:
    seen: dict[str, set[str]] = {}
    for k in kernels:
        for n in toposort(list(k.effects)):
            kinds = ({"read"} if n.op in _READS else {"write"} if n.op in _WRITES else
                     {"read", "write"} if n.op in _BOTH else set())
            if kinds:
                seen.setdefault(str(n.arg), set()).update(kinds)
    return seen


def manifest(name: str, compiled: CompiledProgram, spirv_files: list[str]) -> dict[str, Any]:
    """The manifest of `compiled` (unit `name`), whose stages are in spirv_files (in order)."""
    if compiled.guard_words:
        raise ValueError("a program compiled with guard words has no manifest")
    program, desc = compiled.program, compiled.descriptor
    access = _access(program.kernels)
    out = compiled.output
    outputs = [{"buffer": program.output, "shape": list(out.sizes),
                "element_type": out.data_type.value, "offset_elements": 0}]
    if isinstance(desc, SplitDesc):  # one buffer, the outputs one after another
        outputs = [{"buffer": program.output, "shape": list(t.sizes),
                    "element_type": t.data_type.value, "offset_elements": start}
                   for start, t in zip(desc.output_starts, desc.outputs)]
    buffers = []
    for buf in program.buffers:
        kinds = access.get(buf.name, set())
        initial = ("input" if buf.role == "input" else
                   "zeros" if buf.role in ("scratch", "status") else
                   "undefined" if buf.role == "temp" else
                   "input" if compiled.in_place else "undefined")
        buffers.append({
            "name": buf.name, "element_type": buf.dtype.value, "element_count": buf.count,
            "byte_size": buf.words * 4,
            "access": "read_write" if kinds == {"read", "write"} else
                      "write" if kinds == {"write"} else "read",
            "initial": initial, "role": buf.role,
            "input_index": program.inputs.index(buf.name) if buf.name in program.inputs
            else None,
            "output": buf.name == program.output})
    kernels = []
    for stage, spv in zip(compiled.stages, spirv_files):
        groups = math.ceil(stage.invocations / stage.local_size)
        kernels.append({
            "name": stage.name, "spirv": spv, "entry_point": "main",
            "workgroup_size": [stage.local_size, 1, 1], "invocations": stage.invocations,
            "workgroups": groups, "dispatch": dispatch(groups), "descriptor_set": 0,
            "bindings": [{"binding": i, "buffer": b, "type": "storage_buffer"}
                         for i, b in enumerate(stage.buffers)]})
    return {
        "format": "dmlc-manifest", "version": VERSION, "name": name,
        "operator": desc.operator, "descriptor": repr(desc),
        "vulkan": {"api_version": TARGET_ENV.removeprefix("vulkan"), "features": [],
                   "extensions": []},
        "layout": "little-endian; 8/16-bit elements packed in 32-bit words, 64-bit elements "
                  "as two words (low first): the bytes of a C array of the element type",
        "inputs": [{"buffer": n, "index": i, "shape": list(_shape(compiled, n)),
                    "element_type": program.buffer(n).dtype.value}
                   for i, n in enumerate(program.inputs)],
        "outputs": outputs,
        "buffers": buffers,
        "kernels": kernels,
        "checked_indices": compiled.check_indices,
    }


def _shape(compiled: CompiledProgram, name: str) -> tuple[int, ...]:
    """An input's shape: its tensor's sizes when packed, else its buffer's elements, flat (a
    strided tensor's buffer is what its strides span)."""
    t, _ = argument(compiled.descriptor, name)
    return t.sizes if t.is_packed and not t.offset else (compiled.program.buffer(name).count,)
