"""ONNX models in (dmlc.onnx): graphs of data-movement nodes against ONNX's reference evaluator,
bit for bit; element types DirectML lacks moved as bits; zero-size tensors; the errors for
unsupported nodes and symbolic dimensions; `dmlc run` and `dmlc compile` on .onnx files."""
from __future__ import annotations

import json

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

import dmlc  # noqa: E402
import dmlc.onnx  # noqa: E402
from dmlc.cli import main  # noqa: E402
from reference import assert_bits_equal  # noqa: E402

pytestmark = pytest.mark.vulkan
OPSET = [helper.make_opsetid("", 18)]


def model(nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    return helper.make_model(graph, opset_imports=OPSET)


def check(m, feeds):
    expected = ReferenceEvaluator(m).run(None, feeds)
    got = dmlc.onnx.run(m, feeds)
    for e, name in zip(expected, [o.name for o in m.graph.output]):
        assert_bits_equal(got[name], np.asarray(e))
    return got


def chain_model(elem=TensorProto.FLOAT):
    """Transpose -> Gather -> Reshape -> Concat with a constant -> Slice -> Split."""
    nodes = [helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0]),
             helper.make_node("Gather", ["t", "idx"], ["g"], axis=0),
             helper.make_node("Reshape", ["g", "shape"], ["r"]),
             helper.make_node("Concat", ["r", "c"], ["j"], axis=0),
             helper.make_node("Slice", ["j", "starts", "ends", "axes", "steps"], ["s"]),
             helper.make_node("Split", ["s"], ["a", "b"], axis=0, num_outputs=2)]
    inits = [numpy_helper.from_array(np.array([3, 0, -1], np.int64), "idx"),
             numpy_helper.from_array(np.array([-1], np.int64), "shape"),
             numpy_helper.from_array(np.array([-1], np.int64), "starts"),
             numpy_helper.from_array(np.array([-1000], np.int64), "ends"),
             numpy_helper.from_array(np.array([0], np.int64), "axes"),
             numpy_helper.from_array(np.array([-2], np.int64), "steps")]
    return model(nodes, [helper.make_tensor_value_info("x", elem, [2, 5]),
                         helper.make_tensor_value_info("c", elem, [4])],
                 [helper.make_tensor_value_info("a", elem, None),
                  helper.make_tensor_value_info("b", elem, None)], inits)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "uint8", "float64"])
def test_a_chain_of_nodes_is_the_reference_bit_for_bit(dtype):
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    rng = np.random.default_rng(1)
    x = rng.integers(0, 100, (2, 5)).astype(dtype)
    c = rng.integers(0, 100, (4,)).astype(dtype)
    if dtype.startswith("float"):
        x[0, 0], c[0] = -0.0, np.nan
    check(chain_model(elem), {"x": x, "c": c})


@pytest.mark.parametrize("dtype", [np.bool_, np.complex64])
def test_types_directml_lacks_move_as_bits(dtype):
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    rng = np.random.default_rng(2)
    x = (rng.random((2, 5)) > 0.5).astype(dtype)
    c = (rng.random(4) > 0.5).astype(dtype)
    got = check(chain_model(elem), {"x": x, "c": c})
    assert got["a"].dtype == np.dtype(dtype)


def test_zero_size_tensors_dispatch_nothing_and_work():
    nodes = [helper.make_node("Concat", ["x", "e"], ["j"], axis=0),
             helper.make_node("Split", ["j", "sizes"], ["p", "q", "r"], axis=0),
             helper.make_node("Gather", ["j", "none"], ["g"], axis=0)]
    inits = [numpy_helper.from_array(np.array([3, 0, 1], np.int64), "sizes"),
             numpy_helper.from_array(np.zeros((0,), np.int64), "none")]
    m = model(nodes, [helper.make_tensor_value_info("x", TensorProto.INT16, [4, 2]),
                      helper.make_tensor_value_info("e", TensorProto.INT16, [0, 2])],
              [helper.make_tensor_value_info(n, TensorProto.INT16, None) for n in "pqrg"], inits)
    got = check(m, {"x": np.arange(8, dtype=np.int16).reshape(4, 2),
                    "e": np.zeros((0, 2), np.int16)})
    assert got["q"].shape == (0, 2) and got["g"].shape == (0, 2)


def test_an_unsupported_node_is_named_with_its_op_type_and_opset():
    m = model([helper.make_node("Relu", ["x"], ["y"], name="act")],
              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    with pytest.raises(dmlc.ValidationError, match=r"^onnx Relu node 'act' \(opset 18\): "
                       "op_type: expected an op dmlc converts, got Relu"):
        dmlc.onnx.load_program(m)


def symbolic_model():
    return model([helper.make_node("Transpose", ["x"], ["y"])],
                 [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3])],
                 [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])


def test_symbolic_dimensions_take_the_callers_size(tmp_path, capsys):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert_bits_equal(dmlc.onnx.run(symbolic_model(), {"x": x})["y"], x.T)
    with pytest.raises(dmlc.ValidationError, match="input 'x' dimension 1: expected 3, got 4"):
        dmlc.onnx.run(symbolic_model(), {"x": np.zeros((2, 4), np.float32)})
    path = tmp_path / "m.onnx"
    onnx.save(symbolic_model(), str(path))
    assert main(["compile", str(path), "--emit", "ir"]) == 1
    err = capsys.readouterr().err
    assert "input 'x' dimension 0 (batch)" in err and "--dim batch=N" in err
    assert main(["compile", str(path), "--emit", "ir", "--shape", "x=5,3"]) == 0
    assert "program" in capsys.readouterr().out
    assert main(["compile", str(path), "--emit", "ir", "--dim", "batch=5"]) == 0
    assert "program" in capsys.readouterr().out


def test_dmlc_run_on_a_model_from_onnx_test_data(tmp_path):
    """A node model of ONNX's own backend tests, saved as a file, run by the CLI."""
    from onnx.backend.test.loader import load_model_tests
    case = next(c for c in load_model_tests(kind="node") if c.name == "test_gather_2d_indices")
    path = tmp_path / "gather.onnx"
    onnx.save(case.model, str(path))
    inputs, expected = case.data_sets[0]
    files = []
    for inp, array in zip(case.model.graph.input, inputs):
        np.save(tmp_path / f"{inp.name}.npy", array)
        files += ["--input", f"{inp.name}={tmp_path / inp.name}.npy"]
    out = tmp_path / "out.npz"
    assert main(["run", str(path), *files, "-o", str(out)]) == 0
    got = np.load(out)
    (name,) = [o.name for o in case.model.graph.output]
    assert_bits_equal(got[name], expected[0])


def test_dmlc_compile_a_model_emits_its_kernels(tmp_path):
    path = tmp_path / "chain.onnx"
    onnx.save(chain_model(), str(path))
    out = tmp_path / "out"
    assert main(["compile", str(path), "--emit", "manifest", "-o", str(out)]) == 0
    names = sorted(p.name for p in out.glob("*.manifest.json"))
    assert len(names) >= 3 and any("gather" in n for n in names) and any("join" in n
                                                                         for n in names)
    wiring = json.loads((out / "chain.model.json").read_text())
    assert sorted(k["manifest"] for k in wiring["kernels"]) == names


def test_a_graph_alone_runs_at_the_newest_opset():
    graph = symbolic_model().graph
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert_bits_equal(dmlc.onnx.run(graph, {"x": x})["y"], x.T)
    with pytest.raises(dmlc.ValidationError, match="GraphProto"):
        dmlc.onnx.load_program(42)
