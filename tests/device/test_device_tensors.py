"""Device-resident tensors (dmlc.to_device, .numpy(), out=) and strided numpy views in the
one-shot API: the same bits as the host path and as a contiguous copy."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dmlc
from dmlc.oneshot import tensor_of
from dmlc.runtime.executable import Executable
from reference import assert_bits_equal, gather_elements, slice1
from strategies import DATA_TYPES, random_bits

pytestmark = pytest.mark.vulkan


@pytest.mark.parametrize("dtype", DATA_TYPES, ids=lambda d: d.name)
def test_round_trip_is_bit_exact(dtype):
    a = random_bits(7, (3, 5, 7), dtype)  # odd sizes: the padding of the last vector
    t = dmlc.to_device(a)
    assert t.shape == a.shape and t.dtype == a.dtype and t.nbytes == a.nbytes
    assert_bits_equal(t.numpy(), a)
    assert_bits_equal(np.asarray(t), a)


def test_operators_on_device_tensors_match_the_host_path():
    rng = np.random.default_rng(3)
    x = random_bits(1, (16, 12), np.dtype("float16"))
    i = rng.integers(-16, 40, (1, 9)).astype(np.int64)  # out of range too: clamped
    e = rng.integers(0, 12, (16, 4)).astype(np.uint32)
    u = random_bits(2, (16, 4), np.dtype("float16"))
    xd, id_, ed, ud = map(dmlc.to_device, (x, i, e, u))
    for on_device, on_host in [
        (dmlc.gather(xd, id_, axis=0, index_dimensions=1),
         dmlc.gather(x, i, axis=0, index_dimensions=1)),
        (dmlc.gather_elements(xd, ed, axis=1), dmlc.gather_elements(x, e, axis=1)),
        (dmlc.scatter(xd, ed, ud, axis=1), dmlc.scatter(x, e, u, axis=1)),
        (dmlc.slice(xd, [1, 0], [15, 12], [-3, 2]), dmlc.slice(x, [1, 0], [15, 12], [-3, 2])),
    ]:
        assert isinstance(on_device, type(xd))
        assert_bits_equal(on_device.numpy(), on_host)


def test_chained_operators_stay_on_the_device():
    x = np.arange(64 * 8, dtype=np.int32).reshape(64, 8)
    rows = np.array([[5, -1, 0, 7, 7, 63]], np.int32)
    g = dmlc.gather(dmlc.to_device(x), dmlc.to_device(rows), axis=0, index_dimensions=1)
    s = dmlc.slice(g, [0, 0], [6, 8], [2, -1])
    assert_bits_equal(s.numpy(), x[[5, 63, 0, 7, 7, 63]][::2, ::-1])


def test_out_is_written_and_returned_and_checked():
    x, i = np.arange(12, dtype=np.float32).reshape(4, 3), np.array([[2, 0]], np.int32)
    k = dmlc.compile(dmlc.GatherDesc(input=tensor_of(x), indices=tensor_of(i), axis=0,
                                     index_dimensions=1))
    out = dmlc.empty((2, 3), np.float32)
    assert k(dmlc.to_device(x), i, out=out) is out  # host and device arguments mix
    assert_bits_equal(out.numpy(), x[[2, 0]])
    with pytest.raises(dmlc.ValidationError, match="out shape: expected {2, 3}, got {3, 2}"):
        k(x, i, out=dmlc.empty((3, 2), np.float32))
    with pytest.raises(dmlc.ValidationError, match="out dtype: expected float32, got int32"):
        k(x, i, out=dmlc.empty((2, 3), np.int32))
    with pytest.raises(dmlc.ValidationError, match="out: expected a dmlc DeviceTensor"):
        k(x, i, out=np.zeros((2, 3), np.float32))
    with pytest.raises(dmlc.ValidationError, match="InputTensor dtype: expected float32"):
        k(dmlc.to_device(x.astype(np.float16)), i)


def test_many_tensor_sets_through_one_kernel():
    """More distinct argument sets than an executable keeps bindings for: each stays right."""
    k = dmlc.compile(dmlc.Slice1Desc(input=dmlc.TensorDesc(data_type="UINT8", sizes=(5, 7)),
                                     offsets=(0, 0), sizes=(5, 7), strides=(1, -1)))
    arrays = [random_bits(s, (5, 7), np.dtype("uint8")) for s in range(Executable.BINDINGS + 4)]
    tensors = [dmlc.to_device(a) for a in arrays]
    outs = [k(t) for t in tensors]
    for a, t, o in zip(arrays, tensors, outs):
        assert_bits_equal(o.numpy(), a[:, ::-1])
        assert_bits_equal(k(t, out=o).numpy(), a[:, ::-1])


# ---- strided numpy views

@st.composite
def views(draw):
    rank = draw(st.integers(1, 4))
    shape = [draw(st.integers(1, 6)) for _ in range(rank)]
    dtype = draw(st.sampled_from(DATA_TYPES))
    base = random_bits(draw(st.integers(0, 2**32 - 1)), shape, dtype)
    view = base.transpose(draw(st.permutations(range(rank))))
    steps = tuple(np.s_[::draw(st.sampled_from([1, 1, 2, -1]))] for _ in range(rank))
    return view[steps]


@given(views(), st.data())
def test_strided_views_give_the_bits_of_a_contiguous_copy(view, data):
    copy = np.ascontiguousarray(view)
    axis = data.draw(st.integers(0, view.ndim - 1))
    idx = data.draw(st.lists(st.integers(-view.shape[axis], view.shape[axis] - 1),
                             min_size=view.size, max_size=view.size))
    idx = np.array(idx, np.int32).reshape(view.shape)
    assert_bits_equal(dmlc.gather_elements(view, idx, axis=axis), gather_elements(copy, idx, axis))
    strides = [data.draw(st.sampled_from([1, 2, -1])) for _ in range(view.ndim)]
    args = ([0] * view.ndim, list(view.shape), strides)
    assert_bits_equal(dmlc.slice(view, *args), slice1(copy, *args))


def test_a_transposed_view_folds_into_the_kernel_not_a_copy():
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    assert tensor_of(a.T).strides == (1, 6)
    assert tensor_of(a[::2]).strides == (12, 1)
    assert tensor_of(np.broadcast_to(a[:1], (3, 6))).strides == (0, 1)
    reversed_rows = tensor_of(a[::-1])  # negative strides: an offset from the lowest element
    assert (reversed_rows.strides, reversed_rows.offset) == ((-6, 1), 18)
    assert_bits_equal(dmlc.gather(a[::-1], np.array([[0, 3]], np.int32), axis=0), a[[3, 0]])
    assert tensor_of(a[::7]).strides is None  # sparse: compacted on the host
