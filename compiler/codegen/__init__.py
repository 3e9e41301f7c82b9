"""Code generators: IR kernels -> shader source (GLSL for Vulkan, WGSL for WebGPU)."""
from .glsl import render_glsl
from .wgsl import render_wgsl

__all__ = ["render_glsl", "render_wgsl"]
