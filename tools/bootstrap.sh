#!/usr/bin/env bash
# Install everything dmlc needs, from nothing, idempotently:
#   Debian packages (lavapipe, Vulkan loader, glslang, SPIR-V tools), a .venv at the repository
#   root, kp 0.9.0 built offline, and dmlc itself (editable) with its pinned dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."

DEB_PACKAGES=(mesa-vulkan-drivers libvulkan-dev libfmt-dev glslang-tools spirv-tools vulkan-tools
              cmake g++ python3-venv libcjson-dev)  # cJSON: the C manifest runner's JSON
KP_VERSION=0.9.0
BUILD_PINS=(wheel==0.45.1 setuptools==75.8.0 pybind11==2.13.6)
PY=${PYTHON:-python3}
VENV=.venv

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
"$VPY" -m pip install -q --disable-pip-version-check "${BUILD_PINS[@]}"

if ! "$VPY" -c "import kp" 2>/dev/null; then
  log "building kp $KP_VERSION offline (about 80 s on 2 cores; pip caches the wheel)"
  "$VPY" -m pip install -q --disable-pip-version-check "numpy==1.26.4"
  PATH="$PWD/$VENV/bin:$PATH" DMLC_KP_PYTHON="$PWD/$VPY" \
  pybind11_DIR=$("$VPY" -c "import pybind11; print(pybind11.get_cmake_dir())") \
  CMAKE_TOOLCHAIN_FILE="$PWD/tools/kp-offline.cmake" \
    "$VPY" -m pip install -q --disable-pip-version-check --no-build-isolation "kp==$KP_VERSION"
fi

log "installing dmlc (editable) and its pinned dependencies"
"$VPY" -m pip install -q --disable-pip-version-check --no-build-isolation -e ".[test,lint]"
log "done: $("$VPY" -c 'import kp, numpy, lark; print("kp ok, numpy", numpy.__version__, "lark", lark.__version__)')"
