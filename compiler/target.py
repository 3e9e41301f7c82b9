"""What kernels are tuned for: "cpu" (a device that is a CPU, such as lavapipe) or "gpu".

A lowering differs by target where its fast design on one is slow on the other: scatter by lines
is a loop per line, fast on a CPU and hundreds of invocations too few for a GPU
(ops/scatter/lower.py). dmlc.compile(target=None) takes $DMLC_TARGET, else what the selected
device of the current backend is (asked of the Vulkan loader, or of WebGPU's adapter, without
opening a device), else "gpu".

The limits a program is planned within (dmlc.plan.PlanLimits) travel with the target:
dmlc.compile(limits=None) takes the selected device's, asked of the loader the same way, when
no target is named (neither target= nor $DMLC_TARGET); else the device-free DEFAULT (lavapipe's).
"""
from __future__ import annotations

from types import ModuleType
from typing import Any

from .environment import env_value
from .errors import DeviceError, ValidationError
from .plan import DEFAULT, MINIMUM, PlanLimits

TARGETS = ("cpu", "gpu")


def resolve(target: str | None) -> str:
    """The target to compile for: `target`, $DMLC_TARGET, or the selected device's kind."""
    return _resolved(target, env_value("DMLC_TARGET") if target is None else None)


def _resolved(target: str | None, env: str | None) -> str:
    field = "target"
    if target is None and env:
        target, field = env, "DMLC_TARGET"
    if target is None:
        return _device_kind() or "gpu"
    if target not in TARGETS:
        raise ValidationError("dmlc.compile", field, " or ".join(TARGETS), repr(target))
    return target


def resolve_with_limits(target: str | None,
                        limits: PlanLimits | str | None) -> tuple[str, PlanLimits]:
    """(resolve(target), resolve_limits(limits, asks_device(target))) with $DMLC_TARGET read
    once: what every compile asks, so every call of a one-shot function."""
    env = env_value("DMLC_TARGET") if target is None else None
    if target is not None or env:
        return _resolved(target, env), resolve_limits(limits, False)
    try:  # the selected device's kind and limits, in one ask
        kind, found = _backend().selected_device()
    except DeviceError:  # a malformed DMLC_DEVICE: opening the device will say so
        kind, found = None, None
    return kind or "gpu", _limits(limits, found)


def _device_kind() -> str | None:
    try:
        return _backend().device_kind()  # the loader (or adapter) only: no kp, no device
    except DeviceError:  # a malformed DMLC_DEVICE: opening the device will say so
        return None


_BACKEND: ModuleType | None = None


def _backend() -> ModuleType:
    """runtime.backend, imported at the first ask (compiling imports no runtime before; every
    compile asks, so not by an import statement each time)."""
    global _BACKEND
    if _BACKEND is None:
        from .runtime import backend
        _BACKEND = backend
    return _BACKEND


def wants_spirv() -> bool:
    """Whether a compile makes its SPIR-V at once (glslang, the Vulkan backend's need): for
    the Vulkan backend (dmlc.set_backend, $DMLC_BACKEND, or the default found so), or, with
    the backend not known yet, where kp and glslang are installed; never for WebGPU (a Vulkan
    run that asks for SPIR-V later makes it then). Asks no device and imports no runtime
    module (nor kp)."""
    known = known_backend()
    if known is not None:
        return known == "vulkan"
    from . import toolchain
    return has_kompute() and toolchain.available()


def has_kompute() -> bool:
    """Whether the Vulkan backend's binding is installed: built into dmlc's wheel
    (dmlc.runtime.kompute.kp, setup.py) or a `kp` package. Imports neither (nor dmlc.runtime:
    the built-in one is looked for as a file)."""
    import importlib.machinery
    import importlib.util
    import pathlib

    runtime = importlib.util.find_spec("dmlc.runtime")  # imports dmlc only, not the runtime
    for folder in (runtime.submodule_search_locations or []) if runtime else []:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            if (pathlib.Path(folder) / "kompute" / f"kp{suffix}").is_file():
                return True
    return importlib.util.find_spec("kp") is not None


def known_backend() -> str | None:
    """The runtime backend, where known without asking the machine or importing the runtime:
    dmlc.set_backend's, $DMLC_BACKEND's, or the default once the runtime found it."""
    import sys
    backend = sys.modules.get("dmlc.runtime.backend")
    known = backend.known() if backend is not None else None
    return known or env_value("DMLC_BACKEND").strip().lower() or None


def asks_device(target: str | None) -> bool:
    """Whether a compile for `target` asks the selected device what it is (neither target= nor
    $DMLC_TARGET names one): its limits are then the device's too."""
    return target is None and not env_value("DMLC_TARGET")


def resolve_limits(limits: PlanLimits | str | None, ask_device: bool) -> PlanLimits:
    """The limits to plan within: `limits` ("minimum" for Vulkan's, "default" for the
    device-free default, or a PlanLimits), else the selected device's when the compile asks the
    device (ask_device), else DEFAULT (dmlc.plan says why)."""
    return _limits(limits, _device_limits() if ask_device and limits is None else None)


def _limits(limits: PlanLimits | str | None, found: tuple[str, object] | None) -> PlanLimits:
    """resolve_limits, the selected device's (name, limits) `found` already (None: not asked,
    or the loader cannot say)."""
    if limits is None:
        return _plan_limits(found[0], found[1]) if found else DEFAULT
    if isinstance(limits, str) and limits in NAMED_LIMITS:
        return NAMED_LIMITS[limits]
    if not isinstance(limits, PlanLimits):
        raise ValidationError("dmlc.compile", "limits", "None, " + ", ".join(
            map(repr, NAMED_LIMITS)) + " or a dmlc.PlanLimits", repr(limits))
    low = limits.below_minimum()
    if low is not None:
        name, least, value = low
        raise ValidationError("dmlc.compile", f"limits.{name}",
                              f"an integer >= Vulkan's minimum {least}", repr(value))
    return limits


NAMED_LIMITS = {"minimum": MINIMUM, "default": DEFAULT}

_PLAN_LIMITS: dict[tuple[str, int], tuple[Any, PlanLimits]] = {}
"""A device's PlanLimits by (its name, its Limits object: the runtime probes once per device and
keeps it), so that every compile does not build and hash them anew."""


def _plan_limits(name: str, limits: Any) -> PlanLimits:
    found = _PLAN_LIMITS.get((name, id(limits)))
    if found is None or found[0] is not limits:
        found = _PLAN_LIMITS[(name, id(limits))] = (limits, PlanLimits.of(limits, name))
    return found[1]


def _device_limits() -> tuple[str, object] | None:
    try:
        return _backend().device_limits_of_selected()  # no device opened, as _device_kind
    except DeviceError:
        return None
