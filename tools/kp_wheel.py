"""Build kp 0.9.0's wheel offline, with dmlc's patches, with its numpy pin
relaxed: prints the wheel's path. `make install` puts it in the development venv.

    python tools/kp_wheel.py OUT_DIR

kp's source and dmlc's patch are tools/kompute.py's (which says why); CMake options come from
tools/kp-offline.cmake (no downloads: Debian's fmt and Vulkan headers). PyPI's kp metadata says
`numpy<2.0.0`, yet its binding supports numpy 2 and dmlc's whole suite passes there (CI runs it
on numpy 1.26 and on the newest 2.x), so the wheel is repacked as `kp 0.9.0+dmlc7` (a local
version: `kp>=0.9,<0.10` accepts it) requiring `numpy>=1.26,<3`: installing it into a numpy 2
environment neither downgrades numpy nor leaves `pip check` a conflict. (`pip install dmlc`
needs no kp at all: setup.py compiles the same patched binding into dmlc's wheel.)
"""
from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
import sys

import kompute  # tools/kompute.py (this script's folder is on sys.path)

KP = kompute.KP
LOCAL = f"{KP}+dmlc7"
NUMPY = "numpy>=1.26,<3"
ROOT = pathlib.Path(__file__).resolve().parent.parent


def run(*cmd: str, env: dict[str, str] | None = None) -> None:
    subprocess.run(cmd, check=True, env=env, stdout=sys.stderr)


def build(out: pathlib.Path) -> pathlib.Path:
    raw = out / "raw"
    shutil.rmtree(raw, ignore_errors=True)
    py = sys.executable
    import pybind11  # a build pin of tools/bootstrap.sh
    env = {**os.environ, "DMLC_KP_PYTHON": py, "pybind11_DIR": pybind11.get_cmake_dir(),
           "CMAKE_TOOLCHAIN_FILE": str(ROOT / "tools/kp-offline.cmake"),
           "PATH": f"{pathlib.Path(py).parent}:{os.environ['PATH']}"}
    source = kompute.patched_source(out / "source")
    run(py, "-m", "pip", "wheel", "-q", "--disable-pip-version-check", "--no-deps",
        "--no-build-isolation", "-w", str(raw), str(source), env=env)
    (wheel,) = raw.glob(f"kp-{KP}-*.whl")
    shutil.rmtree(source.parent)
    return wheel


def relax(wheel: pathlib.Path, out: pathlib.Path) -> pathlib.Path:
    """The wheel repacked as kp LOCAL with numpy's pin relaxed."""
    work = out / "unpacked"
    shutil.rmtree(work, ignore_errors=True)
    run(sys.executable, "-m", "wheel", "unpack", str(wheel), "-d", str(work))
    (tree,) = work.iterdir()
    info = tree / f"kp-{KP}.dist-info"
    meta = (info / "METADATA").read_text()
    meta = re.sub(r"(?m)^Version: .*$", f"Version: {LOCAL}", meta, count=1)
    meta, pins = re.subn(r"(?m)^Requires-Dist: numpy.*$", f"Requires-Dist: {NUMPY}", meta)
    if pins != 1:
        raise SystemExit(f"kp {KP}'s METADATA: expected one numpy requirement, found {pins}")
    (info / "METADATA").write_text(meta)
    info.rename(tree / f"kp-{LOCAL}.dist-info")
    run(sys.executable, "-m", "wheel", "pack", str(tree), "-d", str(out))
    (relaxed,) = out.glob(f"kp-{LOCAL}-*.whl")
    shutil.rmtree(work)
    shutil.rmtree(wheel.parent)
    return relaxed


def main() -> None:
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "build/kp-wheel").resolve()
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("kp-*.whl"):
        old.unlink()
    print(relax(build(out), out))


if __name__ == "__main__":
    main()
