"""A compiled program as a JSON manifest: enough to run its SPIR-V from any Vulkan code.

`dmlc compile FILE --emit manifest -o DIR` (or `dmlc.write_manifest(kernel, DIR)`) writes
DIR/NAME.manifest.json beside each kernel's DIR/LABEL.spv. Schema (version 2;
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
- target: "cpu" or "gpu", what the kernels were tuned for (compiler/target.py).
- generic: null for a program of fixed sizes (every shape its own SPIR-V); a generic kernel's
  push-constant words, each a formula of the call's tensors with its range, the guards a call
  must meet and the tensors they name (generic_section); its kernels' `count_word` and its
  buffers' `extent` size each call's launch and bindings.
- vulkan: the API version and the features and extensions required (none optional today).
- source: what it was compiled from (`dmlc compile`: "FILE#UNIT", the file's real path and the
  program's name in it; null from Python): a manifest of another source is not overwritten.
Element layout is little-endian with 8/16-bit elements packed into 32-bit words, 64-bit elements
as two words, low first: exactly the bytes of a C array (or numpy array) of the element type.
"""
from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
from typing import Any

from .artifact import CompiledProgram, argument
from .errors import DmlcError, ValidationError
from .family.formula import (
    Guard,
    Symbolic,
    int_fields,
    render,
    render_guard,
    tensor_fields,
    trace,
    variables,
)
from .family.registry import dml_field, output_regions, rules_of, validate
from .family.tensor import TensorDesc
from .ir.kernel import MAGIC_RANGES, Kernel
from .ir.ops import Node, Op, toposort
from .toolchain import TARGET_ENV

VERSION = 2
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
    program, desc = compiled.program, compiled.descriptor
    generic = generic_section(compiled)
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
            "output": buf.name == program.output,
            "extent": None if buf.extent is None else _words_expr(buf.extent)})
    kernels = []
    for stage, spv in zip(compiled.stages, spirv_files):
        groups = math.ceil(stage.invocations / stage.local_size)
        kernels.append({
            "name": stage.name, "spirv": spv, "entry_point": "main",
            "workgroup_size": [stage.local_size, 1, 1], "invocations": stage.invocations,
            "workgroups": groups, "dispatch": dispatch(groups), "descriptor_set": 0,
            "bindings": [{"binding": i, "buffer": b, "type": "storage_buffer"}
                         for i, b in enumerate(stage.buffers)],
            "count_word": stage.count, "items_per_workgroup": stage.local_size * stage.stride})
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
        "generic": generic,
    }


def generic_section(compiled: CompiledProgram) -> dict[str, Any] | None:
    """What a caller of a generic program computes per call (docs/shaders-out.md): every
    tensor it describes, the push-constant words in order (each a formula of those tensors,
    family/formula.py, and its admitted range) and the guards a call must meet; None for a
    program of fixed sizes."""
    generic, desc = compiled.generic, compiled.descriptor
    if generic is None:
        return None
    if output_regions(desc) is not None:
        raise ValueError(f"a generic {desc.operator} (outputs at pushed places in one buffer) "
                         "has no manifest yet; compile it with dynamic=False")
    traced = [trace(recipe, desc) for recipe in generic.recipes]
    formulas = [f for f, _ in traced]
    guards = dict.fromkeys([g for _, met in traced for g in met]
                           + _constants(compiled, formulas))
    ranges = [(q.vmin, q.vmax) for q in compiled.program.params]
    for k in compiled.program.divisors:  # each divisor's magic words (passes/divisors.py)
        formulas += [("magic", formulas[k]), ("shift", formulas[k])]
        ranges += MAGIC_RANGES
    return {"form": generic.variant or "generic", "push_constant_bytes": 4 * len(formulas),
            "fields": dict(int_fields(desc)),
            "words": [{"word": k, "min": lo, "max": hi, "formula": render(f), "expr": _expr(f)}
                      for k, ((lo, hi), f) in enumerate(zip(ranges, formulas))],
            "guards": [{"condition": render_guard(g), "expr": _expr(g)} for g in guards],
            "tensors": [{"name": name, "field": dml_field(desc, name.partition("[")[0]),
                         "element_type": t.data_type.value, "sizes": list(t.sizes),
                         "strides": list(t.element_strides), "packed": t.strides is None,
                         "offset": t.offset, "buffer_elements": t.buffer_elements,
                         "output": _is_output(desc, t), "buffer": _buffer_of(compiled, name, t)}
                        for name, t in tensor_fields(desc)]}


