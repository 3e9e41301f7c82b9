"""DML_SCATTER_ND, deterministic whatever the device: the two lowerings of DML_SCATTER
(lower/scatter.py), with index tuples.

An update row b (one index tuple) fills a slice of S = prod(input sizes after the k indexed
dimensions) elements; update element u = b * S + s goes to the input element whose indexed
coordinates are tuple b's and whose slice coordinates are s's. Two updates collide only when
their tuples are equal, and then they share s. So:
  Lines (CPU target, 32/64-bit data; and in place): one line per slice position s, walking the
    tuples b = 0, 1, ... in order and storing each kept update; later rows overwrite earlier
    ones, lines write disjoint elements. A KV-cache update in place is this kernel alone.
  Vote (otherwise): per update u, winner[target] = max(winner[target], u + 1) atomically; per
    output element, the winner's update or the original (and winner reset to 0).
Either way the last update in row-major order of `updates` wins; a tuple with a coordinate
out of range (after negative ones count from the end) is dropped.
"""
from __future__ import annotations

import math

from ...dtypes import DataType
from ...family.lowering import address, tensor_buffer, unflatten
from ...family.tensor import TensorDesc
from ...ir import Buffer, Kernel, Node, Program
from ...ir import build as b
from ...ir.verify import MAX_STEPS
from . import elements
from .desc import ScatterNDDesc


def rows_and_slice(desc: ScatterNDDesc) -> tuple[int, int]:
    """(number of index tuples, elements each update row fills)."""
    first, k = desc.first_indexed, desc.tuple_size
    return desc.indices.element_count // k, math.prod(desc.input.sizes[first + k:])


def target_of(desc: ScatterNDDesc, b_idx: Buffer, row: Node, s: Node,
              layout: TensorDesc | None = None) -> tuple[Node, Node]:
    """The output address (in `layout`, default the output's) of update row `row`, slice
    position `s`, and whether it is kept (every coordinate of the tuple in range)."""
    inp, idx, out = desc.input, desc.indices, desc.output
    assert out is not None, "validate() first"
    out = layout or out
    first, k = desc.first_indexed, desc.tuple_size
    row_coords = unflatten(row, idx.sizes[:-1])
    coords: list[Node] = [b.const(0)] * first
    keep: Node | None = None
    for j in range(k):
        raw = b.load(b_idx, address([*row_coords, b.const(j)], idx))
        i = b.index(raw, inp.sizes[first + j], "mask")
        coords.append(b.maximum(i, 0))
        ok = b.not_equal(i, -1)
        keep = ok if keep is None else b.logical_and(keep, ok)
    coords += unflatten(s, inp.sizes[first + k:])
    assert keep is not None, "k >= 1"
    return address(coords, out), keep


def lower_scatter_nd(desc: ScatterNDDesc, target: str = "gpu") -> Program:
    """By lines on a CPU target where the lines allow it, else by vote."""
    out = desc.output
    assert out is not None, "validate() first"
    rows, lines = rows_and_slice(desc)
    if (target == "cpu" and out.data_type.bits >= 32 and rows <= MAX_STEPS
            and lines >= elements.LINES_MIN):
        return lower_scatter_nd_lines(desc)
    return lower_scatter_nd_vote(desc)


def lower_scatter_nd_in_place(desc: ScatterNDDesc) -> Program:
    """The scatter with the data tensor as its output (inputs: indices and updates only; the
    data tensor may be any view: scatter.in_place_layout)."""
    desc = elements.in_place_layout(desc)
    rows, lines = rows_and_slice(desc)
    if rows <= MAX_STEPS and (lines >= elements.LINES_MIN or rows <= elements.IN_PLACE_SHORT):
        return lower_scatter_nd_lines(desc, in_place=True)
    return lower_scatter_nd_vote(desc, in_place=True)


