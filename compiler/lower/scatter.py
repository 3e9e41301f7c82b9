"""DML_SCATTER (ScatterElements), deterministic whatever the device.

Two kernels over a zeroed scratch buffer `winner` (one uint32 per output element):
  1. per update u (row-major): winner[target(u)] = max(winner[target(u)], u + 1), atomically;
     an update whose index is out of range is dropped.
  2. per output element t: output[t] = updates[winner[t] - 1] if winner[t] else input[t];
     then winner[t] = 0, so the buffer is zeroed again for the next call.
The largest u wins every collision, the last update in row-major order as SPEC.md asks, and
kernel 2 is in gather form: each output element, and so each packed output word, has exactly one
writer, which keeps 8- and 16-bit outputs race-free.
"""
from __future__ import annotations

from ..descriptors import ScatterDesc
from ..dtypes import DataType
from ..ir import Buffer, Kernel, Program
from ..ir import build as b
from .common import address, replace, tensor_buffer, unflatten


def lower_scatter(desc: ScatterDesc) -> Program:
    inp, idx, upd, out = desc.input, desc.indices, desc.updates, desc.output
    assert out is not None, "validate() first"
    axis, n_upd, n_out = desc.axis, upd.element_count, out.element_count
    b_in, b_idx = tensor_buffer("input", inp, "input"), tensor_buffer("indices", idx, "input")
    b_upd, b_out = tensor_buffer("updates", upd, "input"), tensor_buffer("output", out, "output")
    b_win = Buffer("winner", DataType.UINT32, n_out, "scratch")

    u = b.item_id(n_upd)
    uc = unflatten(u, idx.sizes)
    i = b.index(b.load(b_idx, address(uc, idx)), inp.sizes[axis], "mask")
    target = address(replace(uc, axis, b.maximum(i, 0)), out)
    vote = b.atomic_max(b_win, target, b.add(u, 1), pred=b.not_equal(i, -1))
    k_vote = Kernel("scatter_vote", n_upd, (vote,))

    t = b.item_id(n_out)
    w = b.clamp(b.bits(b.load(b_win, t)), 0, n_upd)
    update = b.load(b_upd, address(unflatten(b.maximum(b.sub(w, 1), 0), upd.sizes), upd))
    original = b.load(b_in, address(unflatten(t, out.sizes), inp))
    result = b.where(b.not_equal(w, 0), update, original)
    k_resolve = Kernel("scatter_resolve", n_out, (
        b.store(b_out, t, result),
        b.store(b_win, t, b.const_data(DataType.UINT32, 0)),
    ))
    return Program("scatter", (b_in, b_idx, b_upd, b_out, b_win), (k_vote, k_resolve),
                   ("input", "indices", "updates"), "output", out.sizes)
