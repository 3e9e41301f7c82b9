"""Generic kernels of DML_SPLIT, DML_PADDING and DML_TILE without a device (README "Generic
kernels"): bit for bit the specialized kernel and an independent numpy reference over random
sizes (the interpreter runs both), every admissible size proven in-bounds by verify.py, the
range edges, and the `auto` policy's compile counts."""
from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from tests import reference
from tests.strategies import random_bits

import dmlc
from dmlc import DataType, TensorDesc
from dmlc.compiled import KERNELS
from dmlc.family.registry import rules_of, validate
from dmlc.ir.verify import verify_program

WIDE = [d for d in DataType if d.bits >= 32]


def _split(dtype: DataType, shape: tuple[int, ...], axis: int, pieces: tuple[int, ...],
           view: tuple[int, ...] | None = None) -> dmlc.SplitDesc:
    """`shape` cut into `pieces` along axis; the input a view of a packed owner of sizes `view`
    (its first elements) when given."""
    strides = None if view is None else tuple(int(np.prod(view[i + 1:]))
                                              for i in range(len(view)))
    outs = tuple(TensorDesc(data_type=dtype, sizes=tuple(m if i == axis else s
                                                         for i, s in enumerate(shape)))
                 for m in pieces)
    return validate(dmlc.SplitDesc(input=TensorDesc(data_type=dtype, sizes=shape,
                                                    strides=strides),
                                   outputs=outs, axis=axis))


def _same(got: tuple[np.ndarray, ...], want: list[np.ndarray]) -> bool:
    return len(got) == len(want) and all(
        g.shape == w.shape and g.tobytes() == np.ascontiguousarray(w).tobytes()
        for g, w in zip(got, want))


@given(st.data())
def test_generic_split_matches_specialized_and_numpy(data):
    """DML_SPLIT with every dimension but the axis dynamic, over random batches (size 1 and
    sizes that break every alignment included), packed and as a view of a wider owner."""
    dtype = data.draw(st.sampled_from(WIDE))
    rank = data.draw(st.integers(1, 4))
    axis = data.draw(st.integers(0, rank - 1))
    pieces = tuple(data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=4)))
    strided = data.draw(st.booleans())
    dmlc.clear_cache()
    for _ in range(3):
        shape = tuple(sum(pieces) if i == axis else data.draw(st.integers(1, 5))
                      for i in range(rank))
        owner = tuple(n + (data.draw(st.integers(0, 2)) if strided else 0) for n in shape)
        x = random_bits(data.draw(st.integers(0, 99)), owner, dtype.numpy)
        desc = _split(dtype, shape, axis, pieces, owner if strided else None)
        generic = dmlc.compile(desc, dynamic=True)
        assert bool(generic.compiled.params) == (rank > 1)  # rank 1: the axis only
        special = dmlc.compile(desc, dynamic=False)
        arg = x.reshape(-1) if strided else x
        want = reference.split(x[tuple(slice(0, n) for n in shape)], list(pieces), axis)
        assert _same(generic.reference(arg), want) and _same(special.reference(arg), want)
    KERNELS.clear()


def test_generic_split_range_edges():
    """The batch's range: its largest size is admitted, one more is not (that call compiles
    specialized); size 1 and the largest give the push words their recipes say."""
    desc = _split(DataType.FLOAT32, (3, 6, 4), 1, (2, 4))
    generic = rules_of(desc).generic.lower(desc, (0, 2))
    assert generic is not None
    verify_program(generic.program)
    hi = generic.program.params[0].vmax
    assert generic.values(_split(DataType.FLOAT32, (1, 6, 1), 1, (2, 4))) is not None
    assert generic.values(_split(DataType.FLOAT32, (hi, 6, 1), 1, (2, 4))) is not None
    assert generic.values(_split(DataType.FLOAT32, (hi + 1, 6, 1), 1, (2, 4))) is None


def test_generic_split_auto_compiles_one_specialized_then_one_generic(monkeypatch):
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")
    dmlc.clear_cache()
    for batch in (2, 5, 1, 7, 3, 4):
        x = random_bits(batch, (batch, 9), np.dtype(np.float32))
        got = dmlc.compile(_split(DataType.FLOAT32, (batch, 9), 1, (2, 3, 4))).reference(x)
        assert _same(got, reference.split(x, [2, 3, 4], 1))
    assert dmlc.cache_info()["compiles"] == {"DML_SPLIT": 1, "DML_SPLIT generic": 1}
    KERNELS.clear()


def test_generic_split_stays_specialized_where_it_has_none():
    """8/16-bit elements (stores by words), a dynamic axis: no generic kernel."""
    small = _split(DataType.FLOAT16, (3, 4), 1, (1, 3))
    assert not dmlc.compile(small, dynamic=True).compiled.params
    assert rules_of(small).generic.free(small) == (0,)
    KERNELS.clear()
