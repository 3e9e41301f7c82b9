"""`dmlc compile` and `dmlc run`: emits, output files, inputs, printed results and exit codes
(0 ok, 1 user error, 2 usage, 3 toolchain or device failure)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dmlc.cli import main
from dmlc.toolchain import looks_like_spirv

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SEEDS = sorted((EXAMPLES / "seeds").glob("*.dml"))
GATHER = EXAMPLES / "seeds" / "gather_2_concatenate_rows.dml"
SCATTER = EXAMPLES / "seeds" / "scatter_1_1d.dml"
EXPRESSIONS = EXAMPLES / "gather_elements_expression.dml"


def test_compile_emits_ir_and_glsl_to_stdout(capsys):
    assert main(["compile", str(GATHER), "--emit", "ir", "--emit", "glsl"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("program gather(input, indices) -> output")
    assert "#version 430" in out and "void main()" in out


def test_compile_expressions_one_artifact_per_statement(capsys):
    assert main(["compile", str(EXPRESSIONS), "--emit", "ir"]) == 0
    out = capsys.readouterr().out
    for name in "YZW":
        assert f"# ---- {name} (ir)" in out and f"program {name}(" in out
    assert out.count("kernel ") == 3  # one kernel per statement


def test_compile_spvasm(capsys):
    assert main(["compile", str(GATHER), "--emit", "spvasm"]) == 0
    out = capsys.readouterr().out
    assert "OpEntryPoint GLCompute" in out and "OpCapability Shader" in out


def test_compile_spirv_to_file_and_directory(tmp_path, capsys):
    spv = tmp_path / "gather.spv"
    assert main(["compile", str(GATHER), "--emit", "spirv", "-o", str(spv)]) == 0
    assert looks_like_spirv(spv.read_bytes())
    outdir = tmp_path / "out"
    assert main(["compile", str(SCATTER), "--emit", "spirv", "--emit", "glsl", "-o",
                 str(outdir)]) == 0
    names = sorted(p.name for p in outdir.iterdir())
    assert len(names) == 4 and all(n.startswith("scatter.") for n in names), names  # 2 stages
    assert all(looks_like_spirv(p.read_bytes()) for p in outdir.glob("*.spv"))


def test_binary_spirv_needs_a_file_when_there_are_several(capsys):
    assert main(["compile", str(SCATTER), "--emit", "spirv"]) == 2
    assert "use -o DIR" in capsys.readouterr().err


def test_dump_after(capsys):
    assert main(["compile", str(GATHER), "--emit", "glsl", "--dump-after", "lower",
                 "--dump-after", "vectorize"]) == 0
    err = capsys.readouterr().err
    assert "# IR after lower" in err and "# IR after vectorize" in err


def test_unknown_pass_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as info:
        main(["compile", str(GATHER), "--dump-after", "nope"])
    assert info.value.code == 2


@pytest.mark.parametrize("argv", [["compile", "--help"], ["run", "--help"], ["info", "--help"],
                                  ["bench", "--help"], ["--help"]])
def test_help_for_each_command(argv, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 0 and "usage: dmlc" in capsys.readouterr().out


def test_errors_are_exit_code_1_on_stderr(tmp_path, capsys):
    bad = tmp_path / "bad.dml"
    bad.write_text("X: float32[3]\nY[i] = X[i +]\n")
    assert main(["compile", str(bad)]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and f"{bad}:2:13: unexpected ']'" in captured.err
    assert main(["compile", str(tmp_path / "missing.dml")]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_toolchain_failure_is_exit_code_3(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DMLC_GLSLANG", str(tmp_path / "no-glslang"))
    monkeypatch.setenv("DMLC_BACKEND", "vulkan")  # SPIR-V at compile (WebGPU's needs none)
    monkeypatch.setenv("DMLC_CACHE", "0")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert main(["compile", str(EXAMPLES / "image_crop.dml")]) == 3
    assert "glslangValidator not found" in capsys.readouterr().err


# ---- dmlc run (Vulkan)

@pytest.mark.vulkan
@pytest.mark.parametrize("path", SEEDS, ids=lambda p: p.stem)
def test_every_seed_runs_with_its_documented_output(path, capsys):
    assert main(["run", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("OutputTensor: (Sizes:{")
    assert "OutputTensor: matches the values the file expects" in captured.err


@pytest.mark.vulkan
def test_run_prints_in_the_files_notation(capsys):
    assert main(["run", str(GATHER)]) == 0
    assert capsys.readouterr().out == ("OutputTensor: (Sizes:{4, 2}, DataType:FLOAT32)\n"
                                       "    [[1, 2],\n     [3, 4],\n     [3, 4],\n     [5, 6]]\n")
    assert main(["run", str(EXPRESSIONS)]) == 0
    out = capsys.readouterr().out
    assert "Z: float32[1, 3] = [[6, 5, 4]]\n" in out


@pytest.mark.vulkan
def test_run_detects_a_wrong_expectation(tmp_path, capsys):
    wrong = tmp_path / "wrong.dml"
    wrong.write_text(GATHER.read_text().replace("[5,6]] // input row 2", "[5,7]] // input row 2"))
    assert main(["run", str(wrong)]) == 1
    assert "1 of 8 elements differ; first at [3, 1]: expected 7, got 6" in capsys.readouterr().err


@pytest.mark.vulkan
def test_run_with_npy_inputs_and_outputs(tmp_path, capsys):
    table = np.arange(12, dtype=np.int16).reshape(6, 2)
    np.save(tmp_path / "x.npy", table)
    out = tmp_path / "out.npy"
    assert main(["run", str(GATHER), "--input", f"InputTensor={tmp_path / 'x.npy'}", "-o",
                 str(out)]) == 1  # the file declares FLOAT32 {3, 2}: a user error
    assert "InputTensor" in capsys.readouterr().err
    src = tmp_path / "g.dml"
    src.write_text("table: int16[6, 2]\nids: int32[3] = [5, 0, -1]\nY[i, j] = table[ids[i], j]\n")
    assert main(["run", str(src), "--input", f"table={tmp_path / 'x.npy'}", "-o", str(out)]) == 0
    np.testing.assert_array_equal(np.load(out), table[[5, 0, 5]])
    assert main(["run", str(EXPRESSIONS), "-o", str(tmp_path / "one.npy")]) == 2
    assert main(["run", str(EXPRESSIONS), "-o", str(tmp_path / "all.npz")]) == 0
    assert sorted(np.load(tmp_path / "all.npz").files) == ["W", "Y", "Z"]
    assert main(["run", str(src), "--input", "bogus"]) == 2
    assert main(["run", str(src), "--input", f"nope={tmp_path / 'x.npy'}"]) == 1


@pytest.mark.vulkan
def test_run_takes_npz_inputs(tmp_path, capsys):
    """--input NAME=FILE.npz of one array, or FILE.npz:KEY: -o writes .npz, and its round trip
    is natural (it failed: "expected elements of 1, 2, 4 or 8 bytes ..., got <U1")."""
    table = np.arange(12, dtype=np.int16).reshape(6, 2)
    src = tmp_path / "g.dml"
    src.write_text("table: int16[6, 2]\nids: int32[3] = [5, 0, -1]\nY[i, j] = table[ids[i], j]\n")
    np.savez(tmp_path / "one.npz", t=table)
    np.savez(tmp_path / "two.npz", a=table * 0, b=table)
    out = tmp_path / "out.npz"
    for spec in ("one.npz", "two.npz:b"):
        assert main(["run", str(src), "--input", f"table={tmp_path / spec}", "-o",
                     str(out)]) == 0, capsys.readouterr().err
        np.testing.assert_array_equal(np.load(out)["Y"], table[[5, 0, 5]])
    # the round trip: a result saved as .npz is the next run's input
    assert main(["run", str(src), "--input", f"table={tmp_path / 'two.npz'}:a"]) == 0
    capsys.readouterr()
    assert main(["run", str(src), "--input", f"table={tmp_path / 'two.npz'}"]) == 1
    err = capsys.readouterr().err
    assert "--input table: expected an .npz file of one array, or FILE.npz:KEY for one of " \
           "a, b, got" in err and "holding 2: a, b" in err
    assert main(["run", str(src), "--input", f"table={tmp_path / 'two.npz'}:c"]) == 1
    err = capsys.readouterr().err
    assert "expected a key of" in err and "one of a, b, got 'c'" in err


@pytest.mark.vulkan
def test_console_script_runs_a_file():
    exe = shutil.which("dmlc", path=os.path.dirname(sys.executable))
    assert exe
    done = subprocess.run([exe, "run", str(EXAMPLES / "slice_of_gather.dml")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "view: float32[3, 3] = [[32, 31, 30]," in done.stdout
    done = subprocess.run([exe, "compile", str(EXAMPLES / "slice_of_gather.dml"), "--emit", "wat"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "invalid choice" in done.stderr


@pytest.mark.vulkan
def test_run_check_indices(tmp_path, capsys):
    bad = tmp_path / "bad.dml"
    bad.write_text("DML_GATHER_ELEMENTS_OPERATOR_DESC\n"
                   "InputTensor: (Sizes: {2, 3}, DataType: FLOAT32) [[1, 2, 3], [4, 5, 6]]\n"
                   "IndicesTensor: (Sizes: {1, 3}, DataType: INT32) [[0, 5, -1]]\n"
                   "Axis: 0\n")
    assert main(["run", str(bad)]) == 0  # clamped
    assert "[[1, 5, 6]]" in capsys.readouterr().out
    assert main(["run", str(bad), "--check-indices"]) == 1
    assert "IndicesTensor[0, 1] = 5 is out of range: expected a value in [-2, 1]" in (
        capsys.readouterr().err)


@pytest.mark.parametrize("target,kernel", [("cpu", "scatter_lines"), ("gpu", "scatter_vote")])
def test_compile_for_a_target(tmp_path, capsys, target, kernel):
    """--target chooses the lowering where it differs: scatter by lines on a CPU, by vote on a
    GPU (256 lines: enough for lines)."""
    x = ", ".join(["0"] * 256)
    path = tmp_path / "scatter.dml"
    path.write_text("DML_SCATTER_OPERATOR_DESC\nAxis: 0\n"
                    f"InputTensor: (Sizes:{{1,256}}, DataType:FLOAT32)\n    [[{x}]]\n"
                    f"IndicesTensor: (Sizes:{{1,256}}, DataType:INT32)\n    [[{x}]]\n"
                    f"UpdatesTensor: (Sizes:{{1,256}}, DataType:FLOAT32)\n    [[{x}]]\n")
    assert main(["compile", str(path), "--emit", "ir", "--target", target]) == 0
    assert f"kernel {kernel}(" in capsys.readouterr().out


@pytest.mark.parametrize("command", ["compile", "run"])
def test_help_names_dml_files_and_onnx_models(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert ".dml file" in out and ".onnx model" in out


def test_the_command_list_names_onnx_models(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "compile a .dml file or an .onnx model" in out and ".onnx models" in out


@pytest.mark.parametrize("args, message", [
    (["--dim", "batch=2"], "--dim batch: the file has no such symbolic size; it has none"),
    (["--shape", "X=2"], "--shape X: the file has no such tensor; it has IndicesTensor")])
def test_size_options_naming_nothing_in_a_dml_file_are_usage_errors(args, message, capsys):
    assert main(["compile", str(GATHER), *args]) == 2
    assert message in capsys.readouterr().err


def test_in_place_compiles_a_scatter_that_updates_its_data_tensor(tmp_path, capsys):
    assert main(["compile", str(SCATTER), "--in-place", "--target", "cpu", "--emit",
                 "manifest", "-o", str(tmp_path)]) == 0
    (path,) = tmp_path.glob("*.manifest.json")
    m = json.loads(path.read_text())
    assert m["in_place"] is True and m["target"] == "cpu"
    assert m["inputs"][0]["buffer"] == m["outputs"][0]["buffer"] == "output"
    assert main(["compile", str(GATHER), "--in-place"]) == 2
    assert "only DML_SCATTER and DML_SCATTER_ND update their input in place" in (
        capsys.readouterr().err)
