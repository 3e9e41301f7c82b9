"""Code generators: IR kernels -> shader source."""
from .glsl import render_glsl

__all__ = ["render_glsl"]
