"""How a kernel's items map onto invocations, as data (Halide's schedule beside its algorithm).

passes/planner.py weighs the candidate mappings of a kernel with one cost model and puts the
winner on the kernel as a Plan, with every candidate it considered; the rewriting passes carry
the plan out (vectorize: its vectors and parts; tile and unroll: each part's item map; schedule:
the stride and the branches), and codegen prints what they built. Nothing here decides.
"""
from __future__ import annotations

from dataclasses import dataclass

ONE, CONSECUTIVE, INTERLEAVED = "one", "consecutive", "interleaved"
BANDS, STRIPS = "bands", "strips"


@dataclass(frozen=True)
class ItemMap:
    """Which items of a kernel one invocation runs (passes/unroll.py's item_starts builds them).

    ONE: its own. CONSECUTIVE: `count` consecutive items. INTERLEAVED, shape (run, blocks,
    apart): `run` consecutive items in each of `blocks` blocks `apart` items apart. BANDS and
    STRIPS, shape (rows, cols, row_length[, bands]): a rows x cols block of an output of rows of
    `row_length` items, row by row; the blocks go left to right along bands of rows (BANDS) or
    down strips of columns (STRIPS, over `bands` bands)."""

    kind: str = ONE
    count: int = 1
    shape: tuple[int, ...] = ()

    def __str__(self) -> str:
        if self.kind == ONE:
            return "one item"
        if self.kind == CONSECUTIVE:
            return f"{self.count} consecutive"
        if self.kind == INTERLEAVED:
            run, blocks, apart = self.shape
            return f"{run} x {blocks} interleaved {apart} apart"
        return f"{self.shape[0]} x {self.shape[1]} {self.kind}"


ONE_ITEM = ItemMap()


@dataclass(frozen=True)
class Piece:
    """One dispatch of a plan: a part of the kernel's items and how its invocations run them."""

    columns: tuple[int, int] | None = None
    """The output columns [lo, hi) of every row this dispatch writes (passes/partition.py's
    parts); None: every item."""
    items: ItemMap = ONE_ITEM
    stride: int = 1
    """Items an invocation runs a workgroup apart, after `items` (passes/schedule.py)."""
    branches: bool = False
    """Selects between loaded vectors run as if/else, each side loading only its own vectors
    (passes/schedule.py names them; codegen prints them so); else as selects."""

    def __str__(self) -> str:
        where = f"columns [{self.columns[0]}, {self.columns[1]}): " if self.columns else ""
        how = str(self.items) + (f", {self.stride} a workgroup apart" if self.stride > 1 else "")
        return where + how + (", branches" if self.branches else "")


@dataclass(frozen=True)
class Candidate:
    vector: int
    """Elements per item moved as one 16-byte vector (passes/vectorize.py); 1: one element."""
    pieces: tuple[Piece, ...]
    """The dispatches: one, or the parts of a partitioned row."""

    def __str__(self) -> str:
        how = f"vectors of {self.vector}" if self.vector > 1 else "elements"
        return f"{how}; " + "; ".join(map(str, self.pieces))


@dataclass(frozen=True)
class Cost:
    """A candidate's estimated time (passes/cost.py), in the model's units, and its terms."""

    total: float
    terms: tuple[tuple[str, float], ...]

    def per(self, items: int) -> Cost:
        """The cost per item of a kernel of `items` items."""
        return Cost(self.total / items, tuple((name, x / items) for name, x in self.terms))

    def __str__(self) -> str:
        return f"{self.total:.3f} = " + " + ".join(f"{name} {x:.3f}" for name, x in self.terms
                                                   if x)


@dataclass(frozen=True)
class Option:
    """One line of what the planner weighed: a candidate (or a piece of one) and its cost, or
    why it was not costed (not proven, not eligible)."""

    what: str
    cost: Cost | None
    note: str = ""


@dataclass(frozen=True)
class Plan:
    """The winner among the candidates considered (passes/planner.py) for a kernel."""

    kernel: str
    """The planned kernel's name and items (its pieces may be called and sized otherwise)."""
    items: int
    chosen: Candidate
    cost: Cost
    considered: tuple[Option, ...]
