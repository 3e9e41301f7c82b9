"""ONNX models in: data-movement graphs run as dmlc kernels (an optional extra: the `onnx`
package, `pip install onnx`, dmlc's `onnx` extra).

    import dmlc.onnx
    program = dmlc.onnx.load_program("model.onnx")
    outputs = program.run({"x": array})          # {output name: numpy array}

dmlc.onnx.backend is an onnx.backend.base.Backend, for ONNX's test harness.
"""
from __future__ import annotations

from typing import Any

from .graph import OnnxProgram, load
from .ops import OPS

__all__ = ["OPS", "OnnxProgram", "load", "load_program", "run"]


def load_program(model: Any) -> OnnxProgram:
    """A model (path, bytes or onnx.ModelProto) ready to run."""
    return OnnxProgram(model)


def run(model: Any, inputs: Any) -> dict[str, Any]:
    """Run a model once: its outputs by name, as numpy arrays."""
    return OnnxProgram(model).run(inputs)
