"""ONNX's node-test runner (onnx.backend.test.BackendTest) held to dmlc's standard: outputs equal
bit for bit (dtype, shape, bytes: NaN payloads and -0.0 count), not within ONNX's
assert_allclose(rtol=1e-3, atol=1e-7), which a one-ULP change, a -0.0 for a +0.0 or another NaN
payload all pass (tests/device/test_bit_exact_mutations.py shows both). Used by
tests/device/test_onnx_backend.py."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import onnx.backend.test as onnx_backend_test

from reference import assert_bits_equal


class BitExactBackendTest(onnx_backend_test.BackendTest):
    """BackendTest whose every node test compares its outputs bit for bit."""

    @classmethod
    def assert_similar_outputs(cls, ref_outputs: Sequence[Any], outputs: Sequence[Any],
                               rtol: float, atol: float, model_dir: str | None = None) -> None:
        assert len(outputs) == len(ref_outputs), (len(outputs), len(ref_outputs))
        for i, (got, want) in enumerate(zip(outputs, ref_outputs)):
            assert isinstance(got, np.ndarray), f"output {i}: {type(got).__name__}"
            want = np.asarray(want)
            assert want.dtype != object, f"output {i}: strings are not dmlc's"
            try:
                assert_bits_equal(got, want)
            except AssertionError as e:
                raise AssertionError(f"output {i}: {e}") from None


class MovedBackend:
    """A backend whose every run's outputs pass through `move` (a copy each): the mutation
    checks' way to make dmlc's answers wrong by one bit, and see the comparison fail."""

    def __init__(self, backend: Any, move: Callable[[np.ndarray], np.ndarray]) -> None:
        self.backend, self.move = backend, move
        self.moved = 0  # outputs `move` changed

    def __getattr__(self, name: str) -> Any:
        return getattr(self.backend, name)

    def prepare(self, model: Any, device: str = "CPU", **kwargs: Any) -> Any:
        rep = self.backend.prepare(model, device, **kwargs)
        outer = self

        class Moved:
            def run(self, inputs: Any, **kw: Any) -> list[np.ndarray]:
                outs = [np.asarray(o) for o in rep.run(inputs, **kw)]
                moved = [outer.move(o.copy()) for o in outs]
                outer.moved += sum(a.tobytes() != b.tobytes() for a, b in zip(outs, moved))
                return moved
        return Moved()


def one_ulp_up(a: np.ndarray) -> np.ndarray:
    """Every float element one ULP toward +inf (NaN stays NaN; what the audit did)."""
    if a.dtype.kind != "f":
        return a
    return np.nextafter(a, np.array(np.inf, a.dtype)).astype(a.dtype)


def zeros_flipped(a: np.ndarray) -> np.ndarray:
    """+0.0 and -0.0 swapped in a float output; nothing else changed."""
    if a.dtype.kind != "f":
        return a
    zero = a == 0
    a[zero] = np.where(np.signbit(a[zero]), a.dtype.type(0.0), -a.dtype.type(0.0))
    return a
