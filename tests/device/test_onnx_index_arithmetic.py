"""ONNX models as PyTorch's exporters write them: index arithmetic fused into one kernel, shape
values kept on the host, If on a condition known there, and the defects that stopped them
(a 0-d Gather index keeping its axis). ONNX's reference evaluator is the oracle."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import dmlc
import dmlc.onnx
from dmlc.compiled import tracing
from dmlc.onnx.export import trace_model

pytestmark = pytest.mark.vulkan
INT64, FLOAT = TensorProto.INT64, TensorProto.FLOAT


def model(nodes, inputs, outputs, inits=(), opset=20):
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(n, t, s)
                                       for n, t, s in inputs],
                          [helper.make_tensor_value_info(n, 0, None) for n in outputs],
                          [numpy_helper.from_array(np.asarray(a), n) for n, a in inits])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def run_both(m, feeds, program=None):
    """dmlc's outputs (kernels traced) checked bit for bit against the reference's."""
    program = program or dmlc.onnx.load_program(m)
    with tracing() as calls:
        got = program.run(feeds)
    want = ReferenceEvaluator(m).run(None, feeds)
    for (name, g), w in zip(got.items(), want):
        assert g.shape == w.shape and g.dtype == w.dtype, name
        assert g.tobytes() == w.tobytes(), name
    return calls


def fused(calls):
    """Each kernel's operator and input buffers."""
    return [(c.kernel.descriptor.operator,
             [b.name for b in c.kernel.program.buffers if b.role == "input"]) for c in calls]


def test_a_0d_gather_index_drops_the_axis():
    """x[:, 0] and x[:, -1] (CLS and last-token pooling) export as Gather(x, scalar)."""
    for i in (0, -1):
        m = model([helper.make_node("Gather", ["x", "i"], ["y"], axis=1)], [("x", FLOAT,
                  [3, 7, 8])], ["y"], [("i", np.array(i, np.int64))])
        x = np.random.default_rng(0).standard_normal((3, 7, 8)).astype(np.float32)
        run_both(m, {"x": x})
        assert dmlc.onnx.load_program(m).run({"x": x})["y"].shape == (3, 8)


def test_take_along_dim_mod_is_one_gather_elements():
    """The dynamo exporter's take_along_dim: GatherElements(x, Mod(idx, n))."""
    m = model([helper.make_node("Mod", ["i", "n"], ["m"]),
               helper.make_node("GatherElements", ["x", "m"], ["y"], axis=1)],
              [("x", FLOAT, [3, 5]), ("i", INT64, [3, 4])], ["y"],
              [("n", np.array(5, np.int64))])
    idx = np.array([[0, -1, 7, -12], [4, 5, -5, 3], [1, 2, 3, 9]], np.int64)
    calls = run_both(m, {"x": np.arange(15, dtype=np.float32).reshape(3, 5), "i": idx})
    assert fused(calls) == [("DML_GATHER_ELEMENTS", ["input", "indices_in0"])]


def test_flat_indices_are_one_gather():
    """The TorchScript exporter's x[i, j]: Gather(Flatten(x), i * stride + j), the stride a
    Gather of Shape(x) (on the host)."""
    m = model([helper.make_node("Shape", ["x"], ["s"]),
               helper.make_node("Gather", ["s", "one"], ["cols"], axis=0),
               helper.make_node("Flatten", ["x"], ["flat"], axis=2),
               helper.make_node("Mul", ["i", "cols"], ["row"]),
               helper.make_node("Add", ["j", "row"], ["k"]),
               helper.make_node("Reshape", ["flat", "minus1"], ["f"]),
               helper.make_node("Gather", ["f", "k"], ["y"], axis=0)],
              [("x", FLOAT, ["rows", 5]), ("i", INT64, [4]), ("j", INT64, [4])], ["y"],
              [("one", np.array(1, np.int64)), ("minus1", np.array([-1], np.int64))])
    program = dmlc.onnx.load_program(m)
    for rows in (6, 2):
        x = np.arange(rows * 5, dtype=np.float32).reshape(rows, 5)
        i, j = np.array([0, rows - 1, 1, -1]), np.array([4, 0, 2, 3])
        calls = run_both(m, {"x": x, "i": i, "j": j}, program)
        assert fused(calls) == [("DML_GATHER", ["input", "indices_in0", "indices_in1"])]


