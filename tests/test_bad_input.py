"""Malformed input ends in a dmlc error that names what is wrong (issue 17's repros), never an
internal exception; the CLI exits 1 or 2 with a one-line `dmlc: ...` message."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import dmlc
from dmlc.cli import main
from dmlc.dtypes import DataType
from dmlc.lang import load, parse_module


@pytest.mark.parametrize("name", ["int", "float", "half", "f4", "Float32", None, float])
def test_loose_type_names_are_refused(name):
    with pytest.raises(dmlc.ValidationError, match="DataType") as info:
        dmlc.TensorDesc(data_type=name, sizes=(2,))
    assert "FLOAT32" in str(info.value)  # the accepted names are listed


@pytest.mark.parametrize("name", ["FLOAT32", "float32", "DML_TENSOR_DATA_TYPE_FLOAT32",
                                  np.float32, np.dtype("float32")])
def test_exact_type_names_are_accepted(name):
    assert DataType.of(name) is DataType.FLOAT32


@pytest.mark.parametrize("decl", ["int", "float", "half"])
def test_loose_type_names_in_dml_are_refused_at_their_line(decl):
    with pytest.raises(dmlc.ParseError, match=f"unknown data type '{decl}'") as info:
        parse_module(f"X: float32[2]\nY: {decl}[2]\nY[i] = X[i]\n", "t.dml")
    assert str(info.value).startswith("t.dml:2:")


def test_source_may_be_utf8_bytes_and_nothing_else():
    assert parse_module(b"X: float32[2] = [1, 2]\nY[i] = X[1 - i]\n").units[0].name == "Y"
    for bad in (None, 3, ["X: float32[2]"]):
        with pytest.raises(dmlc.ValidationError, match="text"):
            parse_module(bad)  # type: ignore[arg-type]
    with pytest.raises(dmlc.ValidationError, match="path"):
        load(None)  # type: ignore[arg-type]


def test_a_file_that_is_not_utf8_names_the_file_and_byte(tmp_path):
    path = tmp_path / "latin1.dml"
    path.write_bytes(b"X: float32[2] = [1, 2]\n# caf\xe9\nY[i] = X[i]\n")
    with pytest.raises(dmlc.ParseError, match=r"not UTF-8 text: byte 28 is 0xe9") as info:
        load(path)
    assert str(info.value).startswith(str(path))
    assert main(["run", str(path)]) == 1


def test_a_statement_that_reads_what_it_writes_says_so():
    with pytest.raises(dmlc.ParseError, match="cannot read the tensor it writes"):
        parse_module("X: float32[2, 2]\nX[i, j] = X[j, i]\n")


def test_bench_arguments_are_checked(capsys):
    with pytest.raises(SystemExit) as info:
        main(["bench", "--repeats", "0"])
    assert info.value.code == 2 and "expected an integer >= 1" in capsys.readouterr().err
    assert main(["bench", "--only", "nothing-matches"]) == 2
    err = capsys.readouterr().err
    assert "matches no case" in err and "gather rows" in err and "Traceback" not in err


def test_compile_with_several_artifacts_refuses_a_file_name(tmp_path, capsys):
    src = tmp_path / "two.dml"
    src.write_text("X: float32[4]\nY[i] = X[3 - i]\nZ[i] = Y[i // 2]\n")
    out = tmp_path / "x.spv"
    assert main(["compile", str(src), "--emit", "spirv", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "2 artifacts" in err and "takes a directory" in err and not out.exists()
    assert main(["compile", str(src), "--emit", "spirv", "-o", str(tmp_path / "dir")]) == 0
    assert sorted(p.name for p in (tmp_path / "dir").iterdir()) == ["Y.spv", "Z.spv"]


def test_python_dash_m_dmlc_runs_the_cli():
    done = subprocess.run([sys.executable, "-m", "dmlc", "--version"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("dmlc ")


def test_the_package_ships_its_type_marker():
    import importlib.resources
    assert importlib.resources.files("dmlc").joinpath("py.typed").is_file()
