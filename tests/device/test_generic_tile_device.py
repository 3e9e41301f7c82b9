"""The tile variants of the generic copy on the device (family/view_tile.py): transposed,
stepped and offset views of every 32/64-bit type, the generic kernel (forced mode: "tilev"
where the innermost size is a multiple of the vector width, else "tile") bit for bit the
specialized one and numpy, guard words intact; a slice of a transposed input too."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.strategies import budget, random_bits

import dmlc
from dmlc import DataType, TensorDesc
from dmlc.family.registry import validate
from dmlc.family.view_tile import tile_dim
from dmlc.ops.copy.desc import IdentityDesc
from dmlc.ops.gather.desc import GatherDesc
from dmlc.ops.slice.desc import Slice1Desc

pytestmark = pytest.mark.vulkan


VIEWS = [  # (dtype, owner's sizes, permutation, steps): the views the property moves over
    (DataType.FLOAT32, (9, 7), (1, 0), (1, 1)),
    (DataType.INT64, (5, 3, 4), (2, 0, 1), (1, 2, 1)),
    (DataType.UINT32, (4, 6, 5), (0, 2, 1), (2, 1, 1)),
]
"""A few layouts, so that the generic kernels compile a few times (each tile kernel's first
pipeline takes lavapipe 5-70 s) and the examples move over their sizes and offsets: one kernel
serves every size, which is what a generic kernel is for. Random layouts: tests/test_generic_tile.py
(the interpreter)."""


@settings(max_examples=budget(20), deadline=None)
@given(st.data())
def test_generic_tile_copy_equals_specialized(data):
    dtype, base, perm, steps = data.draw(st.sampled_from(VIEWS))
    lanes = 16 // dtype.itemsize
    packed = [int(np.prod(base[i + 1:])) for i in range(len(base))]
    full = [-(-base[p] // steps[p]) for p in perm]
    strides = [packed[p] * steps[p] for p in perm]
    offset = data.draw(st.sampled_from([0, lanes, 1, 3]))
    x = random_bits(data.draw(st.integers(0, 99)), (int(np.prod(base)) + offset,), dtype.numpy)
    sizes = tuple(data.draw(st.integers(1, s)) for s in full)
    desc = validate(IdentityDesc(input=TensorDesc(data_type=dtype, sizes=sizes,
                                                  strides=tuple(strides), offset=offset)))
    # every dimension dynamic, size-1 ones too (dynamic=True keeps those static where the
    # sizes need the range: a kernel of other dims, which tile_dim below does not describe)
    generic = dmlc.compile(desc, dynamic=tuple(range(len(sizes))), guard_words=16)
    tiled = tile_dim(desc.input, range(len(sizes))) is not None
    if generic.compiled.params:  # (a view of one element compiles specialized)
        assert tiled == (generic.ir.count("store") >= 32), generic.ir  # a tile's stores
    special = dmlc.compile(desc, dynamic=False)
    want = np.lib.stride_tricks.as_strided(x[offset:], sizes,
                                           [dtype.itemsize * s for s in strides])
    got, ref = generic(x), special(x)
    assert got.tobytes() == ref.tobytes() == np.ascontiguousarray(want).tobytes()
    assert generic.executable().guard_damage() == []


@pytest.mark.parametrize("n", [1, 3, 4, 8, 17, 64])
def test_generic_slice_of_a_transposed_input(n):
    """The bench's slice rows::2 of a transposed input at small sizes, edges included."""
    x = random_bits(n, (n * n,), np.dtype(np.float32))
    desc = validate(Slice1Desc(input=TensorDesc(data_type=DataType.FLOAT32, sizes=(n, n),
                                                strides=(1, n)),
                               offsets=(0, 0), sizes=(n, n), strides=(2, 1)))
    generic = dmlc.compile(desc, dynamic=True, guard_words=16)
    special = dmlc.compile(desc, dynamic=False)
    want = np.ascontiguousarray(x.reshape(n, n).T[::2])
    assert generic(x).tobytes() == special(x).tobytes() == want.tobytes()
    assert generic.executable().guard_damage() == []


@pytest.mark.parametrize("dtype", [DataType.FLOAT32, DataType.INT64])
@pytest.mark.parametrize("n, m", [(2, 3), (7, 16), (33, 20)])
def test_generic_gather_strips_of_a_transposed_table(dtype, n, m):
    """The generic gather's "strips" variant (ops/gather/strips.py) of a transposed table, ids
    of every count (edges of its tiles), negative and out of range: bit for bit the specialized
    kernel and numpy."""
    x = random_bits(n + m, (n * m,), dtype.numpy)
    table = x.reshape(m, n).T
    for k in (1, 4, 5, 37):
        ids = np.random.default_rng(k).integers(-n - 1, n + 1, (1, k)).astype(np.int32)
        desc = validate(GatherDesc(input=TensorDesc(data_type=dtype, sizes=(n, m),
                                                    strides=(1, n)),
                                   indices=TensorDesc(data_type=DataType.INT32, sizes=(1, k)),
                                   axis=0, index_dimensions=1))
        generic = dmlc.compile(desc, dynamic=True, guard_words=16)
        assert generic.compiled.params
        special = dmlc.compile(desc, dynamic=False)
        want = table[np.where(ids[0] < 0, ids[0] + n, ids[0]).clip(0, n - 1)]
        got, ref = generic(x, ids), special(x, ids)
        assert got.tobytes() == ref.tobytes() == np.ascontiguousarray(want).tobytes()
        assert generic.executable().guard_damage() == []
