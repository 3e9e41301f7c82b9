"""In-place writes land through any view of a device tensor, as numpy's do through a view of an
array: scatter, scatter_nd and put_along_axis on the view, out= a view for every function, and
`view[...] = value`. The whole buffer is compared with numpy after the same write through the
same view of a numpy array, so an element written outside the view, or a write that went to a
copy, fails. The scatters update a view in place (no temporary, no copy of the view)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dmlc
import dmlc.ops.copy.tensor as copy_kernels
import reference as ref
import reference_scatternd as ref_nd
from dmlc.oneshot import view_tensor
from dmlc.runtime.tensor import DeviceTensor
from reference import assert_bits_equal
from strategies import DATA_TYPES, INDEX_TYPES, budget, index_arrays, random_bits

pytestmark = pytest.mark.vulkan


@st.composite
def views(draw, max_rank: int = 4):
    """(array, key, transposed): a random array of any type and a basic-indexing view of it
    (offsets, steps of either sign, dropped dimensions), maybe transposed: at least one
    element."""
    rank = draw(st.integers(1, max_rank))
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank)))
    dtype = draw(st.sampled_from(DATA_TYPES))
    x = random_bits(draw(st.integers(0, 2**32 - 1)), shape, dtype)
    key = []
    for n in shape:
        kind = draw(st.sampled_from(["int", "slice", "slice", "all"]))
        if kind == "int" and len(key) < rank - 1:
            key.append(draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            step = draw(st.sampled_from([1, 2, -1, -2, 3]))
            start = draw(st.integers(0, n - 1))
            key.append(slice(start, None, step) if step > 0 else slice(start, None, step))
        else:
            key.append(slice(None))
    return x, tuple(key), draw(st.booleans())


def view_of(a, key, transposed):
    v = a[key]
    return v.T if transposed else v


def check_buffer(t: dmlc.DeviceTensor, want: np.ndarray) -> None:
    """The whole tensor: the view's elements written, every other element as it was."""
    assert_bits_equal(t.numpy(), want)


@pytest.fixture
def no_temporary(monkeypatch):
    """Fails a call that writes through a temporary instead of in place (the same for every
    example of a property)."""
    def refuse(*args, **kwargs):
        raise AssertionError("written through a temporary, not in place")
    monkeypatch.setattr(copy_kernels, "assign", refuse)


@settings(max_examples=budget(60))
@given(case=views(), data=st.data())
def test_put_along_axis_through_a_view(case, data):
    x, key, transposed = case
    want = x.copy()
    target = view_of(want, key, transposed)
    axis = data.draw(st.integers(0, target.ndim - 1))
    ishape = tuple(data.draw(st.integers(1, 4)) if d == axis else n
                   for d, n in enumerate(target.shape))
    n = target.shape[axis]
    idx = np.array(data.draw(st.lists(st.integers(-n, n - 1), min_size=int(np.prod(ishape)),
                                      max_size=int(np.prod(ishape))))).reshape(ishape)
    values = random_bits(data.draw(st.integers(0, 2**32 - 1)), ishape, x.dtype)
    np.put_along_axis(target, idx, values, axis=axis)
    t = dmlc.to_device(x)
    assert dmlc.put_along_axis(view_of(t, key, transposed), idx, values, axis=axis) is None
    check_buffer(t, want)


@st.composite
def scatter_cases(draw):
    x, key, transposed = draw(views())
    shape = view_of(x, key, transposed).shape
    axis = draw(st.integers(0, len(shape) - 1))
    ishape = tuple(draw(st.integers(1, 4)) if d == axis else n for d, n in enumerate(shape))
    idx = draw(index_arrays(ishape, draw(st.sampled_from(INDEX_TYPES)), shape[axis]))
    upd = random_bits(draw(st.integers(0, 2**32 - 1)), ishape, x.dtype)
    return x, key, transposed, idx, upd, axis


@settings(max_examples=budget(60), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=scatter_cases(), target=st.sampled_from(["cpu", "gpu"]))
def test_scatter_in_place_through_a_view(case, target, no_temporary, monkeypatch):
    """Lines and vote (both targets), colliding and out-of-range indices, every type (8/16-bit
    elements of a strided view share words with elements outside it)."""
    monkeypatch.setenv("DMLC_TARGET", target)
    x, key, transposed, idx, upd, axis = case
    want = x.copy()
    v = view_of(want, key, transposed)
    v[...] = ref.scatter(v.copy(), idx, upd, axis)
    t = dmlc.to_device(x)
    view = view_of(t, key, transposed)
    assert dmlc.scatter(view, idx, upd, axis=axis, out=view) is view
    check_buffer(t, want)


