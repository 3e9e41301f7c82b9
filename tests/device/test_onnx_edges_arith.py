"""Integer index arithmetic on tensor data (compiler/onnx/arith.py) against ONNX's reference
evaluator, bit for bit: every elementwise node on int32 and int64 operands (graph inputs, and
an input with an initializer) at the types' edges (wrapping, truncating Div, Mod's two signs,
Abs and Neg of the minimum, casts that wrap); bools (Not, And, Or, Xor, Where, comparisons);
and the arithmetic exporters put in front of gathers, scatters and one-hots, through views.
"""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto

import dmlc
import dmlc.onnx
from onnx_edges import INT32, INT64, K, check, f32, graph, idx, node, one

pytestmark = pytest.mark.vulkan
P = pytest.param
BOOL, FLOAT = TensorProto.BOOL, TensorProto.FLOAT


def operands(dtype):
    """Two operands at the type's edges: no zero divisor, no minimum / -1 (undefined)."""
    lo, hi = np.iinfo(dtype).min, np.iinfo(dtype).max
    a = np.array([hi, lo, 7, -7, 7, -7, 0, -1, lo, 5], dtype)
    b = np.array([2, 3, 2, 2, -2, -2, 5, 4, hi, 5], dtype)
    return a, b


BINARY = [("Add", {}), ("Sub", {}), ("Mul", {}), ("Div", {}), ("Mod", {}), ("Mod", {"fmod": 1}),
          ("Min", {}), ("Max", {}), ("Equal", {}), ("Less", {}), ("Greater", {}),
          ("LessOrEqual", {}), ("GreaterOrEqual", {})]


def elementwise():
    for dtype in (np.int32, np.int64):
        a, b = operands(dtype)
        t = np.dtype(dtype).name
        for op, attrs in BINARY:
            tag = f"{op}{'-fmod' if attrs else ''}-{t}"
            yield P(one(op, a, b, **attrs), id=f"{tag}-inputs")
            yield P(one(op, a, K(b), **attrs), id=f"{tag}-input-and-constant")
        for op in ("Neg", "Abs"):
            yield P(one(op, a), id=f"{op}-{t}")
        yield P(one("Max", a, b, K(np.array(0, dtype))), id=f"Max-three-{t}")
        yield P(one("Add", a.reshape(-1, 1), b.reshape(1, -1)), id=f"Add-broadcast-{t}")
        yield P(one("Mul", a, K(np.arange(10, dtype=dtype))), id=f"Mul-by-a-range-{t}")
        yield P(one("Where", a < b, a, b), id=f"Where-{t}")
        yield P(graph([node("Less", ["a", "b"], "c"), node("Where", ["c", "a", "b"], "m")],
                      {"a": a, "b": b}, ["m"]), id=f"Where-of-Less-{t}")


WIDE = idx([2**40 + 5, -1, 2**31, -(2**31) - 1, np.iinfo(np.int64).min, 2**32 + 1])
TT, TF = np.array([True, True, False, False]), np.array([True, False, True, False])
CASTS = [
    P(graph([node("Cast", ["x"], "n", to=INT32), node("Cast", ["n"], "w", to=INT64)],
            {"x": WIDE}, ["n", "w"]), id="cast-int64-int32-int64-wraps"),
    *(P(one("Cast", np.array([-1, 255, 256, -129, 2**31 - 1, 0], np.int32), to=to),
        id=f"cast-int32-to-{name}")
      for name, to in [("uint8", TensorProto.UINT8), ("int8", TensorProto.INT8),
                       ("uint64", TensorProto.UINT64), ("uint16", TensorProto.UINT16),
                       ("bool", BOOL)]),
    P(one("Cast", TF, to=INT32), id="cast-bool-to-int32"),
    P(one("Cast", TF, to=FLOAT), id="cast-bool-to-float"),
    P(graph([node("Equal", ["a", "b"], "e"), node("Cast", ["e"], "h", to=TensorProto.FLOAT16)],
            {"a": idx([1, 2, 3]), "b": idx([1, 0, 3])}, ["h"]), id="cast-equal-to-float16"),
]
LOGIC = [
    P(one("Not", TF), id="not"),
    P(one("And", TT, TF), id="and"),
    P(one("Or", TT, TF), id="or"),
    P(one("Xor", TT, K(TF)), id="xor-with-constant"),
    P(one("Equal", TT, TF), id="equal-bools"),
    P(one("Where", TF, TT, np.array([False])), id="where-bools-broadcast"),
    P(one("Not", np.array(True)),
      id="not-0d-input"),
    P(graph([node("Gather", ["v", "zero"], "s"), node("Add", ["s", "one"], "t")],
            {"v": idx([41, 5]), "zero": K(idx(0)), "one": K(idx(1))}, ["t"]),
      id="add-0d-device"),
    P(one("Add", idx(np.zeros((0, 3))), K(idx(1))), id="add-empty"),
]


