"""Invalid-input fuzzing of the descriptors: hypothesis takes a valid descriptor of each operator
and replaces one to three of its fields (the operator's own and its tensors') with garbage:
wrong types, wrong lengths, zero, negative and huge numbers, other data types, mismatched
tensors. Building, validating, lowering, optimizing and generating code then either succeeds or
raises a dmlc error: never another exception. No Vulkan needed (glslang is not run)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.strategies import budget, random_bits

import dmlc
import reference as ref
import reference_layout as rl
import reference_nd
import reference_scatternd
from dmlc import ExpressionDesc, GatherDesc, GatherElementsDesc, ScatterDesc, Slice1Desc, TensorDesc
from dmlc.codegen import glsl
from dmlc.compiled import build_program
from dmlc.dtypes import DataType
from dmlc.ir.interp import run_program
from dmlc.ops.expression import tree as expr
from reference import assert_bits_equal

EXAMPLES = 400  # per operator; HYPOTHESIS_PROFILE=thorough multiplies the budget

F32, I64 = DataType.FLOAT32, DataType.INT64


def t(sizes, dtype=F32, **kw) -> TensorDesc:
    return TensorDesc(data_type=dtype, sizes=sizes, **kw)


VALID = {
    "gather": GatherDesc(input=t((4, 5)), indices=t((1, 3), DataType.INT32), axis=1,
                         index_dimensions=1),
    "gather_elements": GatherElementsDesc(input=t((4, 5)), indices=t((2, 5), I64), axis=0),
    "scatter": ScatterDesc(input=t((4, 5), DataType.UINT8), indices=t((4, 2), DataType.UINT32),
                           updates=t((4, 2), DataType.UINT8), axis=1),
    "slice": Slice1Desc(input=t((6, 7), DataType.FLOAT16), offsets=(1, 0), sizes=(4, 7),
                        strides=(2, -3)),
    "expression": ExpressionDesc(
        name="Y", index_vars=("i", "j"),
        body=expr.Load("X", (expr.Var("j"), expr.Load("I", (expr.Var("i"),)))),
        tensors=(("X", t((3, 4))), ("I", t((5,), DataType.INT32))), output=None),
    "join": dmlc.JoinDesc(inputs=(t((2, 3)), t((4, 3))), axis=0),
    "split": dmlc.SplitDesc(input=t((5, 3)), outputs=(t((2, 3)), t((3, 3))), axis=0),
    "tile": dmlc.TileDesc(input=t((2, 3), DataType.INT16), repeats=(2, 1)),
    "padding": dmlc.PaddingDesc(input=t((3, 4)), mode="DML_PADDING_MODE_REFLECTION",
                                start_padding=(1, 2), end_padding=(2, 0), value=0),
    "depth_to_space": dmlc.DepthToSpaceDesc(input=t((1, 8, 2, 3)), block_size=2,
                                            order="DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH"),
    "space_to_depth": dmlc.SpaceToDepthDesc(input=t((1, 2, 4, 6)), block_size=2),
    "gather_nd": dmlc.GatherND1Desc(input=t((2, 3, 4)), indices=t((2, 1, 2), I64),
                                    batch_dimension_count=1),
    "one_hot": dmlc.OneHotDesc(indices=t((4, 1), DataType.INT32), values=t((1, 2)),
                               output=t((4, 5)), axis=1),
    "reverse": dmlc.ReverseSubsequencesDesc(input=t((4, 3)), sequence_lengths=t((1, 3), I64),
                                            axis=0),
    "identity": dmlc.IdentityDesc(input=t((3, 4), strides=(1, 3))),
    "slice0": dmlc.SliceDesc(input=t((6, 7)), offsets=(1, 0), sizes=(2, 3), strides=(2, 3)),
    "slice_grad": dmlc.SliceGradDesc(input_gradient=t((2, 3)), output_gradient=t((6, 7)),
                                     offsets=(1, 0), sizes=(4, 7), strides=(2, -3)),
    "scatter_nd": dmlc.ScatterNDDesc(input=t((4, 5)), indices=t((3, 1), I64),
                                     updates=t((3, 5)), input_dimension_count=2,
                                     indices_dimension_count=2, reduction="add"),
}

NUMBERS = st.one_of(st.integers(-3, 12), st.sampled_from([0, -1, 2**31 - 1, 2**31, 2**32, 2**40,
                                                          2**63, -(2**63), 2**64]),
                    st.floats(allow_nan=True, allow_infinity=True), st.booleans())
LISTS = st.one_of(st.lists(NUMBERS, max_size=10), st.lists(NUMBERS, max_size=10).map(tuple),
                  st.lists(st.integers(1, 6), min_size=1, max_size=9).map(tuple))
GARBAGE = st.one_of(NUMBERS, LISTS, st.none(), st.text(max_size=4), st.sampled_from(list(DataType)),
                    st.sampled_from(["FLOAT32", "INT8", "float", "COMPLEX64", b"x", object(), {},
                                     iter([1, 2]), range(3)]))


NAMES = st.one_of(st.sampled_from(["i", "j", "k", "X", "I", "Q", "", "1x"]), GARBAGE)
LEAVES = st.one_of(st.builds(expr.Const, NUMBERS), st.builds(expr.Var, NAMES))
TREES = st.recursive(LEAVES, lambda c: st.one_of(
    st.builds(expr.Add, c, c), st.builds(expr.Mul, c, NUMBERS),
    st.builds(expr.FloorDiv, c, NUMBERS), st.builds(expr.Mod, c, NUMBERS),
    st.builds(expr.Load, NAMES, st.lists(c, max_size=3).map(tuple)),
    st.builds(expr.IndexValue, st.builds(expr.Load, NAMES, st.lists(c, max_size=2).map(tuple)),
              NUMBERS)), max_leaves=8)
LOADS = st.builds(expr.Load, st.sampled_from(["X", "I", "Y"]),
                  st.lists(TREES, max_size=3).map(tuple))
CONDITIONS = st.recursive(
    st.builds(expr.Compare, TREES, st.sampled_from([*expr.COMPARISONS, "=<", None]), TREES),
    lambda c: st.builds(expr.And, c, c), max_leaves=3)
LITERALS = st.builds(expr.Literal, st.one_of(st.sampled_from(
    ["0", "-0.0", "nan", "inf", "0x7F", "1e400", "1.5", "-129", "abc", ""]), GARBAGE))
BODIES = st.recursive(st.one_of(LOADS, LITERALS), lambda c: st.builds(
    expr.Select, CONDITIONS, c, c), max_leaves=4)


def tensors(base: TensorDesc):
    """A tensor with one field replaced by garbage, or another valid-looking tensor."""
    field = st.sampled_from(["data_type", "sizes", "strides", "total_bytes"])
    garbled = st.builds(lambda f, v: (f, v), field, GARBAGE)
    other = st.builds(lambda sizes, dt: ("__tensor__", (sizes, dt)),
                      st.lists(st.integers(1, 6), min_size=1, max_size=9).map(tuple),
                      st.sampled_from(list(DataType)))
    return st.one_of(garbled, other).map(lambda fv: _rebuild(base, *fv))


def _rebuild(base: TensorDesc, field: str, value):
    if field == "__tensor__":
        sizes, dtype = value
        return lambda: TensorDesc(data_type=dtype, sizes=sizes)
    return lambda: dataclasses.replace(base, **{field: value})


def perturbed(name: str):
    base = VALID[name]
    names = [f.name for f in dataclasses.fields(base)]

    @st.composite
    def build(draw):
        changes = {}
        for field in draw(st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True)):
            current = getattr(base, field)
            if isinstance(current, TensorDesc) or (field == "output" and draw(st.booleans())):
                changes[field] = draw(tensors(current or t((4, 5))))
            elif field == "tensors" and draw(st.booleans()):  # one named tensor garbled
                tname, make_t = draw(st.sampled_from(["X", "I"])), draw(tensors(t((3, 4))))
                changes[field] = (lambda tn=tname, mk=make_t: tuple(
                    (n, mk() if n == tn else d) for n, d in base.tensors))
            else:
                value = draw(BODIES if field == "body" and draw(st.booleans()) else GARBAGE)
                changes[field] = (lambda v=value: v)
        return lambda: dataclasses.replace(base, **{f: make() for f, make in changes.items()})
    return build()


def compile_without_glslang(desc) -> None:
    _, program = build_program(desc, dump_after=set())
    for k in program.kernels:
        glsl.render_glsl(k, program)


def _check(make) -> None:
    try:
        compile_without_glslang(make())
    except dmlc.ValidationError as e:  # names the operator, the field, expected and actual
        assert e.operator and e.field and "expected" in str(e) and "got" in str(e), str(e)


def _ids(shape, dim: int, dtype=np.int32) -> np.ndarray:
    """Indices into an axis of `dim`: in range, negative, and out of range both ways."""
    lo = -dim - 2 if np.dtype(dtype).kind == "i" else 0
    return np.random.default_rng(dim).integers(lo, dim + 2, shape).astype(dtype)


def _bits(shape, dtype=np.float32, seed: int = 1) -> np.ndarray:
    return random_bits(seed, shape, np.dtype(dtype))


def _one_hot(i: np.ndarray, values: np.ndarray) -> np.ndarray:
    return reference_nd.one_hot(i.reshape(4), values.reshape(2), 5, 1)


def _slice_grad(dy: np.ndarray) -> np.ndarray:
    out = np.zeros((6, 7), dy.dtype)
    out[np.ix_([1, 3], [6, 3, 0])] = dy  # rows 1 + 2k of [1, 5), columns 6 - 3k of [0, 7)
    return out


def _expression(x: np.ndarray, i: np.ndarray) -> np.ndarray:
    rows = np.array([ref.clamp_index(v, 4, True) for v in i.tolist()])
    return x[:, rows].T  # Y[i, j] = X[j, I[i]] (a loaded index: from the end, clamped)


BASES = {  # each valid base: its arrays (the program's inputs, in order) and numpy's answer
    "gather": ((_bits((4, 5)), _ids((1, 3), 5)), lambda x, i: ref.gather(x, i, 1, 1)),
    "gather_elements": ((_bits((4, 5)), _ids((2, 5), 4, np.int64)),
                        lambda x, i: ref.gather_elements(x, i, 0)),
    "scatter": ((_bits((4, 5), np.uint8), _ids((4, 2), 5, np.uint32), _bits((4, 2), np.uint8, 2)),
                lambda x, i, u: ref.scatter(x, i, u, 1)),
    "slice": ((_bits((6, 7), np.float16),), lambda x: ref.slice1(x, [1, 0], [4, 7], [2, -3])),
    "expression": ((_bits((3, 4)), _ids((5,), 4)), _expression),
    "join": ((_bits((2, 3)), _bits((4, 3), seed=2)), lambda a, b: np.concatenate([a, b])),
    "split": ((_bits((5, 3)),), lambda x: x),  # both pieces, one after the other: x itself
    "tile": ((_bits((2, 3), np.int16),), lambda x: np.tile(x, (2, 1))),
    "padding": ((_bits((3, 4)),), lambda x: np.pad(x, [(1, 2), (2, 0)], mode="reflect")),
    "depth_to_space": ((_bits((1, 8, 2, 3)),), lambda x: rl.depth_to_space(x, 2, False)),
    "space_to_depth": ((_bits((1, 2, 4, 6)),), lambda x: rl.space_to_depth(x, 2, True)),
    "gather_nd": ((_bits((2, 3, 4)), _ids((2, 1, 2), 3, np.int64)),
                  lambda x, i: reference_nd.gather_nd(x, i, 1)),
    "one_hot": ((_ids((4, 1), 5), _bits((1, 2))), _one_hot),
    "reverse": ((_bits((4, 3)), _ids((1, 3), 4, np.int64)),
                lambda x, n: reference_nd.reverse_subsequences(x, n, 0)),
    "identity": ((_bits((12,)),), lambda x: x.reshape(4, 3).T),  # strides (1, 3)
    "slice0": ((_bits((6, 7)),), lambda x: x[1:4:2, 0:7:3]),
    "slice_grad": ((_bits((2, 3)),), _slice_grad),
    "scatter_nd": ((_bits((4, 5)), _ids((3, 1), 4, np.int64), _bits((3, 5), seed=2)),
                   lambda x, i, u: reference_scatternd.scatter_nd(x, i, u, 2, "add")),
}


@pytest.mark.parametrize("name", sorted(VALID))
def test_every_valid_base_compiles_to_numpys_answer(name):
    """Each base the fuzzing perturbs compiles (GLSL too) and its program, in the IR
    interpreter, gives numpy's answer bit for bit on random bits and wild indices."""
    compile_without_glslang(VALID[name])
    arrays, numpys = BASES[name]
    _, program = build_program(VALID[name], dump_after=set())
    want = numpys(*arrays)
    got = run_program(program, *arrays).view(want.dtype)
    assert got.size == want.size, (got.size, want.shape)
    assert_bits_equal(got.reshape(want.shape), np.ascontiguousarray(want))


def _fuzz(name: str):
    @settings(max_examples=budget(EXAMPLES))
    @given(perturbed(name))
    def run(make):
        _check(make)
    run()


def test_fuzz_gather():
    _fuzz("gather")


def test_fuzz_gather_elements():
    _fuzz("gather_elements")


def test_fuzz_scatter():
    _fuzz("scatter")


def test_fuzz_slice():
    _fuzz("slice")


def test_fuzz_expression():
    _fuzz("expression")


@pytest.mark.parametrize("name", [n for n in VALID if n not in (
    "gather", "gather_elements", "scatter", "slice", "expression")])
def test_fuzz_operator_family(name):
    _fuzz(name)
