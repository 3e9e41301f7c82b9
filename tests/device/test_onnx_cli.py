"""`dmlc run model.onnx` and `dmlc compile model.onnx`: inputs by the model's names (a name it
lacks refused, none given answered with the --input options it needs), --dim for a symbolic
dimension in every input, a batch that differs between inputs named by its dimension, and
the options that are only for .dml files refused."""
from __future__ import annotations

import json

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

from dmlc.cli import main  # noqa: E402

pytestmark = pytest.mark.vulkan


@pytest.fixture
def kv(tmp_path):
    """A KV cache updated by ScatterND, every input batched by the symbolic `batch`."""
    node = helper.make_node("ScatterND", ["cache", "idx", "upd"], ["out"], name="kv_update")
    graph = helper.make_graph([node], "kv", [
        helper.make_tensor_value_info("cache", TensorProto.FLOAT, ["batch", 8, 4]),
        helper.make_tensor_value_info("idx", TensorProto.INT64, ["batch", 1, 2]),
        helper.make_tensor_value_info("upd", TensorProto.FLOAT, ["batch", 1, 4])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, None)])
    path = tmp_path / "kv.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), str(path))
    return path


def npy(tmp_path, name, array):
    np.save(tmp_path / f"{name}.npy", array)
    return f"{name}={tmp_path / name}.npy"


SIGNATURE = "cache: float32[batch, 8, 4], idx: int64[batch, 1, 2], upd: float32[batch, 1, 4]"


def test_run_without_inputs_lists_the_input_options(kv, capsys):
    assert main(["run", str(kv)]) == 2
    err = capsys.readouterr().err
    assert ("kv.onnx takes 3 input(s): --input cache=FILE.npy --input idx=FILE.npy --input "
            "upd=FILE.npy") in err and SIGNATURE in err


def test_an_input_the_model_lacks_is_refused(kv, tmp_path, capsys):
    assert main(["run", str(kv), "--input", npy(tmp_path, "bogus", np.zeros(3))]) == 1
    err = capsys.readouterr().err
    assert "--input bogus: expected one of the model's inputs: " + SIGNATURE in err


def test_a_batch_that_differs_between_inputs_names_the_dimension(kv, tmp_path, capsys):
    args = ["--input", npy(tmp_path, "cache", np.zeros((2, 8, 4), np.float32)),
            "--input", npy(tmp_path, "idx", np.zeros((3, 1, 2), np.int64)),
            "--input", npy(tmp_path, "upd", np.ones((3, 1, 4), np.float32))]
    assert main(["run", str(kv), *args]) == 1
    assert ("input 'idx' dimension 0 (batch): expected 2, the size input 'cache' gives batch "
            "(its dimension 0), got 3") in capsys.readouterr().err


def test_an_index_out_of_range_names_the_node(kv, tmp_path, capsys):
    args = ["--input", npy(tmp_path, "cache", np.zeros((2, 8, 4), np.float32)),
            "--input", npy(tmp_path, "idx", np.full((2, 1, 2), 9, np.int64)),
            "--input", npy(tmp_path, "upd", np.ones((2, 1, 4), np.float32))]
    assert main(["run", str(kv), *args]) == 1
    assert "onnx ScatterND node 'kv_update' (opset 18): DML_SCATTER_ND" in capsys.readouterr().err


def test_dim_sets_a_symbolic_dimension_in_every_input(kv, tmp_path, capsys):
    assert main(["compile", str(kv), "--emit", "ir"]) == 1
    assert "input 'cache' dimension 0 (batch): expected a size: --dim batch=N" in (
        capsys.readouterr().err)
    assert main(["compile", str(kv), "--dim", "batch=3", "--emit", "manifest", "-o",
                 str(tmp_path / "out")]) == 0
    capsys.readouterr()
    model = json.loads((tmp_path / "out" / "kv.model.json").read_text())
    assert [i["shape"] for i in model["inputs"]] == [[3, 8, 4], [3, 1, 2], [3, 1, 4]]


@pytest.mark.parametrize("args, message", [
    (["--dim", "seq=4"], "--dim seq: the model has no such name; its symbolic dimensions: "
     "batch"),
    (["--dim", "batch=0"], "--dim 'batch=0': expected NAME=N (sizes >= 1)"),
    (["--dim", "batch=2,3"], "expected NAME=N"),
    (["--shape", "cash=2,8,4"], "--shape cash: the model has no such name; its inputs: cache"),
    (["--in-place"], "--in-place is for the scatters of a .dml file"),
    (["--dump-after", "lower"], "--dump-after is for .dml files"),
])
def test_options_a_model_cannot_take(kv, args, message, capsys):
    assert main(["compile", str(kv), *args]) == 2
    assert message in capsys.readouterr().err
