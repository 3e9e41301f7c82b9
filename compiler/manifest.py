"""A compiled program as a JSON manifest: enough to run its SPIR-V from any Vulkan code.

`dmlc compile FILE --emit manifest -o DIR` (or `dmlc.write_manifest(kernel, DIR)`) writes
DIR/NAME.manifest.json beside each kernel's DIR/LABEL.spv. Schema (version 1;
docs/shaders-out.md):

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
- in_place: a scatter compiled to update its data tensor (`dmlc compile --in-place`): input 0
  is the data tensor's buffer, which is also the output (`initial` "input", `access`
  read_write, `output` true, and the output's `input_index` 0): bind the caller's tensor there
  and it is updated, nothing copied.
- target: "cpu" or "gpu", what the kernels were tuned for (compiler/target.py). A manifest is
  for its shapes only: every shape is its own SPIR-V.
- vulkan: the API version and the features and extensions required (none optional today).
- source: what it was compiled from (`dmlc compile`: "FILE#UNIT", the file's real path and the
  program's name in it; null from Python): a manifest of another source is not overwritten.
Element layout is little-endian with 8/16-bit elements packed into 32-bit words, 64-bit elements
as two words, low first: exactly the bytes of a C array (or numpy array) of the element type.
"""
from __future__ import annotations

import json
import math
import os
from typing import Any

from .artifact import CompiledProgram, argument
from .errors import ValidationError
from .family.registry import output_regions
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
    if any(b.chunk_words for b in compiled.plan.buffers):  # the format has one binding each
        raise ValueError("a program with buffers over maxStorageBufferRange (bound as chunks) "
                         "has no manifest")
    if compiled.program.params:
        raise ValueError("a generic program (sizes as push constants) has no manifest: its "
                         "runner passes none; compile it with dynamic=False")
    program, desc = compiled.program, compiled.descriptor
    access = _access(program.kernels)
    out = compiled.output
    # in place, the data tensor comes first, as in the copying form's call: input 0
    inputs = ((program.output,) if compiled.in_place else ()) + tuple(program.inputs)
    outputs = [{"buffer": program.output, "shape": list(out.sizes),
                "element_type": out.data_type.value, "offset_elements": 0,
                "input_index": 0 if compiled.in_place else None}]
    regions = output_regions(desc)
    if regions is not None:  # one buffer, the outputs one after another (DML_SPLIT)
        outputs = [{"buffer": program.output, "shape": list(t.sizes),
                    "element_type": t.data_type.value, "offset_elements": start,
                    "input_index": None} for start, t in regions]
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
            "input_index": inputs.index(buf.name) if buf.name in inputs else None,
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
        "format": "dmlc-manifest", "version": VERSION, "name": name, "source": None,
        "operator": desc.operator, "descriptor": repr(desc), "target": compiled.target,
        "in_place": compiled.in_place,
        "vulkan": {"api_version": TARGET_ENV.removeprefix("vulkan"), "features": [],
                   "extensions": []},
        "layout": "little-endian; 8/16-bit elements packed in 32-bit words, 64-bit elements "
                  "as two words (low first): the bytes of a C array of the element type",
        "inputs": [{"buffer": n, "index": i, "shape": list(_shape(compiled, n)),
                    "element_type": program.buffer(n).dtype.value}
                   for i, n in enumerate(inputs)],
        "outputs": outputs,
        "buffers": buffers,
        "kernels": kernels,
        "checked_indices": compiled.check_indices,
    }


def _shape(compiled: CompiledProgram, name: str) -> tuple[int, ...]:
    """An input's shape: its tensor's sizes when packed, else its buffer's elements, flat (a
    strided tensor's buffer is what its strides span)."""
    if name == compiled.program.output:  # in place: the data tensor, packed like the output
        return compiled.output.sizes
    t, _ = argument(compiled.descriptor, name)
    return t.sizes if t.is_packed and not t.offset else (compiled.program.buffer(name).count,)


