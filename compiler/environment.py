"""The environment as every call reads it: dmlc's variables ($DMLC_DYNAMIC, $DMLC_TARGET,
$DMLC_POISON...) decide each call, and users and tests set them at any time, so none is cached;
a read must then cost what a dict lookup costs. Beside errors.py, the one module the compiler
and the runtime both stand on."""
from __future__ import annotations

import os


def env_value(name: str, default: str = "") -> str:
    """os.environ.get(name, default), at the cost of a dict lookup: every call of a one-shot
    function reads several variables ($DMLC_DYNAMIC, $DMLC_TARGET, $DMLC_POISON at each buffer
    taken...), which users and tests may set at any time, so none is cached; os.environ's
    mapping layer (encoding the key, decoding the value, Mapping.get's try) cost ~1 us a read,
    about 50 us a decode step on llvmpipe. Reads os.environ's own store (CPython's
    os._Environ._data, which every write through os.environ updates); anything else standing
    in for os.environ is asked as a mapping."""
    env = os.environ
    data = getattr(env, "_data", None)
    if data is None or not hasattr(env, "encodekey"):
        return env.get(name, default)
    key = _KEYS.get(name)
    if key is None:
        key = _KEYS[name] = env.encodekey(name)
    value = data.get(key)
    return default if value is None else env.decodevalue(value)


_KEYS: dict[str, object] = {}
"""Names as os.environ stores them (bytes on POSIX, upper-case on Windows)."""
