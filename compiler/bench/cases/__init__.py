"""The standard bench cases, one module per operator family."""
from __future__ import annotations

from .common import BenchCase
from .core import core_cases
from .expression import expression_cases
from .join import join_cases
from .layout import layout_cases
from .nd import nd_cases
from .scatternd import scatter_nd_cases

FAMILIES = (core_cases, join_cases, layout_cases, nd_cases, scatter_nd_cases, expression_cases)


def suite(quick: bool = False) -> list[BenchCase]:
    """Every family's cases; --quick divides every size by 4 (16 in area)."""
    q = 4 if quick else 1
    return [case for family in FAMILIES for case in family(q)]


__all__ = ["BenchCase", "suite"]
