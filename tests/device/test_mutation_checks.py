"""Mutation checks: the suite's comparisons fail where they should. dmlc's answers are made
wrong by one bit on purpose (one ULP, a zero's sign), and the tests that hold dmlc to them must
then fail: ONNX's node tests (tests/onnx_bits.py) and the API fuzz tests
(tests/device/test_fuzz_api.py). The key test's own check is in tests/test_generic_keys.py."""
from __future__ import annotations

import unittest
import warnings

import numpy as np
import pytest

import dmlc

pytestmark = pytest.mark.vulkan


def _node_tests(backend, runner) -> dict[str, tuple[str, int]]:
    """ONNX's node tests of test_onnx_backend.py, each run through `backend` with `runner`'s
    comparison: test name -> ("pass" or "fail", outputs a MovedBackend changed in it)."""
    from tests.device.test_onnx_backend import EXCLUDED, OPERATORS
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        bt = runner(backend, __name__)
    for name in OPERATORS:
        bt.include(rf"^test_{name}(_.*)?_cpu$")
    for name in EXCLUDED:
        bt.exclude(rf"^{name}_cpu$")
    outcome = {}
    for case_class in bt.test_cases.values():
        for case in unittest.defaultTestLoader.loadTestsFromTestCase(case_class):
            before = getattr(backend, "moved", 0)
            result = unittest.TestResult()
            case.run(result)
            if not result.skipped:
                failed = result.failures or result.errors
                outcome[case.id().rsplit(".", 1)[1]] = ("fail" if failed else "pass",
                                                        getattr(backend, "moved", 0) - before)
    return outcome


@pytest.fixture(scope="module")
def onnx_runners():
    """dmlc's backend, the runner test_onnx_backend.py uses, and ONNX's own."""
    pytest.importorskip("onnx")
    import onnx.backend.test as onnx_backend_test
    from tests.device.test_onnx_backend import backend_test

    import dmlc.onnx.backend as dmlc_backend
    return dmlc_backend, type(backend_test), onnx_backend_test.BackendTest


def test_onnx_node_tests_pass_unmoved(onnx_runners):
    backend, bit_exact, _ = onnx_runners
    outcome = _node_tests(backend, bit_exact)
    assert len(outcome) >= 130 and {o for o, _ in outcome.values()} == {"pass"}, outcome


def _check_mutation(onnx_runners, move, least: int) -> None:
    """Each node test whose outputs `move` changes fails bit for bit, but passes ONNX's own
    allclose comparison (the audit's finding, kept as a witness); the others still pass."""
    from onnx_bits import MovedBackend
    backend, bit_exact, allclose = onnx_runners
    strict = _node_tests(MovedBackend(backend, move), bit_exact)
    lenient = _node_tests(MovedBackend(backend, move), allclose)
    touched = [n for n, (_, moved) in strict.items() if moved]
    assert len(touched) >= least, touched
    assert [n for n in touched if strict[n][0] != "fail"] == []
    assert [n for n in strict if n not in touched and strict[n][0] != "pass"] == []
    assert [n for n in touched if lenient[n][0] != "pass"] == []


def test_onnx_node_tests_fail_when_floats_move_one_ulp(onnx_runners):
    """Every float output one ULP toward +inf (the audit moved them so: 124 tests changed)."""
    from onnx_bits import one_ulp_up
    _check_mutation(onnx_runners, one_ulp_up, least=100)


def test_onnx_node_tests_fail_when_a_zero_changes_sign(onnx_runners):
    """+0.0 and -0.0 swapped (depthtospace, gather, reversesequence, scatter, tile... hold
    zeros)."""
    from onnx_bits import zeros_flipped
    _check_mutation(onnx_runners, zeros_flipped, least=10)


def _on_host(result):
    """A copy of a result (a device tensor's read back)."""
    return np.array(result.numpy() if hasattr(result, "is_whole") else result)


def _one_bit_off(result):
    """A copy of a result with the lowest bit of its first byte flipped."""
    a = _on_host(result)
    if a.size:
        a.reshape(-1).view(np.uint8)[0] ^= 1
    return a


@pytest.mark.parametrize("name, test", [
    ("gather", "test_fuzz_gather"), ("scatter_nd", "test_fuzz_scatter_nd"),
    ("tile", "test_fuzz_tile"), ("copy", "test_fuzz_copy"), ("take", "test_fuzz_take_out"),
    ("split", "test_fuzz_split")])
def test_api_fuzz_fails_when_a_valid_call_returns_a_wrong_bit(name, test, monkeypatch):
    """The fuzz tests compare every call dmlc accepts with numpy's answer: one bit off in a
    function's results, and its fuzz test fails (it calls the function with every argument
    valid among its first cases)."""
    from tests.device import test_fuzz_api as fuzz
    real = getattr(dmlc, name)

    def wrong(*args, **kwargs):
        result = real(*args, **kwargs)
        if isinstance(result, (list, tuple)):  # the first piece that holds an element
            k = next((i for i, r in enumerate(result) if _on_host(r).size), 0)
            return type(result)([*result[:k], _one_bit_off(result[k]), *result[k + 1:]])
        return _one_bit_off(result)
    monkeypatch.setattr(dmlc, name, wrong)
    with pytest.raises(AssertionError, match="bits differ"):
        getattr(fuzz, test)()
