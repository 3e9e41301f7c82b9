"""check_indices=True: the device finds out-of-range indices and the call names the first one
(row-major), its value and the valid range; in-range calls give the unchecked result."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dmlc
from dmlc.runtime.tensor import DeviceTensor
from reference import assert_bits_equal, fix_index
from strategies import DATA_TYPES, INDEX_TYPES, index_arrays, random_bits, shapes

pytestmark = pytest.mark.vulkan


def first_bad(indices: np.ndarray, dim: int):
    """(position, value) of the first index outside the axis in row-major order, or None."""
    signed = indices.dtype.kind == "i"
    for pos in np.ndindex(indices.shape):
        if fix_index(indices[pos], dim, signed) is None:
            return pos, int(indices[pos])
    return None


def valid_range(indices: np.ndarray, dim: int) -> tuple[int, int]:
    return (-dim if indices.dtype.kind == "i" else 0, dim - 1)


def call(op: str, x, idx, axis: int, **kw):
    if op == "gather":
        return dmlc.gather(x, idx, axis=axis, index_dimensions=1, **kw)
    if op == "gather_elements":
        return dmlc.gather_elements(x, idx, axis=axis, **kw)
    updates = random_bits(5, idx.shape, x.dtype)
    return dmlc.scatter(x, idx, updates, axis=axis, **kw)


@st.composite
def checked_cases(draw):
    op = draw(st.sampled_from(["gather", "gather_elements", "scatter"]))
    shape = draw(shapes(max_rank=4, max_elements=48))
    axis = draw(st.integers(0, len(shape) - 1))
    x = random_bits(draw(st.integers(0, 99)), shape, draw(st.sampled_from(DATA_TYPES)))
    if op == "gather":  # indices: leading ones, then one dimension of 1-6 indices
        idx_shape = (1,) * (len(shape) - 1) + (draw(st.integers(1, 6)),)
    else:  # gather_elements, scatter: the input's sizes but along the axis
        idx_shape = tuple(draw(st.integers(1, 5)) if d == axis else n for d, n in enumerate(shape))
    idx = draw(index_arrays(idx_shape, draw(st.sampled_from(INDEX_TYPES)), shape[axis]))
    return op, x, idx, axis


@given(checked_cases(), st.booleans())
def test_checked_mode_finds_the_first_bad_index(case, on_device):
    op, x, idx, axis = case
    dim = x.shape[axis]
    bad = first_bad(idx, dim)
    args = (dmlc.to_device(x), dmlc.to_device(idx)) if on_device else (x, idx)
    if bad is None:
        got = call(op, *args, axis, check_indices=True)
        want = call(op, x, idx, axis)
        assert_bits_equal(got.numpy() if on_device else got, want)
        return
    with pytest.raises(dmlc.IndexOutOfRangeError) as info:
        call(op, *args, axis, check_indices=True)
    err = info.value
    assert (err.position, err.value, err.valid) == (*bad, valid_range(idx, dim))
    assert err.field == "IndicesTensor" and err.operator.startswith("DML_")
    # The status was reset: the same kernel then accepts in-range indices.
    good = np.zeros_like(idx)
    call(op, x, good, axis, check_indices=True)


def test_error_message_and_types():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    idx = np.array([[0, 1, 2, -3], [1, 9, -5, 0]], np.int64)
    with pytest.raises(dmlc.IndexOutOfRangeError) as info:
        dmlc.gather_elements(x, idx, axis=0, check_indices=True)
    err = info.value
    assert err.position == (1, 1) and err.value == 9 and err.valid == (-3, 2)
    assert isinstance(err, IndexError) and "[1, 1]" in str(err) and "[-3, 2]" in str(err)
    with pytest.raises(dmlc.IndexOutOfRangeError, match="4 is out of range"):
        dmlc.scatter(np.zeros(4, np.int8), np.array([4], np.uint64), np.ones(1, np.int8), axis=0,
                     check_indices=True)
    with pytest.raises(dmlc.IndexOutOfRangeError, match=str(2**64 - 1)):
        dmlc.gather(np.zeros(4, np.int8), np.array([1, 2**64 - 1], np.uint64), axis=0,
                    index_dimensions=1, check_indices=True)


@pytest.mark.parametrize("value", [-(2**63), -(2**40), -(2**31) - 1, 2**31, 2**40, 2**63 - 1])
def test_64_bit_values_are_never_truncated_into_range(value):
    idx = np.array([0, value, 1], np.int64)  # every one's low word is 0 or in range
    with pytest.raises(dmlc.IndexOutOfRangeError) as info:
        dmlc.gather(np.zeros(8, np.float32), idx, axis=0, index_dimensions=1, check_indices=True)
    assert info.value.position == (1,) and info.value.value == value


def test_the_host_never_reads_the_indices(monkeypatch):
    x = dmlc.to_device(np.zeros((4, 4), np.float32))
    idx = dmlc.to_device(np.array([[0, 1, 2, 3], [3, 2, 4, 0], [0, 0, 0, 0], [1, 1, 1, 1]],
                                  np.int32))

    def no_download(self):
        raise AssertionError("checked mode downloaded a tensor")

    monkeypatch.setattr(DeviceTensor, "numpy", no_download)
    with pytest.raises(dmlc.IndexOutOfRangeError) as info:
        dmlc.gather_elements(x, idx, axis=1, check_indices=True)
    assert info.value.position == (1, 2) and info.value.value == 4


def test_compiled_kernel_and_interpreter_agree():
    desc = dmlc.GatherElementsDesc(
        input=dmlc.TensorDesc(data_type=dmlc.DataType.UINT8, sizes=(2, 3)),
        indices=dmlc.TensorDesc(data_type=dmlc.DataType.INT32, sizes=(2, 3)), axis=1)
    kernel = dmlc.compile(desc, check_indices=True)
    assert [s.name for s in kernel.stages][:2] == ["check_indices", "check_report"]
    x = np.arange(6, dtype=np.uint8).reshape(2, 3)
    idx = np.array([[0, -4, 1], [7, 0, 0]], np.int32)
    for run in (kernel, kernel.reference):
        with pytest.raises(dmlc.IndexOutOfRangeError) as info:
            run(x, idx)
        assert (info.value.position, info.value.value, info.value.valid) == ((0, 1), -4, (-3, 2))
    ok = np.array([[0, -3, 2], [1, 0, -1]], np.int32)
    assert_bits_equal(kernel(x, ok), kernel.reference(x, ok))


def test_checked_mode_needs_an_indices_tensor():
    desc = dmlc.Slice1Desc(input=dmlc.TensorDesc(data_type=dmlc.DataType.FLOAT32, sizes=(4,)),
                           offsets=(0,),
                           sizes=(4,), strides=(1,))
    with pytest.raises(dmlc.ValidationError, match="check_indices"):
        dmlc.compile(desc, check_indices=True)
    with pytest.raises(dmlc.ValidationError, match="check_indices: expected True or False"):
        dmlc.gather(np.zeros(4, np.float32), np.zeros(1, np.int32), axis=0, index_dimensions=1,
                    check_indices="yes")



def test_checked_tiled_gather_names_the_first_bad_index(monkeypatch):
    """A gather from a transposed input, tiled down columns (every kernel unrolled): checked
    mode still finds the first bad index, and a good call gives numpy's result."""
    import dmlc.passes.planner as planner
    from dmlc.compiled import clear_caches
    from dmlc.passes.pipeline import env_names
    from test_tiled_maps import transposed_gather
    monkeypatch.setattr(planner, "MIN_ITEMS", 1)
    clear_caches()
    try:
        desc, (buf, idx), expected = transposed_gather(np.float32, 16, 32, "int32", clip=True)
        kernel = dmlc.compile(desc, check_indices=True, dynamic=False)  # the planner's tiles
        assert_bits_equal(kernel(buf, idx), expected)
        bad = idx.copy()
        bad[0, 5], bad[0, 9] = 20, -21
        with pytest.raises(dmlc.IndexOutOfRangeError, match="20"):
            kernel(buf, bad)
        if not env_names("DMLC_DISABLE_PASSES"):
            assert "64 items each" in kernel.ir, kernel.ir
    finally:
        clear_caches()
