"""The planner (passes/planner.py): one place decides how a kernel's items map onto invocations,
by one cost model (passes/cost.py); the rewriting passes carry its plan out and decide nothing;
`dmlc compile --emit plan` prints what it weighed. No Vulkan needed."""
from __future__ import annotations

from pathlib import Path

import pytest

import dmlc
from dmlc.cli import main
from dmlc.compiled import build_program
from dmlc.family.registry import LowerContext, lower, rules_of, validate
from dmlc.ir import Op
from dmlc.ir.verify import verify_program
from dmlc.passes.cost import bound
from dmlc.passes.pipeline import env_names, run_generic_pipeline, run_pipeline
from dmlc.passes.planner import BOUNDED, MIN_ITEMS, STRIDE_MIN_ITEMS, describe, moves_blocks
from dmlc.target import resolve

GATHER = Path(__file__).resolve().parent.parent / "examples/seeds/gather_2_concatenate_rows.dml"
SYMBOLIC = Path(__file__).resolve().parent.parent / "examples/embedding_batch_symbolic.dml"


PASSES_ON = pytest.mark.skipif(bool(env_names("DMLC_DISABLE_PASSES")),
                               reason="what the planner chooses among the passes' candidates")


def T(dtype: str, sizes: tuple[int, ...], strides: tuple[int, ...] | None = None):
    return dmlc.TensorDesc(data_type=dtype, sizes=sizes, strides=strides)


def transposed_slice(n: int) -> dmlc.Slice1Desc:  # the bench's, rows::2 of a transposed input
    return dmlc.Slice1Desc(input=T("FLOAT32", (n, n), (1, n)), offsets=(0, 0), sizes=(n, n),
                           strides=(2, 1))


CASES = {
    "transposed slice": transposed_slice(256),
    "row gather": dmlc.GatherDesc(input=T("FLOAT32", (1024, 64)), indices=T("INT32", (1, 1024)),
                                  axis=0, index_dimensions=1),
    "padding": dmlc.PaddingDesc(input=T("FLOAT32", (16, 64, 64)),
                                mode="DML_PADDING_MODE_REFLECTION", start_padding=(0, 2, 2),
                                end_padding=(0, 2, 2)),
    "strided slice": dmlc.Slice1Desc(input=T("FLOAT32", (1 << 20,)), offsets=(0,),
                                     sizes=(1 << 20,), strides=(16,)),
    "space_to_depth CRD": dmlc.SpaceToDepthDesc(
        input=T("FLOAT32", (1, 16, 128, 128)), block_size=2,
        order="DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH"),
    "scatter by lines": dmlc.ScatterDesc(input=T("FLOAT32", (512, 512)),
                                         indices=T("INT32", (512, 512)),
                                         updates=T("FLOAT32", (512, 512)), axis=0),
}


def pipeline(desc, disabled: set[str]):
    return run_pipeline(lower(validate(desc), LowerContext(resolve("cpu"))), dump_after=set(),
                        disabled=disabled)


@pytest.mark.parametrize("name", CASES)
def test_the_kernels_are_their_plans_carried_out(name):
    """Each kernel carries out its piece of the plan: the item map's items per invocation, its
    stride, vectors where the plan moves vectors, branches where it says so."""
    _, program = build_program(CASES[name], dump_after=set(), target="cpu")
    for k in program.kernels:
        piece = k.planned
        assert piece is not None and k.schedule is not None and k.plan is not None
        assert k.unrolled == piece.items.count and k.schedule.stride == piece.stride
        nodes = [n for e in k.effects for n in e.toposort()]
        if k.plan.chosen.vector > 1:
            assert any(n.op is Op.VSTORE for n in nodes)
        assert bool(k.schedule.branches) == (piece.branches and any(
            n.op is Op.WHERE and n.dtype.value == "vec16" for n in nodes))


