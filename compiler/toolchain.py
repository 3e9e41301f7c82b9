"""GLSL -> SPIR-V through glslangValidator, checked by spirv-val, cached by content on disk.

Environment:
  DMLC_GLSLANG     path of glslangValidator (default: found on PATH)
  DMLC_SPIRV_VAL   path of spirv-val (default: found on PATH; validation is skipped if absent)
  DMLC_CACHE_DIR   cache folder (default: platformdirs' user cache folder for "dmlc" where
                   platformdirs is installed, else $XDG_CACHE_HOME/dmlc or ~/.cache/dmlc)
  DMLC_CACHE=0     disable the SPIR-V cache (compile_glsl(..., cache=False) for one call)
"""
from __future__ import annotations

import concurrent.futures
import functools
import hashlib
import os
import shutil
import struct
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from .errors import ShaderCompileError

TARGET_ENV = "vulkan1.0"
SPIRV_MAGIC = 0x07230203
# Capabilities that need optional Vulkan features, which kp never enables.
FORBIDDEN_CAPABILITIES = {9: "Float16", 10: "Float64", 11: "Int64", 22: "Int16", 39: "Int8",
                          4433: "StorageBuffer16BitAccess",
                          4434: "UniformAndStorageBuffer16BitAccess",
                          4435: "StoragePushConstant16", 4436: "StorageInputOutput16",
                          4448: "StorageBuffer8BitAccess",
                          4449: "UniformAndStorageBuffer8BitAccess", 4450: "StoragePushConstant8"}
_OP_CAPABILITY = 17


def find_tool(env: str, name: str) -> str | None:
    """$env if set (a path or a name on PATH), else `name` on PATH; None when not executable."""
    return shutil.which(os.environ.get(env) or name)


@functools.cache
def glslang_version(tool: str) -> str:
    out = subprocess.run([tool, "--version"], capture_output=True, text=True)
    return out.stdout.strip()


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


def capabilities(spirv: bytes) -> list[int]:
    """The OpCapability operands of a SPIR-V module."""
    words = struct.unpack(f"<{len(spirv) // 4}I", spirv[:len(spirv) // 4 * 4])
    caps, i = [], 5  # the header is 5 words
    while i < len(words):
        count, opcode = words[i] >> 16, words[i] & 0xFFFF
        if count == 0:
            break
        if opcode == _OP_CAPABILITY:
            caps.append(words[i + 1])
        i += count
    return caps


def looks_like_spirv(data: bytes) -> bool:
    return (len(data) >= 20 and len(data) % 4 == 0
            and struct.unpack("<I", data[:4])[0] == SPIRV_MAGIC)


def _numbered(source: str) -> str:
    return "\n".join(f"{i + 1:4d}  {line}" for i, line in enumerate(source.splitlines()))


def _run(cmd: list[str], what: str, source: str) -> None:
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ShaderCompileError(f"{what} could not run: {e}") from None
    if done.returncode != 0:
        raise ShaderCompileError(
            f"{what} failed (exit {done.returncode}): {' '.join(cmd)}\n"
            f"{done.stdout}{done.stderr}\n--- source ---\n{_numbered(source)}")


def _compile_uncached(source: str, glslang: str) -> bytes:
    with tempfile.TemporaryDirectory(prefix="dmlc-") as tmp:
        src, spv = os.path.join(tmp, "kernel.comp"), os.path.join(tmp, "kernel.spv")
        Path(src).write_text(source)
        _run([glslang, "-V", "--target-env", TARGET_ENV, "-o", spv, src], "glslangValidator",
             source)
        validator = find_tool("DMLC_SPIRV_VAL", "spirv-val")
        if validator:
            _run([validator, "--target-env", TARGET_ENV, spv], "spirv-val", source)
        spirv = Path(spv).read_bytes()
    bad = [FORBIDDEN_CAPABILITIES[c] for c in capabilities(spirv) if c in FORBIDDEN_CAPABILITIES]
    if bad:
        raise ShaderCompileError(f"generated SPIR-V needs optional capabilities {bad}, which "
                                 f"Kompute does not enable\n--- source ---\n{_numbered(source)}")
    return spirv


def _glslang() -> str:
    glslang = find_tool("DMLC_GLSLANG", "glslangValidator")
    if not glslang:
        raise ShaderCompileError("glslangValidator not found: install Debian's glslang-tools "
                                 "(make install does) or set DMLC_GLSLANG")
    return glslang


def _cache_path(source: str, glslang: str, cache: bool = True) -> Path | None:
    folder = cache_dir() if cache else None
    key = hashlib.sha256(f"{glslang_version(glslang)}\0{TARGET_ENV}\0{source}".encode()).hexdigest()
    return folder / key[:2] / f"{key}.spv" if folder else None


_SEAL = b"dmlc-sha256:"


def _sealed(spirv: bytes) -> bytes:
    """A cache entry: the SPIR-V, then a marker and its SHA-256, so that any damage to the file
    (a flipped byte, a truncation, another program's write) is detected and the entry rebuilt."""
    return spirv + _SEAL + hashlib.sha256(spirv).digest()


def _read_cache(path: Path | None) -> bytes | None:
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


def compile_glsl(source: str, cache: bool = True) -> bytes:
    """SPIR-V for a GLSL compute shader, from the cache when this exact source was built before.
    A cache entry that is not plausible SPIR-V is rebuilt. cache=False neither reads nor
    writes the cache (a cold compile, timed by the bench)."""
    glslang = _glslang()
    path = _cache_path(source, glslang, cache)
    data = _read_cache(path)
    if data is not None:
        return data
    spirv = _compile_uncached(source, glslang)
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(fd, "wb") as f:
                f.write(_sealed(spirv))
            os.replace(tmp, path)  # atomic: concurrent writers leave one whole file
        except OSError:
            pass  # an unwritable cache costs time, not correctness
    return spirv


def disassemble(spirv: bytes) -> str:
    """SPIR-V assembly text (spirv-dis), for `dmlc compile --emit spvasm`."""
    tool = find_tool("DMLC_SPIRV_DIS", "spirv-dis")
    if not tool:
        raise ShaderCompileError("spirv-dis not found: install Debian's spirv-tools "
                                 "(make install does) or set DMLC_SPIRV_DIS")
    done = subprocess.run([tool, "-", "-o", "-"], input=spirv, capture_output=True, timeout=60)
    if done.returncode != 0:
        raise ShaderCompileError(f"spirv-dis failed: {done.stderr.decode(errors='replace')}")
    return done.stdout.decode()


def compile_many(sources: list[str], cache: bool = True) -> list[bytes]:
    """compile_glsl() of each source; several at once in threads (each waits on a glslang
    process), so a two-kernel program compiles cold in about the time of one."""
    glslang = _glslang()
    done = [_read_cache(_cache_path(s, glslang, cache)) for s in sources]  # warm: no threads
    missing = [i for i, code in enumerate(done) if code is None]
    if len(missing) <= 1:
        return [code if code is not None else compile_glsl(s, cache)
                for s, code in zip(sources, done)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(missing)) as pool:
        built = pool.map(functools.partial(compile_glsl, cache=cache),
                         [sources[i] for i in missing])
        for i, code in zip(missing, built):
            done[i] = code
    return [code for code in done if code is not None]
