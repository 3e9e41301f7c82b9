"""The first and second call of every `dmlc bench` case on the current Vulkan device, its
specialized kernel and its generic twin (dmlc.bench.generic_twin): the first call builds the
kp algorithms and the driver's pipelines, so the difference is what a driver's shader compiler
costs a new kernel. Point VK_ICD_FILENAMES at a driver to measure it, e.g. SwiftShader:

    C=$PWD/.venv/chromium/root/usr/lib/chromium   # make test-swiftshader fetches it
    VK_ICD_FILENAMES=$C/vk_swiftshader_icd.json DMLC_CACHE_DIR=$(mktemp -d) \\
        .venv/bin/python tools/first_calls.py [--quick] [--only TEXT]

Inputs are host arrays: both calls upload and read back the same bytes.
"""
from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import dmlc
from dmlc.bench import generic_twin
from dmlc.bench.cases import suite
from dmlc.runtime import get_device


def _timed(kernel: Callable[..., Any], arrays: tuple[np.ndarray, ...]) -> float:
    start = time.perf_counter()
    kernel(*arrays)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the bench's --quick sizes")
    parser.add_argument("--only", action="append", help="cases whose name contains TEXT")
    args = parser.parse_args()
    print(f"device: {get_device().name}; seconds: first call, second call")
    rng = np.random.default_rng(0)
    for case in suite(args.quick):
        if args.only and not any(text in case.name for text in args.only):
            continue
        arrays = case.make_inputs(rng)
        kernels = {"specialized": dmlc.compile(case.descriptor, dynamic=False),
                   "generic": generic_twin(case.descriptor)}
        for label, kernel in kernels.items():
            if kernel is None:
                continue
            first, second = _timed(kernel, arrays), _timed(kernel, arrays)
            print(f"{first:7.2f} {second:7.3f}  {label:11s} {case.name}", flush=True)


if __name__ == "__main__":
    main()
