"""An ONNX graph run by dmlc: inputs checked against their declared shapes, nodes converted in
order (compiler/onnx/ops.py), results on the device until the graph's outputs are read.

Static shapes only: an input's dimensions come from the array the caller passes, and must match
the ones the graph fixes; a symbolic dimension (`dim_param`) takes the caller's size, the same
in every input that names it. A node dmlc has no converter for is an error naming the node, its
op type and opset; so is any error a node's kernels raise.

Constants (initializers and Constant nodes) are read once, at load; the kernels that read them
get device copies kept between runs (resident.py) until `release()`.
"""
from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..dynamic import sizes_vary
from ..errors import IndexOutOfRangeError, ValidationError
from . import arith, control, ops_layout, ops_nd  # noqa: F401  (converters register)
from .arith import ARITH_OPS
from .ops import OPS, OnnxNode
from .resident import Resident, reading
from .values import Value, finished, uploaded, value

DOMAINS = ("", "ai.onnx")
HOST_OPS = {"Add", "Sub", "Mul", "Div", "Mod", "Neg", "Abs", "Min", "Max", "Range", "Cast",
            "Equal", "Less", "Greater", "Where", "Not", "And", "Or", "ConstantOfShape", "Size",
            "ReduceProd", "ReduceSum"}
"""Arithmetic a graph does on shapes and other small constants: run on the host (by ONNX's
reference evaluator), never on tensor data (dmlc only moves data)."""
HOST_LIMIT = 1 << 16
"""Elements a host node may take in, all together."""
FOLDED = HOST_OPS | ARITH_OPS | {"Gather", "Concat", "NonZero"}
"""The nodes whose host values the host computes (shape arithmetic), by ONNX's reference
evaluator: arithmetic, the two moves shape arithmetic makes, which it makes exactly (numpy's
take and concatenate), and NonZero of a constant mask (x[[True, False, True]]). Any other node
runs its kernel, on host values too (the reference's Expand multiplies, its OneHot computes,
its Pad and GatherElements refuse what ONNX allows)."""
OUT_OF_SCOPE = {
    "NonZero": "its output's shape depends on the values: dmlc compiles every shape ahead",
    "Conv": "it computes on data; dmlc moves data", "MatMul": "it computes on data; dmlc "
    "moves data", "Gemm": "it computes on data; dmlc moves data"}
"""Why some common ops are refused (the refusal says so)."""


def needed(nodes: Sequence[Any], outputs: Sequence[str]) -> list[Any]:
    """The nodes the outputs depend on, in their order (an If's branches read names from
    around it: those count as its inputs)."""
    want, keep = set(outputs), []
    for node in reversed(list(nodes)):
        if any(o in want for o in node.output):
            keep.append(node)
            want.update(node.input)
            for attr in node.attribute:
                if attr.type == attr.GRAPH:
                    want.update(_outer_names(attr.g))
    return keep[::-1]


def _outer_names(graph: Any) -> set[str]:
    """The names a subgraph reads that it does not make itself."""
    made = {t.name for t in graph.initializer} | {i.name for i in graph.input}
    read: set[str] = set()
    for node in graph.node:
        read.update(i for i in node.input if i not in made)
        for attr in node.attribute:
            if attr.type == attr.GRAPH:
                read.update(_outer_names(attr.g) - made)
        made.update(node.output)
    return read


def _onnx() -> Any:
    try:
        import onnx
    except ImportError:
        raise ValidationError("dmlc.onnx", "onnx", "the onnx package (pip install "
                              "onnx, dmlc's onnx extra)", "not installed") from None
    return onnx


def load(model: Any) -> Any:
    """An onnx.ModelProto from a path, bytes, a ModelProto or a GraphProto (a graph alone is
    read at the newest opset this onnx package knows)."""
    onnx = _onnx()
    if isinstance(model, onnx.GraphProto):
        model = onnx.helper.make_model(model)
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        try:
            with open(path, "rb") as f:
                model = f.read()
        except OSError as e:
            raise ValidationError("dmlc.onnx", "model", "a readable .onnx file",
                                  f"{path}: {e.strerror}") from None
        return _parsed(onnx, model, path)
    if isinstance(model, (bytes, bytearray)):
        return _parsed(onnx, bytes(model), "the bytes given")
    if not isinstance(model, onnx.ModelProto):
        raise ValidationError("dmlc.onnx", "model", "a path, bytes, onnx.ModelProto or GraphProto",
                              type(model).__name__)
    return model


