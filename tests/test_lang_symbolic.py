"""Symbolic sizes in .dml files (docs/generic-kernels.md, "The .dml language"): parsing both
notations, the errors (each naming operator, field, expected and actual), and what `dmlc
compile` prints. No Vulkan device: the device runs are in tests/device/test_lang_symbolic_device.py.
"""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

from dmlc.cli import main
from dmlc.errors import DmlcError, ParseError
from dmlc.lang import parse_module
from dmlc.modules import compile_module, generic_kernels, run_module
from dmlc.oneshot.symbolic import SymbolicKernel

GATHER = """
DML_GATHER_OPERATOR_DESC
Axis: 1
IndexDimensions: 2
InputTensor: (Sizes:{1, 5, 2}, DataType:FLOAT32)   // static: the table
IndicesTensor: (Sizes:{1, B, ?}, DataType:INT32) DATA
OutputTensor: (Sizes:{B, ?, 2}, DataType:FLOAT32)
"""

JOIN = """
DML_JOIN_OPERATOR_DESC
InputCount: 2
Axis: 1
InputTensors: {(Sizes:{B, 2}, DataType:FLOAT32) [[1, 2], [3, 4]],
               (Sizes:{B, 1}, DataType:FLOAT32) [[5], [6]]}
OutputTensor: (Sizes:{B, 3}, DataType:FLOAT32) [[1, 2, 5], [3, 4, 6]]
"""

EXPR = """
X: float32[N, 3]{x}
I: int32[N, ?]{i}
Y[i, j] = X[I[i, j], 2 - j]
"""


def _error(text: str, *parts: str) -> str:
    """The message of the dmlc error parsing (and compiling) `text` raises, checked to name
    every part (operator, field, expected, actual)."""
    with pytest.raises(DmlcError) as info:
        module = parse_module(text, "t.dml")
        generic_kernels(module)
    message = str(info.value)
    for part in parts:
        assert part in message, (part, message)
    assert "Traceback" not in message
    return message


def test_directml_sizes_name_a_dimension_or_leave_it_free():
    (u,) = parse_module(GATHER.replace("DATA", "")).units
    assert u.descriptor.indices.sizes == (1, "B", None)
    assert u.descriptor.output.sizes == ("B", None, 2)
    assert u.bound == {} and u.data == {}


def test_directml_data_binds_the_names():
    (u,) = parse_module(GATHER.replace("DATA", "[[[0, 1, 2], [3, 4, -1]]]")).units
    assert u.bound == {"B": 2}
    assert u.data["indices"].shape == (1, 2, 3) and u.data["indices"].dtype == np.int32
    (j,) = parse_module(JOIN).units
    assert j.bound == {"B": 2} and j.expected.shape == (2, 3)


def test_expression_declarations_name_a_dimension_or_leave_it_free():
    module = parse_module(EXPR.format(x="", i=""))
    assert module.symbolic is not None and module.units == []
    bound = module.at({"X": (4, 3), "I": (4, 5)})
    (u,) = bound.units
    assert dict(u.descriptor.tensors)["X"].sizes == (4, 3)
    assert dict(u.descriptor.tensors)["I"].sizes == (4, 5)


def test_expression_data_binds_the_sizes_at_parse():
    module = parse_module(EXPR.format(x=" = [[1, 2, 3], [4, 5, 6]]", i=" = [[0], [1]]"))
    (u,) = module.units
    assert dict(u.descriptor.tensors)["X"].sizes == (2, 3)
    assert u.data["I"].shape == (2, 1)


def test_static_files_still_parse_as_before():
    (u,) = parse_module("X: float32[2, 3]\nY[i, j] = X[i // 1, j] // a comment\n").units
    assert dict(u.descriptor.tensors)["X"].sizes == (2, 3)


def test_a_name_given_two_sizes_by_the_data():
    _error(JOIN.replace("[[5], [6]]", "[[5], [6], [7]]"), "t.dml:5", "DML_JOIN",
           "InputTensors[1].Sizes[0] (B)", "expected 2, the size InputTensors[0] gives B",
           "got 3")
    _error(EXPR.format(x=" = [[1, 2, 3], [4, 5, 6]]", i=" = [[0], [1], [1]]"), "t.dml:3",
           "expression", "I.Sizes[0] (N)", "expected 2, the size X gives N", "got 3")


def test_the_expected_output_disagreeing_with_the_inputs():
    _error(JOIN.replace("[[1, 2, 5], [3, 4, 6]]", "[[1, 2, 5]]"), "DML_JOIN",
           "OutputTensor.Sizes[0] (B)", "expected 2, the size InputTensors[0] gives B", "got 1")


def test_a_static_size_the_data_breaks():
    _error(GATHER.replace("DATA", "[[[0, 1], [3, 4]], [[0, 1], [3, 4]]]"), "DML_GATHER",
           "IndicesTensor.Sizes[0]", "expected 1", "got 2")


def test_a_name_the_arrays_give_two_sizes():
    module = parse_module(JOIN, "t.dml")
    with pytest.raises(ParseError) as info:
        run_module(module, {"InputTensors[1]": np.zeros((5, 1), np.float32)})
    for part in ("DML_JOIN", "InputTensors[1].Sizes[0] (B)", "expected 2", "got 5"):
        assert part in str(info.value)


def test_a_symbolic_size_in_a_static_field():
    _error("""DML_SLICE1_OPERATOR_DESC
InputTensor: (Sizes:{N, 4}, DataType:FLOAT32)
OutputTensor: (Sizes:{2, 2}, DataType:FLOAT32)
InputWindowOffsets: {0, A}
InputWindowSizes: {2, 2}
InputWindowStrides: {1, 1}
""", "t.dml:4", "DML_SLICE1", "InputWindowOffsets", "expected integers", "got {0, A}")


