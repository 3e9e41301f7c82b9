"""Generic kernels' keys, variants and push-word limits (docs/generic-kernels.md), CPU: a join
needing more push words than a shader has, the fallback to a variant that builds, a bounded
number of kernels over windows of mixed alignment, a size of one keying every later size
(regressions of defects a review found; the interpreter checks every address)."""
from __future__ import annotations

import numpy as np
import pytest
from tests import reference, reference_nd
from tests.strategies import random_bits

import dmlc
from dmlc import DataType, TensorDesc
from dmlc.compiled import KERNELS
from dmlc.family.registry import rules_of, validate
from dmlc.ir.verify import MAX_PARAMS


def _join(dtype: DataType, shapes, axis: int, offsets=None) -> dmlc.JoinDesc:
    """A join of `shapes`; input k a packed view at offsets[k] where given (not None)."""
    offsets = offsets or [None] * len(shapes)
    return validate(dmlc.JoinDesc(inputs=tuple(
        TensorDesc(data_type=dtype, sizes=s, offset=o or 0,
                   strides=None if o is None else
                   tuple(int(np.prod(s[i + 1:])) for i in range(len(s))))
        for s, o in zip(shapes, offsets)), axis=axis))


@pytest.mark.parametrize("mode", [True, "auto"])
@pytest.mark.parametrize("n, inner, view", [(40, 3, False), (16, 8, False), (16, 8, True),
                                            (11, 8, True)])
def test_join_of_many_inputs_needing_more_push_words_than_a_shader_has(mode, n, inner, view):
    """A join of many inputs lowers (since _grouped_join and the vector join took more than
    GROUP inputs) to a generic program of a PARAM or more an input: past MAX_PARAMS (32) push
    words compile_artifact raised IRError, on dmlc.compile(dynamic=True) and, in the default
    auto mode, on the second batch of a 40-input concat. Such a variant cannot be built: the
    next one, else the specialized kernel, serves, bit for bit."""
    dmlc.clear_cache()
    for batch in (2, 3, 4):
        shapes = [(batch, inner)] * n
        desc = _join(DataType.FLOAT32, shapes, 0 if inner == 8 and not view and n == 16 else 1,
                     [4 * (k % 3) for k in range(n)] if view else None)
        rules = rules_of(desc).generic
        dims = (1 - desc.axis,)
        assert any(len(p.program.params) > MAX_PARAMS for p in
                   (rules.build(desc, dims, v) for v in rules.choices(desc, dims))
                   if p is not None)
        xs = [random_bits(batch * 100 + k, s, np.float32) for k, s in enumerate(shapes)]
        arrays = []
        for x, t in zip(xs, desc.inputs):
            flat = random_bits(7, (t.offset + x.size + 3,), np.float32)
            flat[t.offset:t.offset + x.size] = x.reshape(-1)
            arrays.append(flat if view else x)
        got = dmlc.compile(desc, dynamic=mode).reference(*arrays)
        assert got.tobytes() == np.concatenate(xs, axis=desc.axis).tobytes()
    KERNELS.clear()


@pytest.mark.parametrize("dtype", [DataType.INT8, DataType.FLOAT16])
def test_auto_falls_back_to_a_variant_it_can_build(dtype):
    """auto compiles the most general variant; a join of 9 8/16-bit inputs has no scalar
    kernel (_grouped_join: a word may hold elements of two groups), so auto compiled a
    specialized kernel for every innermost size though the "vector" kernel serves each that
    is whole vectors. Now the next most general variant: one specialized, one generic."""
    lanes = 16 // dtype.itemsize
    dmlc.clear_cache()
    for k in (1, 2, 3, 5):
        shapes = [(2, 1 + j % 2, lanes * k) for j in range(9)]
        desc = _join(dtype, shapes, 1)
        assert rules_of(desc).generic.choices(desc, (2,)) == ("vector", "scalar")
        xs = [random_bits(k * 10 + j, s, dtype.numpy) for j, s in enumerate(shapes)]
        got = dmlc.compile(desc, dynamic="auto").reference(*xs)
        assert got.tobytes() == np.concatenate(xs, axis=1).tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_JOIN": 1, "DML_JOIN generic": 1}
    assert list(dmlc.cache_info()["generic"]) == ["DML_JOIN dims (2,) vector #0"]
    KERNELS.clear()


@pytest.mark.parametrize("nd", [False, True])
@pytest.mark.parametrize("mode, offsets", [("auto", (0, 4, 8, 1, 2, 3, 5)),
                                           ("auto", (0, 1, 2, 4, 8)),
                                           (True, (4, 8, 1, 2, 3, 5))])
