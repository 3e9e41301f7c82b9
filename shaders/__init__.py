"""Hand-written GLSL that generated kernels include (read with importlib.resources)."""
