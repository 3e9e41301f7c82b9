"""DML_SCATTER_ND without a device: validation (every field named), the IR interpreter against
the numpy reference (both lowerings) and against ONNX's reference evaluator, the .dml notation,
checked mode's bounds."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import cases  # noqa: F401  (registers cases_scatternd's generators first)
import dmlc
import reference_scatternd as ref
from cases_scatternd import scatter_nd_cases
from dmlc.compiled import build_program
from dmlc.ir.interp import run_program
from reference import assert_bits_equal
from strategies import DATA_TYPES, INDEX_TYPES, in_range_index_arrays, random_bits, shapes

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def tensor(dtype: str, sizes: tuple[int, ...]) -> dmlc.TensorDesc:
    return dmlc.TensorDesc(data_type=dtype, sizes=sizes)


def desc(inp=(4, 3), idx=(2, 1), upd=(2, 3), in_dims=2, idx_dims=2, dtype="FLOAT32",
         itype="INT32", udtype=None, output=None) -> dmlc.ScatterNDDesc:
    return dmlc.ScatterNDDesc(input=tensor(dtype, inp), indices=tensor(itype, idx),
                              updates=tensor(udtype or dtype, upd), input_dimension_count=in_dims,
                              indices_dimension_count=idx_dims, output=output)


def interpret(d: dmlc.ScatterNDDesc, *arrays: np.ndarray) -> np.ndarray:
    checked, program = build_program(d)
    out = checked.output
    return run_program(program, *arrays).view(out.data_type.numpy).reshape(out.sizes)


@pytest.mark.parametrize("design", ["lines", "vote"])
def test_both_lowerings_match_the_reference(design, monkeypatch):
    import dmlc.ops.scatter.lower as elements
    monkeypatch.setattr(elements, "LINES_MIN", 1 if design == "lines" else 2**31)

    @given(scatter_nd_cases())
    def check(case):
        target = "cpu" if design == "lines" else "gpu"
        if case.expected is None:
            with pytest.raises(dmlc.ValidationError):
                build_program(case.descriptor, target=target)
            return
        checked, program = build_program(case.descriptor, target=target)
        kernels = {k.name for k in program.kernels}
        if design == "vote" or checked.output.data_type.bits < 32 or \
                case.arrays[1].size // case.arrays[1].shape[-1] > 2**16:
            assert "scatter_nd_vote" in kernels or "scatter_nd_lines" in kernels
        else:
            assert "scatter_nd_lines" in kernels
        got = run_program(program, *case.arrays).view(case.expected.dtype)
        assert_bits_equal(got.reshape(case.expected.shape), case.expected)
    check()


@st.composite
def onnx_cases(draw):
    """ONNX shapes (ranks differ: data r, indices q, updates q - 1 + r - k), indices in range
    (ONNX's evaluator refuses others); tuples may repeat."""
    data_shape = draw(shapes(1, 5, 48))
    r = len(data_shape)
    k = draw(st.integers(1, r))
    batch = draw(shapes(1, 3, 6))
    dtype, itype = draw(st.sampled_from(DATA_TYPES)), draw(st.sampled_from(INDEX_TYPES))
    cols = [draw(in_range_index_arrays(batch, itype, n)) for n in data_shape[:k]]
    idx = np.stack(cols, axis=-1)
    x = random_bits(draw(st.integers(0, 2**32 - 1)), data_shape, dtype)
    upd = random_bits(draw(st.integers(0, 2**32 - 1)), batch + data_shape[k:], dtype)
    return x, idx, upd


@given(onnx_cases())
def test_onnx_reference_evaluator_agrees(onnx_reference, case):
    """ONNX ScatterND (int64 indices) == dmlc's descriptor, run by the IR interpreter, on the
    shapes padded to one DimensionCount as dmlc.scatter_nd pads them."""
    x, idx, upd = case
    expected = onnx_reference.run_node("ScatterND", [x, idx.astype(np.int64), upd])[0]
    assert_bits_equal(ref.scatter_nd(x, idx, upd), expected)
    d = max(x.ndim, idx.ndim, upd.ndim)

    def pad(a):
        return a.reshape((1,) * (d - a.ndim) + a.shape)
    xp, ip, up = pad(x), pad(idx), pad(upd)
    nd = dmlc.ScatterNDDesc(input=tensor(x.dtype.name, xp.shape),
                            indices=tensor(idx.dtype.name, ip.shape),
                            updates=tensor(upd.dtype.name, up.shape),
                            input_dimension_count=x.ndim, indices_dimension_count=idx.ndim)
    assert_bits_equal(interpret(nd, xp, ip, up).reshape(x.shape), expected)


@pytest.mark.parametrize("bad, field, words", [
    (dict(itype="FLOAT32"), "IndicesTensor.DataType", "INT32 or INT64"),
    (dict(udtype="INT32"), "UpdatesTensor.DataType", "FLOAT32"),
    (dict(idx=(2, 1, 1)), "IndicesTensor.DimensionCount", "2"),
    (dict(upd=(2, 3, 1)), "UpdatesTensor.DimensionCount", "2"),
    (dict(in_dims=0), "InputDimensionCount", "[1, 2]"),
    (dict(in_dims=3), "InputDimensionCount", "[1, 2]"),
    (dict(in_dims=1.5), "InputDimensionCount", "[1, 2]"),
    (dict(idx_dims=0), "IndicesDimensionCount", "[1, 2]"),
    (dict(in_dims=1), "InputTensor.Sizes", "leading 1 dimensions"),
    (dict(idx=(2, 1), idx_dims=1), "IndicesTensor.Sizes", "leading 1 dimensions"),
    (dict(idx=(2, 3)), "IndicesTensor.Sizes[1]", "InputDimensionCount = 2"),
    (dict(upd=(2, 4)), "UpdatesTensor.Sizes", "{2, 3}"),
    (dict(inp=(1, 3), idx=(2, 1), upd=(2, 1), in_dims=1), "UpdatesTensor.Sizes", "{1, 2}"),
    (dict(output=tensor("FLOAT32", (4, 4))), "OutputTensor.Sizes", "{4, 3}"),
    (dict(output=tensor("INT32", (4, 3))), "OutputTensor.DataType", "FLOAT32"),
])
def test_validation_names_operator_field_expected_actual(bad, field, words):
    with pytest.raises(dmlc.ValidationError) as e:
        build_program(desc(**bad))
    assert e.value.operator == "DML_SCATTER_ND" and e.value.field == field, str(e.value)
    assert words in str(e.value)


@pytest.mark.parametrize("value", ["sum", "", None, 1])
def test_reduction_must_be_one_of_onnx_s(value):
    for d in (desc(), dmlc.ScatterDesc(input=tensor("INT8", (3,)), indices=tensor("INT32", (2,)),
                                       updates=tensor("INT8", (2,)), axis=0)):
        with pytest.raises(dmlc.ValidationError, match="none or add or mul or max or min") as e:
            build_program(dataclasses.replace(d, reduction=value))
        assert e.value.field == "reduction"
    assert build_program(desc(**{}))[0].reduction == "none"
    assert build_program(dataclasses.replace(desc(), reduction="ADD"))[0].reduction == "add"


def test_updates_longer_than_the_dimension_count():
    """indices[:-1] ++ input[k:] longer than D: its leading 1s are dropped, others refused."""
    ok = desc(inp=(1, 4, 3), idx=(1, 2, 1), upd=(2, 4, 3), in_dims=3, idx_dims=3)
    assert build_program(ok)[0].updates.sizes == (2, 4, 3)
    with pytest.raises(dmlc.ValidationError, match="UpdatesTensor.Sizes: expected at most 3"):
        build_program(desc(inp=(1, 4, 3), idx=(2, 2, 1), upd=(2, 4, 3), in_dims=3,
                           idx_dims=3))


def test_index_bounds_one_axis_per_coordinate():
    d = desc(inp=(1, 4, 5, 6), idx=(1, 1, 7, 2), upd=(1, 1, 7, 6), in_dims=3, idx_dims=2)
    b = d.index_bounds()
    assert b.field == "IndicesTensor" and b.dims == (4, 5) and b.dim_axis == 3
    assert b.dim_at((0, 0, 3, 0)) == 4 and b.dim_at((0, 0, 3, 1)) == 5


def test_the_dml_example_gives_its_documented_output():
    from test_lang import interpret as run_module
    module = dmlc.lang.load(EXAMPLES / "scatter_nd.dml")
    (unit,) = module.units
    assert isinstance(unit.descriptor, dmlc.ScatterNDDesc)
    assert_bits_equal(run_module(module)["OutputTensor"], unit.expected)


def test_operator_inferred_without_its_name():
    text = (EXAMPLES / "scatter_nd.dml").read_text().replace("DML_SCATTER_ND_OPERATOR_DESC\n", "")
    (unit,) = dmlc.lang.parse_module(text).units
    assert isinstance(unit.descriptor, dmlc.ScatterNDDesc)


def test_dml_notation_names_its_fields():
    text = (EXAMPLES / "scatter_nd.dml").read_text().replace("IndicesDimensionCount: 2",
                                                             "IndicesDimensionCount: 5")
    with pytest.raises(dmlc.DmlcError, match="IndicesDimensionCount"):
        run_module_text(text)


def run_module_text(text: str) -> None:
    from test_lang import interpret as run_module
    run_module(dmlc.lang.parse_module(text))
