"""The one-shot API on the Vulkan device == the numpy reference, bit for bit, over random cases
(ranks 1-8, all 11 data types, all 4 index types, negative and out-of-range indices, collisions)."""
from __future__ import annotations

import pytest
from hypothesis import given

import dmlc
from cases import ALL_CASES
from reference import assert_bits_equal

pytestmark = pytest.mark.vulkan


@pytest.mark.parametrize("op", sorted(ALL_CASES))
def test_device_matches_reference(op):
    @given(ALL_CASES[op]())
    def check(case):
        if case.expected is None:
            with pytest.raises(dmlc.ValidationError):
                case.fn(*case.arrays, **case.kwargs)
            return
        before = [a.copy() for a in case.arrays]
        assert_bits_equal(case.fn(*case.arrays, **case.kwargs), case.expected)
        for a, b in zip(case.arrays, before):
            assert_bits_equal(a, b)  # inputs untouched
    check()
