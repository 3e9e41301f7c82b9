"""Symbolic .dml files on the device: each run at several sizes bit for bit as numpy computes
it independently, and the compiles counted (one generic kernel for every size where the
family has one; one specialized compile per size otherwise, tensor expressions included)."""
from __future__ import annotations

import os

import numpy as np
import pytest
from tests.strategies import random_bits

import dmlc
from dmlc.cli import main
from dmlc.lang import parse_module
from dmlc.modules import run_module

pytestmark = pytest.mark.vulkan

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples",
                       "embedding_batch_symbolic.dml")

GATHER = """
DML_GATHER_OPERATOR_DESC
Axis: 1
IndexDimensions: 2
InputTensor: (Sizes:{1, 12, 8}, DataType:FLOAT32)
IndicesTensor: (Sizes:{1, B, S}, DataType:INT64)
OutputTensor: (Sizes:{B, S, 8}, DataType:FLOAT32)
"""

JOIN = """
DML_JOIN_OPERATOR_DESC
InputCount: 2
Axis: 1
InputTensors: {(Sizes:{B, 2, ?}, DataType:FLOAT32), (Sizes:{B, 3, ?}, DataType:FLOAT32)}
OutputTensor: (Sizes:{B, 5, ?}, DataType:FLOAT32)
"""


def test_a_symbolic_gather_file_runs_every_size_with_one_generic_compile():
    module = parse_module(GATHER)
    dmlc.clear_cache()
    table = random_bits(1, (1, 12, 8), np.dtype(np.float32))
    for batch, seq in ((1, 3), (4, 3), (2, 5), (3, 1)):
        ids = (random_bits(batch * seq, (1, batch, seq), np.dtype(np.uint32)) % 24).astype(
            np.int64) - 12  # negative ids count from the end
        (got,) = run_module(module, {"InputTensor": table, "IndicesTensor": ids}).values()
        assert got.tobytes() == np.ascontiguousarray(table[0][ids[0]]).tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_GATHER generic": 1}


def test_a_symbolic_join_file_runs_every_batch_with_one_generic_compile_per_variant():
    module = parse_module(JOIN)
    dmlc.clear_cache()
    for batch, width in ((1, 4), (3, 4), (5, 2)):
        a = random_bits(batch, (batch, 2, width), np.dtype(np.float32))
        b = random_bits(batch + 9, (batch, 3, width), np.dtype(np.float32))
        (got,) = run_module(module, {"InputTensors[0]": a, "InputTensors[1]": b}).values()
        assert got.tobytes() == np.concatenate([a, b], axis=1).tobytes()
    # one generic kernel for every batch; the width too varies, and a symbolic kernel runs the
    # best variant for its call (docs/generic-kernels.md): join's "vector" for width 4 (whole
    # 16-byte vectors, the host checking it), its "scalar" for width 2: one compile each
    assert dmlc.cache_info()["compiles"] == {"DML_JOIN generic": 2}
    assert sorted(name.split()[-2] for name in dmlc.cache_info()["generic"]) == ["scalar",
                                                                                "vector"]


def test_a_symbolic_padding_file_compiles_one_generic_kernel():
    module = parse_module("""DML_PADDING_OPERATOR_DESC
InputTensor: (Sizes:{B, 4}, DataType:INT32)
OutputTensor: (Sizes:{B, 6}, DataType:INT32)
PaddingMode: DML_PADDING_MODE_REFLECTION
PaddingValue: 0
DimensionCount: 2
StartPadding: {0, 1}
EndPadding: {0, 1}
""")
    dmlc.clear_cache()
    for batch in (1, 2, 7):
        x = random_bits(batch, (batch, 4), np.dtype(np.int32))
        (got,) = run_module(module, {"InputTensor": x}).values()
        assert got.tobytes() == np.pad(x, ((0, 0), (1, 1)), mode="reflect").tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_PADDING generic": 1}


