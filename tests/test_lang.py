"""The .dml language: parsing (lark), DirectML notation and the seeds' examples, errors with
line and column. No Vulkan: results here come from the IR interpreter (`reference`)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from examples.seed_examples import SEED_EXAMPLES

import dmlc
from dmlc.lang import parse_module
from dmlc.lang.parser import parse
from reference import assert_bits_equal

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SEED_FILES = sorted((EXAMPLES / "seeds").glob("*.dml"))


def interpret(module) -> dict[str, np.ndarray]:
    """Every unit's output by the IR interpreter, from the file's data."""
    out = {}
    for u in module.units:
        k = dmlc.compile(u.descriptor)
        out[u.name] = k.reference(*(u.data[a] for a in k.program.inputs))
    return out


def test_ten_seed_files_one_per_documented_example():
    assert len(SEED_FILES) == len(SEED_EXAMPLES) == 10


@pytest.mark.parametrize("path", SEED_FILES, ids=lambda p: p.stem)
def test_seed_file_gives_its_documented_output(path):
    module = dmlc.lang.load(path)
    (unit,) = module.units
    assert unit.expected is not None, "each seed file documents its output"
    assert_bits_equal(interpret(module)["OutputTensor"], unit.expected)


@pytest.mark.parametrize("example", SEED_EXAMPLES, ids=lambda e: f"{e.page} {e.title}")
def test_seed_files_agree_with_python_examples(example):
    """The .dml files describe the same operators and data as examples/seed_examples.py."""
    outputs = []
    for path in SEED_FILES:
        (unit,) = dmlc.lang.load(path).units
        if unit.descriptor.operator == example.page and unit.expected is not None and \
                unit.expected.shape == example.expected.shape and \
                np.array_equal(unit.expected, example.expected):
            outputs.append(unit)
    assert len(outputs) == 1
    for name, array in example.inputs.items():
        np.testing.assert_array_equal(outputs[0].data[name], array)


def test_operator_inferred_from_fields_when_no_name_is_given():
    # The seed pages' blocks have no operator line: the fields decide.
    text = (EXAMPLES / "seeds" / "slice_2_negative_strides.dml").read_text()
    module = parse_module(text.replace("DML_SLICE1_OPERATOR_DESC", ""))
    assert module.units[0].descriptor.operator == "DML_SLICE1"
    text = (EXAMPLES / "seeds" / "gather_1_1d_remapping.dml").read_text()
    assert parse_module(text.replace("DML_GATHER_OPERATOR_DESC", "")).units[0].descriptor.operator \
        == "DML_GATHER"


@pytest.mark.parametrize("name", ["DML_GATHER_ELEMENTS_OPERATOR_DESC", "gather_elements",
                                  "DML_GATHER_ELEMENTS", "GATHER_ELEMENTS"])
def test_operator_name_spellings(name):
    text = f"""{name}
    Axis = 1
    InputTensor: (Sizes:{{2, 2}}, DataType:INT8) [[1, -2], [3, -4]]
    IndicesTensor: (Sizes:{{2, 1}}, DataType:INT64) [[-1], [0]]
    """
    m = parse_module(text)
    assert_bits_equal(interpret(m)["OutputTensor"], np.array([[-2], [3]], np.int8))


def test_strided_tensor_and_its_data():
    # A transposed view: Sizes {2, 3}, Strides {1, 2}; the data is written in logical order.
    m = parse_module("""slice
    InputTensor: (Sizes:{2, 3}, DataType:UINT16, Strides:{1, 2}) [[1, 2, 3], [4, 5, 6]]
    InputWindowOffsets = {0, 0}  InputWindowSizes = {2, 3}  InputWindowStrides = {-1, 1}
    OutputTensor: (Sizes:{2, 3}, DataType:UINT16) [[4, 5, 6], [1, 2, 3]]""")
    u = m.units[0]
    np.testing.assert_array_equal(u.data["input"], np.array([1, 4, 2, 5, 3, 6], np.uint16))
    assert_bits_equal(interpret(m)["OutputTensor"], u.expected)


def test_special_float_values_and_hex():
    m = parse_module("X: float32[5] = [nan, -inf, inf, -0.0, 1.5e-3]\n"
                     "I: uint32[3] = [0x1, 0X3, 0]\nY[i] = X[I[i]]")
    out = interpret(m)["Y"]
    assert np.isneginf(out[0]) and np.signbit(out[1]) and out[1] == 0 and np.isnan(out[2])


# ---- errors: the field, the line and column, what was expected

def error(text: str, cls=dmlc.ParseError) -> str:
    with pytest.raises(cls) as info:
        parse_module(text, "t.dml")
    return str(info.value)


@pytest.mark.parametrize("text, where, words", [
    ("Axis: 0\nInputTensor: (Sizes:{3}, DataType:FLOAT32) [1,2,3", "t.dml:2:",
     ["end of file", "','", "']'"]),
    ("Y[i] = X[i +]", "t.dml:1:13:", ["unexpected ']'", "a name", "an integer"]),
    ("Axis = $", "t.dml:1:8:", ["unexpected '$'"]),
    ("X: float32[3]\nY[i] = X[i] + 1", "t.dml:2:13:", ["unexpected '+'"]),
    ("X: float32[3]\nY[i] = X[i * i]", "t.dml:2:10:", ["affine", "i * i"]),
    ("X: float32[3]\nY[i] = X[i // 0]", "t.dml:2:10:", ["positive integer constant"]),
])
def test_parse_errors_point_at_line_and_column(text, where, words):
    msg = error(text)
    assert msg.startswith(where), msg
    for w in words:
        assert w in msg, msg
    assert "^" in msg  # the offending line, with a caret


@pytest.mark.parametrize("edit, words", [
    # The pages' three typos (examples/seeds/ notes each): the error names the field.
    (("gather_3_swap_columns.dml", "IndexDimensions: 1", "IndexDimensions: 2"),
     ["IndexDimensions: expected at most 1", "got 2", ":7:1:"]),
    (("gather_elements.dml", "OutputTensor: (Sizes:{2,3}, DataType:FLOAT32)",
      "OutputTensor: (Sizes:{2,3}, DataType:UINT32)"),
     ["OutputTensor.DataType: expected FLOAT32", "got UINT32"]),
    (("scatter_2_2d.dml", "InputTensor: (Sizes:{3,3}", "InputTensor: (Sizes:{2,3}"),
     ["InputTensor data: expected {2, 3} values", "{3, 3}"]),
    # Other mistakes.
    (("gather_1_1d_remapping.dml", "IndicesTensor:", "IndicesTensr:"),
     ["unknown field 'IndicesTensr'", "did you mean IndicesTensor"]),
    (("gather_1_1d_remapping.dml", "\nDML_GATHER_OPERATOR_DESC", "\nDML_GATHERR"),
     ["unknown operator 'DML_GATHERR'"]),
    (("gather_1_1d_remapping.dml", "DataType:UINT32", "DataType:UINT33"),
     ["IndicesTensor.DataType: expected one of", "UINT33"]),
    (("gather_1_1d_remapping.dml", "DataType:UINT32", "DataType:FLOAT16"),
     ["IndicesTensor.DataType"]),
    (("gather_1_1d_remapping.dml", "[3,1,3,0,2]", "[3,1,3,0,-2]"),
     ["-2 is outside UINT32's range"]),
    (("gather_1_1d_remapping.dml", "[3,1,3,0,2]", "[3,1,3,0,2.5]"), ["2.5 is not an integer"]),
    (("gather_1_1d_remapping.dml", "Axis: 0", "Axis: 0\nAxis: 1"), ["Axis is given twice"]),
    (("gather_1_1d_remapping.dml", "Axis: 0", ""), ["Axis is missing"]),
    (("slice_1_positive_strides.dml", "{1, 1, 2, 2}", "{1, 1, 0, 2}"),
     ["InputWindowStrides[2]: expected a non-zero integer"]),
])
def test_directml_errors_name_the_field(edit, words):
    name, old, new = edit
    text = (EXAMPLES / "seeds" / name).read_text()
    assert old in text
    with pytest.raises(dmlc.DmlcError) as info:
        m = parse_module(text.replace(old, new, 1), "t.dml")
        dmlc.compile_module(m)
    msg = str(info.value)
    for w in words:
        assert w in msg, msg
    assert msg.startswith("t.dml:"), msg


def test_languages_do_not_mix():
    assert "either DirectML notation or tensor expressions" in error(
        "Axis: 0\nX: float32[3]\nY[i] = X[i]")


def test_comment_and_floor_division_share_slashes():
    items = parse("X: float32[8] // a comment\nY[i] = X[i // 2]  // halves\n# another\n")
    assert len(items) == 2 and "FloorDiv" in repr(items[1].body)


def test_empty_file_is_an_error():
    assert "nothing to compute" in error("// only a comment\n")


NAMED_BY_FIELDS = sorted(p for p in EXAMPLES.glob("*.dml") if "_OPERATOR_DESC" in p.read_text()
                         and not any(w in p.stem for w in ("depth", "identity")))


@pytest.mark.parametrize("path", NAMED_BY_FIELDS, ids=lambda p: p.stem)
def test_every_operator_is_inferred_from_its_fields_without_its_name(path):
    """The operator line is optional: each operator's own fields decide (space/depth and the
    identity, whose fields another operator shares, keep their names)."""
    text = path.read_text()
    named = parse_module(text).units[0].descriptor.operator
    bare = "\n".join(line for line in text.splitlines() if "_OPERATOR_DESC" not in line)
    assert parse_module(bare).units[0].descriptor.operator == named
