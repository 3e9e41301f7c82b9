#!/usr/bin/env bash
# Run a command on SwiftShader, Google's Vulkan on the CPU (Subzero JIT), a second device beside
# lavapipe with other limits: 256 invocations per workgroup, subgroups of 4, 30 storage buffers
# per shader, no shaderInt64/Int16/Float64, no 8/16-bit storage.
#
#   PY=.venv/bin/python tools/swiftshader.sh .venv/bin/python -m pytest -q -m vulkan
#
# SwiftShader (and the Vulkan mock ICD that tests/device/test_devices.py uses) come only inside
# Debian's chromium-common, in /usr/lib/chromium. Where that package is not installed, it is
# downloaded with apt-get and unpacked into .venv/chromium (its dependencies are not needed;
# nothing is installed system wide). VK_ICD_FILENAMES then points the Vulkan loader at
# SwiftShader alone, with a shader cache of its own (emptied afterwards), and the run fails
# unless dmlc's device really is SwiftShader.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { printf '[swiftshader] %s\n' "$*" >&2; }
. tools/debian_package.sh

CHROMIUM="${DMLC_CHROMIUM_DIR:-/usr/lib/chromium}"
if [ ! -f "$CHROMIUM/libvk_swiftshader.so" ]; then
  ROOT="$PWD/.venv/chromium"
  CHROMIUM="$ROOT/root/usr/lib/chromium"
  if [ ! -f "$CHROMIUM/libvk_swiftshader.so" ]; then
    log "fetching Debian's chromium-common (SwiftShader, the mock ICD) into $ROOT"
    unpack_debian_package chromium-common "$ROOT"
  fi
fi
export DMLC_CHROMIUM_DIR="$CHROMIUM"
export VK_ICD_FILENAMES="$CHROMIUM/vk_swiftshader_icd.json"
unset VK_DRIVER_FILES DMLC_DEVICE
CACHE=$(mktemp -d)
trap 'rm -rf "$CACHE"' EXIT
export DMLC_CACHE_DIR="$CACHE"

"${PY:-.venv/bin/python}" -c '
from dmlc.runtime import get_device
name = get_device().name
assert "SwiftShader" in name, f"the device is {name!r}, not SwiftShader"
print("[swiftshader] device:", name)'
"$@"
