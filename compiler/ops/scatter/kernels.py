"""The kernels both scatters are made of. A scatter's updates lie on `lines` lines of `steps`
updates each, where every update that can reach one output element lies on one line:
DML_SCATTER's lines run along its axis (the other coordinates are the element's),
DML_SCATTER_ND's lines are the slice positions s of its update rows (update u = row * S + s,
and two rows collide only when their tuples are equal, and then they share s).

  copy     per output element t: output[t] = input[t];
  lines    per line, for step 0, 1, ... (one invocation's loop, in order): the update is stored
           at its target unless it is dropped (an index out of range). Later steps overwrite
           earlier ones, so the last update in row-major order wins every collision; lines
           write disjoint elements (8/16-bit ones that share a word: atomic and/or);
  vote     per update u: winner[target] = max(winner[target], u + 1), atomically, into a
           zeroed scratch buffer (one uint32 per output element; winners are counted by
           element, not address, so a view's addresses may span far more);
  resolve  per output element t: the winner's update, else the original, stored where the
           output's layout puts t; winner[t] = 0 again for the next call. Gather form: each
           element (and packed word) has one writer.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

from ...dtypes import DataType
from ...family.lowering import (
    Operand,
    address,
    operand,
    replace,
    store_at,
    tensor_buffer,
    unflatten,
)
from ...family.tensor import TensorDesc
from ...ir import Buffer, Kernel, Node, Program
from ...ir import build as b
from .desc import ScatterDesc, ScatterNDDesc

Scatter = ScatterDesc | ScatterNDDesc


def prefix(desc: Scatter) -> str:
    """Kernel and program names: scatter_..., scatter_nd_..."""
    return "scatter_nd" if isinstance(desc, ScatterNDDesc) else "scatter"


def rows_and_slice(desc: ScatterNDDesc) -> tuple[int, int]:
    """(number of index tuples, elements each update row fills)."""
    first, k = desc.first_indexed, desc.tuple_size
    return desc.indices.element_count // k, math.prod(desc.input.sizes[first + k:])


def lines_and_steps(desc: Scatter) -> tuple[int, int]:
    if isinstance(desc, ScatterNDDesc):
        rows, lines = rows_and_slice(desc)
        return lines, rows
    steps = desc.updates.sizes[desc.axis]
    return desc.updates.element_count // steps, steps


def tuple_target(desc: ScatterNDDesc, indices: Operand, row: Sequence[Node]
                 ) -> tuple[list[Node], Node]:
    """The indexed output coordinates of the index tuple at indices coordinates `row` (all
    but the tuple's own), each clamped to 0 where it is out of range, and whether every one is
    in range (specialized and generic kernels alike: `indices` says how to read)."""
    inp, first = desc.input, desc.first_indexed
    coords: list[Node] = []
    keep: Node | None = None
    for j in range(desc.tuple_size):
        i = b.index(indices.load([*row, b.const(j)]), inp.sizes[first + j], "mask")
        coords.append(b.maximum(i, 0))
        ok = b.not_equal(i, -1)
        keep = ok if keep is None else b.logical_and(keep, ok)
    assert keep is not None, "k >= 1"
    return coords, keep


def element_target(desc: ScatterDesc, indices: Operand, at: list[Node]
                   ) -> tuple[list[Node], Node]:
    """The output coordinates of the update at coordinates `at` (its index read there, clamped
    to 0 on the axis where it is out of range), and whether it is in range."""
    i = b.index(indices.load(at), desc.input.sizes[desc.axis], "mask")
    return replace(at, desc.axis, b.maximum(i, 0)), b.not_equal(i, -1)


def target_of(desc: ScatterNDDesc, b_idx: Buffer, row: Node, s: Node,
              layout: TensorDesc | None = None) -> tuple[Node, Node]:
    """The output address (in `layout`, default the output's) of update row `row`, slice
    position `s`, and whether it is kept (every coordinate of the tuple in range)."""
    inp, idx, out = desc.input, desc.indices, desc.output
    assert out is not None, "validate() first"
    first, k = desc.first_indexed, desc.tuple_size
    indexed, keep = tuple_target(desc, operand(idx, b_idx), unflatten(row, idx.sizes[:-1]))
    coords = [b.const(0)] * first + indexed + unflatten(s, inp.sizes[first + k:])
    return address(coords, layout or out), keep


def update(desc: Scatter, b_idx: Buffer, b_upd: Buffer, line: Node,
           step: Node) -> tuple[Node, Node, Node]:
    """(target address, kept, update value) of `step` along `line`."""
    upd, out = desc.updates, desc.output
    assert out is not None, "validate() first"
    if isinstance(desc, ScatterNDDesc):
        lines = rows_and_slice(desc)[1]
        target, keep = target_of(desc, b_idx, step, line)
        at = address(unflatten(b.add(b.mul(step, lines), line), upd.sizes), upd)
        return target, keep, b.load(b_upd, at)
    axis = desc.axis
    line_sizes = tuple(1 if d == axis else n for d, n in enumerate(upd.sizes))
    uc = replace(unflatten(line, line_sizes), axis, step)
    coords, keep = element_target(desc, operand(desc.indices, b_idx), uc)
    return address(coords, out), keep, b.load(b_upd, address(uc, upd))


def vote_target(desc: Scatter, b_idx: Buffer, u: Node, element: TensorDesc) -> tuple[Node, Node]:
    """(the element update u goes to, counted in `element`'s layout; kept)."""
    if isinstance(desc, ScatterNDDesc):
        row_s = unflatten(u, rows_and_slice(desc))
        return target_of(desc, b_idx, row_s[0], row_s[1], element)
    coords, keep = element_target(desc, operand(desc.indices, b_idx),
                                  unflatten(u, desc.indices.sizes))
    return address(coords, element), keep


def copy_kernel(desc: Scatter, b_in: Buffer, b_out: Buffer) -> Kernel:
    out = desc.output
    assert out is not None, "validate() first"
    t = b.item_id(out.element_count)
    copy = b.store(b_out, t, b.load(b_in, address(unflatten(t, out.sizes), desc.input)))
    return Kernel(f"{prefix(desc)}_copy", out.element_count, (copy,))


def lines_kernel(desc: Scatter, b_idx: Buffer, b_upd: Buffer, b_out: Buffer) -> Kernel:
    out = desc.output
    assert out is not None, "validate() first"
    lines, steps = lines_and_steps(desc)
    target, keep, value = update(desc, b_idx, b_upd, b.item_id(lines), b.step_id(steps))
    if out.data_type.bits < 32:  # other lines may own the word's other elements
        store = b.atomic_store(b_out, target, value, pred=keep)
    else:
        store = b.store(b_out, target, value, pred=keep)
    return Kernel(f"{prefix(desc)}_lines", lines, (store,), steps=steps)


def vote_kernels(desc: Scatter, b_idx: Buffer, b_upd: Buffer, b_in: Buffer, inp: TensorDesc,
                 b_out: Buffer, b_win: Buffer) -> tuple[Kernel, Kernel]:
    """The vote and the resolve, the original read from `b_in` laid out as `inp`."""
    upd, out = desc.updates, desc.output
    assert out is not None, "validate() first"
    n_upd, n_out, name = upd.element_count, out.element_count, prefix(desc)
    u = b.item_id(n_upd)
    # winners by element, not address (a view's addresses may span far more than its elements)
    element = out if out.is_packed else TensorDesc(data_type=out.data_type, sizes=out.sizes)
    target, keep = vote_target(desc, b_idx, u, element)
    k_vote = Kernel(f"{name}_vote", n_upd, (b.atomic_max(b_win, target, b.add(u, 1), pred=keep),))

    t = b.item_id(n_out)
    w = b.clamp(b.bits(b.load(b_win, t)), 0, n_upd)
    chosen = b.load(b_upd, address(unflatten(b.maximum(b.sub(w, 1), 0), upd.sizes), upd))
    original = b.load(b_in, address(unflatten(t, out.sizes), inp))
    k_resolve = Kernel(f"{name}_resolve", n_out, (
        store_at(out, b_out, t, b.where(b.not_equal(w, 0), chosen, original)),
        b.store(b_win, t, b.const_data(DataType.UINT32, 0)),
    ))
    return k_vote, k_resolve


def buffers(desc: Scatter) -> tuple[Buffer, Buffer, Buffer, Buffer]:
    """input, indices, updates, output."""
    out = desc.output
    assert out is not None, "validate() first"
    return (tensor_buffer("input", desc.input, "input"),
            tensor_buffer("indices", desc.indices, "input"),
            tensor_buffer("updates", desc.updates, "input"),
            tensor_buffer("output", out, "output"))


def program(desc: Scatter, name: str, bufs: tuple[Buffer, ...], kernels: tuple[Kernel, ...],
            in_place: bool) -> Program:
    """In place, the program's inputs are the indices and updates (its output holds the data
    tensor); else the input comes first."""
    out = desc.output
    assert out is not None, "validate() first"
    if in_place:
        return Program(f"{name}_in_place", tuple(x for x in bufs if x.name != "input"), kernels,
                       ("indices", "updates"), "output", out.sizes)
    return Program(name, bufs, kernels, ("input", "indices", "updates"), "output", out.sizes)
