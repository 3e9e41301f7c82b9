"""What a bench case is, and the inputs every family draws: random bit patterns (NaNs included)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...dtypes import DataType
from ...family.registry import OperatorDesc
from ...family.tensor import TensorDesc


@dataclass
class BenchCase:
    name: str
    descriptor: OperatorDesc
    make_inputs: Callable[[np.random.Generator], tuple[np.ndarray, ...]]
    numpy_fn: Callable[..., np.ndarray]
    goal: float
    """The ratio to the copy shader this case should reach (issue 3's goals)."""


def tensor(dtype: str, sizes: tuple[int, ...],
           strides: tuple[int, ...] | None = None) -> TensorDesc:
    return TensorDesc(data_type=DataType.of(dtype), sizes=sizes, strides=strides)


def bits(rng: np.random.Generator, shape: Any, dtype: str) -> np.ndarray:
    d = np.dtype(dtype)
    bits = np.dtype(f"uint{8 * d.itemsize}")
    return rng.integers(0, 2 ** (8 * d.itemsize), size=shape, dtype=bits).view(d)
