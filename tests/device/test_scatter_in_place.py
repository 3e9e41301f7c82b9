"""Scatter in place: out= the data tensor runs only the update kernels (no copy), last update
wins, out-of-range updates are dropped, checked mode raises and leaves the tensor as it was; and
the one-shot functions' out=, as numpy's ufuncs have it."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dmlc
import reference as ref
from reference import assert_bits_equal
from strategies import DATA_TYPES, INDEX_TYPES, index_arrays, random_bits, shapes

pytestmark = pytest.mark.vulkan


def desc(data: np.ndarray, idx: np.ndarray, axis: int) -> dmlc.ScatterDesc:
    def tensor(a: np.ndarray) -> dmlc.TensorDesc:
        return dmlc.TensorDesc(data_type=dmlc.DataType.of(a.dtype), sizes=a.shape)
    return dmlc.ScatterDesc(input=tensor(data), indices=tensor(idx),
                            updates=dmlc.TensorDesc(data_type=dmlc.DataType.of(data.dtype),
                                                    sizes=idx.shape), axis=axis)


@st.composite
def cases(draw):
    shape = draw(shapes(max_rank=5, max_elements=64))
    axis = draw(st.integers(0, len(shape) - 1))
    idx_shape = tuple(n if d != axis else draw(st.integers(1, 6)) for d, n in enumerate(shape))
    dtype = draw(st.sampled_from(DATA_TYPES))
    idx = draw(index_arrays(idx_shape, draw(st.sampled_from(INDEX_TYPES)), shape[axis]))
    seed = draw(st.integers(0, 2**32 - 1))
    return (random_bits(seed, shape, dtype), idx, random_bits(seed + 1, idx_shape, dtype), axis,
            draw(st.sampled_from(["cpu", "gpu"])))


@given(cases())
def test_in_place_matches_the_sequential_definition(case):
    """Every data type (8/16-bit elements of different lines share words: atomic stores), any
    rank and axis, colliding and out-of-range indices, both targets."""
    data, idx, upd, axis, target = case
    kernel = dmlc.compile(desc(data, idx, axis), target=target)
    t = dmlc.to_device(data)
    assert kernel(t, idx, upd, out=t) is t
    assert_bits_equal(t.numpy(), ref.scatter(data, idx, upd, axis))


def test_in_place_runs_no_copy():
    """The cost follows the updates: one kernel over the update lines, nothing over the data;
    few long lines take the vote, with the data as its own original (no copy either)."""
    data = np.zeros((4096, 64), np.float16)
    k = dmlc.compile(desc(data, np.zeros((1, 64), np.int32), 0),
                     dynamic=False)  # the specialized kernel's plan
    assert [s.name for s in k._in_place().stages] == ["scatter_lines"]
    assert k._in_place().stages[0].invocations <= 64
    assert "atomicOr" in k._in_place().glsl and "scatter_copy" not in k._in_place().glsl
    long = dmlc.compile(desc(np.zeros((512, 2), np.float32), np.zeros((500, 2), np.int32), 0),
                        target="gpu", dynamic=False)
    assert [s.name for s in long._in_place().stages] == ["scatter_vote", "scatter_resolve"]
    assert long._in_place().plan.inputs == ("indices", "updates")


def test_a_kv_cache_row_updated_in_place():
    cache = random_bits(3, (1024, 128), np.float16)
    t = dmlc.to_device(cache)
    for token in (0, 5, 1023, 5):
        row = random_bits(token, (1, 128), np.float16)
        dmlc.scatter(t, np.full((1, 128), token, np.int64), row, axis=0, out=t)
        cache[token] = row[0]
    assert_bits_equal(t.numpy(), cache)


def test_checked_mode_in_place_raises_and_leaves_the_data_as_it_was():
    data = np.arange(20, dtype=np.int32).reshape(5, 4)
    idx = np.array([[0, 1, 7, 2]], np.int32)
    t = dmlc.to_device(data)
    with pytest.raises(dmlc.IndexOutOfRangeError, match=r"IndicesTensor\[0, 2\] = 7"):
        dmlc.scatter(t, idx, np.full((1, 4), -1, np.int32), axis=0, check_indices=True, out=t)
    assert_bits_equal(t.numpy(), data)
    idx[0, 2] = 3
    dmlc.scatter(t, idx, np.full((1, 4), -1, np.int32), axis=0, check_indices=True, out=t)
    assert_bits_equal(t.numpy(), ref.scatter(data, idx, np.full((1, 4), -1, np.int32), 0))


def test_one_shot_out_with_numpy_arrays():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    idx = np.array([[2, 0]], np.int32)
    out = np.empty((2, 4), np.float32)
    assert dmlc.gather(x, idx, axis=0, out=out) is out
    assert_bits_equal(out, x[[2, 0]])
    data = x.copy()
    upd = np.full((1, 4), -1, np.float32)
    assert dmlc.scatter(data, np.array([[1, 1, 1, 1]], np.int32), upd, axis=0, out=data) is data
    assert_bits_equal(data, ref.scatter(x, np.ones((1, 4), np.int32), upd, 0))
    sliced = np.empty((3, 2), np.float32)
    assert dmlc.slice(x, [0, 0], [3, 4], [1, 2], out=sliced) is sliced
    assert_bits_equal(sliced, x[:, ::2])
    elements = np.empty((3, 4), np.float32)
    dmlc.gather_elements(x, np.zeros((3, 4), np.int32), axis=0, out=elements)
    assert_bits_equal(elements, np.repeat(x[:1], 3, axis=0))


def test_one_shot_out_errors_name_the_field():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    idx = np.array([[2, 0]], np.int32)
    with pytest.raises(dmlc.ValidationError, match=r"DML_GATHER: out shape: expected \{2, 4\}"):
        dmlc.gather(x, idx, axis=0, out=np.empty((4, 2), np.float32))
    with pytest.raises(dmlc.ValidationError, match="DML_GATHER: out dtype: expected float32"):
        dmlc.gather(x, idx, axis=0, out=np.empty((2, 4), np.float64))
    frozen = np.empty((2, 4), np.float32)
    frozen.flags.writeable = False
    with pytest.raises(dmlc.ValidationError, match="out: expected a writeable"):
        dmlc.gather(x, idx, axis=0, out=frozen)
    with pytest.raises(dmlc.ValidationError, match="out: expected a numpy array or"):
        dmlc.gather(x, idx, axis=0, out=[0.0] * 8)


def test_one_shot_out_on_the_device():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = dmlc.empty((2, 4), np.float32)
    assert dmlc.gather(x, np.array([[2, 0]], np.int32), axis=0, out=out) is out
    assert_bits_equal(out.numpy(), x[[2, 0]])
    host = np.empty((2, 4), np.float32)
    dmlc.gather(dmlc.to_device(x), np.array([[1, 1]], np.int32), axis=0, out=host)
    assert_bits_equal(host, x[[1, 1]])
