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


def test_validation_runs_on_every_call_not_only_before_the_cache():
    from dmlc.compiled import cached_compile
    x = dmlc.TensorDesc(data_type="FLOAT32", sizes=(3, 2))
    i = dmlc.TensorDesc(data_type="INT32", sizes=(1, 2))
    cached_compile(dmlc.GatherDesc(input=x, indices=i, axis=0, index_dimensions=1))
    for kw, field in ((dict(axis=0.0, index_dimensions=1), "Axis"),
                      (dict(axis=0, index_dimensions=True), "IndexDimensions")):
        with pytest.raises(dmlc.ValidationError, match=field):
            cached_compile(dmlc.GatherDesc(input=x, indices=i, **kw))
        with pytest.raises(dmlc.ValidationError, match=field):
            dmlc.compile(dmlc.GatherDesc(input=x, indices=i, **kw))
    s = dmlc.TensorDesc(data_type="FLOAT32", sizes=(4,))
    dmlc.compile(dmlc.Slice1Desc(input=s, offsets=(0,), sizes=(2,), strides=(1,)))
    for field in ("offsets", "sizes", "strides"):
        args = {"offsets": (0,), "sizes": (2,), "strides": (1,), field: (float(1 + 0),)}
        with pytest.raises(dmlc.ValidationError, match="InputWindow"):
            dmlc.compile(dmlc.Slice1Desc(input=s, **args))


def test_tuples_of_no_coordinate_are_of_an_index_type_too():
    """scatter_nd with indices of shape (..., 0) (ONNX: each tuple names the whole input) runs
    as tuples of its own making; a float index tensor is still refused, as numpy refuses it
    (found by tests/device/test_fuzz_api.py)."""
    x, u = np.array([-1.0], np.float32), np.array(-1.0, np.float32)
    with pytest.raises(dmlc.ValidationError, match="IndicesTensor.DataType.*FLOAT32"):
        dmlc.scatter_nd(x, np.array([], np.float32), u)


def test_big_endian_arrays_are_read_by_value():
    from dmlc.dtypes import as_ndarray
    x = np.arange(4, dtype=">f4")
    native = as_ndarray("t", "x", x)
    assert native.dtype == np.dtype("float32") and native.dtype.byteorder == "="
    np.testing.assert_array_equal(native, np.arange(4, dtype=np.float32))
    desc = dmlc.GatherDesc(input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(4,)),
                           indices=dmlc.TensorDesc(data_type="INT32", sizes=(2,)), axis=0,
                           index_dimensions=1)
    got = dmlc.compile(desc).reference(x, np.array([3, 0], dtype=">i4"))
    np.testing.assert_array_equal(got, np.array([3, 0], np.float32))


@pytest.mark.vulkan
def test_big_endian_arrays_on_the_device():
    x = np.arange(4, dtype=">f4")
    np.testing.assert_array_equal(dmlc.to_device(x).numpy(), np.arange(4, dtype=np.float32))
    got = dmlc.gather(x, np.array([3, 0], dtype=">i4"), axis=0, index_dimensions=1)
    np.testing.assert_array_equal(got, np.array([3, 0], np.float32))


@pytest.mark.parametrize("text, line", [
    ("X: float32[2]\nY: float32[2]\nY[i] = X[i" + " + 0" * 500 + "]\n", 3),
    ("X: float32[1] = " + "[" * 1000 + "1" + "]" * 1000 + "\n", 1),
    ("X: int32[2] = [0, 1]\nY: int32[2]\nY[i] = " + "X[" * 400 + "i" + "]" * 400 + "\n", 3),
])
def test_deep_nesting_is_refused_at_its_line(text, line):
    with pytest.raises(dmlc.ParseError, match="nested more than 100 levels") as info:
        parse_module(text, "deep.dml")
    assert str(info.value).startswith(f"deep.dml:{line}:")


def test_deep_nesting_built_in_python_is_refused_at_construction():
    from dmlc.ops.expression import tree as E
    body: E.Expr = E.Var("i")
    for _ in range(600):
        body = E.Add(body, E.Const(0))
    with pytest.raises(dmlc.ValidationError, match="at most 100 levels of nesting"):
        dmlc.ExpressionDesc(name="Y", index_vars=("i",), body=E.Load("X", (body,)),
                            tensors=(("X", dmlc.TensorDesc(data_type="FLOAT32", sizes=(2,))),))


@pytest.mark.parametrize("literal, dtype", [("9" * 400, "float64"), ("9" * 400 + ".0", "float64"),
                                            ("1e400", "float32"), ("65520", "float16")])
def test_a_float_literal_beyond_its_type_names_the_value_and_line(literal, dtype):
    with pytest.raises(dmlc.ParseError, match=f"outside {dtype.upper()}'s range") as info:
        parse_module(f"X: {dtype}[1] = [{literal}]\nY[i] = X[i]\n", "big.dml")
    assert str(info.value).startswith("big.dml:1:")
    assert len(str(info.value).splitlines()[0]) < 200  # a long literal is shortened


