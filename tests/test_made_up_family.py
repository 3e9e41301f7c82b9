"""Adding an operator family is one folder and one registry line: a made-up family, DML_MIRROR,
lives in tests/made_up_family/ alone (its descriptor, validation, lowering and one-shot
function, as any folder of dmlc/ops), and importing it is its registry line. With no edit
anywhere else, dmlc.compile validates and lowers it, the .dml front end reads it by its
fields (with or without its name), checked errors name it, and it runs on the device."""
from __future__ import annotations

import numpy as np
import pytest

import dmlc
from dmlc.family.registry import Family, descriptor_classes
from reference import assert_bits_equal


@pytest.fixture
def mirror_family():
    import made_up_family  # the registry line: importing the folder registers its family
    Family.registered[made_up_family.FAMILY.name] = made_up_family.FAMILY
    yield made_up_family
    del Family.registered[made_up_family.FAMILY.name]  # the rest of the suite never sees it


def test_the_driver_and_the_front_end_take_it(mirror_family):
    desc = mirror_family.MirrorDesc(input=dmlc.TensorDesc(data_type="INT16", sizes=(3, 4)),
                                    axis=1)
    assert mirror_family.MirrorDesc in descriptor_classes(directml_only=True)
    kernel = dmlc.compile(desc, target="cpu")
    x = np.arange(12, dtype=np.int16).reshape(3, 4)
    assert_bits_equal(kernel.reference(x), x[:, ::-1])
    assert "mirror" in kernel.glsl
    with pytest.raises(dmlc.ValidationError, match=r"DML_MIRROR: Axis: expected an integer "
                                                   r"in \[0, 2\), got 2"):
        dmlc.compile(mirror_family.MirrorDesc(input=desc.input, axis=2))
    for text in ("DML_MIRROR_OPERATOR_DESC\n", ""):  # named, or read by its fields
        unit = dmlc.lang.parse_module(text + "MirrorAxis: 0\nInputTensor: (Sizes:{3}, "
                                      "DataType:FLOAT32) [1, 2, 3]\n"
                                      "OutputTensor: (Sizes:{3}, DataType:FLOAT32) [3, 2, 1]\n",
                                      "mirror.dml").units[0]
        assert isinstance(unit.descriptor, mirror_family.MirrorDesc)
        got = dmlc.compile(unit.descriptor).reference(unit.data["input"])
        assert_bits_equal(got, unit.expected)


@pytest.mark.vulkan
def test_it_runs_on_the_device(mirror_family):
    x = np.arange(24, dtype=np.float16).reshape(2, 3, 4)
    assert_bits_equal(mirror_family.mirror(x, axis=-1), x[..., ::-1])
    t = dmlc.to_device(x)
    assert_bits_equal(mirror_family.mirror(t.T, axis=0).numpy(), x.T[::-1])


def test_a_family_taken_out_is_no_longer_found(mirror_family):
    """rules_of remembers its answers by class only while their family is registered."""
    from dmlc.family.registry import rules_of
    desc = mirror_family.MirrorDesc(input=dmlc.TensorDesc(data_type="INT8", sizes=(2,)), axis=0)
    assert rules_of(desc) is mirror_family.FAMILY.rules[mirror_family.MirrorDesc]
    del Family.registered[mirror_family.FAMILY.name]
    try:
        with pytest.raises(dmlc.ValidationError, match="one of dmlc's descriptors"):
            rules_of(desc)
    finally:
        Family.registered[mirror_family.FAMILY.name] = mirror_family.FAMILY
