"""dmlc as an ONNX backend (onnx.backend.base.Backend): what ONNX's own test harness drives.

    import onnx.backend.test, dmlc.onnx.backend
    globals().update(onnx.backend.test.BackendTest(dmlc.onnx.backend, __name__)
                     .include(r"test_gather_.*").test_cases)

The device is the Vulkan device dmlc selects; it answers to ONNX's "CPU" (a backend test's
default device), whatever it is.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from onnx import helper
from onnx.backend.base import Backend, BackendRep

from .graph import OnnxProgram


class DmlcRep(BackendRep):
    def __init__(self, program: OnnxProgram) -> None:
        self.program = program

    def run(self, inputs: Any, **kwargs: Any) -> tuple[Any, ...]:
        if not isinstance(inputs, (list, tuple, dict)):
            inputs = [inputs]
        results = self.program.run(inputs)
        return tuple(results[name] for name in self.program.outputs)


class DmlcBackend(Backend):
    @classmethod
    def prepare(cls, model: Any, device: str = "CPU", **kwargs: Any) -> DmlcRep:
        super().prepare(model, device, **kwargs)
        return DmlcRep(OnnxProgram(model))

    @classmethod
    def run_node(cls, node: Any, inputs: Sequence[Any], device: str = "CPU",
                 outputs_info: Any = None, **kwargs: Any) -> tuple[Any, ...]:
        names = [f"x{k}" for k in range(len(inputs))]
        node_inputs = [n for n in node.input]
        graph = helper.make_graph(
            [node], "node", [helper.make_tensor_value_info(n, 0, None) for n in node_inputs if n],
            [helper.make_tensor_value_info(n, 0, None) for n in node.output])
        model = helper.make_model(graph)
        feeds = dict(zip([n for n in node_inputs if n], inputs))
        del names
        return DmlcRep(OnnxProgram(model)).run(feeds)

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return device == "CPU"


prepare = DmlcBackend.prepare
run_node = DmlcBackend.run_node
run_model = DmlcBackend.run_model
supports_device = DmlcBackend.supports_device
