"""Misuse of the runtime raises a DeviceError instead of crashing the process (kp itself dies
with SIGSEGV on a destroyed tensor or manager: PLATFORM.md)."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import dmlc
from reference import assert_bits_equal

pytestmark = pytest.mark.vulkan

X = np.arange(12, dtype=np.float32).reshape(3, 4)
IDX = np.array([[2, 0, 1, 2]], np.int32)


def gather_elements(*args, **kw):
    return dmlc.gather_elements(*args, axis=0, **kw)


def test_a_released_tensor_raises_everywhere():
    x, idx, out = dmlc.to_device(X), dmlc.to_device(IDX), dmlc.empty((1, 4), np.float32)
    assert_bits_equal(gather_elements(x, idx).numpy(),
                      np.take_along_axis(X, IDX, axis=0))
    x.release()
    x.release()  # idempotent
    assert "released" in repr(x)
    for use in (x.numpy, lambda: x.upload(X), lambda: gather_elements(x, idx),
                lambda: np.asarray(x)):
        with pytest.raises(dmlc.DeviceError, match="released"):
            use()
    out.release()
    kernel = dmlc.compile(dmlc.GatherElementsDesc(
        input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(3, 4)),
        indices=dmlc.TensorDesc(data_type="INT32", sizes=(1, 4)), axis=0))
    with pytest.raises(dmlc.DeviceError, match="out: .*released"):
        kernel(dmlc.to_device(X), idx, out=out)


def test_a_context_manager_releases():
    with dmlc.to_device(X) as t:
        assert_bits_equal(t.numpy(), X)
    assert t.released
    with pytest.raises(dmlc.DeviceError):
        t.numpy()


def test_bindings_never_reuse_a_released_tensor():
    """Each call binds fresh tensors and releases them: a binding cached for a released tensor
    (whose memory and id Python may reuse) must never be dispatched again."""
    kernel = dmlc.compile(dmlc.GatherElementsDesc(
        input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(3, 4)),
        indices=dmlc.TensorDesc(data_type="INT32", sizes=(1, 4)), axis=0))
    want = np.take_along_axis(X, IDX, axis=0)
    for k in range(40):
        with dmlc.to_device(X + k) as x, dmlc.to_device(IDX) as i, \
                dmlc.empty((1, 4), np.float32) as out:
            assert_bits_equal(kernel(x, i, out=out).numpy(), want + k)


def test_device_argument_errors():
    with pytest.raises(dmlc.ValidationError, match="dtype"):
        dmlc.to_device(np.zeros(3, np.complex64))
    with pytest.raises(dmlc.ValidationError, match="dtype"):
        dmlc.empty((3,), np.complex64)  # (bool is a byte: tests/device/test_bool_data.py)
    with pytest.raises(dmlc.ValidationError, match="shape"):
        dmlc.empty((3, -1), np.float32)
    with pytest.raises(dmlc.ValidationError, match="shape"):
        dmlc.empty("3", np.float32)
    with pytest.raises(dmlc.ValidationError, match="array"):
        dmlc.to_device([[1.0], [2.0, 3.0]])


def test_a_closed_device_raises_and_kernels_rebind():
    """In a subprocess: closing the device must not disturb the rest of the suite."""
    code = textwrap.dedent("""
        import numpy as np, dmlc
        x = np.arange(12, dtype=np.float32).reshape(3, 4)
        idx = np.array([[2, 0, 1, 2]], np.int32)
        want = np.take_along_axis(x, idx, axis=0)
        t = dmlc.to_device(x)
        first = dmlc.gather_elements(t, idx, axis=0)
        dmlc.close_device()
        dmlc.close_device()  # idempotent
        for use in (t.numpy, first.numpy, lambda: dmlc.gather_elements(t, idx, axis=0)):
            try:
                use()
                raise SystemExit("no error")
            except dmlc.DeviceError as e:
                assert "closed" in str(e), e
        assert "device closed" in repr(t)
        # the cached kernel rebinds to a new device, and new tensors work
        assert (dmlc.gather_elements(x, idx, axis=0) == want).all()
        assert (dmlc.gather_elements(dmlc.to_device(x), idx, axis=0).numpy() == want).all()
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", (done.returncode, done.stdout,
                                                                  done.stderr[-2000:])
