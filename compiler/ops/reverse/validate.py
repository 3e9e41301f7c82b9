"""Validation of DML_REVERSE_SUBSEQUENCES."""
from __future__ import annotations

import dataclasses

from ...family.checks import check_axis, check_index_type, check_sizes, check_tensor, resolve_output
from .desc import ReverseSubsequencesDesc


def validate_reverse_subsequences(desc: ReverseSubsequencesDesc) -> ReverseSubsequencesDesc:
    op = desc.operator
    inp, lengths = desc.input, desc.sequence_lengths
    check_tensor(op, "InputTensor", inp)
    axis = check_axis(op, desc.axis, inp.rank)
    check_tensor(op, "SequenceLengthsTensor", lengths, inp.rank)
    check_index_type(op, lengths, "SequenceLengthsTensor")
    check_sizes(op, "SequenceLengthsTensor", lengths.sizes,
                tuple(1 if k == axis else s for k, s in enumerate(inp.sizes)))
    out = resolve_output(op, desc, inp.sizes, inp.data_type)
    return dataclasses.replace(desc, axis=axis, output=out)
