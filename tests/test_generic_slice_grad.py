"""DML_SLICE_GRAD's generic kernels without a device (docs/generic-kernels.md): bit for bit
the specialized kernel and an independent numpy reference over random sizes, offsets and
strides, every data type (the interpreter runs both); verify.py's proof for every admissible
size, the range edges, the key (the window's sizes in none: a negative stride's start is
pushed) and the `auto` policy's compile counts."""
from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from tests.slice_grad_calls import draw_call, draw_window, grad_desc, want_grad
from tests.strategies import random_bits

import dmlc
from dmlc import DataType
from dmlc.compiled import KERNELS
from dmlc.family.registry import rules_of
from dmlc.ir.printer import render_program
from dmlc.ir.verify import verify_program

DTYPES = list(DataType)  # 8/16-bit outputs too: stored by words (family/words.py)
F32 = DataType.FLOAT32


@given(st.data())
def test_generic_slice_grad_matches_specialized_and_numpy(data):
    """Every size dynamic, the offsets and strides (both signs, |stride| up to 3) fixed: three
    calls of random sizes (the window's too), the input gradient packed or a view of a wider
    owner; a packed one's calls share one generic kernel."""
    dtype = data.draw(st.sampled_from(DTYPES))
    offsets, strides = draw_window(data, data.draw(st.integers(1, 4)))
    room = data.draw(st.sampled_from([None, 1, 2]))
    dmlc.clear_cache()
    for _ in range(3):
        desc, arg, _, want = draw_call(data, dtype, offsets, strides, room)
        generic = dmlc.compile(desc, dynamic=True)
        assert generic.compiled.params
        special = dmlc.compile(desc, dynamic=False)
        got = generic.reference(arg)
        assert got.tobytes() == special.reference(arg).tobytes() == want.tobytes()
    if room is None:
        assert dmlc.cache_info()["compiles"]["DML_SLICE_GRAD generic"] == 1
    KERNELS.clear()


@given(st.data())
def test_generic_slice_grad_of_some_dynamic_dimensions(data):
    """dynamic= positions (the input gradient's i, the output's rank + i), one side of a
    dimension dynamic and not the other included; verify.py proves the program."""
    dtype = data.draw(st.sampled_from(DTYPES))
    offsets, strides = draw_window(data, data.draw(st.integers(1, 3)))
    desc, arg, _, want = draw_call(data, dtype, offsets, strides)
    dims = tuple(data.draw(st.sets(st.integers(0, 2 * len(offsets) - 1), min_size=1)))
    generic = dmlc.compile(desc, dynamic=dims)
    assert len(generic.compiled.params) >= len(dims)
    verify_program(rules_of(desc).generic.lower(desc, dims).program)
    assert generic.reference(arg).tobytes() == want.tobytes()
    KERNELS.clear()


def test_generic_slice_grad_range_edges():
    """Each size's range: 1 up to where int32 addresses reach, a negative stride's start up to
    the output's largest size - 1; one more is not admitted (that call compiles
    specialized)."""
    window = ((0, 2), (1, -3))

    def call(n: int, s: int = 5) -> dmlc.SliceGradDesc:
        return grad_desc(F32, (n, 9), window[0], (s, 6), window[1], (s, 2))
    desc = call(6)
    generic = rules_of(desc).generic.lower(desc, (0, 1, 2, 3))
    assert generic is not None
    verify_program(generic.program)
    params = generic.program.params
    hi = params[2].vmax  # the output's first size
    assert params[0].vmax == hi and (params[4].vmin, params[4].vmax) == (0, params[3].vmax - 1)
    assert generic.values(call(1, 1)) is not None
    assert generic.values(call(hi, hi)) is not None
    assert generic.values(call(hi + 1, hi + 1)) is None