def test_a_symbolic_depth_to_space_compiles_once():
    module = parse_module("""DML_DEPTH_TO_SPACE1_OPERATOR_DESC
BlockSize: 2
Order: DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW
InputTensor: (Sizes:{B, 4, 1, 2}, DataType:INT32)
OutputTensor: (Sizes:{B, 1, 2, 4}, DataType:INT32)
""")
    dmlc.clear_cache()
    for batch in (1, 2, 7):
        x = random_bits(batch, (batch, 4, 1, 2), np.dtype(np.int32))
        (got,) = run_module(module, {"InputTensor": x}).values()
        dcr = x.reshape(batch, 2, 2, 1, 1, 2).transpose(0, 3, 4, 1, 5, 2).reshape(batch, 1, 2, 4)
        assert got.tobytes() == dcr.tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_DEPTH_TO_SPACE1 generic": 1}


def test_symbolic_tensor_expressions_run_at_three_sizes_on_one_generic_kernel():
    """The file is elaborated at each call's sizes (lang/expression_sizes.py); the expression's
    generic kernel serves the sizes after the first (auto: one specialized compile first;
    DMLC_DYNAMIC=always: none)."""
    module = parse_module("""X: float32[N, M]
I: int32[N, M]
Y[i, j] = X[I[i, j], j]
""")
    dmlc.clear_cache()
    for n, m in ((2, 3), (5, 1), (3, 4)):
        x = random_bits(n, (n, m), np.dtype(np.float32))
        ids = (random_bits(m, (n, m), np.dtype(np.uint32)) % n).astype(np.int32)
        (got,) = run_module(module, {"X": x, "I": ids}).values()
        assert got.tobytes() == np.take_along_axis(x, ids, axis=0).tobytes()
    compiles = dmlc.cache_info()["compiles"]
    assert compiles.get("expression generic") == 1 and compiles.get("expression", 0) <= 1, \
        compiles


def test_a_symbolic_expression_file_runs_with_its_data(tmp_path, capsys):
    path = tmp_path / "e.dml"
    path.write_text("""X: float32[N, 3] = [[1, 2, 3], [4, 5, 6]]
Y: float32[N, 3] = [[3, 2, 1], [6, 5, 4]]
Y[i, j] = X[i, 2 - j]
""")
    assert main(["run", str(path)]) == 0
    captured = capsys.readouterr()
    assert "Y: float32[2, 3]" in captured.out and "matches" in captured.err
    np.save(tmp_path / "x.npy", np.arange(12, dtype=np.float32).reshape(4, 3))
    # X of 4 rows binds N = 4: Y's data (the expected result, 2 rows) no longer fits Y
    assert main(["run", str(path), "--input", f"X={tmp_path / 'x.npy'}"]) == 1
    assert "e.dml:2:20: Y data: expected {4, 3} values" in capsys.readouterr().err


def test_the_symbolic_example_checks_its_result(capsys):
    dmlc.clear_cache()
    assert main(["run", EXAMPLE]) == 0
    assert "OutputTensor: matches the values the file expects" in capsys.readouterr().err
    assert dmlc.cache_info()["compiles"] == {"DML_GATHER generic": 1}


def test_a_symbolic_split_file_runs_each_batch():
    """DML_SPLIT's outputs name the input's batch: bound per call, one generic kernel for
    every batch."""
    module = parse_module("""DML_SPLIT_OPERATOR_DESC
Axis: 1
InputTensor: (Sizes:{B, 3}, DataType:INT32)
OutputCount: 2
OutputTensors: {(Sizes:{B, 1}, DataType:INT32), (Sizes:{B, 2}, DataType:INT32)}
""")
    dmlc.clear_cache()
    for batch in (1, 4, 2):
        x = random_bits(batch, (batch, 3), np.dtype(np.int32))
        got = run_module(module, {"InputTensor": x})
        assert got["OutputTensors[0]"].tobytes() == np.ascontiguousarray(x[:, :1]).tobytes()
        assert got["OutputTensors[1]"].tobytes() == np.ascontiguousarray(x[:, 1:]).tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_SPLIT generic": 1}