def test_a_symbolic_stride():
    _error(JOIN.replace("(Sizes:{B, 2}, DataType:FLOAT32)",
                        "(Sizes:{B, 2}, DataType:FLOAT32, Strides:{2, 1})"),
           "DML_JOIN", "InputTensors[0].Strides", "expected none", "got {2, 1}")
    _error(GATHER.replace("DATA", "").replace("(Sizes:{1, 5, 2}, DataType:FLOAT32)",
                          "(Sizes:{1, 5, 2}, DataType:FLOAT32, Strides:{10, B, 1})"),
           "DML_GATHER", "InputTensor.Strides", "expected integers", "got {10, B, 1}")


def test_an_output_size_no_input_gives():
    _error(JOIN.replace("OutputTensor: (Sizes:{B, 3}", "OutputTensor: (Sizes:{M, 3}")
           .replace(" [[1, 2, 5], [3, 4, 6]]", ""), "DML_JOIN", "OutputTensor.Sizes[0] (M)",
           "expected a name an input's Sizes give (B)", "got M")
    _error("X: float32[N]\nY: float32[M]\nY[i] = X[i]\n", "t.dml:2", "expression",
           "Y.Sizes[0]", "expected an integer or a name an input's sizes give (N)", "got M")
    _error("X: float32[N]\nY: float32[?]\nY[i] = X[i]\n", "expression", "Y.Sizes[0]",
           "got ?")


SCATTER = """DML_SCATTER_OPERATOR_DESC
Axis: 1
InputTensor: (Sizes:{B, 4}, DataType:INT32)
IndicesTensor: (Sizes:{B, 2}, DataType:INT32)
UpdatesTensor: (Sizes:{B, 2}, DataType:INT32)
OutputTensor: (Sizes:{B, 4}, DataType:INT32)
"""


def test_compile_of_a_family_without_a_generic_kernel_is_refused():
    """A scatter tuned for a GPU has no generic kernel (no generic vote): refused, the error
    located at its symbolic field."""
    with pytest.raises(DmlcError) as info:
        generic_kernels(parse_module(SCATTER, "t.dml"), target="gpu")
    message = str(info.value)
    for part in ("t.dml:3", "DML_SCATTER", "InputTensor.Sizes", "no generic kernel",
                 "got {B, 4}"):
        assert part in message, (part, message)


def test_compile_of_a_symbolic_depth_to_space_prints_its_generic_kernel(capsys, tmp_path):
    path = tmp_path / "d.dml"
    path.write_text("""DML_DEPTH_TO_SPACE1_OPERATOR_DESC
BlockSize: 2
Order: DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW
InputTensor: (Sizes:{B, 4, 1, 2}, DataType:FLOAT32)
OutputTensor: (Sizes:{B, 1, 2, 4}, DataType:FLOAT32)
""")
    assert main(["compile", str(path), "--emit", "glsl"]) == 0
    assert "dmlc_p.p[" in capsys.readouterr().out


def test_compile_of_symbolic_expressions_is_refused():
    _error(EXPR.format(x="", i=""), "expression", "X sizes", "no generic kernel",
           "got {N, 3}")


def test_compile_module_gives_a_symbolic_kernel():
    (k,) = compile_module(parse_module(GATHER.replace("DATA", ""))).values()
    assert isinstance(k, SymbolicKernel)


def test_dmlc_compile_prints_the_generic_kernel(tmp_path, capsys):
    path = tmp_path / "g.dml"
    path.write_text(GATHER.replace("DATA", ""))
    assert main(["compile", str(path), "--emit", "glsl"]) == 0
    glsl = capsys.readouterr().out
    assert "layout(push_constant) uniform Params" in glsl and "dmlc_p.p[" in glsl
    assert main(["compile", str(path), "--emit", "ir"]) == 0
    assert re.search(r"%\d+: int = p\d", capsys.readouterr().out)  # the push words


def test_dmlc_compile_writes_a_manifest_of_symbolic_sizes(tmp_path, capsys):
    """Its generic kernel, sizes as push constants (tests/device/test_manifest_runner.py runs
    such manifests from C)."""
    path = tmp_path / "g.dml"
    path.write_text(GATHER.replace("DATA", ""))
    assert main(["compile", str(path), "--emit", "manifest", "-o", str(tmp_path / "m")]) == 0
    document = json.loads((tmp_path / "m" / "g.manifest.json").read_text())
    assert document["version"] == 2 and document["generic"]["words"]
    assert all(k["count_word"] is not None for k in document["kernels"])


def test_dmlc_compile_of_expressions_is_a_user_error(tmp_path, capsys):
    path = tmp_path / "e.dml"
    path.write_text(EXPR.format(x="", i=""))
    assert main(["compile", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("dmlc: error: expression: X sizes") and "Traceback" not in err


def test_a_list_of_outputs_takes_only_names_its_inputs_give():
    text = """DML_SPLIT_OPERATOR_DESC
Axis: 1
InputTensor: (Sizes:{B, 3}, DataType:FLOAT32)
OutputCount: 2
OutputTensors: {(Sizes:{?, 1}, DataType:FLOAT32), (Sizes:{B, 2}, DataType:FLOAT32)}
"""
    module = parse_module(text, "t.dml")
    with pytest.raises(ParseError) as info:
        run_module(module, {"InputTensor": np.zeros((2, 3), np.float32)})
    for part in ("t.dml:5", "DML_SPLIT", "OutputTensors[0].Sizes[0]",
                 "expected an integer or a name an input's Sizes give", "got ?"):
        assert part in str(info.value)