@settings(max_examples=budget(40), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=views(), data=st.data())
def test_scatter_nd_in_place_through_a_view(case, data, no_temporary):
    x, key, transposed = case
    want = x.copy()
    v = view_of(want, key, transposed)
    k = data.draw(st.integers(1, v.ndim))
    rows = data.draw(st.integers(1, 4))
    idx = np.stack([np.array(data.draw(st.lists(st.integers(-n, n - 1), min_size=rows,
                                                max_size=rows))) for n in v.shape[:k]], -1)
    upd = random_bits(data.draw(st.integers(0, 2**32 - 1)), (rows, *v.shape[k:]), x.dtype)
    v[...] = ref_nd.scatter_nd(v.copy(), idx, upd)
    t = dmlc.to_device(x)
    view = view_of(t, key, transposed)
    dmlc.scatter_nd(view, idx, upd, out=view)
    check_buffer(t, want)


@settings(max_examples=budget(40))
@given(case=views(), data=st.data())
def test_out_of_every_kind_through_a_view(case, data):
    """out= a view of a device tensor, for functions whose kernels write a packed output: the
    result lands where the view's elements lie (through a temporary)."""
    x, key, transposed = case
    want = x.copy()
    v = view_of(want, key, transposed)
    src = random_bits(data.draw(st.integers(0, 2**32 - 1)), v.shape, x.dtype)
    t = dmlc.to_device(x)
    fn = data.draw(st.sampled_from(["copy", "slice", "gather", "take_along"]))
    out = view_of(t, key, transposed)
    if fn == "copy":
        v[...] = src
        dmlc.copy(src, out=out)
    elif fn == "slice":  # reversed along every axis
        v[...] = src[(slice(None, None, -1),) * src.ndim]
        dmlc.slice(src, [0] * src.ndim, list(src.shape), [-1] * src.ndim, out=out)
    elif fn == "gather":
        perm = np.array(data.draw(st.permutations(range(src.shape[0]))))
        v[...] = src[perm]
        dmlc.gather(src, perm.reshape((1,) * (src.ndim - 1) + (-1,)), axis=0,
                    index_dimensions=1, out=out)
    else:
        idx = np.zeros(src.shape, np.int64)
        v[...] = np.take_along_axis(src, idx, axis=0)
        dmlc.gather_elements(src, idx, axis=0, out=out)
    check_buffer(t, want)


@settings(max_examples=budget(60))
@given(case=views(), data=st.data())
def test_setitem_through_a_view(case, data):
    """view[...] = value: a host array broadcast and cast as numpy does, a scalar, or a device
    tensor (a view of another tensor, or of the same one: numpy's overlapping assignment)."""
    x, key, transposed = case
    want = x.copy()
    v = view_of(want, key, transposed)
    t = dmlc.to_device(x)
    kind = data.draw(st.sampled_from(["array", "row", "scalar", "device", "self"]))
    if kind == "array":
        value = random_bits(data.draw(st.integers(0, 2**32 - 1)), v.shape, x.dtype)
    elif kind == "row":  # broadcast along every leading dimension
        value = random_bits(data.draw(st.integers(0, 2**32 - 1)), v.shape[-1:], x.dtype)
    elif kind == "scalar":
        value = random_bits(data.draw(st.integers(0, 2**32 - 1)), (), x.dtype)[()]
    elif kind == "device":
        value = dmlc.to_device(random_bits(data.draw(st.integers(0, 2**32 - 1)),
                                           v.shape[::-1], x.dtype)).T
    else:  # the tensor's own elements, reversed: overlapping source and target
        value = view_of(t, key, transposed)[(slice(None, None, -1),) * v.ndim]
    host = value.numpy() if isinstance(value, DeviceTensor) else value
    v[...] = host
    view_of(t, key, transposed)[...] = value
    check_buffer(t, want)


def test_the_issue_s_views_land():
    """The cases from issue 23: a transposed target, and a KV cache's slice c[1], which numpy
    calls contiguous."""
    t = dmlc.to_device(np.zeros((2, 3), np.float32))
    dmlc.put_along_axis(t.T, np.zeros((3, 1), np.int64), 1.0, axis=1)
    want = np.zeros((2, 3), np.float32)
    np.put_along_axis(want.T, np.zeros((3, 1), np.int64), 1.0, axis=1)
    check_buffer(t, want)

    cache = np.zeros((2, 8, 64, 16), np.float16)
    c = dmlc.to_device(cache)
    assert c[1].is_contiguous and not c[1].is_packed and c[0].is_packed
    rows = np.full((1, 64, 16), 7, np.float16)
    dmlc.scatter_nd(c[1], np.array([[3]]), rows, out=c[1])
    cache[1, 3] = 7
    idx = np.full((8, 1, 16), 9)
    dmlc.put_along_axis(c[1], idx, 5.0, axis=1)
    np.put_along_axis(cache[1], idx, 5.0, axis=1)
    check_buffer(c, cache)