def _program(desc: ScatterNDDesc, buffers: tuple[Buffer, ...], kernels: tuple[Kernel, ...],
             in_place: bool) -> Program:
    out = desc.output
    assert out is not None, "validate() first"
    if in_place:
        return Program("scatter_nd_in_place", buffers, kernels, ("indices", "updates"),
                       "output", out.sizes)
    return Program("scatter_nd", buffers, kernels, ("input", "indices", "updates"), "output",
                   out.sizes)


def lower_scatter_nd_lines(desc: ScatterNDDesc, in_place: bool = False) -> Program:
    inp, idx, upd, out = desc.input, desc.indices, desc.updates, desc.output
    assert out is not None, "validate() first"
    rows, lines = rows_and_slice(desc)
    b_in, b_idx = tensor_buffer("input", inp, "input"), tensor_buffer("indices", idx, "input")
    b_upd, b_out = tensor_buffer("updates", upd, "input"), tensor_buffer("output", out, "output")

    s, row = b.item_id(lines), b.step_id(rows)
    target, keep = target_of(desc, b_idx, row, s)
    value = b.load(b_upd, address(unflatten(b.add(b.mul(row, lines), s), upd.sizes), upd))
    if out.data_type.bits < 32:  # other lines may own the word's other elements
        store = b.atomic_store(b_out, target, value, pred=keep)
    else:
        store = b.store(b_out, target, value, pred=keep)
    k_lines = Kernel("scatter_nd_lines", lines, (store,), steps=rows)
    if in_place:
        return _program(desc, (b_idx, b_upd, b_out), (k_lines,), True)
    t = b.item_id(out.element_count)
    copy = b.store(b_out, t, b.load(b_in, address(unflatten(t, out.sizes), inp)))
    k_copy = Kernel("scatter_nd_copy", out.element_count, (copy,))
    return _program(desc, (b_in, b_idx, b_upd, b_out), (k_copy, k_lines), False)


def lower_scatter_nd_vote(desc: ScatterNDDesc, in_place: bool = False) -> Program:
    inp, idx, upd, out = desc.input, desc.indices, desc.updates, desc.output
    assert out is not None, "validate() first"
    rows, lines = rows_and_slice(desc)
    n_upd, n_out = upd.element_count, out.element_count
    b_idx, b_out = tensor_buffer("indices", idx, "input"), tensor_buffer("output", out, "output")
    b_upd = tensor_buffer("updates", upd, "input")
    # in place, the output holds the original (its own element: read before it is written)
    b_in, inp = (b_out, out) if in_place else (tensor_buffer("input", inp, "input"), inp)
    b_win = Buffer("winner", DataType.UINT32, n_out, "scratch")

    u = b.item_id(n_upd)
    row_s = unflatten(u, (rows, lines))
    # winners by element, not address (a view's addresses may span far more than its elements)
    element = out if out.is_packed else TensorDesc(data_type=out.data_type, sizes=out.sizes)
    target, keep = target_of(desc, b_idx, row_s[0], row_s[1], element)
    k_vote = Kernel("scatter_nd_vote", n_upd,
                    (b.atomic_max(b_win, target, b.add(u, 1), pred=keep),))

    t = b.item_id(n_out)
    w = b.clamp(b.bits(b.load(b_win, t)), 0, n_upd)
    update = b.load(b_upd, address(unflatten(b.maximum(b.sub(w, 1), 0), upd.sizes), upd))
    original = b.load(b_in, address(unflatten(t, out.sizes), inp))
    k_resolve = Kernel("scatter_nd_resolve", n_out, (
        elements.store_at(out, b_out, t, b.where(b.not_equal(w, 0), update, original)),
        b.store(b_win, t, b.const_data(DataType.UINT32, 0)),
    ))
    buffers = (b_idx, b_upd, b_out, b_win) if in_place else (b_in, b_idx, b_upd, b_out, b_win)
    return _program(desc, buffers, (k_vote, k_resolve), in_place)
