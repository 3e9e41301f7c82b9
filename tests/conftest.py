"""Test configuration: the `vulkan` marker and hypothesis profiles.

Tests marked `vulkan` dispatch on the Vulkan device (lavapipe on a machine without a GPU).
Without a device the run fails (a suite that skips 2,500 device tests must not pass by
accident), unless DMLC_NO_DEVICE=1 says so on purpose: then they are skipped. Under CI
(CI=true) a missing device always fails the run.

Hypothesis profiles: `default` and `ci` run 60 examples a property; a property that pins its
own budget does so through strategies.budget(n), which the profile scales (`thorough`: x1000/60)
and which never goes below 20.
"""
from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("default", deadline=None, max_examples=60,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", deadline=None, max_examples=60, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", deadline=None, max_examples=1000,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else
                                     "default"))

_device_problem: list[str] = []


def _vulkan_problem() -> str | None:
    if not _device_problem:
        try:
            from dmlc.runtime import get_device
            get_device()
            _device_problem.append("")
        except Exception as e:
            _device_problem.append(f"no Vulkan device: {e}")
    return _device_problem[0] or None


@pytest.hookimpl(trylast=True)  # after -m/-k deselect: `-m "not vulkan"` needs no device
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not any(item.get_closest_marker("vulkan") for item in items):
        return
    problem = _vulkan_problem()
    if problem is None:
        return
    if os.environ.get("CI"):
        raise pytest.UsageError(f"CI needs a Vulkan device for the vulkan tests: {problem}")
    if os.environ.get("DMLC_NO_DEVICE") != "1":
        raise pytest.UsageError(
            f"the vulkan tests need a Vulkan device: {problem}. Install one (lavapipe: "
            "apt-get install mesa-vulkan-drivers), run `-m 'not vulkan'` (make test-fast), or "
            "set DMLC_NO_DEVICE=1 to skip them on purpose")
    skip = pytest.mark.skip(reason=problem)
    for item in items:
        if item.get_closest_marker("vulkan"):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def onnx_reference():
    """tests/onnx_reference.py (ONNX's reference evaluator, the second oracle): a test that
    takes it is skipped where onnx is not installed (the test extra installs it); the tests
    of its module that do not use it still run."""
    return pytest.importorskip("onnx_reference")


@pytest.fixture(params=["vote", "lines"])
def scatter_design(request, monkeypatch):
    """Both lowerings of the scatters (dmlc/ops/scatter/lower.py): "lines" (the CPU target,
    also for the few lines of small cases, which would otherwise scatter by vote) and "vote"
    (the GPU target)."""
    import dmlc.ops.scatter.lower as scatter
    from dmlc.compiled import clear_caches
    monkeypatch.setenv("DMLC_TARGET", "cpu" if request.param == "lines" else "gpu")
    monkeypatch.setattr(scatter, "LINES_MIN", 1)
    clear_caches()
    yield request.param
    clear_caches()
