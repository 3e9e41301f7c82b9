"""The index-arithmetic IR: hash-consed nodes, kernels and programs, their printer, verifier
and interpreter."""
from .ops import Node, Op, VType
from .kernel import Buffer, Kernel, Program

__all__ = ["Node", "Op", "VType", "Buffer", "Kernel", "Program"]
