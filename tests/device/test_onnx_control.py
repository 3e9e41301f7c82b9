"""ONNX control flow and sequences decided on the host: Loop (trip count, condition, carried
values, scan outputs), the sequence ops, and the refusals where data would decide. ONNX's
reference evaluator is the oracle, bit for bit."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import dmlc
import dmlc.onnx

pytestmark = pytest.mark.vulkan
INT64, FLOAT, BOOL = TensorProto.INT64, TensorProto.FLOAT, TensorProto.BOOL


def info(name, elem=0, shape=None):
    return helper.make_tensor_value_info(name, elem, shape)


def model(nodes, inputs, outputs, inits=()):
    g = helper.make_graph(nodes, "g", [info(n, t, s) for n, t, s in inputs],
                          [info(n) for n in outputs],
                          [numpy_helper.from_array(np.asarray(a), n) for n, a in inits])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)])


def same(m, feeds):
    got = dmlc.onnx.load_program(m).run(feeds)
    want = ReferenceEvaluator(m).run(None, feeds)
    for (name, g), w in zip(got.items(), want):
        assert g.dtype == w.dtype and g.shape == w.shape and g.tobytes() == w.tobytes(), name


def _split_loop(trips="three", cond="yes"):
    """tensor_split as TorchScript writes it: a Loop slicing x at host offsets into a
    sequence, plus a scan output of the rows it took (stacked along a new axis)."""
    body = helper.make_graph(
        [helper.make_node("Gather", ["offsets", "k"], ["a"], axis=0),
         helper.make_node("Add", ["k", "one"], ["k1"]),
         helper.make_node("Gather", ["offsets", "k1"], ["b"], axis=0),
         helper.make_node("Slice", ["x", "a", "b", "one"], ["piece"]),
         helper.make_node("SequenceInsert", ["seq_in", "piece"], ["seq_out"]),
         helper.make_node("Gather", ["x", "a"], ["row"], axis=1),
         helper.make_node("Identity", ["c_in"], ["c_out"])],
        "body", [info("k", INT64, [1]), info("c_in", BOOL, []), info("seq_in")],
        [info("c_out"), info("seq_out"), info("row")])
    return model(
        [helper.make_node("SequenceEmpty", [], ["s0"], dtype=FLOAT),
         helper.make_node("Loop", [trips, cond, "s0"], ["seq", "rows"], body=body),
         helper.make_node("SequenceLength", ["seq"], ["n"]),
         helper.make_node("SequenceAt", ["seq", "minus1"], ["last"]),
         helper.make_node("SequenceErase", ["seq"], ["shorter"]),
         helper.make_node("ConcatFromSequence", ["shorter"], ["joined"], axis=1),
         helper.make_node("SequenceConstruct", ["x", "x"], ["pair"]),
         helper.make_node("ConcatFromSequence", ["pair"], ["stacked"], axis=0, new_axis=1)],
        [("x", FLOAT, [2, 6])], ["n", "last", "joined", "rows", "stacked"],
        [("offsets", np.array([0, 1, 3, 6], np.int64)), ("three", np.array(3, np.int64)),
         ("yes", np.array(True)), ("one", np.array([1], np.int64)),
         ("minus1", np.array(-1, np.int64))])


def test_a_loop_fills_a_sequence_and_stacks_its_scan_output():
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    x[0, 0] = -0.0
    same(_split_loop(), {"x": x})


def test_a_loop_whose_trip_count_a_kernel_computed_is_refused():
    m = _split_loop(trips="t")
    m.graph.node.insert(0, helper.make_node("Gather", ["ts", "zero"], ["t"], axis=0))
    m.graph.input.append(info("ts", INT64, [2]))
    m.graph.initializer.append(numpy_helper.from_array(np.array(0, np.int64), "zero"))
    with pytest.raises(dmlc.ValidationError, match=r"^onnx Loop node .*: M: expected a trip "
                       "count computed from shapes, constants or 0-d inputs"):
        dmlc.onnx.load_program(m).run({"x": np.zeros((2, 6), np.float32),
                                       "ts": np.array([3, 1])})