def test_gather_windows_of_mixed_alignment_compile_a_bounded_number(nd, mode, offsets):
    """Windows of a float32 [4, 8] table at offsets some multiples of the vector width, some
    not: the "rows" kernel built from an aligned call moves vectors (its pushed offset admits
    aligned values only) and held the key an element kernel would have, so in auto every
    misaligned offset compiled a specialized kernel (0, 4, 8, 1, 2, 3, 5: five). A table that
    moves no vectors now runs "rows/e", a kernel of its own: at most one specialized and two
    generic kernels in any order; bit for bit numpy."""
    f32 = DataType.FLOAT32
    flat = random_bits(3, (64,), np.float32)
    ids = np.array([2, 0, 3, -1, 9], np.int32)  # negative and past the end too
    dmlc.clear_cache()
    for off in offsets:
        table = TensorDesc(data_type=f32, sizes=(4, 8), strides=(8, 1), offset=off)
        if nd:
            desc = validate(dmlc.GatherNDDesc(
                input=table, indices=TensorDesc(data_type=DataType.INT32, sizes=(5, 1)),
                input_dimension_count=2, indices_dimension_count=2))
            arg = ids.reshape(5, 1)
        else:
            desc = validate(dmlc.GatherDesc(
                input=table, indices=TensorDesc(data_type=DataType.INT32, sizes=(1, 5)),
                axis=0, index_dimensions=1))
            arg = ids.reshape(1, 5)
        got = dmlc.compile(desc, dynamic=mode).reference(flat, arg)
        window = flat[off:off + 32].reshape(4, 8)
        want = (reference_nd.gather_nd(window, arg) if nd else
                reference.gather(window, arg, 0, 1))
        assert got.tobytes() == np.ascontiguousarray(want).tobytes()
    compiles = dmlc.cache_info()["compiles"]
    op = desc.operator
    assert compiles.get(op, 0) == (1 if mode == "auto" else 0), compiles
    assert 1 <= compiles[f"{op} generic"] <= 2, compiles
    KERNELS.clear()


def _reverse_batch(dtype: DataType, batch: int, inner: int) -> dmlc.ReverseSubsequencesDesc:
    """ONNX ReverseSequence's layout: [4, batch, inner] reversed along axis 0, the lengths
    [batch] broadcast over [1, batch, inner] (strides (batch, 1, 0))."""
    return validate(dmlc.ReverseSubsequencesDesc(
        input=TensorDesc(data_type=dtype, sizes=(4, batch, inner)),
        sequence_lengths=TensorDesc(data_type=DataType.INT64, sizes=(1, batch, inner),
                                    strides=(batch, 1, 0)), axis=0))


@pytest.mark.parametrize("dtype", [DataType.FLOAT32, DataType.INT8])
def test_a_size_of_one_first_keys_the_kernel_of_every_later_size(dtype):
    """explicit() gives a size-1 dimension the stride of a buffer laid out like its inner
    dimensions. A batch of 1 first gave the lengths [1, 1, inner] strides (1, 1, 0), every
    later batch's key (0, 1, 0): the broadcast innermost (stride 0) counted as taking room,
    and the dynamic batch, being 1, not as dynamic for the axis outside it. So the kernel
    lowered from the batch of 1 served it alone: two generic kernels for one signature. Now
    one specialized and one generic kernel, bit for bit numpy; likewise a copy of c[:, :t]
    of a [1, T, 4] cache for t = 2, 1, 3, 5 (was two generic kernels: its size-1 batch
    outside t)."""
    from tests.reference_nd import reverse_subsequences
    lanes = 16 // dtype.itemsize
    dmlc.clear_cache()
    for batch in (2, 1, 3, 4):
        desc = _reverse_batch(dtype, batch, lanes * batch)
        x = random_bits(batch, (4, batch, lanes * batch), dtype.numpy)
        lengths = (np.arange(batch, dtype=np.int64) * 3) % 6 - 1  # -1 and past 4 too
        got = dmlc.compile(desc, dynamic="auto").reference(x, lengths)
        want = reverse_subsequences(x, np.broadcast_to(lengths.reshape(1, batch, 1),
                                                      desc.sequence_lengths.sizes), 0)
        assert got.tobytes() == want.tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_REVERSE_SUBSEQUENCES": 1,
                                             "DML_REVERSE_SUBSEQUENCES generic": 1}
    dmlc.clear_cache()
    cache = random_bits(5, (1, 6, 4), dtype.numpy)
    for t in (2, 1, 3, 5):  # the generic kernel lowered from t = 1
        got = dmlc.compile(validate(dmlc.IdentityDesc(input=TensorDesc(
            data_type=dtype, sizes=(1, t, 4), strides=(24, 4, 1)))),
            dynamic="auto").reference(cache.reshape(-1))
        assert got.tobytes() == cache[:, :t].tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_ELEMENT_WISE_IDENTITY": 1,
                                             "DML_ELEMENT_WISE_IDENTITY generic": 1}
    KERNELS.clear()