def _parsed(onnx: Any, data: bytes, what: str) -> Any:
    """A ModelProto from a file's bytes; a ValidationError (one line) if they are not one."""
    try:
        model = onnx.load_from_string(data)
    except Exception as e:  # protobuf's DecodeError, or anything its parser raises
        raise ValidationError("dmlc.onnx", "model", "an ONNX model (a serialized ModelProto)",
                              f"{what}: {type(e).__name__}: {str(e).splitlines()[0]}"
                              if str(e) else f"{what}: {type(e).__name__}") from None
    if not model.HasField("graph"):
        raise ValidationError("dmlc.onnx", "model", "an ONNX model with a graph",
                              f"{what}: no graph (not an ONNX file?)")
    return model


def dims_of(inp: Any) -> list[int | str | None]:
    """A graph input's declared dimensions: a size, a symbolic name (dim_param), or None
    (unknown); [] for a scalar or a tensor of undeclared shape."""
    t = inp.type.tensor_type
    return [d.dim_value if d.HasField("dim_value") else (d.dim_param or None)
            for d in t.shape.dim] if t.HasField("shape") else []


class OnnxProgram:
    """A loaded model, ready to run on the device: `program.run({name: array})`. Its constants
    stay on the device between runs: `release()` (or `with` the program) frees them now."""

    def __init__(self, model: Any) -> None:
        onnx = _onnx()
        self.model = load(model)
        graph = self.model.graph
        self.opset = next((o.version for o in self.model.opset_import if o.domain in DOMAINS),
                          onnx.defs.onnx_opset_version())
        self.constants = {t.name: value(onnx.numpy_helper.to_array(t), t.name)
                          for t in graph.initializer}
        self.inputs = [i for i in graph.input if i.name not in self.constants]
        self.outputs = [o.name for o in graph.output]
        self.nodes = needed(graph.node, self.outputs)
        """The nodes some output needs, in order (ONNX runtimes prune the others too)."""
        for node in self.nodes:
            self.check_node(node)
            if node.op_type == "Constant":
                self.constants[node.output[0]] = self.node(node, {})[0]
        self.symbolic = any(not isinstance(d, int) for i in self.inputs for d in dims_of(i))
        """Some input dimension is symbolic (dim_param) or unknown: its kernels are compiled
        generic from the first run (dynamic.sizes_vary), one compile for every size."""
        self.resident = Resident(v.data for v in self.constants.values())
        """The constants' device copies, made by the first run that reads them."""

    def check_node(self, node: Any) -> None:
        """Refuse, at load, a node dmlc has no converter for (those in If branches too)."""
        known = {*OPS, *HOST_OPS, *ARITH_OPS, *control.CONTROL_OPS, "Constant", "NonZero"}
        if node.domain not in DOMAINS or node.op_type not in known:
            op = f"{node.domain + '.' if node.domain else ''}{node.op_type}"
            why = OUT_OF_SCOPE.get(node.op_type)
            raise ValidationError(f"onnx {op} node {node.name or node.output[0]!r} (opset "
                                  f"{self.opset})", "op_type", "an op dmlc converts", op,
                                  why or "dmlc converts " + ", ".join(sorted(known)))
        for attr in node.attribute:  # an If's branches, a Loop's body
            if attr.type == attr.GRAPH:
                for inner in needed(attr.g.node, [o.name for o in attr.g.output]):
                    self.check_node(inner)

    def release(self) -> None:
        """Free the constants' device copies now (a later run makes them again)."""
        self.resident.release()

    def __enter__(self) -> OnnxProgram:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def signature(self) -> str:
        """The inputs as `name: dtype[dims]`, symbolic dimensions by name ("?" unknown)."""
        onnx = _onnx()
        parts = []
        for inp in self.inputs:
            elem = inp.type.tensor_type.elem_type
            dtype = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(elem)).name if elem else "?"
            dims = ", ".join("?" if d is None else str(d) for d in dims_of(inp))
            parts.append(f"{inp.name}: {dtype}[{dims}]")
        return ", ".join(parts)

    def check_inputs(self, given: Mapping[str, Any]) -> dict[str, Value]:
        """The caller's arrays by input name, each checked against the graph's declaration."""
        onnx = _onnx()
        names = [i.name for i in self.inputs]
        unknown = [n for n in given if n not in names and n not in self.constants]
        missing = [n for n in names if n not in given]
        if unknown or missing:
            raise ValidationError("onnx", f"input {(unknown or missing)[0]!r}",
                                  "an array for each of the model's inputs, by name: "
                                  + self.signature(), "no such input" if unknown else "none")
        out = {}
        symbols: dict[str, tuple[int, str, int]] = {}  # dim_param: (size, input, dimension)
        for inp in self.inputs:
            v = value(given[inp.name], f"input {inp.name}")
            t = inp.type.tensor_type
            if t.HasField("shape"):
                dims = t.shape.dim
                if len(dims) != len(v.shape):
                    raise ValidationError("onnx", f"input {inp.name!r} rank", len(dims),
                                          len(v.shape))
                for k, d in enumerate(dims):
                    if d.HasField("dim_value") and d.dim_value != v.shape[k]:
                        raise ValidationError("onnx", f"input {inp.name!r} dimension {k}",
                                              d.dim_value, v.shape[k])
                    if d.dim_param:
                        size, first, at = symbols.setdefault(d.dim_param,
                                                             (v.shape[k], inp.name, k))
                        if size != v.shape[k]:
                            raise ValidationError(
                                "onnx", f"input {inp.name!r} dimension {k} ({d.dim_param})",
                                f"{size}, the size input {first!r} gives {d.dim_param} "
                                f"(its dimension {at})", v.shape[k])
            want = onnx.helper.tensor_dtype_to_np_dtype(t.elem_type) if t.elem_type else None
            if want is not None and np.dtype(want) != v.logical:
                raise ValidationError("onnx", f"input {inp.name!r} dtype", str(np.dtype(want)),
                                      str(v.logical))
            out[inp.name] = uploaded(v, inp.name)
        return out

    def run(self, inputs: Mapping[str, Any] | Sequence[Any]) -> dict[str, np.ndarray]:
        """The graph's outputs (numpy arrays) for `inputs` (by name, or in input order)."""
        if not isinstance(inputs, Mapping):
            inputs = dict(zip((i.name for i in self.inputs), inputs))
        results = self.evaluate(self.check_inputs(inputs))
        return {name: v.host() for name, v in results.items()}

    def evaluate(self, feeds: Mapping[str, Value]) -> dict[str, Value]:
        """The graph's outputs as Values (device tensors, packed; or host arrays) for inputs
        that check_inputs() has checked and uploaded."""
        values: dict[str, Value | None] = {"": None, **self.constants, **feeds}
        with sizes_vary() if self.symbolic else contextlib.nullcontext():
            self.run_nodes(self.nodes, values)
            return {name: finished(values[name])  # type: ignore[arg-type]
                    for name in self.outputs}

    def run_nodes(self, nodes: Sequence[Any], values: dict[str, Value | None]) -> None:
        """Run nodes in order, their results added to `values`."""
        for node in nodes:
            if node.op_type == "Constant" and node.output[0] in self.constants:  # read at load
                values[node.output[0]] = self.constants[node.output[0]]
                continue
            for name, result in zip(node.output, self.node(node, values)):
                values[name] = result

    def subgraph(self, graph: Any, values: dict[str, Any]) -> None:
        """Run a subgraph (an If's branch, a Loop's body) into `values`."""
        self.run_nodes(needed(graph.node, [o.name for o in graph.output]), values)

    def node(self, node: Any, values: Mapping[str, Value | None]) -> list[Value]:
        onnx = _onnx()
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        attrs = {k: v.decode() if isinstance(v, bytes) else v for k, v in attrs.items()}
        if node.op_type == "Constant":
            (key,) = attrs
            return [value(onnx.numpy_helper.to_array(attrs[key]) if key == "value"
                          else np.asarray(attrs[key]), node.output[0])]
        if node.op_type in ("If", "Loop"):
            run = control.if_node if node.op_type == "If" else control.loop_node
            return run(node, self.opset, dict(values), self.subgraph)
        if node.op_type in control.SEQUENCE_OPS:
            return control.sequence_node(node, self.opset, dict(values), attrs)
        ins = [values[name] for name in node.input]
        present = [v for v in ins if v is not None]
        # constants and shapes, and 0-d graph inputs (a position, a length: parameters more
        # than data), move on the host, where the shape arithmetic after them reads them
        host = all(v.on_host or (v.given is not None and not v.shape) for v in present) \
            and sum(math.prod(v.shape) for v in present) <= HOST_LIMIT
        if host and node.op_type in FOLDED:  # shapes and small constants
            return self.on_host(node, ins)
        if node.op_type == "Size":  # of any tensor: its shape's
            return [value(np.array(math.prod(present[0].shape), np.int64), node.output[0])]
        if node.op_type in HOST_OPS and node.op_type not in ARITH_OPS:  # Range over a graph
            return self.on_host(node, ins)              # input's value, say: read it here
        if node.op_type == "NonZero":  # (only of host values: folded above)
            raise ValidationError(f"onnx NonZero node {node.name or node.output[0]!r} (opset "
                                  f"{self.opset})", "input", "a constant or a shape",
                                  "tensor data", OUT_OF_SCOPE["NonZero"])
        n = OnnxNode(node.name or node.output[0], node.op_type, self.opset,
                 {**attrs, "_outputs": len(node.output)}, ins)
        on_device = any(v is not None and not v.on_host for v in ins)
        try:
            with reading(self.resident if on_device else None):
                if node.op_type in ARITH_OPS:  # index arithmetic on tensor data: fused
                    return arith.convert(n, ins)
                return OPS[node.op_type](n)
        except (ValidationError, IndexOutOfRangeError) as e:
            where = f"onnx {node.op_type} node {n.name!r} (opset {self.opset})"
            if not str(e).startswith(where):  # what the node's kernels refused, placed
                e.args = (f"{where}: {e}",)
            raise

    def on_host(self, node: Any, ins: list[Value | None]) -> list[Value]:
        """A node of shape arithmetic, evaluated on the host by ONNX's reference evaluator."""
        onnx = _onnx()
        from onnx.reference import ReferenceEvaluator
        where = f"onnx {node.op_type} node {node.name or node.output[0]!r}"
        unread = [v for v in ins if v is not None and not (
            v.on_host or v.given is not None or v.computed)]
        if unread:
            raise ValidationError(where, "inputs", "values computed from shapes, constants or "
                                  "the graph's inputs (dmlc computes only on shapes and small "
                                  "constants on the host)", f"{unread[0].logical.name} data "
                                  "a kernel computed")
        total = sum(math.prod(v.shape) for v in ins if v is not None)
        if total > HOST_LIMIT:
            raise ValidationError(where, "inputs", f"at most {HOST_LIMIT} elements (dmlc "
                                  "moves data; it computes only on shapes and small "
                                  "constants)", total)
        names = [n or "" for n in node.input]
        graph = onnx.helper.make_graph(
            [node], "host", [onnx.helper.make_tensor_value_info(n, 0, None) for n in names if n],
            [onnx.helper.make_tensor_value_info(n, 0, None) for n in node.output])
        model = onnx.helper.make_model(graph, opset_imports=[
            onnx.helper.make_opsetid("", self.opset)])
        feeds = {n: v.host() for n, v in zip(names, ins) if n and v is not None}
        return [value(r, where) for r in ReferenceEvaluator(model).run(None, feeds)]
