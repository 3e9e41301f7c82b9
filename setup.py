"""dmlc's build: everything is in pyproject.toml but the Vulkan backend's binding.

kp (Kompute) 0.9.0, with dmlc's patches, is compiled into dmlc's wheel as
`dmlc.runtime.kompute.kp` (tools/kompute.py), so that `pip install .` needs no kp from PyPI
(whose metadata pins numpy<2) and never changes the numpy a user has. $DMLC_VULKAN chooses:
  auto (default)  build it where CMake, a C++ compiler and the Vulkan SDK (headers and loader)
                  are found; elsewhere say what is missing and build a pure-Python wheel (the
                  WebGPU backend, `pip install '.[webgpu]'`, needs none of them)
  on              build it, or stop saying what is missing
  off             never (a pure-Python wheel: compile, WGSL, WebGPU; an installed kp still runs)
"""
from __future__ import annotations

import os
import pathlib
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "tools"))
import kompute

MODULE = "dmlc.runtime.kompute.kp"


class BuildKompute(build_ext):
    """Builds MODULE with CMake (tools/kompute.build_binding) instead of compiling sources."""

    def build_extension(self, ext: Extension) -> None:
        target = pathlib.Path(self.get_ext_fullpath(ext.name)).resolve()
        target.parent.mkdir(parents=True, exist_ok=True)
        built = kompute.build_binding(pathlib.Path(self.build_temp).resolve() / "kompute",
                                      target.parent, self.parallel or None)
        if built != target:
            built.replace(target)


setup(ext_modules=[Extension(MODULE, sources=[])] if kompute.wanted(os.environ) else [],
      cmdclass={"build_ext": BuildKompute})
