"""Small ONNX models built in code, shared by the device tests."""
from __future__ import annotations

from typing import Any

import numpy as np


def gather_slice_concat(table: np.ndarray) -> Any:
    """Gather (ids [B, 3] from `table`, a [16, 8] float32 initializer) -> Slice (rows 1:3) ->
    Concat with x [B, 2, 8] on axis 1, B a dim_param: y [B, 4, 8]."""
    from onnx import TensorProto, helper, numpy_helper
    nodes = [helper.make_node("Gather", ["table", "ids"], ["g"], axis=0),
             helper.make_node("Slice", ["g", "starts", "ends", "axes"], ["s"]),
             helper.make_node("Concat", ["s", "x"], ["y"], axis=1)]
    inits = [numpy_helper.from_array(table, "table"),
             numpy_helper.from_array(np.array([1], np.int64), "starts"),
             numpy_helper.from_array(np.array([3], np.int64), "ends"),
             numpy_helper.from_array(np.array([1], np.int64), "axes")]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("ids", TensorProto.INT64, ["B", 3]),
                     helper.make_tensor_value_info("x", TensorProto.FLOAT, ["B", 2, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["B", 4, 8])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def gather_expand(table: np.ndarray) -> Any:
    """Gather (ids [B] from `table`, a [16, 8] float32 initializer) -> Unsqueeze (axis 1) ->
    Expand to [B, 3, 8] (a device tensor broadcast: a tensor expression), B a dim_param."""
    from onnx import TensorProto, helper, numpy_helper
    nodes = [helper.make_node("Gather", ["table", "ids"], ["g"], axis=0),
             helper.make_node("Unsqueeze", ["g", "axes"], ["u"]),
             helper.make_node("Expand", ["u", "shape"], ["y"])]
    inits = [numpy_helper.from_array(table, "table"),
             numpy_helper.from_array(np.array([1], np.int64), "axes"),
             numpy_helper.from_array(np.array([1, 3, 1], np.int64), "shape")]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("ids", TensorProto.INT64, ["B"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["B", 3, 8])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def compiles_over_batches(model: Any, feeds_of: Any) -> dict[str, int]:
    """Run `model` at batch sizes 3, 1, 5, 2, 4 (feeds_of(batch, rng): its inputs), each result
    bit for bit as onnx's reference evaluator's, on a cleared compile cache; return the compiles
    counted (dmlc.cache_info()["compiles"])."""
    import pytest
    pytest.importorskip("onnx")
    from onnx.reference import ReferenceEvaluator

    import dmlc
    import dmlc.onnx
    program = dmlc.onnx.load_program(model)
    dmlc.clear_cache()
    rng = np.random.default_rng(1)
    for batch in (3, 1, 5, 2, 4):
        feeds = feeds_of(batch, rng)
        (want,) = ReferenceEvaluator(model).run(None, feeds)
        assert program.run(feeds)["y"].tobytes() == np.asarray(want).tobytes()
    return dict(dmlc.cache_info()["compiles"])