def test_in_place_updates_of_a_view_write_only_the_updates():
    """A token's update of one layer of a cache: the in-place kernel runs over the updates,
    never over the layer (let alone the cache)."""
    c = dmlc.to_device(np.zeros((4, 4096, 64), np.float32))
    layer = c[2]
    kernel = dmlc.compile(dmlc.ScatterNDDesc(
        input=view_tensor(layer),
        indices=dmlc.TensorDesc(data_type="INT64", sizes=(1, 1)),
        updates=dmlc.TensorDesc(data_type="FLOAT32", sizes=(1, 64)),
        input_dimension_count=2, indices_dimension_count=2),
        dynamic=False)  # the specialized kernel's plan (a generic one launches its largest)
    stages = kernel._in_place().stages
    assert sum(s.invocations for s in stages) <= 64
    kernel(c, np.array([[4095]]), np.ones((1, 64), np.float32), out=layer)
    want = np.zeros((4, 4096, 64), np.float32)
    want[2, 4095] = 1
    check_buffer(c, want)


def test_a_view_with_overlapping_or_broadcast_elements_is_never_written():
    """A stride-0 view has one element for several positions: writing it is refused, naming
    the strides (numpy's broadcast views are read-only)."""
    x = dmlc.to_device(np.zeros(4, np.float32))
    desc = dmlc.IdentityDesc(input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(2, 4)),
                             output=dmlc.TensorDesc(data_type="FLOAT32", sizes=(2, 4),
                                                    strides=(0, 1)))
    with pytest.raises(dmlc.ValidationError, match="OutputTensor.Strides: expected strides "
                                                   "that give every element its own address"):
        dmlc.compile(desc)
    assert_bits_equal(x.numpy(), np.zeros(4, np.float32))


def test_put_along_axis_takes_device_values_of_the_indexing_result_s_shape():
    """arr with a size-1 dimension that the indices broadcast: device indices and values of
    the indexing result's shape (3, 1) are taken as numpy takes them (issue 23, item 2)."""
    a = dmlc.to_device(np.zeros((1, 2), np.float32))
    idx = np.array([[0], [1], [1]])
    values = np.array([[1], [2], [3]], np.float32)
    dmlc.put_along_axis(a, dmlc.to_device(idx), dmlc.to_device(values), axis=1)
    want = np.zeros((1, 2), np.float32)
    np.put_along_axis(want, idx, values, axis=1)
    check_buffer(a, want)


@pytest.mark.parametrize("dtype", ["float16", "int8", "float32", "int64"])
@pytest.mark.parametrize("reduction", ["add", "max"])
def test_a_reduction_in_place_through_a_view(dtype, reduction, no_temporary):
    """Reductions combine into the view's elements where they lie (8-bit elements of the
    view share words with others: atomic stores)."""
    x = (np.arange(5 * 6 * 7) % 50).astype(dtype).reshape(5, 6, 7)
    t = dmlc.to_device(x)
    view = t[1:4, ::-2].transpose(1, 0, 2)  # (3, 3, 7): reversed, strided, transposed
    want = x.copy()
    v = want[1:4, ::-2].transpose(1, 0, 2)
    idx = np.array([[[0] * 7, [2] * 7, [0] * 7]])  # collide on row 0
    upd = np.full((1, 3, 7), 3, dtype)
    v[...] = ref_nd.scatter(v.copy(), np.broadcast_to(idx, (3, 3, 7)).copy(),
                            np.broadcast_to(upd, (3, 3, 7)).copy(), 1, reduction)
    dmlc.scatter(view, np.broadcast_to(idx, (3, 3, 7)), np.broadcast_to(upd, (3, 3, 7)),
                 axis=1, reduction=reduction, out=view)
    check_buffer(t, want)


def test_views_of_a_0_d_or_empty_tensor_know_their_owner():
    """len() of a 0-d tensor raises and of an empty one is 0: a view's owner is found without
    asking its truth value."""
    t = dmlc.to_device(np.float32(3.0).reshape(()))
    t[...] = 7
    assert t[...].base is t and t[None].base is t
    assert_bits_equal(t[None].numpy(), np.float32([7.0]))
    z = dmlc.to_device(np.zeros((0, 3), np.float32))
    assert z.T.base is z and len(z) == 0
    with pytest.raises(TypeError, match="unsized"):
        len(t)
