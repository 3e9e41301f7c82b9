"""kp (Kompute), the Vulkan backend's binding: the one built into dmlc's wheel (`pip install .`
compiles kp 0.9.0, with dmlc's patches, as dmlc.runtime.kompute.kp: setup.py), or
else an installed `kp` (`make install` builds kp 0.9.0+dmlc7: tools/kp_wheel.py).

Finding it imports nothing, so that `dmlc info` and backend choice stay cheap."""
from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

BUILT_IN = __name__ + ".kp"


def origin() -> str | None:
    """Which binding `load` would import: BUILT_IN, "kp", or None where there is none."""
    if importlib.util.find_spec(BUILT_IN) is not None:
        return BUILT_IN
    return "kp" if importlib.util.find_spec("kp") is not None else None


def load() -> ModuleType:
    """The binding (ImportError where there is none, or where its library will not load)."""
    name = origin()
    if name is None:
        raise ImportError("No module named 'kp'")
    return importlib.import_module(name)


def describe() -> str:
    """For `dmlc info`: which binding runs, and where it came from."""
    import importlib.metadata
    name = origin()
    if name == BUILT_IN:
        return f"{BUILT_IN} (kp 0.9.0, with dmlc's patches, built by dmlc's setup.py)"
    if name == "kp":
        try:
            return f"kp {importlib.metadata.version('kp')} (an installed package)"
        except importlib.metadata.PackageNotFoundError:
            return "kp (an installed module of no known version)"
    return "not installed"