@PASSES_ON
@pytest.mark.parametrize("name,chosen", [
    ("transposed slice", "8 x 16 bands"),  # a register transpose: every load a vector
    ("row gather", "vectors of 4; 8 consecutive"),
    ("strided slice", "one item, 4 a workgroup apart"),  # 8 consecutive measured slower
    ("space_to_depth CRD", "8 x 4 interleaved"),
    ("padding", "columns [4, 64): 5 consecutive"),  # a partition's 15 vectors a row, 5 at once
    ("scatter by lines", "16 consecutive"),
])
def test_the_cost_model_makes_the_measured_choices(name, chosen):
    _, program = build_program(CASES[name], dump_after=set(), target="cpu")
    assert any(chosen in str(k.plan.chosen) for k in program.kernels if k.plan), describe(program)


@PASSES_ON
def test_describe_weighs_every_candidate_and_names_the_winner():
    _, program = build_program(CASES["padding"], dump_after=set(), target="cpu")
    text = describe(program)
    plan = program.kernels[0].plan
    assert plan is not None and text.startswith(f"kernel padding ({plan.items} items): ")
    candidates = [o for o in plan.considered if o.note == "candidate" and o.cost]
    assert min(candidates, key=lambda o: o.cost.total).what == str(plan.chosen)  # type: ignore
    assert "(not weighed: vectors are proven)" in text and "(candidate)" in text
    for o in plan.considered:  # a map not built cannot have cost less than the winner
        if o.note == BOUNDED:
            assert o.cost is not None and o.cost.total > 0


def test_a_bound_is_no_more_than_the_cost():
    from dmlc.ir.mapping import CONSECUTIVE, ItemMap, Piece
    from dmlc.passes.cost import cost, locality
    from dmlc.passes.unroll import unroll_kernel
    program = pipeline(CASES["row gather"], {"all"})
    k = program.kernels[0]
    for m in (ItemMap(CONSECUTIVE, 8), ItemMap(CONSECUTIVE, 2)):
        built = unroll_kernel(k, program, m, frozenset())
        assert built is not None
        piece = Piece(None, m)
        assert bound(k, piece).total <= cost([(built, piece)], locality(k, 64, 16)).total


@PASSES_ON
@pytest.mark.parametrize("name", ["padding", "transposed slice", "row gather", "bench"])
def test_a_build_stopped_part_way_costs_no_less_than_its_floor(name, monkeypatch):
    """A candidate the planner stops building (planner.PRUNED) costs, built whole, at least the
    floor its first copies gave (cost.Floor), with and without branches, and the plans are the
    ones of a planner that builds every candidate whole."""
    from dmlc.bench.cases import suite
    from dmlc.passes import cost, planner, unroll
    from dmlc.passes.cost import Locality

    def plans(program):
        return [(str(k.plan.chosen), k.plan.cost) for k in program.kernels if k.plan]

    descs = ([c.descriptor for c in suite(True) if "pad" in c.name or "transpose" in c.name]
             if name == "bench" else [CASES[name]])
    stopped = []

    def checked(d, p, m, rules, over=None):
        try:
            return unroll.unrolled(d, p, m, rules, over)
        except unroll.Exceeded as stop:
            built = unroll.unrolled(d, p, m, rules)
            assert built is not None
            counts = [cost._per_item(built, branches, False, Locality({}))
                      for branches in (False, True)]
            least = min(sum(cost.WEIGHTS[k] * x for k, x in c.items()) for c in counts)
            assert least >= stop.floor * (1 - 1e-9), (m, least, stop.floor)
            stopped.append(m)
            raise
    for desc in descs:
        unroll.clear_memo()
        monkeypatch.setattr(planner, "unrolled", checked)
        pruned = pipeline(desc, set())
        monkeypatch.setattr(planner, "unrolled",
                            lambda d, p, m, rules, over=None: unroll.unrolled(d, p, m, rules))
        whole = pipeline(desc, set())
        assert plans(pruned) == plans(whole)
        assert any(o.note == planner.PRUNED for k in pruned.kernels if k.plan
                   for o in k.plan.considered) == bool(stopped)
    assert stopped or name in ("transposed slice", "row gather"), "none was stopped part way"


