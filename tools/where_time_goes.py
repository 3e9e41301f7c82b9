"""The figures of docs/performance.md: compiling, binding, calls on device tensors and
on host arrays, and a loaded ONNX model's runs. Wall time on the host, median of the repeats.

    DMLC_CACHE=0 .venv/bin/python tools/where_time_goes.py          # cold: no SPIR-V disk cache
    .venv/bin/python tools/where_time_goes.py --onnx                # also a 50000x512 table model

A gather of 1024 rows of a float32 [16384, 256] table (16 MiB) by int32 ids, then of 16 rows
(a new shape: compiled again). With --onnx, a model holding a float32 [50000, 512] table as an
initializer, gathered by 1024 ids, run again and again (its table stays on the device), against
numpy's take of the same rows.
"""
from __future__ import annotations

import argparse
import datetime
import os
import statistics
import time
from collections.abc import Callable

import numpy as np

import dmlc
from dmlc.runtime import get_device

T = dmlc.TensorDesc


def ms(f: Callable[[], object], repeats: int = 1) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def gather(rows: int) -> dmlc.GatherDesc:
    return dmlc.GatherDesc(input=T(data_type="FLOAT32", sizes=(16384, 256)),
                           indices=T(data_type="INT32", sizes=(1, rows)), axis=0,
                           index_dimensions=1)


def kernels() -> None:
    rng = np.random.default_rng(0)
    table = rng.standard_normal((16384, 256)).astype(np.float32)
    ids = rng.integers(0, 16384, (1, 1024)).astype(np.int32)
    made: dict[str, dmlc.CompiledKernel] = {}
    cold = ms(lambda: made.setdefault("k", dmlc.compile(gather(1024))))
    k = made["k"]
    again = ms(lambda: dmlc.compile(gather(1024)), 50)
    x, i, y = dmlc.to_device(table), dmlc.to_device(ids), dmlc.empty((1024, 256), np.float32)
    first = ms(lambda: k(x, i, out=y))
    warm = ms(lambda: k(x, i, out=y), 300)
    host = ms(lambda: k(table, ids), 20)
    upload = ms(lambda: dmlc.to_device(table), 20)
    new = ms(lambda: made.setdefault("s", dmlc.compile(gather(16))))
    i16, y16 = dmlc.to_device(ids[:, :16].copy()), dmlc.empty((16, 256), np.float32)
    made["s"](x, i16, out=y16)
    warm16 = ms(lambda: made["s"](x, i16, out=y16), 300)
    print(f"compile (DMLC_CACHE={os.environ.get('DMLC_CACHE', '1')}) {cold:.1f} ms; again in "
          f"this process {again:.3f} ms; first call (binds buffers, creates pipelines) "
          f"{first:.1f} ms")
    print(f"warm call on device tensors with out= (1024 rows, 1 MiB out) {warm * 1e3:.0f} us; "
          f"the same call on host arrays {host:.2f} ms (to_device of the table alone "
          f"{upload:.2f} ms)")
    print(f"a new shape (16 rows): compile {new:.1f} ms; its warm call {warm16 * 1e3:.0f} us")


def model() -> None:
    from onnx import TensorProto, helper, numpy_helper

    import dmlc.onnx
    table = np.random.default_rng(1).standard_normal((50000, 512)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Gather", ["table", "ids"], ["rows"], axis=0)], "embedding",
        [helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", "seq"])],
        [helper.make_tensor_value_info("rows", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(table, "table")])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    ids = np.random.default_rng(2).integers(0, 50000, (1, 1024)).astype(np.int64)
    with dmlc.onnx.load_program(m) as program:
        first = ms(lambda: program.run({"ids": ids}))
        for _ in range(2):
            out = program.run({"ids": ids})
        assert np.array_equal(out["rows"], np.take(table, ids, axis=0))
        run = ms(lambda: program.run({"ids": ids}), 20)
    numpy = ms(lambda: np.take(table, ids, axis=0), 20)
    print(f"ONNX model, float32 [50000, 512] table gathered by 1024 ids: first run {first:.1f} "
          f"ms (uploads the table), then {run:.2f} ms per run; numpy's take {numpy:.3f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--onnx", action="store_true", help="also the ONNX model (needs onnx)")
    args = parser.parse_args()
    print(f"{datetime.date.today().isoformat()}, {get_device().name}")
    kernels()
    if args.onnx:
        model()


if __name__ == "__main__":
    main()
