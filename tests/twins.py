"""A generic kernel and its specialized twin, compared (test_generic, test_generic_index)."""
from __future__ import annotations

from typing import Any

import pytest

import dmlc


def assert_checked_twins(generic: Any, special: Any, *arrays: Any) -> None:
    """Both kernels compiled with check_indices, run by the interpreter: the generic one
    reports the first bad index as the specialized one does, or gives its result bit for bit."""
    assert generic.compiled.params and not special.compiled.params
    try:
        want = special.reference(*arrays)
    except dmlc.IndexOutOfRangeError as e:
        with pytest.raises(dmlc.IndexOutOfRangeError) as got:
            generic.reference(*arrays)
        assert str(got.value) == str(e)
    else:
        assert generic.reference(*arrays).tobytes() == want.tobytes()