def test_disabled_passes_leave_their_candidates_out():
    for disabled, absent in (({"tile"}, ("bands", "strips")), ({"vectorize"}, ("vectors of",)),
                             ({"unroll"}, ("consecutive", "interleaved"))):
        program = pipeline(CASES["transposed slice"] if "tile" in disabled else CASES["padding"],
                           disabled)
        text = describe(program)
        assert not any(word in line for line in text.splitlines() for word in absent
                       if "not proven" not in line), text
    program = pipeline(CASES["padding"], {"all"})
    assert [str(k.plan.chosen) for k in program.kernels if k.plan] == [
        "elements; one item, 4 a workgroup apart"]


def test_small_kernels_keep_one_item_per_invocation():
    desc = dmlc.GatherDesc(input=T("FLOAT32", (64, 64)), indices=T("INT32", (1, 64)), axis=0,
                           index_dimensions=1)
    assert 64 * 64 < MIN_ITEMS
    _, program = build_program(desc, dump_after=set(), target="cpu")
    (k,) = program.kernels
    assert k.unrolled == 1 and "fewer than MIN_ITEMS" in describe(program)


def test_compile_emits_the_plan(capsys):
    assert main(["compile", str(GATHER), "--emit", "plan"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("kernel gather (") and "considered:" in out and "cost per item" in out


def test_compile_emits_a_generic_kernels_form_and_push_words(capsys):
    """A symbolic unit's plan says which generic kernel runs (the form the compile cache
    counts) and its push-constant words: each word's range and what reads it."""
    dmlc.clear_cache()
    assert main(["compile", str(SYMBOLIC), "--emit", "plan"]) == 0
    out = capsys.readouterr().out
    head, words = out.splitlines()[0], out.splitlines()[1:]
    form = head.split("(")[1].split(")")[0]
    assert head.startswith("generic kernel (") and "uint32 words in order" in head
    assert any(f" {form} #" in key for key in dmlc.cache_info()["generic"]), (form, out)
    count = int(head.split("push constants, ")[1].split()[0])
    assert [w.split(":")[0].strip() for w in words[:count]] == [f"word {i}" for i in
                                                                range(count)]
    assert "items of kernel gather" in out and "elements of output" in out
    assert "index arithmetic" in out and "considered:" in out


def test_generic_blocks_of_vectors_run_one_item_per_invocation():
    """A generic kernel whose item stores BLOCK_VECTORS vectors (row blocks: the split's
    vector variant, the gather's blocks) is not strided; a generic gather of rows of vectors
    by one vector an item (its "rows" variant) keeps its stride of 4."""
    split = dmlc.SplitDesc(input=T("FLOAT32", (4096, 4096)), axis=1, outputs=tuple(
        T("FLOAT32", (4096, n)) for n in (1024, 2048, 1024)))
    gather = dmlc.GatherDesc(input=T("FLOAT32", (65536, 256)), indices=T("INT32", (1, 65536)),
                             axis=0, index_dimensions=1)
    strides = {}
    for name, desc, variant in (("split", split, "vector"), ("gather", gather, "blocks"),
                                ("gather rows", gather, "rows")):
        rules = rules_of(validate(desc)).generic
        dims = (rules.always or rules.free)(validate(desc))  # what "always" makes dynamic
        generic = rules.build(validate(desc), dims, variant)
        program = run_generic_pipeline(verify_program(generic.program))
        (k,) = program.kernels
        assert k.count is not None and k.items >= STRIDE_MIN_ITEMS
        strides[name] = (k.schedule.stride, moves_blocks(k))
    assert strides == {"split": (1, True), "gather": (1, True), "gather rows": (4, False)}
