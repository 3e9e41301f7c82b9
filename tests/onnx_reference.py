"""ONNX's own reference implementation (onnx.reference.ReferenceEvaluator) as an oracle: one
node, run on numpy inputs. Independent of dmlc and of tests/reference.py, so the operators ONNX
also has are held to ONNX's semantics as well as to our own numpy reference."""
from __future__ import annotations

from typing import Any

import numpy as np
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

OPSET = 21


def run_node(op_type: str, inputs: list[np.ndarray | None], n_outputs: int = 1,
             opset: int = OPSET, **attributes: Any) -> list[np.ndarray]:
    """Run one ONNX node of `op_type` on `inputs` (None: an omitted optional input) and return
    its outputs. Attributes are the node's (axis=0, mode="reflect", ...)."""
    names = [f"x{k}" if a is not None else "" for k, a in enumerate(inputs)]
    outs = [f"y{k}" for k in range(n_outputs)]
    node = helper.make_node(op_type, names, outs, **attributes)
    graph = helper.make_graph(
        [node], op_type,
        [helper.make_tensor_value_info(n, TensorProto.UNDEFINED, None) for n in names if n],
        [helper.make_tensor_value_info(n, TensorProto.UNDEFINED, None) for n in outs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    feeds = {n: a for n, a in zip(names, inputs) if n}
    return list(ReferenceEvaluator(model).run(None, feeds))