def test_an_index_grid_from_a_range_is_one_scatter_nd():
    """ScatterND over Add(idx, Range(0, n)) (rows idx, idx + 1, ...): the range is the
    element's coordinate, no buffer."""
    m = model([helper.make_node("Range", ["zero", "n", "one"], ["r"]),
               helper.make_node("Add", ["start", "r"], ["rows"]),
               helper.make_node("Unsqueeze", ["rows", "last"], ["idx"]),
               helper.make_node("ScatterND", ["x", "idx", "u"], ["y"])],
              [("x", FLOAT, [6, 4]), ("start", INT64, [1]), ("u", FLOAT, [3, 4])], ["y"],
              [("zero", np.array(0, np.int64)), ("n", np.array(3, np.int64)),
               ("one", np.array(1, np.int64)), ("last", np.array([-1], np.int64))])
    feeds = {"x": np.zeros((6, 4), np.float32), "start": np.array([2]),
             "u": np.full((3, 4), -0.0, np.float32)}
    calls = run_both(m, feeds)
    assert fused(calls) == [("DML_SCATTER_ND", ["input", "indices_in0", "updates"])]


def test_one_hot_by_equal_and_cast_is_one_kernel():
    """The dynamo exporter's F.one_hot(i, 10).float(): Cast(Cast(Equal(Unsqueeze(i, -1),
    arange), int64), float)."""
    m = model([helper.make_node("Unsqueeze", ["i", "last"], ["u"]),
               helper.make_node("Equal", ["u", "arange"], ["eq"]),
               helper.make_node("Cast", ["eq"], ["c"], to=INT64),
               helper.make_node("Cast", ["c"], ["y"], to=FLOAT)],
              [("i", INT64, ["b", 4])], ["y"],
              [("arange", np.arange(10, dtype=np.int64)), ("last", np.array([-1], np.int64))])
    program = dmlc.onnx.load_program(m)
    for b in (3, 1):
        i = np.random.default_rng(b).integers(-2, 12, (b, 4))
        calls = run_both(m, {"i": i}, program)
        assert fused(calls) == [("DML_ELEMENT_WISE_IDENTITY", ["input_in0"])]
        assert "arange" not in calls[0].kernel.ir


def test_shape_gather_range_stays_on_the_host():
    """Shape -> Gather -> Cast -> Range (how both exporters take one dimension): no kernel
    computes a shape, and the Range's output is the Gather's coordinate."""
    m = model([helper.make_node("Shape", ["x"], ["s"]),
               helper.make_node("Gather", ["s", "zero"], ["b"], axis=0),
               helper.make_node("Cast", ["b"], ["bb"], to=INT64),
               helper.make_node("Range", ["zero", "bb", "one"], ["r"]),
               helper.make_node("Gather", ["table", "r"], ["y"], axis=0)],
              [("x", FLOAT, ["batch", 2]), ("table", FLOAT, [8, 3])], ["y"],
              [("zero", np.array(0, np.int64)), ("one", np.array(1, np.int64))])
    program = dmlc.onnx.load_program(m)
    table = np.arange(24, dtype=np.float32).reshape(8, 3)
    for batch in (1, 3, 5):
        calls = run_both(m, {"x": np.zeros((batch, 2), np.float32), "table": table}, program)
        assert [c.kernel.descriptor.operator for c in calls] == ["DML_GATHER"]


def _if_model(cond_nodes, inits=()):
    then = helper.make_graph([helper.make_node("Identity", ["x"], ["t"])], "then", [],
                             [helper.make_tensor_value_info("t", 0, None)])
    other = helper.make_graph([helper.make_node("Reshape", ["x", "flat"], ["e"])], "else", [],
                              [helper.make_tensor_value_info("e", 0, None)])
    return model([*cond_nodes, helper.make_node("If", ["c"], ["y"], then_branch=then,
                                                else_branch=other)],
                 [("x", FLOAT, [2, 3]), ("i", INT64, [2])], ["y"],
                 [("flat", np.array([-1], np.int64)), ("zero", np.array(0, np.int64)), *inits])


def test_if_on_a_shape_runs_the_branch_it_names():
    """The TorchScript exporter's If(Equal(Size(Shape(x)), 0)) around scatter_reduce."""
    m = _if_model([helper.make_node("Shape", ["x"], ["s"]),
                   helper.make_node("Size", ["s"], ["n"]),
                   helper.make_node("Equal", ["n", "zero"], ["c"])])
    run_both(m, {"x": np.ones((2, 3), np.float32), "i": np.array([0, 1])})


