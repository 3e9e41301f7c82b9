"""`dmlc run model.onnx` and `dmlc compile model.onnx`: ONNX graphs from the command line (the
onnx package: pip install onnx, dmlc's onnx extra)."""
from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..errors import UsageError, ValidationError


def is_onnx(path: str) -> bool:
    return path.endswith(".onnx")


def run_onnx(path: str, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The model's outputs for the --input arrays; an input name the model lacks, or none given
    to a model that takes some, is refused naming the model's inputs with shapes and types."""
    from ..onnx import load_program
    program = load_program(path)
    names = [i.name for i in program.inputs]
    if names and not inputs:
        raise UsageError(f"{os.path.basename(path)} takes {len(names)} input(s): "
                         + " ".join(f"--input {n}=FILE.npy" for n in names)
                         + f" ({program.signature()})")
    for name in inputs:
        if name not in names:
            raise ValidationError("onnx", f"--input {name}", "one of the model's inputs: "
                                  + (program.signature() or "none"), repr(name))
    return program.run(inputs)


def parse_sizes(option: str, specs: list[str] | None, many: bool) -> dict[str, tuple[int, ...]]:
    """--shape NAME=D0,D1,... (many sizes) or --dim NAME=N (one) into {NAME: sizes}."""
    form = "NAME=D0,D1,..." if many else "NAME=N"
    out = {}
    for spec in specs or []:
        name, sep, dims = spec.partition("=")
        try:
            shape = tuple(int(d) for d in dims.split(",")) if dims else ()
        except ValueError:
            shape = (-1,)
        if not sep or not name or any(d < 1 for d in shape) or (not many and len(shape) != 1):
            raise UsageError(f"{option} {spec!r}: expected {form} (sizes >= 1)")
        out[name] = shape
    return out


def input_shapes(program: Any, shapes: dict[str, tuple[int, ...]],
                 dims: dict[str, int]) -> dict[str, tuple[int, ...]]:
    """Every input's shape: the sizes the graph fixes, symbolic dimensions from --dim NAME=N
    (every input naming NAME takes N) or --shape per input."""
    from ..onnx.graph import dims_of
    names = {i.name for i in program.inputs}
    symbols = {d for i in program.inputs for d in dims_of(i) if isinstance(d, str)}
    for option, named, known in (("--shape", list(shapes), names), ("--dim", list(dims), symbols)):
        for name in named:
            if name not in known:
                what = "inputs" if option == "--shape" else "symbolic dimensions"
                raise UsageError(f"{option} {name}: the model has no such name; its {what}: "
                                 + (", ".join(sorted(known)) or "none"))
    out = {}
    for inp in program.inputs:
        declared = dims_of(inp)
        if inp.name in shapes:
            given = shapes[inp.name]
            if len(given) != len(declared) or any(isinstance(d, int) and d != g
                                                  for d, g in zip(declared, given)):
                raise ValidationError("onnx", f"--shape {inp.name}", "the graph's "
                                      + str([d or "?" for d in declared]), given)
            declared = list(given)
        sizes = []
        for k, d in enumerate(declared):
            if isinstance(d, str) and d in dims:
                d = dims[d]
            if not isinstance(d, int):
                hint = (f"--dim {d}=N" if isinstance(d, str) else "--shape " + inp.name + "="
                        + ",".join(str(x) if isinstance(x, int) else "N" for x in declared))
                raise ValidationError("onnx", f"input {inp.name!r} dimension {k} ({d or '?'})",
                                      "a size: " + hint, "symbolic")
            sizes.append(d)
        out[inp.name] = tuple(sizes)
    return out


def compile_onnx(path: str, shapes: dict[str, tuple[int, ...]], dims: dict[str, int],
                 target: str | None) -> Any:
    """The model's kernels, by `kNODE_OPERATOR` in dispatch order, and its manifest wiring
    them (compiler/onnx/export.py): found by running it once on zeros of its inputs' shapes
    (every dimension fixed by the graph, --dim or --shape)."""
    from ..onnx import load_program
    from ..onnx.export import trace_model
    from ..target import resolve
    program = load_program(path)
    target = resolve(target)
    saved = os.environ.get("DMLC_TARGET")
    os.environ["DMLC_TARGET"] = target  # what the one-shot functions compile for
    try:
        return trace_model(program, input_shapes(program, shapes, dims),
                           os.path.basename(path), target)
    finally:
        if saved is None:
            del os.environ["DMLC_TARGET"]
        else:
            os.environ["DMLC_TARGET"] = saved