def test_slice_grad_keys_leave_out_the_window_sizes():
    """Calls of one window at other sizes (a batch, the window's sizes with it) share a key at
    every dimension dynamic and lower to one program; a negative stride's start (offset + size
    - 1) is a push word, so its window's size is in no key either; other offsets (of a positive
    stride) or strides make another key."""
    base = grad_desc(F32, (6, 5), (1, 0), (4, 5), (2, -1), (2, 5))
    rules = rules_of(base).generic
    assert rules is not None
    every = tuple(range(6))
    seen: dict = {}
    for batch, (a, b) in itertools.product((1, 2, 5), ((4, 3), (7, 5))):
        desc = grad_desc(F32, (batch, a + 3, b + 2), (0, 1, 1), (batch, a, b), (1, 2, -1),
                         (batch, (a + 1) // 2, b))
        text = render_program(rules.lower(desc, every).program)
        assert seen.setdefault(rules.key(desc, every), text) == text
    assert len(seen) == 1
    others = [grad_desc(F32, (6, 5), (2, 0), (4, 5), (2, -1), (2, 5)),
              grad_desc(F32, (6, 5), (1, 0), (4, 5), (2, 1), (2, 5)),
              grad_desc(F32, (6, 5), (1, 0), (4, 5), (3, -1), (2, 5))]
    assert all(rules.key(o, (0, 1, 2, 3)) != rules.key(base, (0, 1, 2, 3)) for o in others)
    wide = grad_desc(F32, (6, 7), (1, 0), (4, 5), (2, -1), (2, 5))  # start 4
    moved = grad_desc(F32, (6, 7), (1, 2), (4, 5), (2, -1), (2, 5))  # start 6
    assert rules.key(moved, ()) == rules.key(wide, ())  # the start: a push word
    assert rules.moved(moved) != rules.moved(wide)


def _batch(n: int, width: int = 6) -> tuple[dmlc.SliceGradDesc, np.ndarray, np.ndarray]:
    """The gradient of x[:, 1::2] for x of [n, 2 * width + 1] (PyTorch's backward of a strided
    column slice over a varying batch)."""
    dy = random_bits(n, (n, width), np.dtype(np.float32))
    shape, offsets, sizes, strides = (n, 2 * width + 1), (0, 1), (n, 2 * width), (1, 2)
    desc = grad_desc(F32, shape, offsets, sizes, strides, dy.shape)
    return desc, dy, want_grad(dy, shape, offsets, sizes, strides)


def test_generic_slice_grad_auto_compiles_one_specialized_then_one_generic(monkeypatch):
    """The `auto` policy: the first batch specialized, the second one generic kernel, every
    later batch nothing."""
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")
    dmlc.clear_cache()
    counts = []
    for n in (4, 7, 1, 5, 12, 3):
        desc, dy, want = _batch(n)
        assert dmlc.compile(desc).reference(dy).tobytes() == want.tobytes()
        counts.append(dict(dmlc.cache_info()["compiles"]))
    assert counts[0] == {"DML_SLICE_GRAD": 1}
    assert counts[1] == counts[-1] == {"DML_SLICE_GRAD": 1, "DML_SLICE_GRAD generic": 1}
    KERNELS.clear()


def test_a_moving_negative_window_gets_one_generic_kernel(monkeypatch):
    """Same sizes, the start of a negative stride's window moving (its offset does): the second
    start compiles one generic kernel (no dimension dynamic, the start pushed), later ones
    nothing."""
    monkeypatch.setenv("DMLC_DYNAMIC", "auto")
    dmlc.clear_cache()
    dy = random_bits(3, (2, 3), np.dtype(np.int16))
    for k in (0, 3, 1, 6):
        args = ((2, 9), (0, k), (2, 3), (1, -1))
        desc = grad_desc(DataType.INT16, *args, dy.shape)
        assert dmlc.compile(desc).reference(dy).tobytes() == want_grad(dy, *args).tobytes()
    assert dmlc.cache_info()["compiles"] == {"DML_SLICE_GRAD": 1, "DML_SLICE_GRAD generic": 1}
    KERNELS.clear()
