"""What a .dml file compiles to: units, each one kernel program with its data and expectation."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..family.registry import OperatorDesc
from .parser import Loc


@dataclass
class Unit:
    """One operator or expression of a file."""

    name: str
    """The output's name: OutputTensor, or the expression's tensor (Y)."""
    descriptor: OperatorDesc
    arguments: dict[str, str]
    """Program input (buffer) name -> the name the file gives that tensor (InputTensor, X)."""
    data: dict[str, np.ndarray] = field(default_factory=dict)
    """Buffers the file gives data for, by program input name."""
    expected: np.ndarray | tuple[np.ndarray | None, ...] | None = None
    """The output the file documents, if any: `dmlc run` checks it."""
    locations: dict[str, Loc] = field(default_factory=dict)
    """Where each field or tensor is written, to point validation errors at a line."""
    bound: dict[str, int] = field(default_factory=dict)
    """Symbolic sizes (Sizes:{B, 4}) the file's data binds: B -> 2."""