def test_inf_and_values_that_round_into_range_are_accepted():
    (unit,) = [u for u in parse_module("X: float16[3] = [inf, -inf, 65519]\nY[i] = X[i]\n").units]
    np.testing.assert_array_equal(unit.data["X"], np.array([np.inf, -np.inf, 65504], np.float16))


@pytest.mark.parametrize("name", ["X" * 5000, "Xé", "A__B", "a_"])
def test_a_tensor_name_of_any_length_or_spelling_never_reaches_the_glsl(name):
    from dmlc.ops.expression import tree as E
    desc = dmlc.ExpressionDesc(  # built in Python: any identifier, also non-ASCII
        name="Y", index_vars=("i",),
        body=E.Load(name, (E.Add(E.Const(1), E.Mul(E.Var("i"), -1)),)),
        tensors=((name, dmlc.TensorDesc(data_type="FLOAT32", sizes=(2,))),))
    kernel = dmlc.compile(desc)  # glslang accepts the shader
    assert name not in kernel.glsl
    got = kernel.reference(np.array([1, 2], np.float32))
    np.testing.assert_array_equal(got, np.array([2, 1], np.float32))


def test_a_negative_stride_in_directml_notation_names_the_field_and_line():
    text = ("DML_GATHER_OPERATOR_DESC\nAxis: 0\nIndexDimensions: 1\n"
            "InputTensor: (Sizes:{3}, DataType:FLOAT32, Strides:{-1}) [1,2,3]\n"
            "IndicesTensor: (Sizes:{1}, DataType:UINT32) [0]\n")
    with pytest.raises(dmlc.ParseError, match=r"InputTensor.Strides\[0\]: expected >= 0, got -1"):
        parse_module(text, "s.dml")


def test_run_module_inputs_must_be_a_mapping():
    module = parse_module("X: float32[2] = [1, 2]\nY[i] = X[1 - i]\n")
    for bad in ("X", ["X"], 3):
        with pytest.raises(dmlc.ValidationError, match="inputs: expected a mapping"):
            dmlc.run_module(module, bad)  # type: ignore[arg-type]


def test_slice_window_fields_are_checked_in_the_one_shot_function_too():
    x = np.arange(4, dtype=np.float32)
    for kw in (dict(offsets=[0.0]), dict(sizes=[2.0]), dict(strides=[1.0]),
               dict(output_sizes=[2.0])):
        args = {"offsets": [0], "sizes": [2], "strides": [1], **kw}
        with pytest.raises(dmlc.ValidationError):
            dmlc.slice(x, **args)


def test_an_explicit_output_size_of_0_is_refused_as_directml_refuses_it():
    """DirectML: 1 <= OutputSizes[i]. An empty result comes from an empty window (sizes, as
    numpy's x[2:2]), never from an output size of 0 beside a window that is not empty."""
    x = np.arange(5, dtype=np.int32)
    for output_sizes in ([0], [6]):
        with pytest.raises(dmlc.ValidationError, match=r"DML_SLICE1: OutputTensor.Sizes\[0\]: "
                                                       r"expected 1 to 5 "):
            dmlc.slice(x, [0], [5], [1], output_sizes=output_sizes)
    with pytest.raises(dmlc.ValidationError, match=r"OutputTensor.Sizes\[1\]: expected 1 to 2 "):
        dmlc.slice(x.reshape(1, 5), [0, 0], [1, 4], [1, -2], output_sizes=[1, 0])
    # the empty window: its output is empty, and 0 is then the one size it may have
    assert dmlc.slice(x, [2], [0], [1]).shape == (0,)
    assert dmlc.slice(x, [2], [0], [-3], output_sizes=[0]).shape == (0,)
    with pytest.raises(dmlc.ValidationError, match=r"OutputTensor.Sizes\[0\]: expected 0 "
                                                   r"\(InputWindowSizes\[0\] = 0: the window "
                                                   r"is empty\), got 1"):
        dmlc.slice(x, [2], [0], [1], output_sizes=[1])
    t = dmlc.TensorDesc(data_type="INT32", sizes=(5,))
    with pytest.raises(dmlc.ValidationError, match=r"OutputTensor.Sizes\[0\]: expected >= 1"):
        dmlc.compile(dmlc.Slice1Desc(input=t, offsets=[0], sizes=[5], strides=[1],
                                     output=dmlc.TensorDesc(data_type="INT32", sizes=(0,))))
    for desc in (dmlc.Slice1Desc(input=t, offsets=[0], sizes=[0], strides=[1]),
                 dmlc.SliceDesc(input=t, offsets=[0], sizes=[0], strides=[1])):
        with pytest.raises(dmlc.ValidationError, match=r"Sizes\[0\]: expected >= 1, got 0"):
            dmlc.compile(desc)
