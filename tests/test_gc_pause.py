"""The cyclic collector is off during a compile, and as it was after (compiler/ir/gc_pause.py)."""
import gc

import dmlc
from dmlc.compiled import compile_program
from dmlc.ir.gc_pause import gc_paused

T = dmlc.TensorDesc


def test_nested_pauses_restore_the_collector() -> None:
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer compile still runs
    assert gc.isenabled()


def test_a_collector_turned_off_stays_off() -> None:
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_lowering_runs_without_the_collector(monkeypatch) -> None:
    from dmlc import compiled
    seen: list[bool] = []
    lower = compiled.lower

    def recording(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(gc.isenabled())
        return lower(*args, **kwargs)

    monkeypatch.setattr(compiled, "lower", recording)
    desc = dmlc.GatherDesc(input=T(data_type="FLOAT32", sizes=(64, 32)),
                           indices=T(data_type="INT32", sizes=(1, 5)), axis=0,
                           index_dimensions=1)
    compile_program(desc, target="cpu", spirv_cache=False)
    assert seen == [False]
    assert gc.isenabled()
