#!/usr/bin/env bash
# Run a command with lavapipe declared a portability driver: how the Vulkan loader lists macOS's
# MoltenVK, which it shows only to an instance that enables VK_KHR_portability_enumeration
# (kp is built so: tools/kp_wheel.py; dmlc's own probe too: runtime/limits.py). A copy of
# lavapipe's driver manifest says "is_portability_driver": true (file format 1.0.1), and
# VK_ICD_FILENAMES points the loader at it alone. `dmlc info` must show the device first.
#
#   tools/portability.sh .venv/bin/python -m pytest -q -m vulkan tests/device/test_runtime.py
set -euo pipefail
cd "$(dirname "$0")/.."
log() { printf '[portability] %s\n' "$*" >&2; }
PY=${PY:-.venv/bin/python}
source_icd=$(ls /usr/share/vulkan/icd.d/lvp_icd.*.json 2>/dev/null | head -n 1)
[ -n "$source_icd" ] || { log "no lavapipe driver manifest (apt-get install mesa-vulkan-drivers)"; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$PY" - "$source_icd" "$dir/lvp_portability.json" <<'PYEOF'
import json, sys
icd = json.load(open(sys.argv[1]))
icd["file_format_version"] = "1.0.1"
icd["ICD"]["is_portability_driver"] = True
json.dump(icd, open(sys.argv[2], "w"), indent=2)
PYEOF
export VK_ICD_FILENAMES="$dir/lvp_portability.json"
unset VK_DRIVER_FILES DMLC_DEVICE
info=$("$PY" -m dmlc info)
printf '%s\n' "$info" | head -n 3 >&2
printf '%s\n' "$info" | grep -q "llvmpipe" || { log "dmlc info does not show lavapipe"; exit 1; }
log "device: lavapipe, listed as a portability driver ($VK_ICD_FILENAMES)"
"$@"
