"""A model's kernels and their wiring, for `dmlc compile model.onnx --emit manifest`.

The model runs once on zeros of its inputs' shapes while every kernel call is recorded
(compiled.tracing()); each call becomes a kernel with its own manifest (compiler/manifest.py),
and the model's manifest, MODEL.model.json, says where each kernel input comes from: a model
input, a constant (a file of raw bytes beside it), or an earlier kernel's output buffer; and
where each model output lies. Kernels run in the order listed. Schema (version 1):

- inputs: the model's inputs, each `name`, `shape`, `element_type` (the type its bytes move as:
  ONNX's bool, bfloat16... move as unsigned integers of their width) and `onnx_type`.
- constants: `name`, `file`, `element_type`, `element_count`, and `of`, the ONNX initializer
  or Constant it is (a view of) when it is one; other constants are what the graph computed
  on the host (shapes, index tensors built from attributes).
- kernels: `name`, `manifest` (its file), and `inputs` in its manifest's input order, each
  `buffer`, `from` ({"input": NAME}, {"constant": NAME} or {"kernel": NAME}: that kernel's
  output buffer) and `element_count`: the kernel reads that many elements from the start of it.
- outputs: `name`, `from`, `shape`, `element_type`, `onnx_type`, `offset_elements`.
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..call import CompiledKernel, is_device_tensor
from ..compiled import TracedCall, tracing
from ..errors import UsageError
from ..oneshot import owner
from .graph import OnnxProgram
from .values import Value, carrier, input_reads

VERSION = 1


@dataclass
class ModelTrace:
    """What a model's run on zeros dispatched: kernels by name, in order, and the manifest
    that wires them (its constants' bytes apart)."""

    kernels: dict[str, CompiledKernel]
    manifest: dict[str, Any]
    constants: dict[str, bytes] = field(default_factory=dict)
    """File name -> bytes."""


class _Wiring:
    """Where each device buffer came from, and the constants met so far."""

    def __init__(self, program: OnnxProgram) -> None:
        self.sources: dict[int, dict[str, str]] = {}
        self.keep: list[Any] = []  # the tensors mapped, alive while tracing (ids stay theirs)
        self.constants: list[dict[str, Any]] = []
        self.blobs: dict[str, bytes] = {}
        self._by_bytes: dict[tuple, str] = {}
        self._names = {id(_root(v.data)): n for n, v in program.constants.items()}
        for t, root, data in program.resident.held():
            self.add(t, {"constant": self.constant(data, self._names.get(id(root)))})

    def add(self, tensor: Any, source: dict[str, str]) -> None:
        self.keep.append(tensor)
        self.sources[id(owner(tensor))] = source

    def constant(self, data: np.ndarray, of: str | None = None) -> str:
        """The constant holding `data`'s bytes (one per distinct content)."""
        raw = np.ascontiguousarray(data).tobytes()
        key = (hashlib.sha256(raw).hexdigest(), data.dtype.str, of)
        if key not in self._by_bytes:
            name = f"const{len(self.constants)}"
            self.blobs[f"{name}.bin"] = raw
            self.constants.append({"name": name, "file": f"{name}.bin",
                                   "element_type": data.dtype.name,
                                   "element_count": int(data.size), "of": of})
            self._by_bytes[key] = name
        return self._by_bytes[key]

    def source(self, arg: Any, count: int) -> dict[str, str]:
        if not is_device_tensor(arg):
            return {"constant": self.constant(np.ascontiguousarray(arg).reshape(-1)[:count])}
        found = self.sources.get(id(owner(arg)))
        if found is None:  # no model input, constant or kernel output: a converter's upload
            raise UsageError("dmlc compile: a kernel read a device tensor of unknown origin")
        return found


def _root(a: np.ndarray) -> np.ndarray:
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def trace_model(program: OnnxProgram, shapes: dict[str, tuple[int, ...]], model: str,
                target: str) -> ModelTrace:
    """Run `program` on zeros of `shapes` (every input's), recording its kernels and wiring."""
    import onnx
    zeros = {}
    for inp in program.inputs:
        elem = inp.type.tensor_type.elem_type
        zeros[inp.name] = np.zeros(shapes[inp.name],
                                   onnx.helper.tensor_dtype_to_np_dtype(elem))
    feeds = program.check_inputs(zeros)
    with tracing() as calls, input_reads() as reads:
        outputs = program.evaluate(feeds)
    if reads:
        raise UsageError(f"dmlc compile: the model reads the values of input(s) "
                         f"{', '.join(sorted(reads))} on the host (shape arithmetic, an If's "
                         "condition, a position it computes with): its kernels depend on them, "
                         "so a manifest traced on zeros would hold the wrong ones; run it "
                         "with `dmlc run`, or make them constants")
    wiring = _Wiring(program)
    for name, v in feeds.items():
        if not v.on_host:
            wiring.add(v.data, {"input": name})
    kernels: dict[str, CompiledKernel] = {}
    entries = []
    for k, call in enumerate(calls):
        name = f"k{k}_{call.kernel.descriptor.operator.removeprefix('DML_').lower()}"
        kernels[name] = call.kernel
        entries.append({"name": name, "manifest": f"{name}.manifest.json",
                        "inputs": _inputs(call, wiring)})
        result = call.result[0] if isinstance(call.result, tuple) else call.result
        wiring.add(result, {"kernel": name})
    manifest = {
        "format": "dmlc-model-manifest", "version": VERSION, "model": model, "target": target,
        "inputs": [{"name": n, "shape": list(shapes[n]), "element_type": _moved(z).name,
                    "onnx_type": z.dtype.name} for n, z in zeros.items()],
        "constants": wiring.constants,
        "kernels": entries,
        "outputs": [_output(n, v, wiring) for n, v in outputs.items()]}
    return ModelTrace(kernels, manifest, wiring.blobs)


def _moved(a: np.ndarray) -> np.dtype:
    return carrier(a.dtype, "input")


def _inputs(call: TracedCall, wiring: _Wiring) -> list[dict[str, Any]]:
    compiled = call.kernel.compiled
    if call.out is not None:
        raise UsageError("dmlc compile: a model kernel wrote out= (in place): not exportable")
    args = compiled.arguments(call.arguments)
    out = []
    for name, arg in zip(compiled.program.inputs, args):
        count = compiled.program.buffer(name).count
        out.append({"buffer": name, "from": wiring.source(arg, count), "element_count": count})
    return out


def _output(name: str, v: Value, wiring: _Wiring) -> dict[str, Any]:
    if v.on_host:
        moved = np.ascontiguousarray(v.data).view(carrier(v.logical, name))
        source = {"constant": wiring.constant(moved.reshape(-1))}
    else:
        source = wiring.source(v.data, v.data.size)
    return {"name": name, "from": source, "shape": list(v.shape),
            "element_type": carrier(v.logical, name).name, "onnx_type": v.logical.name,
            "offset_elements": 0 if v.on_host else int(v.data.offset)}


def write_model(trace: ModelTrace, folder: str, stem: str) -> str:
    """MODEL.model.json and the constants' files into `folder` (the kernels' manifests are
    written by the caller); the manifest's path."""
    os.makedirs(folder, exist_ok=True)
    for file, raw in trace.constants.items():
        with open(os.path.join(folder, file), "wb") as f:
            f.write(raw)
    path = os.path.join(folder, f"{stem}.model.json")
    with open(path, "w") as f:
        f.write(json.dumps(trace.manifest, indent=2) + "\n")
    return path
