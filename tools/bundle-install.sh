#!/usr/bin/env bash
# Install dmlc from this bundle with no package registry: bash install.sh [VENV] (default .venv).
# Debian packages dmlc needs that the machine lacks are installed from debs/ when run as root;
# otherwise they are unpacked into VENV/sysroot and VENV/bin/activate is taught to find them.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv=${1:-.venv}
py=${PYTHON:-python3}
missing=()
for deb in "$here"/debs/*.deb; do
  pkg=$(dpkg-deb -f "$deb" Package)
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$deb")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "[install] Debian packages: ${missing[*]##*/}"
    dpkg -i "${missing[@]}" >/dev/null
  else
    echo "[install] not root: unpacking ${#missing[@]} Debian packages into $venv/sysroot"
    mkdir -p "$venv/sysroot"
    for deb in "${missing[@]}"; do dpkg-deb -x "$deb" "$venv/sysroot"; done
  fi
fi
"$py" -m venv "$venv"
if [ -d "$venv/sysroot" ]; then
  cat >> "$venv/bin/activate" <<ACT
export PATH="$(cd "$venv" && pwd)/sysroot/usr/bin:\$PATH"
export LD_LIBRARY_PATH="$(cd "$venv" && pwd)/sysroot/usr/lib/x86_64-linux-gnu\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
ACT
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check --no-index \
  --find-links "$here/wheels" "dmlc[vulkan,webgpu,test]"
"$venv/bin/python" -c 'import dmlc, kp, numpy; print("[install] dmlc", dmlc.__version__, "numpy", numpy.__version__)'
