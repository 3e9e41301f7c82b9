"""Tile, padding and space/depth without a device: every invalid descriptor or argument names
its field; the .dml notation (enum names, typed padding values, the v0 forms); the IR
interpreter against numpy. (Property, device and passes-unchanged layers: tests/cases.py.)"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import dmlc
import reference_layout as ref
from dmlc.family.registry import validate
from dmlc.lang import parse_module
from strategies import random_bits

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
REFLECT, CONSTANT = "DML_PADDING_MODE_REFLECTION", "DML_PADDING_MODE_CONSTANT"


def T(sizes, dtype="FLOAT32"):
    return dmlc.TensorDesc(data_type=dtype, sizes=tuple(sizes))


INVALID = [
    (lambda: dmlc.TileDesc(input=T((2, 3)), repeats=(2,)), "Repeats length"),
    (lambda: dmlc.TileDesc(input=T((2, 3)), repeats=(2, 0)), "Repeats[1]"),
    (lambda: dmlc.TileDesc(input=T((2, 3)), repeats=(2, 2), output=T((4, 5))),
     "OutputTensor.Sizes"),
    (lambda: dmlc.TileDesc(input=T((65536, 16384)), repeats=(2, 1)), "OutputTensor"),
    (lambda: dmlc.PaddingDesc(input=T((3,)), mode="reflect", start_padding=(1,),
                              end_padding=(1,)), "PaddingMode"),
    (lambda: dmlc.PaddingDesc(input=T((3,)), mode=REFLECT, start_padding=(3,),
                              end_padding=(0,)), "StartPadding[0]"),
    (lambda: dmlc.PaddingDesc(input=T((3,)), mode="DML_PADDING_MODE_SYMMETRIC",
                              start_padding=(0,), end_padding=(4,)), "EndPadding[0]"),
    (lambda: dmlc.PaddingDesc(input=T((3,)), mode=CONSTANT, start_padding=(-1,),
                              end_padding=(0,)), "StartPadding[0]"),
    (lambda: dmlc.PaddingDesc(input=T((3, 2)), mode=CONSTANT, start_padding=(1,),
                              end_padding=(0, 0)), "StartPadding length"),
    (lambda: dmlc.PaddingDesc(input=T((3,), "UINT8"), mode=CONSTANT, start_padding=(1,),
                              end_padding=(0,), value=256), "constant '256'"),
    (lambda: dmlc.PaddingDesc(input=T((3,), "INT32"), mode=CONSTANT, start_padding=(1,),
                              end_padding=(0,), value=0.5), "constant '0.5'"),
    (lambda: dmlc.PaddingDesc(input=T((3,)), mode=CONSTANT, start_padding=(1,),
                              end_padding=(0,), value="0"), "PaddingValue"),
    (lambda: dmlc.PaddingDesc(input=T((3,)), mode=CONSTANT, start_padding=(1,),
                              end_padding=(0,), value_type="DML_TENSOR_DATA_TYPE_INT32"),
     "PaddingValueDataType"),
    (lambda: dmlc.SpaceToDepthDesc(input=T((1, 2, 3)), block_size=2), "DimensionCount"),
    (lambda: dmlc.SpaceToDepthDesc(input=T((1, 2, 3, 4)), block_size=2), "Sizes[2]"),
    (lambda: dmlc.SpaceToDepthDesc(input=T((1, 2, 4, 4)), block_size=0), "BlockSize"),
    (lambda: dmlc.DepthToSpaceDesc(input=T((1, 6, 2, 2)), block_size=2), "Sizes[1]"),
    (lambda: dmlc.DepthToSpaceDesc(input=T((1, 4, 2, 2)), block_size=2, order="DCR"),
     "Order"),
]


@pytest.mark.parametrize("make, field", INVALID, ids=[f"{i}" for i in range(len(INVALID))])
def test_invalid_descriptors_name_their_field(make, field):
    with pytest.raises(dmlc.ValidationError) as e:
        validate(make())
    assert field in str(e.value), str(e.value)


@pytest.mark.parametrize("call, field", [
    (lambda: dmlc.pad(np.zeros(3, np.float32), 1, 1, mode="mirror"), "mode"),
    (lambda: dmlc.pad(np.zeros(3, np.float32), [1, 2], 1), "StartPadding"),
    (lambda: dmlc.pad(np.zeros(3, np.float32), "1", 1), "StartPadding"),
    (lambda: dmlc.tile(np.zeros(3, np.float32), [1.5]), "Repeats"),
    (lambda: dmlc.depth_to_space(np.zeros((1, 4, 1, 1), np.float32), 2, order="dcr"), "order"),
])
def test_bad_one_shot_arguments(call, field):
    with pytest.raises(dmlc.ValidationError) as e:
        call()
    assert field in str(e.value)


def interpret(desc, x):
    return dmlc.compile(desc).reference(x)


@pytest.mark.parametrize("dtype", ["int64", "uint64", "float16", "float64"])
def test_typed_padding_values_are_exact(dtype):
    """An int64 beyond 2**53 and float16's values arrive as their own bits."""
    x = random_bits(1, (2, 3), np.dtype(dtype))
    value = {"int64": -2**62 - 1, "uint64": 2**64 - 1, "float16": -0.0,
             "float64": float("nan")}[dtype]
    got = interpret(dmlc.PaddingDesc(input=T(x.shape, dtype.upper()), mode=CONSTANT,
                                     start_padding=(1, 0), end_padding=(0, 2), value=value), x)
    bits = int(np.array(value, dtype).view(np.dtype(f"uint{8 * x.itemsize}")))
    ref_ = ref.pad(x, (1, 0), (0, 2), CONSTANT, bits)
    assert np.array_equal(got.view(f"uint{8 * x.itemsize}"), ref_.view(f"uint{8 * x.itemsize}"))


def test_the_v0_forms_are_the_v1_forms_with_their_defaults():
    x = random_bits(2, (1, 8, 2, 3), np.dtype("int32"))
    v0 = interpret(dmlc.DepthToSpace0Desc(input=T(x.shape, "INT32"), block_size=2), x)
    assert np.array_equal(v0, ref.depth_to_space(x, 2, dcr=True))
    y = random_bits(3, (2, 3), np.dtype("int8"))
    pad0 = interpret(dmlc.Padding0Desc(input=T(y.shape, "INT8"), mode=CONSTANT,
                                       start_padding=(1, 1), end_padding=(0, 0), value=-5.0), y)
    assert np.array_equal(pad0, np.pad(y, ((1, 0), (1, 0)), constant_values=-5))


@pytest.mark.parametrize("name", ["padding_reflect", "tile_int64", "depth_to_space_crd"])
def test_dml_examples_give_their_documented_output(name):
    (unit,) = dmlc.lang.load(EXAMPLES / f"{name}.dml").units
    kernel = dmlc.compile(unit.descriptor)
    got = kernel.reference(*(unit.data[a] for a in kernel.program.inputs))
    assert np.array_equal(got, unit.expected)


def test_dml_padding_errors_point_at_the_field():
    text = (EXAMPLES / "padding_reflect.dml").read_text()
    for old, new, words in [("StartPadding: {0, 0, 1, 1}", "StartPadding: {0, 0, 3, 1}",
                             "StartPadding[2]"),
                            ("DML_PADDING_MODE_REFLECTION", "DML_PADDING_MODE_MIRROR",
                             "PaddingMode")]:
        with pytest.raises(dmlc.DmlcError) as e:
            dmlc.compile_module(parse_module(text.replace(old, new), "p.dml"))
        assert words in str(e.value) and str(e.value).startswith("p.dml:"), str(e.value)
