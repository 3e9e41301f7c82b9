"""Build kp 0.9.0's wheel offline, with portability enumeration, and relax its numpy pin:
prints the wheel's path.

    python tools/kp_wheel.py OUT_DIR

PyPI has only kp's sdist, whose metadata says `numpy<2.0.0`. Its binding is pybind11 2.13,
which finds numpy's C API at run time and supports numpy 2, and dmlc's whole suite passes on
kp with numpy 2 (CI runs it on numpy 1.26 and on the newest 2.x). So installing into a numpy 2
environment should neither downgrade numpy nor leave `pip check` a conflict: this builds the
wheel (CMake options from tools/kp-offline.cmake: no downloads) and repacks it as
`kp 0.9.0+dmlc2` (a local version: `kp>=0.9,<0.10` accepts it) requiring `numpy>=1.26,<3`.

One patch to kp's source (PATCHES, below; small enough to offer upstream): since Vulkan loader
1.3.216 a portability driver (MoltenVK: macOS) is listed only to an instance that enables
VK_KHR_portability_enumeration with VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR, and a
device that lists VK_KHR_portability_subset must have it enabled. kp 0.9.0 does neither, and
its Python API reaches neither, so Manager::createInstance asks for the enumeration where the
loader offers it and Manager::createDevice enables the subset where the device lists it.
Everything else is kp's, unchanged. Each patch must apply exactly once, or the build stops.
"""
from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
import sys

KP = "0.9.0"
LOCAL = f"{KP}+dmlc2"
NUMPY = "numpy>=1.26,<3"
ROOT = pathlib.Path(__file__).resolve().parent.parent


def run(*cmd: str, env: dict[str, str] | None = None) -> None:
    subprocess.run(cmd, check=True, env=env, stdout=sys.stderr)


INSTANCE = """
    std::vector<const char*> applicationExtensions;
"""
DEVICE = """    vk::DeviceCreateInfo deviceCreateInfo(vk::DeviceCreateFlags(),
"""
PATCHES = {"src/Manager.cpp": [(INSTANCE, INSTANCE + """
    // dmlc: portability drivers (MoltenVK) are listed only to an instance that asks
    vk::InstanceCreateFlags instanceFlags;
    for (const vk::ExtensionProperties& ext :
         vk::enumerateInstanceExtensionProperties()) {
        std::string name(ext.extensionName.data());
        if (name == VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME) {
            applicationExtensions.push_back(
              VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
            instanceFlags |= vk::InstanceCreateFlagBits::eEnumeratePortabilityKHR;
        } else if (name == VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME) {
            // what VK_KHR_portability_subset needs on a Vulkan 1.0 instance
            applicationExtensions.push_back(
              VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME);
        }
    }
"""), ("""    computeInstanceCreateInfo.pApplicationInfo = &applicationInfo;
""", """    computeInstanceCreateInfo.pApplicationInfo = &applicationInfo;
    computeInstanceCreateInfo.flags = instanceFlags;  // dmlc: portability
"""), (DEVICE, """    // dmlc: a device that lists VK_KHR_portability_subset must have it enabled
    if (uniqueExtensionNames.count("VK_KHR_portability_subset") != 0 &&
        std::find(desiredExtensions.begin(), desiredExtensions.end(),
                  "VK_KHR_portability_subset") == desiredExtensions.end()) {
        validExtensions.push_back("VK_KHR_portability_subset");
    }

""" + DEVICE)]}
"""kp's source edits: file -> (exact text, replacement), each found exactly once."""


def patched_source(work: pathlib.Path) -> pathlib.Path:
    """kp's sdist (pip download: a package registry, no GitHub), unpacked and patched."""
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    run(sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check",
        "--no-deps", "--no-binary", ":all:", "-d", str(work), f"kp=={KP}")
    (sdist,) = work.glob(f"kp-{KP}.tar.gz")
    shutil.unpack_archive(sdist, work)
    tree = work / f"kp-{KP}"
    for name, edits in PATCHES.items():
        path = tree / name
        text = path.read_text()
        for old, new in edits:
            if text.count(old) != 1:
                raise SystemExit(f"kp {KP}'s {name}: expected the patched text once, found "
                                 f"{text.count(old)} (a kp other than {KP}?)")
            text = text.replace(old, new)
        path.write_text(text)
    return tree


def build(out: pathlib.Path) -> pathlib.Path:
    raw = out / "raw"
    shutil.rmtree(raw, ignore_errors=True)
    py = sys.executable
    import pybind11  # a build pin of tools/bootstrap.sh
    env = {**os.environ, "DMLC_KP_PYTHON": py, "pybind11_DIR": pybind11.get_cmake_dir(),
           "CMAKE_TOOLCHAIN_FILE": str(ROOT / "tools/kp-offline.cmake"),
           "PATH": f"{pathlib.Path(py).parent}:{os.environ['PATH']}"}
    source = patched_source(out / "source")
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
