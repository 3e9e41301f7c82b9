"""The examples of the four DirectML reference pages (DML_GATHER_OPERATOR_DESC,
DML_GATHER_ELEMENTS_OPERATOR_DESC, DML_SCATTER_OPERATOR_DESC, DML_SLICE1_OPERATOR_DESC), run on
the Vulkan device.

Each example is written as on its page, with the pages' three typos corrected: gather example 3
uses IndexDimensions 1 (its data is 1-D indices), scatter example 2's input is 3x3, and
gather_elements' output type is the input's. `make demo` runs this file; it checks every result
against the page's documented output and exits non-zero on any difference.
"""
from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import dmlc

F32, U32 = np.float32, np.uint32
SLICE_INPUT = np.arange(1, 17, dtype=F32).reshape(1, 1, 4, 4)


@dataclass
class SeedExample:
    page: str
    title: str
    run: Callable[..., np.ndarray]
    inputs: dict[str, np.ndarray]
    fields: dict[str, Any]
    expected: np.ndarray
    note: str = field(default="")


SEED_EXAMPLES = [
    SeedExample("DML_GATHER", "Example 1. 1D remapping", dmlc.gather,
                {"input": np.array([11, 12, 13, 14], F32),
                 "indices": np.array([3, 1, 3, 0, 2], U32)},
                {"axis": 0, "index_dimensions": 1}, np.array([14, 12, 14, 11, 13], F32)),
    SeedExample("DML_GATHER", "Example 2. 2D output, 1D indices, Axis 0, concatenate rows",
                dmlc.gather,
                {"input": np.array([[1, 2], [3, 4], [5, 6]], F32),
                 "indices": np.array([[0, 1, 1, 2]], U32)},
                {"axis": 0, "index_dimensions": 1},
                np.array([[1, 2], [3, 4], [3, 4], [5, 6]], F32)),
    SeedExample("DML_GATHER", "Example 3. 2D, Axis 1, swap columns", dmlc.gather,
                {"input": np.array([[1, 2], [3, 4], [5, 6]], F32),
                 "indices": np.array([[1, 0]], U32)},
                {"axis": 1, "index_dimensions": 1}, np.array([[2, 1], [4, 3], [6, 5]], F32),
                "corrected: the page says IndexDimensions 2; its data is IndexDimensions 1"),
    SeedExample("DML_GATHER", "Example 4. Axis 2, nested indices", dmlc.gather,
                {"input": np.arange(1, 10, dtype=F32).reshape(1, 3, 3),
                 "indices": np.array([[[0, 2]]], U32)},
                {"axis": 2, "index_dimensions": 2},
                np.array([[[1, 3]], [[4, 6]], [[7, 9]]], F32)),
    SeedExample("DML_GATHER", "Example 5. Axis 1, nested indices", dmlc.gather,
                {"input": np.arange(1, 7, dtype=F32).reshape(1, 3, 2),
                 "indices": np.array([[[0, 1], [1, 2]]], U32)},
                {"axis": 1, "index_dimensions": 2},
                np.array([[[1, 2], [3, 4]], [[3, 4], [5, 6]]], F32)),
    SeedExample("DML_GATHER_ELEMENTS", "Example", dmlc.gather_elements,
                {"input": np.arange(1, 10, dtype=F32).reshape(3, 3),
                 "indices": np.array([[1, 2, 0], [2, 0, 0]], U32)},
                {"axis": 0}, np.array([[4, 8, 3], [7, 2, 3]], F32),
                "corrected: the output's type is FLOAT32, the input's (the page says UINT32)"),
    SeedExample("DML_SCATTER", "Example 1. 1D scatter", dmlc.scatter,
                {"input": np.array([0, 1, 2, 3, 4], F32), "indices": np.array([3, 1, 3, 0], U32),
                 "updates": np.array([5, 6, 7, 8], F32)},
                {"axis": 0}, np.array([8, 6, 2, 7, 4], F32),
                "indices 0 and 2 both target element 3: the later update (7) wins"),
    SeedExample("DML_SCATTER", "Example 2. 2D scatter", dmlc.scatter,
                {"input": np.zeros((3, 3), F32), "indices": np.array([[1, 0, 2], [0, 2, 1]], U32),
                 "updates": np.array([[10, 11, 12], [20, 21, 22]], F32)},
                {"axis": 0}, np.array([[20, 11, 0], [10, 0, 22], [0, 21, 12]], F32),
                "corrected: the input is 3x3 (the page declares {2,3})"),
    SeedExample("DML_SLICE1", "Example 1. Strided slice with positive strides", dmlc.slice,
                {"input": SLICE_INPUT},
                {"offsets": [0, 0, 0, 1], "sizes": [1, 1, 4, 3], "strides": [1, 1, 2, 2]},
                np.array([[[[2, 4], [10, 12]]]], F32)),
    SeedExample("DML_SLICE1", "Example 2. Strided slice with negative strides", dmlc.slice,
                {"input": SLICE_INPUT},
                {"offsets": [0, 0, 0, 1], "sizes": [1, 1, 4, 3], "strides": [1, 1, -2, 2]},
                np.array([[[[14, 16], [6, 8]]]], F32)),
]


def run_example(ex: SeedExample) -> np.ndarray:
    return ex.run(*ex.inputs.values(), **ex.fields)


def _show(a: np.ndarray) -> str:
    return np.array2string(a, separator=", ").replace("\n", "\n        ")


def main() -> int:
    from dmlc.runtime import get_device
    print(f"device: {get_device().name}\n")
    failures = 0
    for ex in SEED_EXAMPLES:
        out = run_example(ex)
        ok = out.dtype == ex.expected.dtype and np.array_equal(out, ex.expected)
        failures += not ok
        print(f"{ex.page} {ex.title}  [{'ok' if ok else 'MISMATCH'}]")
        print("  " + ", ".join(f"{k}: {v}" for k, v in ex.fields.items()))
        for name, value in ex.inputs.items():
            print(f"  {name} {value.dtype}{list(value.shape)}:\n        {_show(value)}")
        print(f"  output {out.dtype}{list(out.shape)}:\n        {_show(out)}")
        if not ok:
            print(f"  expected:\n        {_show(ex.expected)}")
        if ex.note:
            print(f"  note: {ex.note}")
        print()
    matched = len(SEED_EXAMPLES) - failures
    print(f"{matched} of {len(SEED_EXAMPLES)} seed examples match their pages")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
