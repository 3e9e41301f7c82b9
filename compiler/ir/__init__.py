"""The index-arithmetic IR: hash-consed nodes, kernels and programs, their printer, verifier
and interpreter."""
from .kernel import Buffer, Kernel, Program
from .ops import Node, Op, VType

__all__ = ["Node", "Op", "VType", "Buffer", "Kernel", "Program"]
