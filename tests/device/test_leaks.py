"""No leaks: 10,000 calls of each operator, one-shot and compiled, on host arrays and on device
tensors, leave the Vulkan objects dmlc creates (every one is made through the Device and counted)
and the process's resident memory flat once warm."""
from __future__ import annotations

import numpy as np
import pytest

import dmlc
from dmlc import GatherDesc, GatherElementsDesc, ScatterDesc, Slice1Desc
from dmlc.runtime import get_device
from dmlc.runtime.pool import poisoning
from memory import steady_state

pytestmark = pytest.mark.vulkan

CALLS = 10_000
WARM_UP = 500

RNG = np.random.default_rng(0)
X = RNG.standard_normal((64, 32)).astype(np.float32)
ROWS = RNG.integers(-64, 64, (1, 8)).astype(np.int64)
ELEMS = RNG.integers(-64, 64, (16, 32)).astype(np.int32)
UPD = RNG.standard_normal((16, 32)).astype(np.float32)
SLICE = dict(offsets=[1, 0], sizes=[60, 32], strides=[3, -2])

ONE_SHOT = {
    "gather": lambda x, i, u: dmlc.gather(x, i, axis=0, index_dimensions=1),
    "gather_elements": lambda x, i, u: dmlc.gather_elements(x, i, axis=0),
    "scatter": lambda x, i, u: dmlc.scatter(x, i, u, axis=0),
    "slice": lambda x, i, u: dmlc.slice(x, **SLICE),
}


def _tensor(a: np.ndarray) -> dmlc.TensorDesc:
    return dmlc.TensorDesc(data_type=dmlc.DataType.of(a.dtype), sizes=a.shape)


DESCS = {
    "gather": (GatherDesc(input=_tensor(X), indices=_tensor(ROWS), axis=0, index_dimensions=1),
               (X, ROWS)),
    "gather_elements": (GatherElementsDesc(input=_tensor(X), indices=_tensor(ELEMS), axis=0),
                        (X, ELEMS)),
    "scatter": (ScatterDesc(input=_tensor(X), indices=_tensor(ELEMS), updates=_tensor(UPD),
                            axis=0), (X, ELEMS, UPD)),
    "slice": (Slice1Desc(input=_tensor(X), **{k: tuple(v) for k, v in SLICE.items()}), (X,)),
}


def calls(op: str, mode: str):
    """The call to repeat, for one operator in one mode."""
    indices = ROWS if op == "gather" else ELEMS
    if mode == "one-shot host":
        return lambda: ONE_SHOT[op](X, indices, UPD)
    if mode == "one-shot device":
        x, i, u = dmlc.to_device(X), dmlc.to_device(indices), dmlc.to_device(UPD)
        return lambda: ONE_SHOT[op](x, i, u).numpy()
    desc, arrays = DESCS[op]
    kernel = dmlc.compile(desc)
    if mode == "compiled host":
        return lambda: kernel(*arrays)
    on_device = [dmlc.to_device(a) for a in arrays]
    out = dmlc.empty(kernel.output.sizes, kernel.output.data_type.numpy)
    return lambda: kernel(*on_device, out=out)


@pytest.mark.skipif(poisoning(), reason="DMLC_POISON adds an upload and a read-back per pooled "
                    "buffer and call: the steady state measured here is make test's")
@pytest.mark.parametrize("mode", ["one-shot host", "one-shot device", "compiled host",
                                  "compiled device"])
@pytest.mark.parametrize("op", sorted(ONE_SHOT))
def test_ten_thousand_calls_leave_memory_and_vulkan_objects_flat(op, mode):
    call = calls(op, mode)
    first = call()
    for _ in range(WARM_UP):
        call()
    last = steady_state(get_device(), call, CALLS)
    if not isinstance(first, np.ndarray):
        first, last = (a.numpy() if hasattr(a, "numpy") else a for a in (first, last))
    assert np.array_equal(np.asarray(first).view(np.uint32), np.asarray(last).view(np.uint32))
