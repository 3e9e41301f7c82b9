"""`dmlc compile` never binds a symbolic size in silence (cli/sizes.py). A scatter with
Sizes:{N, 8} compiled --in-place --emit manifest exited 0 with a manifest of [1, 8]; a gather
whose table length was symbolic printed the kernel of a one-row table (its length is pushed
now; its row width, W here, is what the generic kernel fixes). Now a size is bound on
the command line (--dim NAME=N, --shape TENSOR=D0,...) and said on stderr, or is the generic
kernel's push constant; one the generic kernel would fix is refused unless bound (or said on
stderr where the file's data binds it). No Vulkan device: compiling only."""
from __future__ import annotations

import json

import pytest

from dmlc.cli import main

SCATTER = """DML_SCATTER_OPERATOR_DESC
Axis: 0
InputTensor: (Sizes:{N, 8}, DataType:FLOAT32)
IndicesTensor: (Sizes:{N, 8}, DataType:INT32)
UpdatesTensor: (Sizes:{N, 8}, DataType:FLOAT32)
"""
GATHER = """DML_GATHER_OPERATOR_DESC
Axis: 0
IndexDimensions: 1
InputTensor: (Sizes:{5, W}, DataType:FLOAT32)
IndicesTensor: (Sizes:{1, B}, DataType:INT32)
"""


def _file(tmp_path, text, name="f.dml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("extra", [["--in-place"], []])
def test_a_manifest_of_symbolic_sizes_needs_them_bound(tmp_path, capsys, extra):
    """The in-place form is compiled for one shape; a scatter's generic kernel does not take
    N (its lines are fixed): both are refused until N is bound."""
    path = _file(tmp_path, SCATTER)
    out = str(tmp_path / "m")
    assert main(["compile", path, *extra, "--emit", "manifest", "-o", out]) == 2
    err = capsys.readouterr().err
    assert ("compiled for one shape" in err and "symbolic sizes (N)" in err) if extra else \
        "generic kernel takes symbolic sizes as push constants, but not N" in err
    assert "--dim N=SIZE" in err
    assert main(["compile", path, *extra, "--emit", "manifest", "-o", out, "--dim", "N=4"]) == 0
    assert "N = 4 (--dim)" in capsys.readouterr().err
    (manifest,) = (tmp_path / "m").glob("*.manifest.json")
    document = json.loads(manifest.read_text())
    assert [i["shape"] for i in document["inputs"]] == [[4, 8]] * 3  # in place: data first
    assert document["generic"] is None


def test_a_manifest_of_symbolic_sizes_holds_the_generic_kernel(tmp_path, capsys):
    """B stays symbolic: the manifest's kernel takes it as push constants, each word a formula
    of the call's tensors (W bound: the kernel fixes it, a guard says so)."""
    path = _file(tmp_path, GATHER)
    out = str(tmp_path / "m")
    assert main(["compile", path, "--emit", "manifest", "-o", out, "--dim", "W=4"]) == 0
    (manifest,) = (tmp_path / "m").glob("*.manifest.json")
    generic = json.loads(manifest.read_text())["generic"]
    formulas = [w["formula"] for w in generic["words"]]
    assert "indices.sizes[1]" in formulas and generic["push_constant_bytes"] == 4 * len(formulas)
    assert "input.sizes[1] == 4" in [g["condition"] for g in generic["guards"]]


@pytest.mark.parametrize("emit", ["ir", "glsl", "spirv"])
def test_a_size_the_generic_kernel_fixes_is_refused_unless_bound(tmp_path, capsys, emit):
    path = _file(tmp_path, GATHER)
    out = ["-o", str(tmp_path / f"k.{emit}")]
    assert main(["compile", path, "--emit", emit, *out]) == 2
    err = capsys.readouterr().err
    assert "DML_GATHER's generic kernel takes symbolic sizes as push constants, but not W" in err
    assert "--dim W=SIZE" in err and "B" not in err.split("but not")[1]
    assert main(["compile", path, "--emit", emit, *out, "--dim", "W=4"]) == 0
    assert "W = 4 (--dim); still symbolic: B" in capsys.readouterr().err


def test_the_bound_sizes_are_the_kernel_s(tmp_path, capsys):
    path = _file(tmp_path, GATHER)
    assert main(["compile", path, "--emit", "ir", "--dim", "W=4"]) == 0
    ir = capsys.readouterr().out
    assert " * 4 " in ir  # rows of 4 (the table's length a push constant, as is B)
    assert " p0" in ir or "= p" in ir
    assert main(["compile", path, "--emit", "ir", "--dim", "W=4", "--dim", "B=3"]) == 0
    ir = capsys.readouterr().out
    assert "buffer input: float32[20]" in ir and "dim=5" in ir  # a five-row table of 4
    assert "buffer indices: int32[3]" in ir and "= p" not in ir  # specialized


def test_data_that_binds_a_fixed_size_is_said_on_stderr(tmp_path, capsys):
    path = _file(tmp_path, GATHER.replace("(Sizes:{5, W}, DataType:FLOAT32)",
                                          "(Sizes:{2, W}, DataType:FLOAT32) "
                                          "[[1, 2, 3, 4], [5, 6, 7, 8]]"))
    assert main(["compile", path, "--emit", "ir"]) == 0
    captured = capsys.readouterr()
    assert "DML_GATHER's generic kernel fixes W = 4, the file's data" in captured.err
    assert " * 4 " in captured.out and "vload input" in captured.out  # rows of 4: vectors


def test_a_generic_kernel_of_push_constants_is_printed_as_before(capsys):
    assert main(["compile", "examples/embedding_batch_symbolic.dml", "--emit", "glsl"]) == 0
    captured = capsys.readouterr()
    assert "dmlc_p.p[" in captured.out and captured.err == ""


def test_shape_binds_a_size_written_as_a_question_mark(tmp_path, capsys):
    path = _file(tmp_path, SCATTER.replace("{N, 8}", "{?, 8}", 1))
    assert main(["compile", path, "--emit", "ir"]) == 2
    assert "InputTensor.Sizes[0] (?)" in capsys.readouterr().err
    assert main(["compile", path, "--emit", "ir", "--shape", "InputTensor=6,8",
                 "--dim", "N=2"]) == 0
    captured = capsys.readouterr()
    assert "InputTensor = {6, 8} (--shape)" in captured.err
    assert "buffer input: float32[48]" in captured.out


def test_tensor_expressions_compile_at_the_sizes_bound(tmp_path, capsys):
    path = _file(tmp_path, "X: float32[N, 3]\nI: int32[M]\nY[i, j] = X[I[i], 2 - j]\n")
    assert main(["compile", path, "--emit", "ir", "--dim", "N=4"]) == 2
    assert "M are not bound (--dim M=SIZE)" in capsys.readouterr().err
    assert main(["compile", path, "--emit", "ir", "--dim", "N=4", "--dim", "M=2"]) == 0
    assert "buffer X: float32[12]" in capsys.readouterr().out
