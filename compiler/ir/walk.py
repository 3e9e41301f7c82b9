"""The compiler's most frequent walk of a node graph: every node some roots depend on, in
dependency order (each pass, the verifier, the cost model and codegen walk their kernels so)."""
from __future__ import annotations

from collections.abc import Iterator, Set
from typing import Any, Protocol, TypeVar


class _Sourced(Protocol):
    @property
    def src(self) -> tuple[Any, ...]: ...


Node = TypeVar("Node", bound=_Sourced)
"""ops.Node (named here by what the walk reads of it: ops imports this module)."""


def toposort(roots: list[Node], stop: Set[Node] = frozenset()) -> list[Node]:
    """Every node the roots depend on, each once, dependencies first; the sources of nodes in
    `stop` are not followed (a substitution that replaces them never needs those)."""
    # Depth first, sources left to right, a node entered as it is first seen; the stack holds
    # the nodes entered, each with the iterator of its sources still to look at, and a leaf
    # is emitted as it is seen (the compiler's most frequent walk: most nodes are leaves).
    seen: set[Node] = set()
    order: list[Node] = []
    add, emit = seen.add, order.append
    for root in (r for r in roots if r not in seen):
        add(root)
        stack: list[tuple[Node, Iterator[Node]]] = []
        node, sources = root, iter(() if root in stop else root.src)
        while True:
            for s in sources:
                if s not in seen:
                    add(s)
                    if s in stop or not s.src:
                        emit(s)
                        continue
                    stack.append((node, sources))
                    node, sources = s, iter(s.src)
                    break
            else:
                emit(node)
                if not stack:
                    break
                node, sources = stack.pop()
    return order
