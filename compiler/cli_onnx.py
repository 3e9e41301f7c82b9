"""`dmlc run model.onnx` and `dmlc compile model.onnx`: ONNX graphs from the command line (the
onnx package: pip install 'dmlc[onnx]')."""
from __future__ import annotations

from typing import Any

import numpy as np

from .compiled import CompiledKernel, tracing
from .errors import UsageError, ValidationError


def is_onnx(path: str) -> bool:
    return path.endswith(".onnx")


def run_onnx(path: str, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    from .onnx import load_program
    return load_program(path).run(inputs)


def parse_shapes(specs: list[str] | None) -> dict[str, tuple[int, ...]]:
    """--shape NAME=D0,D1,... for inputs whose dimensions the graph leaves symbolic."""
    out = {}
    for spec in specs or []:
        name, sep, dims = spec.partition("=")
        try:
            shape = tuple(int(d) for d in dims.split(",")) if dims else ()
        except ValueError:
            shape = (-1,)
        if not sep or not name or any(d < 1 for d in shape):
            raise UsageError(f"--shape {spec!r}: expected NAME=D0,D1,... (sizes >= 1)")
        out[name] = shape
    return out


def compile_onnx(path: str, shapes: dict[str, tuple[int, ...]]) -> dict[str, CompiledKernel]:
    """The kernels the graph runs, by `NODE-INDEX_OPERATOR`: found by running it once on zeros
    of its inputs' shapes (every dimension fixed by the graph or by --shape)."""
    import onnx

    from .onnx import load_program
    program = load_program(path)
    zeros: dict[str, Any] = {}
    for inp in program.inputs:
        t = inp.type.tensor_type
        dims = [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]
        if inp.name in shapes:
            given = shapes[inp.name]
            if len(given) != len(dims) or any(d is not None and d != g
                                              for d, g in zip(dims, given)):
                raise ValidationError("onnx", f"--shape {inp.name}",
                                      "the graph's " + str([d or "?" for d in dims]), given)
            dims = list(given)
        for k, d in enumerate(dims):
            if d is None:
                name = t.shape.dim[k].dim_param or "?"
                raise ValidationError("onnx", f"input {inp.name!r} dimension {k} ({name})",
                                      "a size: --shape " + inp.name + "=" + ",".join(
                                          str(x or "N") for x in dims), "symbolic")
        dtype = onnx.helper.tensor_dtype_to_np_dtype(t.elem_type)
        zeros[inp.name] = np.zeros(tuple(int(d or 0) for d in dims), dtype)
    with tracing() as kernels:
        program.run(zeros)
    return {f"k{k}_{kern.descriptor.operator.removeprefix('DML_').lower()}": kern
            for k, kern in enumerate(kernels)}
