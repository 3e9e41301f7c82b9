"""DML_SCATTER (ScatterElements), deterministic whatever the device. Two lowerings:

Lines (32/64-bit data on a CPU target such as lavapipe): the updates that can reach one output
element all lie on one line along the axis (the other coordinates are the element's), so
  1. scatter_copy, per output element t: output[t] = input[t];
  2. scatter_lines, per line, for step s = 0, 1, ... along the axis (a loop, in order): the
     update at s is stored at its target, unless its index is out of range (dropped).
Later steps overwrite earlier ones, so the last update in row-major order wins every
collision (README "Decisions"); lines write disjoint elements, so no atomics. Measured on lavapipe
(scatter f32 [2048, 2048] axis 0 with hand-written shaders, ratio to the copy shader): 0.26
unique and 0.47 colliding, against 0.09 and 0.19 for the vote below.

Vote (a GPU target: it needs far more invocations than there are lines; 8/16-bit data, whose
lines would share 32-bit words; very long or very few lines), two kernels over a zeroed
scratch buffer `winner` (one uint32 per output element):
  1. per update u (row-major): winner[target(u)] = max(winner[target(u)], u + 1), atomically;
     an update whose index is out of range is dropped.
  2. per output element t: output[t] = updates[winner[t] - 1] if winner[t] else input[t];
     then winner[t] = 0, so the buffer is zeroed again for the next call.
The largest u wins every collision, and kernel 2 is in gather form: each output element, and
so each packed output word, has exactly one writer, which keeps 8- and 16-bit outputs
race-free.

In place (out= the data tensor: a KV cache updated per token), the data tensor is the output
and nothing is copied: the lines kernel alone, whose cost follows the updates, for any data
width (lines own disjoint elements, but 8/16-bit elements of different lines may share a
word: they are stored with atomic and/or on the word). Where the lines would be few and long
(or longer than a kernel's loop may be), the vote runs with the output as its own original.
The data tensor may be any view (an offset, strides of any sign: a KV cache's slice, a
transpose): in place, the output has the input's layout, so the updates land where the view's
elements lie; the vote then counts winners by element, not by address, and stores through the
layout (atomically for 8/16-bit elements, whose words the view may share with others).
"""
from __future__ import annotations

import dataclasses
from typing import TypeVar

from ...dtypes import DataType
from ...family.lowering import address, replace, store_at, tensor_buffer, unflatten
from ...family.tensor import TensorDesc
from ...ir import Buffer, Kernel, Program
from ...ir import build as b
from ...ir.verify import MAX_STEPS
from .desc import ScatterDesc, ScatterNDDesc

ScatterDescs = TypeVar("ScatterDescs", bound=ScatterDesc | ScatterNDDesc)

LINES_MIN = 256
"""Fewer lines than this scatter by vote: each line is one invocation's loop, and a few long
loops leave the device idle."""


def lower_scatter(desc: ScatterDesc, target: str = "gpu") -> Program:
    """By lines on a CPU target where the lines allow it, else by vote."""
    out, steps = desc.output, desc.updates.sizes[desc.axis]
    assert out is not None, "validate() first"
    lines = desc.updates.element_count // steps
    if (target == "cpu" and out.data_type.bits >= 32 and steps <= MAX_STEPS
            and lines >= LINES_MIN):
        return lower_scatter_lines(desc)
    return lower_scatter_vote(desc)


IN_PLACE_SHORT = 64
"""In place, lines of at most this many steps run as lines however few they are."""


def in_place_layout(desc: ScatterDescs) -> ScatterDescs:
    """In place, the data tensor is the output: the output takes the input's layout (a view's
    strides and offset; unchanged where the input is the whole buffer: no strides, no
    offset)."""
    if desc.input.strides is None and not desc.input.offset:
        return desc
    return dataclasses.replace(desc, output=desc.input)


def lower_scatter_in_place(desc: ScatterDesc) -> Program:
    """The scatter with the data tensor as its output, updated in place (inputs: indices and
    updates only)."""
    desc = in_place_layout(desc)
    out, steps = desc.output, desc.updates.sizes[desc.axis]
    assert out is not None, "validate() first"
    lines = desc.updates.element_count // steps
    if steps <= MAX_STEPS and (lines >= LINES_MIN or steps <= IN_PLACE_SHORT):
        return lower_scatter_lines(desc, in_place=True)
    return lower_scatter_vote(desc, in_place=True)


