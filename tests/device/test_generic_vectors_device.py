"""Vector variants of generic kernels on the device (README "Generic kernels": "Vectors"):
forced generic over sizes that hit and miss each variant's guard, bit for bit the specialized
kernel and numpy, guard words intact (tests/test_generic_vectors.py draws the cases)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests import reference
from tests.strategies import random_bits
from tests.test_generic_vectors import (
    WIDTHS,
    _split,
    _tile,
    moves_vectors,
    split_case,
    tile_case,
)

import dmlc
from dmlc import DataType

pytestmark = pytest.mark.vulkan


@pytest.mark.parametrize("dtype", [DataType.FLOAT32, DataType.INT64])
@settings(max_examples=12)
@given(data=st.data())
def test_split_vector_variant_on_device(dtype, data):
    lanes = WIDTHS[dtype.itemsize]
    shape, axis, pieces, owner, hit = split_case(data, lanes)
    x = random_bits(data.draw(st.integers(0, 99)), owner or shape, dtype.numpy)
    desc = _split(dtype, shape, axis, pieces, owner)
    generic = dmlc.compile(desc, dynamic=True, guard_words=16)
    assert generic.compiled.params and moves_vectors(generic) == hit
    arg = x if owner is None else x.reshape(-1)
    got = generic(arg)
    special = dmlc.compile(desc, dynamic=False)(arg)
    want = reference.split(x[tuple(slice(0, n) for n in shape)], list(pieces), axis)
    for g, s, w in zip(got, special, want, strict=True):
        assert g.tobytes() == s.tobytes() == np.ascontiguousarray(w).tobytes()
    assert generic.executable().guard_damage() == []


@pytest.mark.parametrize("dtype", [DataType.FLOAT32, DataType.INT64])
@settings(max_examples=12)
@given(data=st.data())
def test_tile_vector_variant_on_device(dtype, data):
    lanes = WIDTHS[dtype.itemsize]
    shape, repeats, owner, hit = tile_case(data, lanes)
    x = random_bits(data.draw(st.integers(0, 99)), owner or shape, dtype.numpy)
    desc = _tile(dtype, shape, repeats, owner)
    generic = dmlc.compile(desc, dynamic=True, guard_words=16)
    assert generic.compiled.params and moves_vectors(generic) == hit
    arg = x if owner is None else x.reshape(-1)
    got = generic(arg)
    special = dmlc.compile(desc, dynamic=False)(arg)
    want = np.tile(x[tuple(slice(0, n) for n in shape)], repeats)
    assert got.tobytes() == special.tobytes() == want.tobytes()
    assert generic.executable().guard_damage() == []