def gathered(nodes, opset=18, **operands):
    """Nodes computing indices, then their reader, whose output is g; x is f32(6, 4) unless
    given."""
    if any("x" in n.input for n in nodes):
        operands.setdefault("x", f32(6, 4))
    return graph(nodes, operands, ["g"], opset)


I = idx([-3, 0, 3, -1])  # indices into 6 rows
ADD1 = node("Add", ["i", "one"], "j")
FEEDS = [
    P(gathered([ADD1, node("Gather", ["x", "j"], "g")], i=I, one=K(idx(1))),
      id="gather-add-1"),
    P(gathered([ADD1, node("Gather", ["x", "j"], "g")], i=I.astype(np.int32),
               one=K(np.int32(1))), id="gather-add-1-int32"),
    P(gathered([ADD1, node("Gather", ["x", "j"], "g")], i=K(I), one=K(idx(1))),
      id="gather-add-1-constant-indices"),
    P(gathered([node("Mod", ["i", "n"], "j"), node("GatherElements", ["x", "j"], "g", axis=1)],
               i=idx([[-1, -5], [7, 2], [0, -4]] * 2), n=K(idx(4))), id="gather-elements-mod"),
    P(gathered([node("Mod", ["i", "n"], "j"), node("GatherElements", ["x", "j"], "g", axis=1)],
               i=idx([[-1, 9]] * 6, np.int32), n=K(np.int32(-4))),
      id="gather-elements-mod-negative-divisor"),
    P(gathered([node("Mul", ["r", "stride"], "m"), node("Add", ["m", "c"], "k"),
                node("Gather", ["flat", "k"], "g")],
               flat=f32(12), r=idx([0, 1, 2, 2]), c=idx([3, 0, -1, -9]), stride=K(idx(4))),
      id="gather-flat-row-times-stride-plus-column"),
    P(gathered([node("Unsqueeze", ["r", "minus1"], "u"), node("Mul", ["u", "stride"], "m"),
                node("Add", ["m", "cols"], "k"), node("Gather", ["flat", "k"], "g")],
               flat=f32(12), r=idx([2, 0]), minus1=K([-1]), stride=K(idx(4)),
               cols=K(np.arange(4))), id="gather-flat-rows-plus-a-range"),
    P(gathered([node("Unsqueeze", ["i", "minus1"], "u"), node("Range", ["zero", "d", "one"], "r"),
                node("Equal", ["u", "r"], "e"), node("Cast", ["e"], "g", to=FLOAT)],
               i=idx([2, 0, 4, -1]), minus1=K([-1]), zero=K(idx(0)), d=K(idx(4)),
               one=K(idx(1))), id="one-hot-by-equal-range-cast"),
    P(gathered([node("Unsqueeze", ["i", "minus1"], "u"), node("Range", ["zero", "d", "one"], "r"),
                node("Equal", ["u", "r"], "e"), node("Cast", ["e"], "c", to=INT64),
                node("Cast", ["c"], "g", to=FLOAT)],
               i=idx([2, 0, 3], np.int32), minus1=K([-1]), zero=K(np.int32(0)),
               d=K(np.int32(4)), one=K(np.int32(1))), id="one-hot-by-equal-cast-cast"),
    P(gathered([node("Mod", ["i", "three"], "j"), node("OneHot", ["j", "three", "v"], "g")],
               i=idx([-1, 4, 2]), three=K(idx(3)), v=K(np.float32([0.5, -2.0]))),
      id="one-hot-node-of-mod"),
    P(gathered([ADD1, node("Unsqueeze", ["j", "minus1"], "k"),
                node("ScatterND", ["x", "k", "u"], "g")],
               i=idx([-2, 3]), one=K(idx(1)), minus1=K([-1]), u=-f32(2, 4)),
      id="scatter-nd-add-1"),
    P(gathered([node("Mod", ["i", "four"], "j"), node("ScatterElements", ["x", "j", "u"], "g",
                                                       axis=1)],
               i=idx([[-1, 5]] * 6), four=K(idx(4)), u=-f32(6, 2)), id="scatter-elements-mod"),
    P(gathered([node("Mod", ["i", "m"], "j"), node("GatherND", ["x", "j"], "g")],
               i=idx([[-1, -1], [7, 9], [2, 4]]), m=K([6, 4])), id="gather-nd-mod"),
    P(gathered([ADD1, node("Transpose", ["j"], "t"), node("Gather", ["x", "t"], "g")],
               i=idx([[0, 1, 2], [-1, -2, -6]]), one=K(idx(1))), id="gather-transposed"),
    P(gathered([ADD1, node("Reshape", ["j", "s"], "t"), node("Gather", ["x", "t"], "g")],
               i=I, one=K(idx(1)), s=K([2, 2])), id="gather-reshaped"),
    P(gathered([ADD1, node("Slice", ["j", "a", "b", "z", "st"], "t"),
                node("Gather", ["x", "t"], "g")], i=I, one=K(idx(1)), a=K([-1]),
               b=K([-1000]), z=K([0]), st=K([-2])), id="gather-sliced-backwards"),
    P(gathered([ADD1, node("Expand", ["j", "s"], "t"), node("Gather", ["x", "t"], "g", axis=1)],
               i=idx([[0, -1]]), one=K(idx(1)), s=K([3, 2])), id="gather-expanded"),
    P(gathered([ADD1, node("Squeeze", ["j"], "t"), node("Gather", ["x", "t"], "g")],
               i=idx([[2]]), one=K(idx(1))), id="gather-squeezed-to-0d"),
    P(gathered([node("Less", ["i", "zero"], "neg"), node("Add", ["i", "n"], "up"),
                node("Where", ["neg", "up", "i"], "j"), node("Gather", ["x", "j"], "g")],
               i=I, zero=K(idx(0)), n=K(idx(6))), id="gather-where-normalized"),
    P(gathered([node("Max", ["i", "zero"], "lo"), node("Min", ["lo", "top"], "j"),
                node("Gather", ["x", "j"], "g")],
               i=idx([-50, 2, 99]), zero=K(idx(0)), top=K(idx(5))), id="gather-clamped"),
    P(gathered([node("Div", ["i", "two"], "j"), node("Gather", ["x", "j"], "g")],
               i=idx([-7, -1, 5, -12]), two=K(idx(2))), id="gather-div-truncates"),
    P(gathered([node("Neg", ["i"], "j"), node("Gather", ["x", "j"], "g")], i=I), id="gather-neg"),
    P(gathered([node("Abs", ["i"], "j"), node("Gather", ["x", "j"], "g")], i=I), id="gather-abs"),
    P(gathered([node("Sub", ["top", "i"], "j"), node("Gather", ["x", "j"], "g")],
               i=idx([0, 1, 5]), top=K(idx(5))), id="gather-reversed"),
    P(gathered([node("Cast", ["i"], "n", to=INT32), node("Cast", ["n"], "j", to=INT64),
                node("Gather", ["x", "j"], "g")], i=idx([2**32 + 1, -(2**32) - 2, 3])),
      id="gather-cast-wraps-into-range"),
    P(gathered([node("Cast", ["i"], "j", to=INT32), node("Gather", ["x", "j"], "g")], i=I),
      id="gather-int32-computed"),
    P(gathered([node("Less", ["i", "zero"], "c"), node("Cast", ["c"], "j", to=INT64),
                node("Gather", ["x", "j"], "g")], i=I, zero=K(idx(0))), id="gather-by-a-bool"),
    P(graph([ADD1, node("Gather", ["x", "j"], "g")], {"x": f32(6, 4), "i": I, "one": K(idx(1))},
            ["j", "g"]), id="computed-is-an-output-too"),
    P(gathered([ADD1, node("Concat", ["j", "i"], "g", axis=0)], i=I, one=K(idx(1))),
      id="computed-into-concat"),
    P(gathered([node("Gather", ["i", "zero"], "s"), node("Add", ["s", "one"], "j"),
                node("Gather", ["x", "j"], "g", axis=1)], i=I, zero=K(idx(0)), one=K(idx(1))),
      id="gather-0d-computed-index"),
    P(gathered([ADD1, node("Gather", ["x", "j"], "g")], i=idx(np.zeros((0, 2))),
               one=K(idx(1))), id="gather-empty-computed"),
    P(gathered([node("Add", ["w", "one"], "j"),
                node("TensorScatter", ["x", "u", "j"], "g", mode="circular")],
               x=f32(2, 4, 3), w=idx([3, -1]), one=K(idx(1)), u=-f32(2, 2, 3), opset=24),
      id="tensor-scatter-computed-write-indices"),
    P(gathered([node("Mul", ["s", "one"], "t"), node("Reshape", ["x", "t"], "g")],
               s=idx([4, -1]), one=K(idx(1))), id="reshape-by-a-computed-shape"),
]
CASES = [*elementwise(), *CASTS, *LOGIC, *FEEDS]


@pytest.mark.parametrize("case", CASES)
def test_index_arithmetic_is_the_reference_bit_for_bit(case):
    check(case)


def test_a_computed_index_out_of_range_is_refused_naming_its_reader():
    model, feeds = gathered([ADD1, node("Gather", ["x", "j"], "g")], i=idx([0, 5]),
                            one=K(idx(1)))
    with pytest.raises(dmlc.IndexOutOfRangeError) as e:
        with dmlc.onnx.load_program(model) as program:
            program.run(feeds)
    assert str(e.value).startswith("onnx Gather node 'g' (opset 18)")


@pytest.mark.parametrize("case, words", [
    (one("Cast", f32(3), to=INT64), "does not convert numbers"),
    (one("Add", f32(3), K(np.float32(1))), "does not compute on floating-point data"),
    (one("Neg", f32(3)), "does not compute on floating-point data"),
])
def test_arithmetic_on_floats_is_refused_naming_the_node(case, words):
    model, feeds = case
    with pytest.raises(dmlc.ValidationError) as e:
        with dmlc.onnx.load_program(model) as program:
            program.run(feeds)
    assert str(e.value).startswith(f"onnx {model.graph.node[0].op_type} node 'n'")
    assert words in str(e.value)