def _is_output(desc: Any, t: TensorDesc) -> bool:
    """Whether t is the descriptor's output (its OutputTensor, a slice_grad's output gradient;
    a split, whose outputs are several, has no generic section)."""
    return t is desc.output


def _buffer_of(compiled: CompiledProgram, name: str, t: TensorDesc) -> str | None:
    """The program buffer that holds tensor `name` (None: one the program does not bind)."""
    program = compiled.program
    if _is_output(compiled.descriptor, t) or (compiled.in_place and name == "input"):
        return program.output
    return next((n for n in program.inputs if argument(compiled.descriptor, n)[0] is t), None)


def _constants(compiled: CompiledProgram, formulas: list[Any]) -> list[Guard]:
    """What the kernel assumes of a call beyond its push words, as guards: every size of an
    input tensor but those at the kernel's dynamic positions (GenericRules.sizes at
    GenericProgram.dims) and those tied to them (_tied; an output's sizes follow from its
    inputs'), and every stride of a strided tensor, every offset and every integer field no
    word reads, as the compiled call has them."""
    desc, generic = compiled.descriptor, compiled.generic
    assert generic is not None
    traced = rules_of(desc).generic.sizes(Symbolic(desc, []))
    dynamic = set().union(*(variables(getattr(traced[i], "f", 0)) for i in generic.dims))
    dynamic |= _tied(desc, dynamic)
    read = set().union(*(variables(f) for f in formulas))
    out: list[Guard] = []
    for name, t in tensor_fields(desc):
        output = _is_output(desc, t)
        out += [("eq", ("size", name, i), n) for i, n in enumerate(t.sizes)
                if not output and ("size", name, i) not in dynamic]
        out += [("eq", ("stride", name, i), st) for i, st in enumerate(t.strides or ())
                if ("stride", name, i) not in read]
        out += [("eq", ("offset", name), t.offset)] if ("offset", name) not in read else []
    for name, value in int_fields(desc):
        items = [(("field", name), value)] if isinstance(value, int) else \
            [(("field", name, i), x) for i, x in enumerate(value)]
        out += [("eq", v, x) for v, x in items if v not in read]
    return out


def _tied(desc: Any, dynamic: set[tuple]) -> set[tuple]:
    """The input sizes validation ties to a dynamic one (a scatter's updates follow its
    indices): with the dynamic size doubled (or halved) the call is invalid, and valid again
    with this one changed too. A size merely equal to a dynamic one stays a constant of the
    kernel (a guard)."""
    tied: set[tuple] = set()
    sizes = {("size", name, i): n for name, t in tensor_fields(desc) if not _is_output(desc, t)
             for i, n in enumerate(t.sizes)}
    for v in sorted(dynamic & sizes.keys()):
        for new in (sizes[v] * 2, sizes[v] // 2):  # larger, or within a static bound
            if new < 1 or _valid(_resized(desc, {v}, new)):
                continue  # nothing else must follow it
            tied |= {w for w in sizes.keys() - dynamic - tied
                     if sizes[w] == sizes[v] and _valid(_resized(desc, {v, w}, new))}
    return tied


def _resized(desc: Any, changed: set[tuple], new: int) -> Any:
    """desc with the sizes `changed` (("size", tensor, i) variables) `new`, its output to be
    inferred again."""
    changes: dict[str, Any] = {}
    for name, t in tensor_fields(desc):
        if not _is_output(desc, t):
            field, _, item = name.partition("[")
            resized = dataclasses.replace(t, sizes=tuple(
                new if ("size", name, i) in changed else n for i, n in enumerate(t.sizes)))
            if item:
                items = list(changes.get(field, getattr(desc, field)))
                k = int(item[:-1])
                items[k] = (items[k][0], resized) if isinstance(items[k], tuple) else resized
                changes[field] = tuple(items)
            else:
                changes[field] = resized
    inferred = {"output": None} if "output" in {f.name for f in dataclasses.fields(desc)} else {}
    return dataclasses.replace(desc, **changes, **inferred)


def _valid(desc: Any) -> bool:
    with contextlib.suppress(DmlcError):
        return validate(desc) is not None
    return False


def _expr(f: Any) -> Any:
    """A formula (or guard) as JSON: an int, or [op, args...] (family/formula.py)."""
    return f if isinstance(f, (int, str)) else [_expr(a) for a in f]


def _words_expr(n: Node) -> Any:
    """A buffer's runtime extent (PARAMs, + and *) as a formula of push words: ["word", k]."""
    if n.is_const:
        return int(n.value)
    if n.op is Op.PARAM:
        return ["word", n.param]
    return ["add" if n.op is Op.ADD else "mul", *(_words_expr(x) for x in n.src)]


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