def lower_scatter_lines(desc: ScatterDesc, in_place: bool = False) -> Program:
    inp, idx, upd, out = desc.input, desc.indices, desc.updates, desc.output
    assert out is not None, "validate() first"
    axis, steps = desc.axis, upd.sizes[desc.axis]
    lines = upd.element_count // steps
    b_in, b_idx = tensor_buffer("input", inp, "input"), tensor_buffer("indices", idx, "input")
    b_upd, b_out = tensor_buffer("updates", upd, "input"), tensor_buffer("output", out, "output")

    line_sizes = tuple(1 if d == axis else n for d, n in enumerate(upd.sizes))
    uc = replace(unflatten(b.item_id(lines), line_sizes), axis, b.step_id(steps))
    i = b.index(b.load(b_idx, address(uc, idx)), inp.sizes[axis], "mask")
    target = address(replace(uc, axis, b.maximum(i, 0)), out)
    value, keep = b.load(b_upd, address(uc, upd)), b.not_equal(i, -1)
    if out.data_type.bits < 32:  # other lines may own the word's other elements
        store = b.atomic_store(b_out, target, value, pred=keep)
    else:
        store = b.store(b_out, target, value, pred=keep)
    k_lines = Kernel("scatter_lines", lines, (store,), steps=steps)
    if in_place:
        return Program("scatter_in_place", (b_idx, b_upd, b_out), (k_lines,),
                       ("indices", "updates"), "output", out.sizes)
    t = b.item_id(out.element_count)
    copy = b.store(b_out, t, b.load(b_in, address(unflatten(t, out.sizes), inp)))
    k_copy = Kernel("scatter_copy", out.element_count, (copy,))
    return Program("scatter", (b_in, b_idx, b_upd, b_out), (k_copy, k_lines),
                   ("input", "indices", "updates"), "output", out.sizes)


def lower_scatter_vote(desc: ScatterDesc, in_place: bool = False) -> Program:
    inp, idx, upd, out = desc.input, desc.indices, desc.updates, desc.output
    assert out is not None, "validate() first"
    axis, n_upd, n_out = desc.axis, upd.element_count, out.element_count
    b_idx, b_out = tensor_buffer("indices", idx, "input"), tensor_buffer("output", out, "output")
    b_upd = tensor_buffer("updates", upd, "input")
    # in place, the output holds the original (its own element: read before it is written)
    b_in, inp = (b_out, out) if in_place else (tensor_buffer("input", inp, "input"), inp)
    b_win = Buffer("winner", DataType.UINT32, n_out, "scratch")

    u = b.item_id(n_upd)
    uc = unflatten(u, idx.sizes)
    i = b.index(b.load(b_idx, address(uc, idx)), inp.sizes[axis], "mask")
    # winners by element, not address (a view's addresses may span far more than its elements)
    element = out if out.is_packed else TensorDesc(data_type=out.data_type, sizes=out.sizes)
    target = address(replace(uc, axis, b.maximum(i, 0)), element)
    vote = b.atomic_max(b_win, target, b.add(u, 1), pred=b.not_equal(i, -1))
    k_vote = Kernel("scatter_vote", n_upd, (vote,))

    t = b.item_id(n_out)
    w = b.clamp(b.bits(b.load(b_win, t)), 0, n_upd)
    update = b.load(b_upd, address(unflatten(b.maximum(b.sub(w, 1), 0), upd.sizes), upd))
    original = b.load(b_in, address(unflatten(t, out.sizes), inp))
    result = b.where(b.not_equal(w, 0), update, original)
    k_resolve = Kernel("scatter_resolve", n_out, (
        store_at(out, b_out, t, result),
        b.store(b_win, t, b.const_data(DataType.UINT32, 0)),
    ))
    if in_place:
        return Program("scatter_in_place", (b_idx, b_upd, b_out, b_win), (k_vote, k_resolve),
                       ("indices", "updates"), "output", out.sizes)
    return Program("scatter", (b_in, b_idx, b_upd, b_out, b_win), (k_vote, k_resolve),
                   ("input", "indices", "updates"), "output", out.sizes)
