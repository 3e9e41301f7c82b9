"""DML_REVERSE_SUBSEQUENCES: gather form, one invocation per output element. A length L is read
as an index of the n + 1 positions [0, n] (negative from the end, beyond clamped); coordinate
x < L reads L - 1 - x, the others read themselves."""
from __future__ import annotations

from collections.abc import Sequence

from ...family.lowering import Operand, address, operand, replace, tensor_buffer, unflatten
from ...family.registry import PLAIN, LowerContext
from ...ir import Kernel, Node, Program
from ...ir import build as b
from .desc import ReverseSubsequencesDesc


def reversed_coordinate(desc: ReverseSubsequencesDesc, coords: Sequence[Node],
                        lengths: Operand) -> Node:
    """The axis coordinate output `coords` reads: its subsequence's length (read where the
    lengths hold it, as `lengths` reads) taken as an index of [0, n], x < L mirrored to
    L - 1 - x (clamped into the axis), the others themselves."""
    axis, n = desc.axis, desc.input.sizes[desc.axis]
    x = coords[axis]
    length = b.index(lengths.load(replace(coords, axis, b.const(0))), n + 1, "clamp")
    mirrored = b.clamp(b.sub(b.sub(length, 1), x), 0, n - 1)
    return b.where(b.less(x, length), mirrored, x)


def lower_reverse_subsequences(desc: ReverseSubsequencesDesc, ctx: LowerContext = PLAIN) -> Program:
    inp, lengths, out, axis = desc.input, desc.sequence_lengths, desc.output, desc.axis
    assert out is not None, "validate() first"
    b_in = tensor_buffer("input", inp, "input")
    b_len = tensor_buffer("sequence_lengths", lengths, "input")
    b_out = tensor_buffer("output", out, "output")
    gid = b.item_id(out.element_count)
    coords = unflatten(gid, out.sizes)
    src = reversed_coordinate(desc, coords, operand(lengths, b_len))
    value = b.load(b_in, address(replace(coords, axis, src), inp))
    kernel = Kernel("reverse_subsequences", out.element_count, (b.store(b_out, gid, value),))
    return Program("reverse_subsequences", (b_in, b_len, b_out), (kernel,),
                   ("input", "sequence_lengths"), "output", out.sizes)