def test_if_on_data_a_kernel_computed_is_refused():
    m = _if_model([helper.make_node("Gather", ["i", "i"], ["g"]),
                   helper.make_node("Equal", ["g", "g"], ["e"]),
                   helper.make_node("ReduceMin", ["e"], ["c"], keepdims=0)])
    with pytest.raises(dmlc.ValidationError, match="ReduceMin"):
        dmlc.onnx.load_program(m)  # (a reduction on data: no converter)
    m = _if_model([helper.make_node("Gather", ["i", "i"], ["g"]),
                   helper.make_node("Gather", ["g", "zero"], ["g0"]),
                   helper.make_node("Equal", ["g0", "zero"], ["c"])])
    with pytest.raises(dmlc.ValidationError, match=r"^onnx If node .*cond: expected a "
                       "condition computed from shapes.*got one that depends on tensor data"):
        dmlc.onnx.load_program(m).run({"x": np.ones((2, 3), np.float32),
                                       "i": np.array([0, 1])})


def test_arithmetic_on_float_data_is_refused_naming_the_node():
    m = model([helper.make_node("Neg", ["x"], ["y"], name="rotate_half_neg")],
              [("x", FLOAT, [2, 3])], ["y"])
    with pytest.raises(dmlc.ValidationError, match=r"^onnx Neg node 'rotate_half_neg' .*"
                       r"does not compute on floating-point data\), got float32 tensor data"):
        dmlc.onnx.load_program(m).run({"x": np.ones((2, 3), np.float32)})


def test_nodes_no_output_needs_are_not_run():
    m = model([helper.make_node("Gather", ["x", "i"], ["unused"], axis=0),
               helper.make_node("NonZero", ["x"], ["nz"]),
               helper.make_node("Transpose", ["x"], ["y"])],
              [("x", FLOAT, [2, 3]), ("i", INT64, [2])], ["y"])
    calls = run_both(m, {"x": np.ones((2, 3), np.float32), "i": np.array([1, 0])})
    assert [c.kernel.descriptor.operator for c in calls] == ["DML_ELEMENT_WISE_IDENTITY"]


def test_an_unsupported_op_is_named_first():
    m = model([helper.make_node("MatMul", ["x", "x"], ["y"], name="mm")],
              [("x", FLOAT, [2, 2])], ["y"])
    with pytest.raises(dmlc.ValidationError, match=r"^onnx MatMul node 'mm' \(opset 20\): "
                       r"op_type: expected an op dmlc converts, got MatMul \(it computes on "
                       r"data; dmlc moves data\)$"):
        dmlc.onnx.load_program(m)


def test_a_corrupt_file_is_one_line(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07garbage\xff\xff\xff")
    with pytest.raises(dmlc.ValidationError, match=r"^dmlc.onnx: model: expected an ONNX "
                       r"model \(a serialized ModelProto\), got .*bad.onnx: DecodeError"):
        dmlc.onnx.load_program(str(bad))
    run = subprocess.run([sys.executable, "-m", "dmlc", "run", str(bad)], capture_output=True,
                         text=True)
    assert run.returncode != 0 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and run.stderr.startswith("dmlc: error: dmlc.onnx")


def test_a_manifest_is_refused_where_an_input_s_values_decide_the_kernels():
    """A 0-d position moves on the host and decides the scatter's indices: a model traced on
    zeros would bake the zero in."""
    m = model([helper.make_node("Add", ["t", "one"], ["t1"]),
               helper.make_node("Unsqueeze", ["t1", "axes"], ["idx"]),
               helper.make_node("Unsqueeze", ["idx", "axes"], ["idx2"]),
               helper.make_node("ScatterND", ["x", "idx2", "u"], ["y"])],
              [("x", FLOAT, [5, 2]), ("t", INT64, []), ("u", FLOAT, [1, 2])], ["y"],
              [("one", np.array(1, np.int64)), ("axes", np.array([0], np.int64))])
    feeds = {"x": np.zeros((5, 2), np.float32), "t": np.array(2), "u": np.ones((1, 2),
                                                                                np.float32)}
    run_both(m, feeds)
    with pytest.raises(dmlc.UsageError, match="reads the values of input.*t on the host"):
        trace_model(dmlc.onnx.load_program(m), {"x": (5, 2), "t": (), "u": (1, 2)}, "m", "cpu")


def test_fused_kernels_export_with_their_inputs_wired():
    m = model([helper.make_node("Mod", ["i", "n"], ["m"]),
               helper.make_node("GatherElements", ["x", "m"], ["y"], axis=1)],
              [("x", FLOAT, [3, 5]), ("i", INT64, [3, 4])], ["y"],
              [("n", np.array(5, np.int64))])
    trace = trace_model(dmlc.onnx.load_program(m), {"x": (3, 5), "i": (3, 4)}, "m", "cpu")
    (kernel,) = trace.manifest["kernels"]
    assert [(i["buffer"], i["from"]) for i in kernel["inputs"]] == [
        ("input", {"input": "x"}), ("indices_in0", {"input": "i"})]
    assert onnx.__version__  # (the package the test needs)
