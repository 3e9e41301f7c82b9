"""ONNX control flow and sequences, decided on the host: If, Loop, and the sequence ops.

dmlc compiles kernels ahead; it never branches on tensor data. An If's condition, a Loop's trip
count and condition must therefore be host values (shapes, constants, 0-d inputs): the branch or
the iterations they name run as subgraphs, whose nodes are converted as any other (their data
movement still runs as kernels, their views stay views). A sequence is a list of values on the
host (TorchScript's tensor_split is a Loop that fills one).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ValidationError
from ..ops.join import api as join_ops
from .values import Value, device_data, value

MAX_TRIPS = 1 << 16
"""The most iterations a Loop may run (its body's kernels run once each)."""


@dataclass
class Sequence:
    """An ONNX sequence: its elements, in order."""

    items: list[Value]


Values = dict[str, Any]
"""Names to Values (or Sequences, or None for absent optional inputs)."""
RunNodes = Callable[[Any, Values], None]
"""Runs a subgraph's nodes (its outputs' dependencies) into the values given."""


def where(node: Any, opset: int) -> str:
    return f"onnx {node.op_type} node {node.name or node.output[0]!r} (opset {opset})"


def host_scalar(node: Any, opset: int, field: str, v: Value | None, what: str) -> Any:
    """A host value's one element (an If's condition, a Loop's trip count)."""
    if v is None or not (v.on_host or v.given is not None):
        raise ValidationError(where(node, opset), field, f"{what} computed from shapes, "
                              "constants or 0-d inputs (dmlc decides control flow on the host)",
                              "one that depends on tensor data")
    flat = np.asarray(v.host()).reshape(-1)
    if flat.size != 1:
        raise ValidationError(where(node, opset), field, "one element", flat.size)
    return flat[0]


def _graph(node: Any, name: str) -> Any:
    return next(a.g for a in node.attribute if a.name == name)


def _with_initializers(graph: Any, values: Mapping[str, Any]) -> Values:
    import onnx
    inner = dict(values)
    for t in graph.initializer:
        inner[t.name] = value(onnx.numpy_helper.to_array(t), t.name)
    return inner


def if_node(node: Any, opset: int, values: Values, run: RunNodes) -> list[Any]:
    """If: the branch its host condition names, run as a subgraph seeing the values around
    it."""
    flag = host_scalar(node, opset, "cond", values[node.input[0]], "a condition")
    graph = _graph(node, "then_branch" if bool(flag) else "else_branch")
    inner = _with_initializers(graph, values)
    run(graph, inner)
    return [inner[o.name] for o in graph.output]


def loop_node(node: Any, opset: int, values: Values, run: RunNodes) -> list[Any]:
    """Loop: the body run for each iteration its host trip count and condition allow, the
    loop-carried values threaded through, each scan output stacked along a new first axis."""
    trips_in = values[node.input[0]] if node.input[0] else None
    cond_in = values[node.input[1]] if len(node.input) > 1 and node.input[1] else None
    trips = (int(host_scalar(node, opset, "M", trips_in, "a trip count"))
             if trips_in is not None else None)
    going = bool(host_scalar(node, opset, "cond", cond_in, "a condition")) \
        if cond_in is not None else True
    if trips is None and cond_in is None:
        raise ValidationError(where(node, opset), "M, cond", "a trip count or a condition",
                              "neither (an endless loop)")
    carried = [values[n] for n in node.input[2:]]
    body = _graph(node, "body")
    scans: list[list[Any]] = [[] for _ in body.output[1 + len(carried):]]
    k = 0
    while going and (trips is None or k < trips):
        if k >= MAX_TRIPS:
            raise ValidationError(where(node, opset), "iterations", f"at most {MAX_TRIPS}",
                                  "more")
        inner = _with_initializers(body, values)
        counter, cond_name, *state = [i.name for i in body.input]
        inner[counter] = value(np.array(k, np.int64), counter)  # a scalar, as ONNX says
        inner[cond_name] = value(np.array(going), cond_name)
        inner.update(zip(state, carried))
        run(body, inner)
        outs = [inner[o.name] for o in body.output]
        going = bool(host_scalar(node, opset, "cond (the body's)", outs[0], "a condition"))
        carried = outs[1:1 + len(carried)]
        for scan, out in zip(scans, outs[1 + len(carried):]):
            scan.append(out)
        k += 1
    return carried + [_stacked(node, opset, scan) for scan in scans]


def _stacked(node: Any, opset: int, items: list[Value]) -> Value:
    """A scan output: the iterations' values along a new first axis."""
    if not items:
        raise ValidationError(where(node, opset), "scan outputs", "at least one iteration",
                              "none (their element shape is unknown)")
    return _concat([Value(v.data.reshape((1, *v.shape)), v.logical) for v in items], 0)


def _concat(items: list[Value], axis: int) -> Value:
    if all(v.on_host for v in items):
        return Value(np.concatenate([v.data for v in items], axis), items[0].logical)
    return Value(join_ops.join([device_data(v) for v in items], axis=axis), items[0].logical)


def _position(node: Any, opset: int, values: Values, k: int, length: int, default: int,
              insert: bool = False) -> int:
    """Input k as a position in a sequence of `length` (negative counts from the back; an
    insertion may name the end)."""
    v = values[node.input[k]] if len(node.input) > k and node.input[k] else None
    pos = default if v is None else int(host_scalar(node, opset, "position", v, "a position"))
    top = length if insert else length - 1
    if not -length <= pos <= top:
        raise ValidationError(where(node, opset), "position", f"a position in [{-length}, "
                              f"{top}]", pos)
    return pos + length if pos < 0 else pos


def sequence_node(node: Any, opset: int, values: Values, attrs: dict[str, Any]) -> list[Any]:
    """The sequence ops: lists of values on the host."""
    op = node.op_type
    seq = values[node.input[0]] if node.input and node.input[0] else None
    if op == "SequenceEmpty":
        return [Sequence([])]
    if op == "SequenceConstruct":
        return [Sequence([values[n] for n in node.input])]
    assert isinstance(seq, Sequence), f"{op}: a sequence first"
    n = len(seq.items)
    if op == "SequenceLength":
        return [value(np.array(n, np.int64), node.output[0])]
    if op == "SequenceAt":
        return [seq.items[_position(node, opset, values, 1, n, 0)]]
    if op == "SequenceInsert":
        pos = _position(node, opset, values, 2, n, n, insert=True)
        return [Sequence(seq.items[:pos] + [values[node.input[1]]] + seq.items[pos:])]
    if op == "SequenceErase":
        pos = _position(node, opset, values, 1, n, -1)
        return [Sequence(seq.items[:pos] + seq.items[pos + 1:])]
    # ConcatFromSequence
    axis = int(attrs["axis"])
    if attrs.get("new_axis", 0):
        rank = len(seq.items[0].shape) + 1
        axis %= rank
        items = [Value(v.data.reshape(v.shape[:axis] + (1,) + v.shape[axis:]), v.logical)
                 for v in seq.items]
        return [_concat(items, axis)]
    return [_concat(seq.items, axis % len(seq.items[0].shape))]


SEQUENCE_OPS = {"SequenceEmpty", "SequenceConstruct", "SequenceLength", "SequenceAt",
                "SequenceInsert", "SequenceErase", "ConcatFromSequence"}
CONTROL_OPS = {"If", "Loop", *SEQUENCE_OPS}
