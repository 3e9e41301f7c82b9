# dmlc — `make test` and `make demo` work from nothing on Debian (they install what they need).
VENV        ?= .venv
CONSTRAINTS ?= tools/constraints.txt
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.dmlc-installed
PYTEST := $(PY) -m pytest

.PHONY: install test test-numpy2 test-fast test-vulkan test-webgpu test-swiftshader test-nopasses test-generic test-glslang-process test-poison test-validation test-portability lint docs demo info shaders-check bench bundle dist test-pip clean

install: $(STAMP)

# Re-run the (idempotent) bootstrap when its inputs change or the venv is missing.
$(STAMP): pyproject.toml tools/bootstrap.sh tools/kp-offline.cmake tools/kp_wheel.py tools/kompute.py $(CONSTRAINTS)
	VENV=$(VENV) CONSTRAINTS=$(CONSTRAINTS) bash tools/bootstrap.sh
	touch $(STAMP)

test: install            ## the whole suite: unit, property, conformance and Vulkan (lavapipe) tests
	$(PYTEST) -q

test-numpy2:             ## the whole suite again on the newest numpy 2 (its own venv, .venv-numpy2)
	$(MAKE) --no-print-directory test VENV=.venv-numpy2 CONSTRAINTS=tools/constraints-numpy2.txt

test-fast: install       ## everything that needs no Vulkan device
	$(PYTEST) -q -m "not vulkan"

test-vulkan: install     ## only the tests that dispatch on the Vulkan device
	$(PYTEST) -q -m vulkan

test-webgpu: install     ## the device suite on the WebGPU backend (wgpu-py on lavapipe), buffers poisoned; the Vulkan backend's own tests skip, saying why
	DMLC_BACKEND=webgpu DMLC_POISON=1 $(PYTEST) -q -m vulkan $(WEBGPU_ARGS)
	DMLC_BACKEND=webgpu $(PYTEST) -q tests/device/test_leaks.py tests/device/test_memory_flat.py  # steady state: unpoisoned

test-swiftshader: install  ## the device suite on SwiftShader (Debian's chromium-common, fetched if missing), its own shader cache
	PY=$(PY) bash tools/swiftshader.sh $(PYTEST) -q -m vulkan $(SWIFTSHADER_ARGS)

test-nopasses: install  ## the whole suite with every optimization pass disabled
	DMLC_DISABLE_PASSES=all $(PYTEST) -q

test-glslang-process: install  ## the fallback: toolchain tests and a device subset through glslangValidator processes, empty shader cache
	cache=$$(mktemp -d) && DMLC_GLSLANG=process DMLC_GLSLANG_LIB=/nonexistent \
	  DMLC_CACHE_DIR=$$cache $(PYTEST) -q \
	  tests/test_toolchain.py tests/test_cli_commands.py tests/test_seeds.py \
	  tests/device/test_runtime.py tests/device/test_join_device.py \
	  tests/device/test_scatternd_device.py tests/device/test_onnx_backend.py; \
	  rc=$$?; rm -rf $$cache; exit $$rc

lint: install            ## ruff (style, imports, 100 columns) and mypy (types) over the sources; both must be clean
	$(VENV)/bin/ruff check compiler runtime tests tools examples shaders setup.py
	$(VENV)/bin/mypy

test-poison: install     ## the device suite with every buffer a kernel may not rely on filled with 0xA5 first
	DMLC_POISON=1 $(PYTEST) -q -m vulkan

test-generic: install    ## the device suite with generic kernels forced on (DMLC_DYNAMIC=always; families without one stay specialized)
	DMLC_DYNAMIC=always $(PYTEST) -q -m vulkan

test-validation: install  ## the suite and the examples under the Vulkan validation layer (sync checks on); fails on any message
	bash tools/validation.sh $(MAKE) --no-print-directory test demo

PORTABILITY_TESTS ?= tests/device/test_runtime.py tests/device/test_devices.py \
  tests/device/test_copy_device.py tests/device/test_join_device.py \
  tests/device/test_scatternd_device.py tests/device/test_checked_mode.py \
  tests/device/test_memory_safety.py tests/device/test_onnx_backend.py \
  tests/device/test_computed_device.py tests/device/test_generic_device.py
test-portability: install  ## device tests (PORTABILITY_TESTS: every family) with lavapipe declared a portability driver, as macOS lists MoltenVK; under the validation layer
	PY=$(PY) bash tools/portability.sh bash tools/validation.sh $(PYTEST) -q -m vulkan $(PORTABILITY_TESTS)

EXAMPLES_PY  := $(filter-out examples/seed_examples.py,$(wildcard examples/*.py))
EXAMPLES_DML := $(wildcard examples/seeds/*.dml examples/*.dml)

demo: install            ## every example, each checking its own result (exit 1 on any difference)
	$(PY) examples/seed_examples.py
	@for f in $(EXAMPLES_DML); do echo "== dmlc run $$f"; $(VENV)/bin/dmlc run $$f || exit 1; done
	@for f in $(EXAMPLES_PY); do echo "== python $$f"; $(PY) $$f || exit 1; done

docs: install            ## the documentation site into site/ (MkDocs, warnings are errors); installs the docs extra's packages
	$(PY) -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['docs']))" \
	  | xargs $(PY) -m pip install -q --disable-pip-version-check -c $(CONSTRAINTS)
	rm -rf build/docs-src && mkdir -p build/docs-src && ln -s $(CURDIR)/compiler build/docs-src/dmlc  # the package as griffe finds it (the editable install maps compiler/ to dmlc)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

info: install
	$(VENV)/bin/dmlc info

shaders-check: install   ## every hand-written helper compiles with glslangValidator
	$(PYTEST) -q tests/test_toolchain.py

clean:
	rm -rf $(VENV) .venv-numpy2 .venv-pip .venv-pip-numpy1 .venv-pip-webgpu build dist runtime/kompute/kp.* *.egg-info .pytest_cache .hypothesis

bench: install           ## bandwidth of every operator vs copies of the same bytes (ratios in one run)
	$(VENV)/bin/dmlc bench $(BENCH_ARGS)

dist: install            ## dist/: dmlc's sdist, and its wheel built from that sdist (the Vulkan binding compiled in where the Vulkan SDK is found: setup.py)
	rm -f dist/dmlc-*
	$(PY) -m build --outdir dist .

test-pip: dist           ## the install without apt: the wheel into fresh venvs holding numpy 2 (+ PyTorch's CPU wheel where served) and 1.26; numpy kept, pip check clean, the suite on the installed dmlc
	PYTHON=python3 bash tools/pip_install_check.sh

bundle:                  ## dist/bundle/: wheels (Python 3.11 and 3.12) and Debian packages to install dmlc offline
	bash tools/bundle.sh
