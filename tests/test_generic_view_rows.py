"""The "rows" variant of the generic copy of a view (family/view_copy.py; docs/generic-kernels.md):
row blocks of 8 elements of one row per invocation, the divisions by push constants once a
block, for 32/64-bit types of any sizes, strides and offsets. Lowered, proven by verify.py and
run by the interpreter against numpy over random views; and which calls get it."""
from __future__ import annotations

import numpy as np
from hypothesis import event, given, settings
from hypothesis import strategies as st
from tests.strategies import budget, random_bits

from dmlc import DataType, TensorDesc
from dmlc.family.registry import validate
from dmlc.ir.interp import run_buffers
from dmlc.ir.verify import verify_program
from dmlc.ops.copy.desc import IdentityDesc
from dmlc.ops.copy.lower import identity_variants, lower_identity_generic

WIDE = [d for d in DataType if d.bits >= 32]


def _desc(dtype: DataType, sizes, strides, offset: int) -> IdentityDesc:
    return validate(IdentityDesc(input=TensorDesc(data_type=dtype, sizes=tuple(sizes),
                                                  strides=tuple(strides), offset=offset)))


def _stores(generic) -> int:
    return sum(1 for e in generic.program.kernels[0].effects for n in e.toposort()
               if n.op.name == "STORE")


@settings(max_examples=budget(100), deadline=None)
@given(st.data())
def test_rows_copy_matches_numpy(data):
    """A view of any non-negative strides (the innermost stepping least, or broadcast) and
    offset, rank 1 to 4, some sizes dynamic: "rows" is among the variants wherever the
    innermost size is dynamic or a block long (but a static row of whole vectors: "vector"
    alone), and its kernel is bit for bit numpy's copy at
    sizes from 1 (a row shorter than a block writes its last element again) to past a block."""
    dtype = data.draw(st.sampled_from(WIDE))
    rank = data.draw(st.integers(1, 4))
    full = [data.draw(st.integers(1, 21)) for _ in range(rank)]
    strides, step = [0] * rank, data.draw(st.sampled_from([1, 1, 2]))
    for i in reversed(range(rank)):  # packed but for the steps, gaps and broadcasts
        if data.draw(st.booleans()) and i != rank - 1 and data.draw(st.booleans()):
            strides[i] = 0
            continue
        strides[i] = step
        step *= full[i] + data.draw(st.sampled_from([0, 0, 1, 3]))
    offset = data.draw(st.sampled_from([0, 0, 1, 3, 4, 17]))
    dims = tuple(sorted(data.draw(st.sets(st.integers(0, rank - 1), min_size=1))))
    first = _desc(dtype, full, strides, offset)
    variants = identity_variants(first, dims)
    long_rows = rank - 1 in dims or full[-1] >= 8
    if "rows" not in variants:  # whole vectors of a static row, or transposed: other kernels
        assert not long_rows or {v.split("/")[0] for v in variants} & {"vector", "tilev"}
        event("another variant")
        return
    assert long_rows
    event("rows")
    generic = lower_identity_generic(first, dims, "rows")
    assert generic is not None
    verify_program(generic.program)  # every access inside its buffer for every size
    assert _stores(generic) == 8  # a block of 8 elements an invocation
    span = offset + 17 + sum((n - 1) * s for n, s in zip(full, strides)) + 1
    x = random_bits(data.draw(st.integers(0, 99)), (span,), dtype.numpy)
    for _ in range(3):
        sizes = [data.draw(st.sampled_from([1, n, data.draw(st.integers(1, n))]))
                 if i in dims else n for i, n in enumerate(full)]
        at = data.draw(st.sampled_from([offset, 0, 1, 5, 17]))
        values = generic.values(_desc(dtype, sizes, strides, at))
        assert values is not None  # no guard: every size and offset in range
        want = np.lib.stride_tricks.as_strided(x[at:], sizes, [dtype.itemsize * s for s in strides])
        raw = run_buffers(generic.program, x, params=values)["output"]
        assert raw[:int(np.prod(sizes))].tobytes() == np.ascontiguousarray(want).tobytes()


def test_a_growing_window_copies_by_row_blocks():
    """A decode loop's window cache[:, :, :t] (f32 [4, 64, t] of a [4, 64, 200] cache) runs
    "rows" for every t: its only variant, the innermost size dynamic and off the vector width;
    a window of whole vectors runs "vector" where it can, "rows" where not; 8/16-bit types and
    static rows shorter than a block stay "scalar"."""
    window = _desc(DataType.FLOAT32, (4, 64, 7), (12800, 200, 1), 0)
    assert identity_variants(window, (2,)) == ("rows",)
    assert identity_variants(_desc(DataType.FLOAT32, (4, 64, 8), (12800, 200, 1), 0),
                             (2,)) == ("vector", "rows")
    assert identity_variants(_desc(DataType.FLOAT16, (4, 64, 7), (12800, 200, 1), 0),
                             (2,)) == ("scalar",)
    assert identity_variants(_desc(DataType.INT64, (9, 7), (10, 1), 0), (0,)) == ("scalar",)
    assert identity_variants(_desc(DataType.INT64, (9, 8), (11, 1), 0), (0,)) == ("rows",)
    assert identity_variants(_desc(DataType.INT64, (9, 8), (10, 1), 0), (0,)) == ("vector",)
