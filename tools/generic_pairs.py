"""Generic/specialized bandwidth pairs of the `dmlc bench` cases retyped to another element
type (the bench's own pairs are its cases' types): each case's floating-point tensors made
--dtype, its specialized kernel and generic twin (dmlc.bench.generic_twin) timed interleaved on
the device, the ratio of their medians printed with the variant that ran.

    .venv/bin/python tools/generic_pairs.py --dtype float16 --only join --only pad
"""
from __future__ import annotations

import argparse
import dataclasses
import statistics
from typing import Any

import numpy as np

import dmlc
from dmlc.bench import compile_desc, generic_twin
from dmlc.bench.cases import suite
from dmlc.family.tensor import TensorDesc
from dmlc.runtime import timing
from dmlc.runtime.tensor import empty, to_device


def retyped(x: Any, dtype: dmlc.DataType) -> Any:
    """x with its floating-point TensorDescs made `dtype` (tuples of them too)."""
    if isinstance(x, TensorDesc) and x.data_type.name.startswith("FLOAT"):
        return dataclasses.replace(x, data_type=dtype, total_bytes=None)
    if isinstance(x, tuple):
        return tuple(retyped(y, dtype) for y in x)
    return x


def random_bits(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype) -> Any:
    """Random bytes as an array of `dtype` (the values do not matter to data movement)."""
    count = int(np.prod(shape)) * dtype.itemsize
    return rng.integers(0, 256, count, dtype=np.uint8).view(dtype).reshape(shape)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dtype", default="float16", help="the element type (default float16)")
    parser.add_argument("--only", action="append", help="cases whose name contains TEXT")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    dtype = dmlc.DataType(args.dtype)
    rng = np.random.default_rng(0)
    for case in suite(False):
        if args.only and not any(t in case.name for t in args.only):
            continue
        d = case.descriptor
        fields = {f.name: retyped(getattr(d, f.name), dtype) for f in dataclasses.fields(d)}
        if isinstance(getattr(d, "output", None), TensorDesc):
            fields["output"] = None  # inferred again, of the new type
        desc = dataclasses.replace(d, **fields)
        special = compile_desc(desc, dynamic=False)
        twin = generic_twin(desc)
        if twin is None:
            print(f"{case.name:52} {dtype.value}: no generic kernel")
            continue
        arrays = [random_bits(rng, a.shape, dtype.numpy) if a.dtype.kind == "f" else a
                  for a in case.make_inputs(rng)]
        on_device = [to_device(a) for a in arrays]
        out = empty(special.output.sizes, special.output.data_type.numpy, zeroed=False)
        mine: list[float] = []
        theirs: list[float] = []
        for i in range(args.repeats + 2):  # two warm-up rounds
            t_special = timing.time_kernels(special.executable(), on_device, out)
            t_twin = timing.time_kernels(twin.executable(), on_device, out)
            if i >= 2:
                mine.append(t_special)
                theirs.append(t_twin)
        variant = [k for k in dmlc.cache_info()["generic"]][-1]
        print(f"{case.name:52} {dtype.value}: generic/specialized "
              f"{statistics.median(mine) / statistics.median(theirs):.2f} ({variant})",
              flush=True)


if __name__ == "__main__":
    main()
