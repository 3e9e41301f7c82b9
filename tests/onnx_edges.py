"""Small ONNX models for the edge-case tests (tests/device/test_onnx_edges*.py), and the check
that runs one through dmlc.onnx and through ONNX's reference evaluator and compares every
output bit for bit.

A case is `(model, feeds)`. In `one()` and `graph()` an operand given as a numpy array is a
graph input (device data, or a host parameter for a 0-d integer), one wrapped in `K` is an
initializer (a constant), and None is an omitted optional input.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from onnx import ModelProto, TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import dmlc.onnx

I64 = np.iinfo(np.int64)
I32 = np.iinfo(np.int32)
NAN = 0x7FC01234  # a quiet NaN with a payload
SNAN = 0xFFA00001  # a negative signaling NaN
INT64, INT32, FLOAT = TensorProto.INT64, TensorProto.INT32, TensorProto.FLOAT


class K:
    """An initializer: a constant operand."""

    def __init__(self, a: Any, dtype: Any = None) -> None:
        self.a = np.asarray(a, dtype)


def f32(*shape: int, signaling: bool = True) -> np.ndarray:
    """Float data 1, 2, 3... but -0.0 first, then a quiet NaN with a payload, then (unless not
    `signaling`) a signaling NaN (a 0-d one: the quiet NaN)."""
    if not shape:
        return np.array(NAN, np.uint32).view(np.float32)
    a = np.arange(math.prod(shape), dtype=np.float32) + 1
    bits = a.view(np.uint32)
    for k, b in enumerate([0x80000000, NAN, SNAN if signaling else NAN][:a.size]):
        bits[k] = b
    return a.reshape(shape)


def ints(*shape: int, dtype: Any = np.int64) -> np.ndarray:
    """Integer data with the type's extremes first, then 1, 2, 3..."""
    info = np.iinfo(dtype)
    a = np.arange(math.prod(shape), dtype=dtype) + 1
    a[:2] = [info.min, info.max][:a.size]
    return a.reshape(shape)


def idx(values: Any, dtype: Any = np.int64) -> np.ndarray:
    return np.array(values, dtype)


def graph(nodes: list[Any], operands: dict[str, Any], outputs: list[str],
          opset: int = 18) -> tuple[Any, dict[str, np.ndarray]]:
    """A model of `nodes` whose operands are graph inputs (arrays) or initializers (K)."""
    feeds = {n: a for n, a in operands.items() if not isinstance(a, K)}
    inputs = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
              for n, a in feeds.items()]
    inits = [numpy_helper.from_array(a.a, n) for n, a in operands.items() if isinstance(a, K)]
    outs = [helper.make_tensor_value_info(n, TensorProto.UNDEFINED, None) for n in outputs]
    g = helper.make_graph(nodes, "edges", inputs, outs, inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]), feeds


def one(op: str, *operands: Any, opset: int = 18, outs: int = 1,
        **attrs: Any) -> tuple[Any, dict[str, np.ndarray]]:
    """A model of one node named 'n' of `op` on `operands`."""
    names = ["" if a is None else f"in{k}" for k, a in enumerate(operands)]
    out = [f"out{k}" for k in range(outs)]
    node = helper.make_node(op, names, out, name="n", **attrs)
    return graph([node], {n: a for n, a in zip(names, operands) if n}, out, opset)


def node(op: str, ins: list[str], out: str, **attrs: Any) -> Any:
    """A node named after its output."""
    return helper.make_node(op, ins, [out], name=out, **attrs)


def same_bits(got: np.ndarray, expected: Any, name: str = "") -> None:
    expected = np.asarray(expected)
    assert (got.dtype, got.shape) == (expected.dtype, expected.shape), name
    assert got.tobytes() == expected.tobytes(), (name, got, expected)


def judged_by(case: tuple[Any, dict[str, np.ndarray]], oracle: Any) -> tuple[Any, ...]:
    """`case`, its expected outputs the reference evaluator's for `oracle`: an equivalent model
    (same inputs and outputs) for where the evaluator departs from the ONNX spec."""
    return (*case, oracle)


def with_attrs(case: tuple[Any, dict[str, np.ndarray]], **attrs: Any) -> tuple[Any, ...]:
    """`case` judged by the reference evaluator on its model with `attrs` in place of its
    nodes' (an equivalent form, such as a non-negative axis, that the evaluator gets right)."""
    model = ModelProto()
    model.CopyFrom(case[0])
    for n in model.graph.node:
        kept = [a for a in n.attribute if a.name not in attrs]
        del n.attribute[:]
        n.attribute.extend([*kept, *(helper.make_attribute(k, v) for k, v in attrs.items())])
    return judged_by(case, model)


def check(case: tuple[Any, ...]) -> None:
    """dmlc's outputs are ONNX's reference evaluator's, bit for bit."""
    model, feeds = case[:2]
    expected = ReferenceEvaluator(case[2] if len(case) > 2 else model).run(None, feeds)
    with dmlc.onnx.load_program(model) as program:
        got = program.run(feeds)
    for out, e in zip(model.graph.output, expected):
        same_bits(got[out.name], e, out.name)
