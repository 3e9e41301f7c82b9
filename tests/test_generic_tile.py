"""The tile variants of the generic copy (family/view_tile.py; docs/generic-kernels.md): views
whose innermost dimension steps more than another (transposed, sliced, offset), every variant
lowered, proven by verify.py and run by the interpreter against numpy over random sizes; and
the generic gather's "strips" variant of a transposed table (ops/gather/strips.py)."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.strategies import budget, random_bits

from dmlc import DataType, TensorDesc
from dmlc.family.registry import validate
from dmlc.family.view_tile import tile_dim
from dmlc.ir.interp import run_buffers
from dmlc.ir.verify import verify_program
from dmlc.ops.copy.desc import IdentityDesc
from dmlc.ops.copy.lower import identity_variants, lower_identity_generic
from dmlc.ops.gather.desc import GatherDesc
from dmlc.ops.gather.lower import gather_variants, lower_gather_generic

WIDE = [d for d in DataType if d.bits >= 32]


def _desc(dtype: DataType, sizes, strides, offset: int) -> IdentityDesc:
    return validate(IdentityDesc(input=TensorDesc(data_type=dtype, sizes=tuple(sizes),
                                                  strides=tuple(strides), offset=offset)))


def transposed_view(data, max_size: int = 19):
    """(dtype, full sizes, strides, offset, buffer elements) of a permuted, maybe stepped and
    offset view of a packed tensor whose innermost dimension steps more than another."""
    dtype = data.draw(st.sampled_from(WIDE))
    lanes = 16 // dtype.itemsize
    rank = data.draw(st.integers(2, 3))
    base = [data.draw(st.integers(1, max_size)) for _ in range(rank)]
    perm = data.draw(st.permutations(range(rank)).filter(lambda p: p[-1] != rank - 1))
    steps = [data.draw(st.sampled_from([1, 1, 2])) for _ in range(rank)]
    packed = [int(np.prod(base[i + 1:])) for i in range(rank)]
    full = [-(-base[p] // steps[p]) for p in perm]
    strides = [packed[p] * steps[p] for p in perm]
    offset = data.draw(st.sampled_from([0, 0, lanes, 1, 3]))
    return dtype, full, strides, offset, int(np.prod(base)) + offset


@settings(max_examples=budget(40), deadline=None)
@given(st.data())
def test_tile_variants_match_numpy(data):
    """Every tile variant of a transposed view against numpy over random sizes and offsets (a
    view's offset is pushed: one kernel for every offset, but a kernel that loads vectors
    takes only aligned ones; a misaligned first offset gets the "/e" variants, element
    loads)."""
    dtype, full, strides, offset, n = transposed_view(data)
    lanes = 16 // dtype.itemsize
    dims = tuple(sorted(data.draw(st.sets(st.integers(0, len(full) - 1), min_size=1))))
    first = _desc(dtype, full, strides, offset)
    variants = identity_variants(first, dims)
    names = [v.split("/")[0] for v in variants]
    if tile_dim(first.input, dims) is None:  # the innermost steps least: another variant
        assert not {"tile", "tilev"} & set(names)
        return
    last = len(full) - 1  # "tilev" alone: a static innermost size, a multiple of the width
    assert names[0] == ("tile" if full[-1] % lanes else "tilev")
    assert names[-1] == ("tile" if last in dims or full[-1] % lanes else "tilev")
    assert all(v.endswith("/e") for v in variants) or not any("/e" in v for v in variants)
    extra = 2 * lanes + 1
    x = random_bits(data.draw(st.integers(0, 99)), (n + extra,), dtype.numpy)
    for variant, name in zip(variants, names):
        generic = lower_identity_generic(first, dims, variant)
        assert generic is not None
        verify_program(generic.program)  # every access inside its buffer for every size
        ops = {m.op.name for e in generic.program.kernels[0].effects for m in e.toposort()}
        assert ("VLOAD" not in ops) or not variant.endswith("/e")
        for _ in range(3):
            sizes = [data.draw(st.sampled_from([1, s, data.draw(st.integers(1, s))]))
                     if i in dims else s for i, s in enumerate(full)]
            at = data.draw(st.sampled_from([offset, 0, 1, lanes, offset + lanes, extra]))
            desc = _desc(dtype, sizes, strides, at)
            values = generic.values(desc)
            assert (values is None) == ((name == "tilev" and sizes[-1] % lanes != 0)
                                        or ("VLOAD" in ops and at % lanes != 0))
            if values is None:
                continue
            want = np.lib.stride_tricks.as_strided(x[at:], sizes,
                                                   [dtype.itemsize * s for s in strides])
            raw = run_buffers(generic.program, x, params=values)["output"]
            assert raw.tobytes() == np.ascontiguousarray(want).tobytes()


def test_tile_kernel_of_a_transpose_moves_vectors_and_admits_its_range():
    """A transpose's generic copy: vector loads down the input's columns and vector stores
    along the output's rows ("tilev"), "tile" for an innermost size not a multiple of 4; both
    admit the largest size their ranges declare and refuse one past it."""
    desc = _desc(DataType.FLOAT32, (64, 64), (1, 64), 0)
    assert identity_variants(desc, (0, 1)) == ("tilev", "tile")
    for variant, stores in (("tilev", "VSTORE"), ("tile", "STORE")):
        generic = lower_identity_generic(desc, (0, 1), variant)
        assert generic is not None
        ops = {n.op.name for e in generic.program.kernels[0].effects for n in e.toposort()}
        assert {"VLOAD", stores} <= ops
        hi = generic.program.params[0].vmax
        assert generic.values(_desc(DataType.FLOAT32, (hi, 4), (1, hi), 0)) is not None
        assert generic.values(_desc(DataType.FLOAT32, (hi + 1, 4), (1, hi + 1), 0)) is None


@settings(max_examples=budget(40), deadline=None)
@given(st.data())
def test_gather_strips_match_numpy(data):
    """The generic gather of a transposed (maybe stepped, offset) table, "strips": every count
    of ids, ids negative and out of range (clamped), bit for bit numpy."""
    dtype = data.draw(st.sampled_from(WIDE))
    n, m = data.draw(st.integers(2, 19)), data.draw(st.integers(2, 37))
    step, offset = data.draw(st.sampled_from([1, 2])), data.draw(st.sampled_from([0, 1, 4]))
    strides = (step, step * n + data.draw(st.integers(0, 3)))
    size = offset + (n - 1) * strides[0] + (m - 1) * strides[1] + 1
    x = random_bits(data.draw(st.integers(0, 99)), (size,), dtype.numpy)
    table = np.lib.stride_tricks.as_strided(x[offset:], (n, m),
                                            [dtype.itemsize * s for s in strides])

    def desc(k: int) -> GatherDesc:
        return validate(GatherDesc(
            input=TensorDesc(data_type=dtype, sizes=(n, m), strides=strides, offset=offset),
            indices=TensorDesc(data_type=DataType.INT32, sizes=(1, k)), axis=0,
            index_dimensions=1))
    first = desc(data.draw(st.integers(1, 9)))
    assert gather_variants(first, (1,)) == ("strips",)
    generic = lower_gather_generic(first, (1,), "strips")
    assert generic is not None
    verify_program(generic.program)
    for _ in range(3):
        k = data.draw(st.sampled_from([1, 3, 4, 5, 17, data.draw(st.integers(1, 40))]))
        ids = np.array(data.draw(st.lists(st.integers(-n - 2, n + 2), min_size=k, max_size=k)),
                       dtype=np.int32)
        raw = run_buffers(generic.program, x, ids, params=generic.values(desc(k)))["output"]
        normal = np.where(ids < 0, ids + n, ids).clip(0, n - 1)
        assert raw.tobytes() == np.ascontiguousarray(table[normal]).tobytes()
