"""The `dmlc` command line, in-process and through the installed console script."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

import dmlc
from dmlc.cli import main

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "examples", "split_heads.dml")


def test_version(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"dmlc {dmlc.__version__}"


def test_no_command_is_a_usage_error(capsys):
    assert main([]) == 2
    assert "usage: dmlc" in capsys.readouterr().err


@pytest.mark.vulkan
def test_info_names_device_limits_and_cache(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("DMLC_CACHE_DIR", str(tmp_path))
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    from dmlc.runtime import get_device
    assert f"device 0: {get_device().name}" in out
    assert "max_work_group_count" in out and f"shader cache: {tmp_path}" in out


@pytest.mark.vulkan
def test_console_script():
    exe = shutil.which("dmlc", path=os.path.dirname(sys.executable))
    assert exe, "the dmlc console script is installed next to the interpreter"
    done = subprocess.run([exe, "info"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "device 0:" in done.stdout


def test_device_failure_exit_code(capsys, monkeypatch):
    import dmlc.runtime.device as device
    monkeypatch.setattr(device, "_device", None)
    monkeypatch.setattr(device, "_device_index", None)
    monkeypatch.setenv("DMLC_BACKEND", "vulkan")  # the Vulkan device module patched here
    monkeypatch.setenv("DMLC_DEVICE", "no such device")
    assert main(["info"]) == 3
    assert "DMLC_DEVICE = 'no such device' names no Vulkan device" in capsys.readouterr().err


def run_into_closed_pipe(*args: str) -> subprocess.CompletedProcess:
    """`python -m dmlc ARGS` writing to a pipe whose reader has already gone (`| head` after
    head exits): every write to stdout fails with EPIPE."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run([sys.executable, "-m", "dmlc", *args], stdout=write,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write)


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["compile", "--help"],
                                  ["compile", str(EXAMPLE), "--emit", "ir"]])
def test_a_closed_stdout_ends_quietly(args):
    done = run_into_closed_pipe(*args)
    assert done.returncode in (0, 141), done.stderr
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr


@pytest.mark.vulkan
def test_info_into_a_closed_pipe_ends_quietly():
    done = run_into_closed_pipe("info")
    assert done.returncode == 141 and done.stderr == ""
