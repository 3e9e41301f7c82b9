"""A call at a new size served by the generic kernel that served its family key last, without
the shape policy, the canonical layouts or the variants (dynamic.py: GenericKernels.again, the
automatic policy only): the same results and the same compiles as the full path takes, and
nothing served past a key that differs."""
from __future__ import annotations

import numpy as np
import pytest

import dmlc
from dmlc import DataType, TensorDesc
from dmlc.compiled import KERNELS
from dmlc.dynamic import GenericKernels, ShapePolicy
from dmlc.family.registry import validate
from dmlc.ops.copy.desc import IdentityDesc
from dmlc.ops.gather.desc import GatherDesc

CACHE = np.arange(2 * 3 * 40, dtype=np.float32)
"""A [2, 3, 40] cache, flat: the windows below are views of it."""


def _window(t: int, rows: int = 3) -> IdentityDesc:
    """cache[:, :rows, :t] as a view (a size-1 dimension's stride 0, as a device view's)."""
    strides = (120, 40 if rows > 1 else 0, 1 if t > 1 else 0)
    return validate(IdentityDesc(input=TensorDesc(data_type=DataType.FLOAT32,
                                                  sizes=(2, rows, t), strides=strides)))


@pytest.fixture
def counted(monkeypatch):
    """Calls of the shape policy and of again(), and what again() served."""
    seen = {"policy": 0, "again": 0, "served": 0}
    policy, again = ShapePolicy.dims, GenericKernels.again

    def dims(self, *a, **k):
        seen["policy"] += 1
        return policy(self, *a, **k)

    def counted_again(self, *a, **k):
        seen["again"] += 1
        found = again(self, *a, **k)
        seen["served"] += found is not None
        return found
    monkeypatch.setattr(ShapePolicy, "dims", dims)
    monkeypatch.setattr(GenericKernels, "again", counted_again)
    dmlc.clear_cache()
    yield seen
    dmlc.clear_cache()


def _copied(desc: IdentityDesc, dynamic: object = "auto") -> None:
    kernel = dmlc.compile(desc, dynamic=dynamic)
    sizes = desc.input.sizes
    want = CACHE.reshape(2, 3, 40)[:, :sizes[1], :sizes[2]]
    assert kernel.reference(CACHE).tobytes() == np.ascontiguousarray(want).tobytes()


def test_a_growing_window_meets_the_policy_until_its_generic_kernel_serves(counted):
    """t = 1, 2, 3 go through the policy (the first shape specialized, then one generic
    kernel); every later size is served by again(), exact, and compiles nothing."""
    for t in range(1, 31):
        _copied(_window(t))
    assert dmlc.cache_info()["compiles"] == {"DML_ELEMENT_WISE_IDENTITY": 1,
                                             "DML_ELEMENT_WISE_IDENTITY generic": 1}
    assert counted["policy"] == 2  # t = 1 (specialized), t = 2 (the generic kernel made)
    assert counted["served"] == 28  # t = 3 .. 30


def test_a_call_of_another_key_takes_the_whole_path(counted):
    """Another static size (2 rows of 3) or another layout (a transposed window) is not the
    key that was served: the policy decides it, and the results stay exact."""
    for t in (1, 2, 5):
        _copied(_window(t))
    before = counted["policy"]
    _copied(_window(7, rows=2))
    assert counted["policy"] == before + 1
    x = validate(IdentityDesc(input=TensorDesc(data_type=DataType.FLOAT32, sizes=(2, 3, 6),
                                               strides=(120, 1, 3))))
    kernel = dmlc.compile(x, dynamic="auto")
    want = np.lib.stride_tricks.as_strided(CACHE, (2, 3, 6), (480, 4, 12))
    assert kernel.reference(CACHE).tobytes() == np.ascontiguousarray(want).tobytes()
    assert counted["policy"] == before + 2


def test_forced_modes_and_never_take_the_whole_path(counted):
    """dynamic=True (the best variant for each call), a tuple of dimensions and "never" are the
    policy's: again() is for the automatic policy alone."""
    for dynamic in (True, (2,), False):
        for t in (2, 5, 9):
            _copied(_window(t), dynamic)
    assert counted["again"] == 0


def test_a_gather_of_a_new_count_of_ids_is_served_by_its_generic_kernel(counted):
    """A gather of 1-9 ids from one table: after the generic kernel, every new count is served
    without the policy, bit for bit numpy; clear_cache() forgets what served."""
    table = np.arange(12 * 5, dtype=np.int32).reshape(12, 5)
    for n in range(1, 10):
        ids = (np.arange(n, dtype=np.int32) * 7) % 12
        desc = validate(GatherDesc(input=TensorDesc(data_type=DataType.INT32, sizes=(12, 5)),
                                   indices=TensorDesc(data_type=DataType.INT32, sizes=(1, n)),
                                   axis=0, index_dimensions=1))
        got = dmlc.compile(desc, dynamic="auto").reference(table, ids.reshape(1, n))
        assert np.array_equal(got, table[ids])
    assert counted["served"] == 7 and counted["policy"] == 2
    dmlc.clear_cache()
    assert not KERNELS.generic._again and not KERNELS.generic._again_dims


def _copy_matches(sizes, strides, x) -> None:
    desc = validate(IdentityDesc(input=TensorDesc(data_type=DataType.INT32, sizes=sizes,
                                                  strides=strides)))
    kernel = dmlc.compile(desc, dynamic="auto")
    arg = x[:int(np.prod(sizes))].reshape(sizes) if strides is None else x
    want = arg if strides is None else np.lib.stride_tricks.as_strided(
        x, sizes, [4 * s for s in strides])
    assert kernel.reference(arg).tobytes() == np.ascontiguousarray(want).tobytes()


def test_a_call_of_size_one_where_sizes_vary_is_not_remembered(counted):
    """A view of size 1 at a dynamic dimension may carry any stride there (no access uses it):
    the generic kernel serves it through its canonical layout, but a later call of that stride
    and a real size must not be served by it (the kernel bakes another stride there)."""
    x = np.arange(64, dtype=np.int32)
    _copy_matches((2, 3, 4), (24, 8, 1), x)
    _copy_matches((2, 3, 5), (24, 8, 1), x)   # the generic kernel: dimension 2 dynamic
    _copy_matches((2, 3, 1), (24, 8, 7), x)   # served by it (stride 7 unused at size 1)
    _copy_matches((2, 3, 4), (24, 8, 7), x)   # stride 7 read: another kernel


def test_a_packed_call_served_through_its_canonical_layout_is_not_remembered(counted):
    """A packed [2, 3, 8] is served by the kernel of a strided (24, 8, 1) view (its canonical
    layout's strides); a packed [2, 3, 5] has strides (15, 5, 1), and must not be."""
    x = np.arange(64, dtype=np.int32)
    _copy_matches((2, 3, 4), (24, 8, 1), x)
    _copy_matches((2, 3, 5), (24, 8, 1), x)
    _copy_matches((2, 3, 8), None, x)
    _copy_matches((2, 3, 5), None, x)
