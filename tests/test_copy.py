"""copy (ELEMENT_WISE_IDENTITY), DML_SLICE and slice_grad without a device: validation names the
field; the .dml notation; the interpreter on hand-picked views (property cases: cases_copy.py)."""
from __future__ import annotations

import numpy as np
import pytest

import dmlc
from dmlc.family.registry import validate
from dmlc.lang import parse_module


def T(sizes, dtype="FLOAT32", strides=None):
    return dmlc.TensorDesc(data_type=dtype, sizes=tuple(sizes), strides=strides)


INVALID = [
    (lambda: dmlc.IdentityDesc(input=T((2, 3)), scale_bias=(1.0, 0.0)), "ScaleBias"),
    (lambda: dmlc.IdentityDesc(input=T((2, 3)), output=T((3, 2))), "OutputTensor.Sizes"),
    (lambda: dmlc.SliceDesc(input=T((5,)), offsets=(1,), sizes=(3,), strides=(2,)), "Sizes[0]"),
    (lambda: dmlc.SliceDesc(input=T((5,)), offsets=(0,), sizes=(2,), strides=(0,)),
     "Strides[0]"),
    (lambda: dmlc.SliceDesc(input=T((5,)), offsets=(0,), sizes=(2,), strides=(-1,)),
     "Strides[0]"),
    (lambda: dmlc.SliceGradDesc(input_gradient=T((2,)), output_gradient=T((5,)),
                                offsets=(0,), sizes=(6,), strides=(1,)), "InputWindowSizes[0]"),
    (lambda: dmlc.SliceGradDesc(input_gradient=T((3,)), output_gradient=T((5,)),
                                offsets=(0,), sizes=(4,), strides=(2,)),
     "InputGradientTensor.Sizes"),
    (lambda: dmlc.SliceGradDesc(input_gradient=T((2,), "INT8"), output_gradient=T((5,)),
                                offsets=(0,), sizes=(4,), strides=(2,)),
     "InputGradientTensor.DataType"),
]


@pytest.mark.parametrize("make, field", INVALID, ids=[str(i) for i in range(len(INVALID))])
def test_invalid_descriptors_name_their_field(make, field):
    with pytest.raises(dmlc.ValidationError) as e:
        validate(make())
    assert field in str(e.value), str(e.value)


def test_an_nhwc_buffer_read_as_nchw():
    """DirectML's way: the input's strides say how an NHWC buffer is laid out as NCHW."""
    nhwc = np.arange(2 * 3 * 4 * 5, dtype=np.int32).reshape(2, 3, 4, 5)  # N, H, W, C
    n, h, w, c = nhwc.shape
    desc = dmlc.IdentityDesc(input=T((n, c, h, w), "INT32", strides=(h * w * c, 1, w * c, c)))
    got = dmlc.compile(desc).reference(nhwc.reshape(-1))
    assert np.array_equal(got, nhwc.transpose(0, 3, 1, 2))


def test_dml_slice_example_of_the_directml_page():
    text = """DML_SLICE_OPERATOR_DESC
DimensionCount: 4
Offsets: {0, 0, 1, 0}
Sizes: {1, 1, 2, 2}
Strides: {1, 1, 2, 3}
InputTensor: (Sizes:{1, 1, 4, 4}, DataType:FLOAT32)
    [[[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]]]]
OutputTensor: (Sizes:{1, 1, 2, 2}, DataType:FLOAT32) [[[[5, 8], [13, 16]]]]
"""
    (unit,) = parse_module(text).units
    kernel = dmlc.compile(unit.descriptor)
    assert np.array_equal(kernel.reference(unit.data["input"]), unit.expected)


def test_slice_grad_dml_notation():
    text = """DML_SLICE_GRAD_OPERATOR_DESC
DimensionCount: 1
InputWindowOffsets: {1}
InputWindowSizes: {7}
InputWindowStrides: {-3}
InputGradientTensor: (Sizes:{3}, DataType:INT16) [7, 4, 1]
OutputGradientTensor: (Sizes:{10}, DataType:INT16) [0, 1, 0, 0, 4, 0, 0, 7, 0, 0]
"""
    (unit,) = parse_module(text).units
    kernel = dmlc.compile(unit.descriptor)
    assert np.array_equal(kernel.reference(unit.data["input_gradient"]), unit.expected)


@pytest.mark.parametrize("dtype", ["FLOAT16", "INT8", "FLOAT32"])
def test_a_slice_output_given_packed_strides_is_the_packed_output(dtype):
    """Validation takes a packed output only, so given packed strides (any stride at a size-1
    dimension) compile what no strides compile: whole words stored, not element by element."""
    from dmlc.compiled import build_program
    from dmlc.ir.printer import render_program

    def program(out_strides):
        desc = dmlc.Slice1Desc(input=T((4, 8), dtype), offsets=(1, 0), sizes=(2, 8),
                               strides=(1, 2), output=T((2, 4), dtype, out_strides))
        return render_program(build_program(desc, target="gpu")[1])
    plain = program(None)
    assert program((4, 1)) == plain
    assert "atomic" not in plain
    assert program((4, 1)) != render_program(build_program(dmlc.Slice1Desc(
        input=T((4, 8), dtype), offsets=(0, 0), sizes=(2, 8), strides=(1, 2)),
        target="gpu")[1])  # the comparison sees a change of window


@pytest.mark.parametrize("make", [
    lambda t: dmlc.Slice1Desc(input=t, offsets=(0, 0, 0), sizes=(1, 4, 64), strides=(1, 1, 1)),
    lambda t: dmlc.IdentityDesc(input=t)], ids=["slice", "copy"])
def test_a_stride_beyond_int32_at_a_size_1_dimension_compiles_every_generic_form(make):
    """Such a stride never moves (the coordinate there is 0): every generic form of the copy
    (vectors, tiles, rows, elements) takes it as 0 and compiles, as the specialized kernel
    does; the kernel reads the right elements."""
    from dmlc.ir.verify import verify_program

    huge = T((1, 4, 64), "FLOAT32", (2**33, 64, 1))
    desc = validate(make(huge))
    rules = dmlc.family.registry.rules_of(desc).generic
    built = 0
    for dims in [(1,), (2,), (1, 2)]:
        for variant in rules.choices(desc, dims):
            generic = rules.build(desc, dims, variant)
            if generic is not None:
                verify_program(generic.program)
                built += 1
    assert built >= 3
    x = np.arange(256, dtype=np.float32)
    kernel = dmlc.compile(desc, dynamic=True)
    assert kernel.compiled.params, "a generic kernel"
    assert np.array_equal(kernel.reference(x).reshape(-1), x)
