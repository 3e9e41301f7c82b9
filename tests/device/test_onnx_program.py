"""A loaded ONNX model run again and again (dmlc.onnx.load_program): its constants are uploaded
once and kept on the device until the program is released; inputs are checked by name and by
symbolic dimension; an error inside a node names the node."""
from __future__ import annotations

import gc
import re

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import dmlc  # noqa: E402
import dmlc.onnx  # noqa: E402
import dmlc.runtime.executable as executable  # noqa: E402
import dmlc.runtime.tensor as tensor  # noqa: E402
from dmlc.runtime import get_device  # noqa: E402
from reference import assert_bits_equal  # noqa: E402

pytestmark = pytest.mark.vulkan
OPSET = [helper.make_opsetid("", 18)]


def model(nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    return helper.make_model(graph, opset_imports=OPSET)


def embedding_model(table):
    """ids -> rows of a constant table, then the table transposed and gathered again (a view
    of the initializer, kept on the device like the initializer itself)."""
    nodes = [helper.make_node("Gather", ["table", "ids"], ["rows"], axis=0, name="embed"),
             helper.make_node("Transpose", ["table"], ["t"], perm=[1, 0]),
             helper.make_node("Gather", ["t", "ids"], ["cols"], axis=1, name="columns")]
    return model(nodes, [helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch"])],
                 [helper.make_tensor_value_info(n, TensorProto.FLOAT, None)
                  for n in ("rows", "cols")],
                 [numpy_helper.from_array(table, "table")])


@pytest.fixture
def uploads(monkeypatch):
    """The bytes of every host array written to the device (a kernel's host argument, or
    dmlc.to_device), in order."""
    seen: list[int] = []

    def counting(original):
        def to_chunks(array, *args, **kwargs):
            seen.append(np.asarray(array).nbytes)
            return original(array, *args, **kwargs)
        return to_chunks
    monkeypatch.setattr(executable, "to_chunks", counting(executable.to_chunks))
    monkeypatch.setattr(tensor, "to_chunks", counting(tensor.to_chunks))
    return seen


def test_a_second_run_uploads_no_constant_and_creates_no_vulkan_object(uploads):
    table = np.random.default_rng(0).standard_normal((2048, 64)).astype(np.float32)
    ids = np.array([5, 0, 2047, -1], np.int64)
    with dmlc.onnx.load_program(embedding_model(table)) as program:
        first = program.run({"ids": ids})
        assert_bits_equal(first["rows"], np.take(table, ids, axis=0))
        assert_bits_equal(first["cols"], np.take(table.T, ids, axis=1))
        assert table.nbytes in uploads and program.resident.uploads == 2  # table, its transpose
        for _ in range(2):  # the first run's new shapes settle in the buffer pool
            program.run({"ids": ids})
        seen = []  # (bytes uploaded, Vulkan objects made) per run
        for _ in range(3):  # a buffer another test gives back late (gc) may take a pooled
            gc.collect()    # buffer's place once: a new binding (kp algorithm and sequence)
            uploads.clear()
            created = dict(get_device().created)
            again = program.run({"ids": ids})
            seen.append((sum(uploads), {k: n - created.get(k, 0) for k, n in
                                        get_device().created.items() if n != created.get(k, 0)}))
            if seen[-1][0] < 1024 and not seen[-1][1]:
                break
        assert seen[-1][0] < 1024, seen  # the ids and nothing of the table
        assert not seen[-1][1], seen  # a leak or a cache miss would make objects in every run
        assert program.resident.uploads == 2
        for name in first:
            assert_bits_equal(again[name], first[name])
        assert program.resident.nbytes == 2 * table.nbytes
    assert program.resident.nbytes == 0  # released with the program


def test_constants_come_back_after_the_device_was_closed():
    table = np.arange(64 * 8, dtype=np.float32).reshape(64, 8)
    program = dmlc.onnx.load_program(embedding_model(table))
    ids = np.array([3, 1], np.int64)
    program.run({"ids": ids})
    dmlc.close_device()
    got = program.run({"ids": ids})
    assert_bits_equal(got["rows"], table[[3, 1]])
    program.release()
    assert_bits_equal(program.run({"ids": ids})["cols"], table.T[:, [3, 1]])


def test_nodes_of_constants_alone_stay_on_the_host():
    """Shape arithmetic on constants (a Gather of a constant, then Add, a host op) runs as
    before: a node without a device input reads no device copy."""
    nodes = [helper.make_node("Gather", ["dims", "which"], ["d"], axis=0),
             helper.make_node("Add", ["d", "one"], ["d1"]),
             helper.make_node("Reshape", ["x", "d1"], ["y"])]
    inits = [numpy_helper.from_array(np.array([2, 3, 5], np.int64), "dims"),
             numpy_helper.from_array(np.array([0, 1], np.int64), "which"),
             numpy_helper.from_array(np.array([1, 0], np.int64), "one")]
    m = model(nodes, [helper.make_tensor_value_info("x", TensorProto.INT8, [3, 3])],
              [helper.make_tensor_value_info("y", TensorProto.INT8, None)], inits)
    x = np.arange(9, dtype=np.int8).reshape(3, 3)
    program = dmlc.onnx.load_program(m)
    assert_bits_equal(program.run({"x": x})["y"], x)
    assert program.resident.uploads == 0


def batch_model():
    nodes = [helper.make_node("Concat", ["a", "b"], ["y"], axis=1, name="both")]
    return model(nodes, [helper.make_tensor_value_info("a", TensorProto.FLOAT, ["batch", 2]),
                         helper.make_tensor_value_info("b", TensorProto.FLOAT, ["batch", 3])],
                 [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])


def test_a_symbolic_dimension_has_one_size_in_every_input():
    a, b = np.zeros((2, 2), np.float32), np.zeros((3, 3), np.float32)
    with pytest.raises(dmlc.ValidationError, match=r"input 'b' dimension 0 \(batch\): expected "
                       r"2, the size input 'a' gives batch \(its dimension 0\), got 3"):
        dmlc.onnx.run(batch_model(), {"a": a, "b": b})


def test_inputs_are_named_as_the_model_names_them():
    """Every input by its name, and no other name (a misspelt one would be ignored)."""
    feeds = {"a": np.zeros((2, 2), np.float32), "b": np.zeros((2, 3), np.float32)}
    program = dmlc.onnx.load_program(batch_model())
    signature = "a: float32[batch, 2], b: float32[batch, 3]"
    with pytest.raises(dmlc.ValidationError, match=r"input 'c'.*" + re.escape(signature)
                       + ", got no such input"):
        program.run({**feeds, "c": feeds["a"]})
    with pytest.raises(dmlc.ValidationError, match=r"input 'b'.*got none"):
        program.run({"a": feeds["a"]})
    assert program.run(feeds)["y"].shape == (2, 5)


def test_an_error_inside_a_node_names_the_node():
    nodes = [helper.make_node("ScatterND", ["x", "i", "u"], ["y"], name="kv_update")]
    m = model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4]),
                      helper.make_tensor_value_info("i", TensorProto.INT64, ["m", 1]),
                      helper.make_tensor_value_info("u", TensorProto.FLOAT, ["n", 4])],
              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    feeds = {"x": np.zeros((2, 4), np.float32), "i": np.zeros((2, 1), np.int64),
             "u": np.zeros((3, 4), np.float32)}
    with pytest.raises(dmlc.ValidationError, match=r"^onnx ScatterND node 'kv_update' \(opset "
                       r"18\): DML_SCATTER_ND: UpdatesTensor"):
        dmlc.onnx.run(m, feeds)
    feeds["u"], feeds["i"] = np.zeros((2, 4), np.float32), np.array([[0], [7]], np.int64)
    with pytest.raises(dmlc.IndexOutOfRangeError, match=r"^onnx ScatterND node 'kv_update'"):
        dmlc.onnx.run(m, feeds)
