"""Runtime divisors by magic numbers (passes/divisors.py): the words the host pushes give every
quotient the shaders take exactly (GLSL's multiply-high and WGSL's, built of 16-bit halves),
the pass names the divisors that fit the push words, and codegen spells the multiply only for
those."""
from __future__ import annotations

import numpy as np
import pytest

from dmlc.codegen.glsl import render_glsl
from dmlc.dtypes import DataType
from dmlc.ir import Buffer, Kernel, Program
from dmlc.ir import build as b
from dmlc.ir.kernel import division_magic, push_values
from dmlc.ir.verify import MAX_PARAMS
from dmlc.passes.divisors import magic_divisors
from dmlc.passes.pipeline import run_generic_pipeline

MASK = np.uint64(0xFFFFFFFF)


def shader_quotient(n: np.ndarray, d: int) -> np.ndarray:
    """dmlc_divide (shaders/dmlc_helpers.glsl) in 32-bit unsigned arithmetic, as the shader
    computes it: umulExtended's high word, a wrapping add, a shift."""
    m, s = division_magic(d)
    n = n.astype(np.uint64)
    hi = (n * np.uint64(m)) >> np.uint64(32)
    return ((hi + n) & MASK) >> np.uint64(s)


def wgsl_quotient(n: np.ndarray, d: int) -> np.ndarray:
    """dmlc_divide of shaders/dmlc_helpers.wgsl: the high word of n * m from 16-bit halves,
    every step wrapped to 32 bits as WGSL's u32 arithmetic wraps."""
    m, s = division_magic(d)
    n, m = n.astype(np.uint64), np.uint64(m)
    lo16, hi16, w = np.uint64(0xFFFF), np.uint64(16), lambda x: x & MASK
    low = w((n & lo16) * (m & lo16))
    cross1, cross2 = w((n >> hi16) * (m & lo16)), w((n & lo16) * (m >> hi16))
    middle = w((low >> hi16) + (cross1 & lo16) + (cross2 & lo16))
    high = w(w((n >> hi16) * (m >> hi16)) + (cross1 >> hi16) + (cross2 >> hi16)
             + (middle >> hi16))
    return w(high + n) >> np.uint64(s)


def _dividends(d: int, rng: np.random.Generator) -> np.ndarray:
    """Every n below 4096, the multiples of d and their neighbours up to 2**31, the largest
    dividends, and random ones."""
    top = (1 << 31) - 1
    k = np.unique(np.concatenate([np.arange(1, 4096), rng.integers(1, top // d + 2, 4096)]))
    near = (k[:, None] * d + np.array([-1, 0, 1])).ravel()
    n = np.concatenate([np.arange(4096), near, np.arange(top - 4096, top + 1),
                        rng.integers(0, top, 1 << 14)])
    return n[(n >= 0) & (n <= top)]


def _divisors(rng: np.random.Generator) -> list[int]:
    top = (1 << 31) - 1
    powers = [(1 << e) + k for e in range(1, 31) for k in (-1, 0, 1)]
    return sorted({*range(1, 600), *powers, top, top - 1, *rng.integers(1, top, 400).tolist()})


def test_magic_quotients_are_exact_for_every_dividend_a_shader_divides():
    rng = np.random.default_rng(7)
    for d in _divisors(rng):
        n = _dividends(d, rng)
        np.testing.assert_array_equal(shader_quotient(n, d), n // d, err_msg=f"d = {d}")
        np.testing.assert_array_equal(wgsl_quotient(n, d), n // d, err_msg=f"WGSL, d = {d}")


def test_magic_words_fit_their_push_words():
    for d in (1, 2, 3, 7, 1000, (1 << 30) + 1, (1 << 31) - 1):
        m, s = division_magic(d)
        assert 1 <= m < 1 << 32 and 0 <= s <= 31
    for bad in (0, -3, 1 << 31):
        with pytest.raises(ValueError, match="divisor"):
            division_magic(bad)


def _program(params: int, divided: tuple[int, ...]) -> Program:
    """A generic program of `params` words: item i copies input[sum(i // p_w + i % p_w)] over
    the divided words w (the last word is the count of items)."""
    ps = [b.param(k, 1, 1000) for k in range(params)]
    inp = Buffer("input", DataType.INT32, 4000, "input")
    out = Buffer("output", DataType.INT32, 1000, "output", ps[-1])
    gid = b.item_id(1000)
    at = b.const(0)
    for w in divided:
        at = b.add(at, b.add(b.floordiv(gid, ps[w]), b.floormod(gid, ps[w])))
    value = b.load(inp, b.minimum(at, 3999))
    kernel = Kernel("k", 1000, (b.store(out, gid, value),), count=ps[-1])
    return Program("divided", (inp, out), (kernel,), ("input",), "output", (1000,),
                   params=tuple(ps))


def test_the_pass_names_the_divisors_in_word_order_and_the_host_pushes_their_magic():
    p = magic_divisors(_program(4, (2, 0)), frozenset())
    assert p.divisors == (0, 2) and p.push_words == 8
    assert push_values(p, (3, 5, 7, 9)) == (3, 5, 7, 9, *division_magic(3), *division_magic(7))


def test_divisors_past_the_push_words_divide_plainly():
    p = magic_divisors(_program(MAX_PARAMS - 3, (0, 1, 2)), frozenset())
    assert p.divisors == (0,) and p.push_words == MAX_PARAMS - 1
    q = magic_divisors(_program(MAX_PARAMS, (0,)), frozenset())
    assert q.divisors == ()


def test_codegen_multiplies_by_pushed_divisors_only(monkeypatch):
    monkeypatch.delenv("DMLC_DISABLE_PASSES", raising=False)
    p = run_generic_pipeline(_program(3, (0, 1)))
    glsl = render_glsl(p.kernels[0], p)
    assert p.divisors == (0, 1) and f"uint p[{p.push_words}]" in glsl
    assert glsl.count("dmlc_divide(gid, dmlc_p.p[3], dmlc_p.p[4])") == 2
    assert "/ int(dmlc_p.p[" not in glsl and "% int(dmlc_p.p[" not in glsl
    monkeypatch.setenv("DMLC_DISABLE_PASSES", "magic_divisors")
    plain = run_generic_pipeline(_program(3, (0, 1)))
    glsl = render_glsl(plain.kernels[0], plain)
    assert plain.divisors == () and "dmlc_divide(" not in glsl.split("void main")[1]
    assert "gid / int(dmlc_p.p[0])" in glsl