def write_manifest(kernel: Any, folder: str | os.PathLike[str], name: str | None = None, *,
                   source: str | None = None, overwrite: bool = False) -> str:
    """Write a compiled program's manifest and SPIR-V into `folder` (created if missing):
    NAME.manifest.json beside NAME.spv, or NAME.KERNEL.spv for each kernel of a program of
    several. `kernel`: what dmlc.compile returns, or a CompiledProgram
    (dmlc.compiled.compile_program(desc, in_place=True) for a scatter that updates its data
    tensor). NAME defaults to the program's name ("gather", "scatter_in_place"...). Returns
    the manifest's path.

    A manifest of another program already there under NAME is not overwritten (a
    ValidationError names it; overwrite=True replaces it): one of the same `source` (`dmlc
    compile`'s FILE#UNIT), or without a source of the same operator, descriptor and form, is
    the same program recompiled, and is replaced.

    Parameters
    ----------
    kernel : CompiledKernel or CompiledProgram
        What to write.
    folder : str or os.PathLike
        Where (created if missing).
    name : str, optional
        The files' NAME (default: the program's name).
    source : str, optional
        Where the program came from (`dmlc compile`'s FILE#UNIT).
    overwrite : bool, default False
        Replace another program's manifest of this NAME.

    Returns
    -------
    str
        The manifest's path.

    Raises
    ------
    ValidationError
        Another program's manifest already there under NAME (without overwrite=True).

    Examples
    --------
    >>> import os, tempfile
    >>> kernel = dmlc.compile(dmlc.TileDesc(  # a manifest's sizes are fixed: never generic
    ...     input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(2,)), repeats=(2,)), dynamic=False)
    >>> folder = tempfile.mkdtemp()
    >>> print(os.path.basename(dmlc.write_manifest(kernel, folder)))
    tile.manifest.json
    >>> sorted(os.listdir(folder))
    ['tile.manifest.json', 'tile.spv']
    """
    compiled = getattr(kernel, "compiled", kernel)
    if not isinstance(compiled, CompiledProgram):
        raise TypeError(f"write_manifest: expected a compiled kernel or program, got "
                        f"{type(kernel).__name__}")
    name = name or compiled.program.name
    files = [f"{name}.spv" if len(compiled.stages) == 1 else f"{name}.{stage.name}.spv"
             for stage in compiled.stages]
    document = manifest(name, compiled, files)  # refuses guard words before anything is written
    document["source"] = source
    folder = os.fspath(folder)
    if not overwrite:
        _refuse_another(os.path.join(folder, f"{name}.manifest.json"), document)
    os.makedirs(folder, exist_ok=True)
    for stage, file in zip(compiled.stages, files):
        with open(os.path.join(folder, file), "wb") as f:
            f.write(stage.spirv)
    path = os.path.join(folder, f"{name}.manifest.json")
    with open(path, "w") as f:
        f.write(json.dumps(document, indent=2) + "\n")
    return path


def _refuse_another(path: str, document: dict[str, Any]) -> None:
    """A ValidationError where `path` holds the manifest of another program than `document`'s
    (or a file that is no manifest): its SPIR-V and manifest would be overwritten."""
    try:
        with open(path) as f:
            existing = json.load(f)
    except FileNotFoundError:
        return
    except (OSError, ValueError):
        existing = None
    if not isinstance(existing, dict) or existing.get("format") != "dmlc-manifest":
        raise ValidationError("write_manifest", "name", "a name no other file in the folder "
                              "has", os.path.basename(path), "it is not a dmlc manifest")
    mine, theirs = document.get("source"), existing.get("source")
    if mine is not None or theirs is not None:
        same = mine == theirs
    else:
        same = all(existing.get(k) == document[k] for k in ("operator", "descriptor", "in_place"))
    if not same:
        what = theirs or f"{existing.get('operator')} {existing.get('descriptor')}"
        raise ValidationError("write_manifest", "name", "a name no other program's manifest "
                              "in the folder has (the same program recompiled replaces its "
                              "own)", os.path.basename(path), f"it holds {what}; give another "
                              "name (dmlc compile --name) or another folder")
