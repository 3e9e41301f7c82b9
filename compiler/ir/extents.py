"""Proofs that an access stays inside a buffer of runtime extent (a generic kernel's tensor,
whose length is a push constant) for every admissible size: ir/verify.py's checks.

Two kinds. The forms the lowerings build, recognized as written: the item id of a kernel of
`extent` items (the shader's guard), an address clamped to the extent's last element, vector or
word. And fits(): an upper bound of the address that is an affine sum of terms (PARAMs, the
item id, any other node), below the extent, itself such a sum, by what their difference's
terms leave over their ranges once the terms both share cancel. The rule passes rewrite the
lowered forms under the PARAMs' ranges (a clamp min(x, p - 1) whose x never passes it becomes
x; (p - 1) * 2 becomes p * 2 - 2), and fits() proves what they leave.
"""
from __future__ import annotations

import functools
from collections.abc import Iterator
from itertools import islice

from .kernel import Kernel
from .ops import Node, Op

Affine = tuple[dict[Node, int], int]
"""sum(coefficient * term) + constant: exactly a node's value."""

FORMS = 16
"""Upper bounds tried per address at most (each MIN of a sum multiplies them)."""


def clear_memo() -> None:
    """Forget the nodes opened so far (affine, upper_bounds)."""
    affine.cache_clear()
    upper_bounds.cache_clear()


def fits(addr: Node, extent: Node, room: int, scale: int = 1) -> bool:
    """Whether scale * addr + room <= extent for every admissible size: for some upper bound
    of addr, extent minus it (scaled) and room is >= 0 over the ranges of the terms left."""
    if scale * addr.vmax + room <= extent.vmin:
        return True
    e_terms, e_const = affine(extent)
    for terms, const in upper_bounds(addr):
        diff = _plus(e_terms, terms, -scale)
        low = e_const - scale * const - room + sum(
            c * (t.vmin if c > 0 else t.vmax) for t, c in diff.items() if c)
        if low >= 0:
            return True
    return False


@functools.lru_cache(maxsize=1 << 14)
def affine(n: Node) -> Affine:
    """n as an affine sum: sums and products by a constant opened, any other node a term (nodes
    are interned: each is opened once; no caller changes what it gets)."""
    if n.op is Op.CONST:
        return {}, n.value
    if n.op is Op.ADD:
        (a, ca), (b, cb) = affine(n.src[0]), affine(n.src[1])
        return _plus(a, b), ca + cb
    if n.op is Op.MUL and (n.src[0].is_const or n.src[1].is_const):
        x, m = (n.src[1], n.src[0].value) if n.src[0].is_const else (n.src[0], n.src[1].value)
        terms, c = affine(x)
        return {t: k * m for t, k in terms.items()}, c * m
    return {n: 1}, 0


@functools.lru_cache(maxsize=1 << 14)
def upper_bounds(n: Node) -> tuple[Affine, ...]:
    """Affine sums each >= n for every value (the first, n itself): a MIN is at most each of its
    sources, (y // c) * c at most y (c > 0); sums and positive multiples of such bounds."""
    return tuple(islice(_bounds(n), FORMS))


def _bounds(n: Node) -> Iterator[Affine]:
    yield affine(n)
    if n.op is Op.MIN:  # each source as it is first, then their bounds
        yield from (affine(s) for s in n.src)
        for s in n.src:
            yield from islice(_bounds(s), 1, None)
    elif n.op is Op.ADD:
        rights = upper_bounds(n.src[1])
        for a, ca in upper_bounds(n.src[0]):
            for b, cb in rights:
                yield _plus(a, b), ca + cb
    elif n.op is Op.MUL and n.src[1].is_const and n.src[1].value > 0:
        m, x = n.src[1].value, n.src[0]
        if x.op is Op.FLOORDIV and x.src[1].is_const and x.src[1].value == m:
            yield from _bounds(x.src[0])  # (y // m) * m <= y
        for terms, c in _bounds(x):
            yield {t: k * m for t, k in terms.items()}, c * m


def _plus(a: dict[Node, int], b: dict[Node, int], k: int = 1) -> dict[Node, int]:
    """The terms of a + k * b (a new dict: the cached ones are never changed)."""
    terms = dict(a)
    for t, c in b.items():
        terms[t] = terms.get(t, 0) + k * c
    return terms


def within_extent(addr: Node, extent: Node, k: Kernel) -> bool:
    """Whether an address (>= 0) is below a buffer's runtime extent for every admissible size:
    clamped to it (min(x, extent - 1)), the item id of a kernel that runs exactly `extent`
    items (the shader's guard gid < count), or below it by fits()."""
    if addr is k.gid and k.count is extent:
        return True
    if addr.op is Op.MIN and any(bound.op is Op.ADD and bound.src[0] is extent
                                 and bound.src[1].is_const and bound.src[1].value == -1
                                 for bound in addr.src):
        return True  # as lowered: min(x, extent - 1)
    return fits(addr, extent, 1)


def vector_within_extent(addr: Node, extent: Node, width: int, k: Kernel) -> bool:
    """Whether the vector at `addr` (width elements) is inside a buffer's runtime extent for
    every admissible size: vector gid (addr = gid * width) of a kernel whose extent is its
    count of vectors (extent = count * width, the shader's guard gid < count), or a whole
    vector below it by fits() (min(x, c - 1) * width of an extent of c vectors: a block's
    vectors past the last all move the last vector)."""
    return (k.count is not None and _times(addr, k.gid, width)
            and _times(extent, k.count, width)) or fits(addr, extent, width)


def clamped_vector(addr: Node, extent: Node, width: int) -> bool:
    """A vector load clamped to the last vector that holds an element of a runtime extent:
    min(x // width, (extent - 1) // width) * width. It starts at or below element extent - 1
    and is aligned, so it ends inside the binding's whole 16-byte vectors (Buffer.words); the
    lanes past the extent are padding, which only a load may read. Or any aligned vector
    (verify checks the alignment) that starts below the extent by fits()."""
    inner = next((a for a, m in (addr.src, addr.src[::-1]) if m.is_const and m.value == width),
                 None) if addr.op is Op.MUL else None
    if inner is not None and inner.op is Op.MIN and any(
            _last_vector(bound, extent, width) for bound in inner.src):
        return True
    return fits(addr, extent, 1)


def clamped_word(addr: Node, extent: Node, lanes: int) -> bool:
    """A word store clamped to the last word that holds an element of a runtime extent:
    min(x, (extent - 1) // lanes). Its first element is then below the extent, so the word lies
    in the buffer's words for every admissible extent; its lanes past the extent are the
    padding of the last word (family/words.py: only an output that is a buffer of its own is
    stored by words, so that padding is no other tensor's). Or a word whose first element is
    below the extent by fits()."""
    return (addr.op is Op.MIN and any(_last_vector(bound, extent, lanes) for bound in addr.src)
            ) or fits(addr, extent, 1, lanes)


def _last_vector(n: Node, extent: Node, width: int) -> bool:
    """n is (extent - 1) // width."""
    if n.op is not Op.FLOORDIV or not (n.src[1].is_const and n.src[1].value == width):
        return False
    last = n.src[0]
    return (last.op is Op.ADD and last.src[0] is extent and last.src[1].is_const
            and last.src[1].value == -1)


def _times(n: Node, x: Node, c: int) -> bool:
    """n is x * c (either order)."""
    return n.op is Op.MUL and any(a is x and m.is_const and m.value == c
                                  for a, m in (n.src, n.src[::-1]))
