"""Independent numpy references for tile, padding and space/depth (numpy.tile, numpy.pad, and
ONNX's reshape-transpose definitions of DepthToSpace and SpaceToDepth)."""
from __future__ import annotations

import numpy as np

NP_MODES = {"DML_PADDING_MODE_CONSTANT": "constant", "DML_PADDING_MODE_EDGE": "edge",
            "DML_PADDING_MODE_REFLECTION": "reflect", "DML_PADDING_MODE_SYMMETRIC": "symmetric",
            "DML_PADDING_MODE_WRAP": "wrap"}


def tile(x: np.ndarray, repeats) -> np.ndarray:
    return np.tile(x, tuple(repeats))


def fill_bits(value: int, dtype: np.dtype) -> int:
    """An integer padding value's bits in dtype, numpy's way (exact where the type holds it,
    as the tests' small values are in every type)."""
    dtype = np.dtype(dtype)
    return int(np.asarray(value).astype(dtype).view(np.dtype(f"uint{8 * dtype.itemsize}")))


def pad(x: np.ndarray, start, end, mode: str, fill_bits: int = 0) -> np.ndarray:
    """numpy.pad; the constant given by its bits (so -0.0, NaN payloads and int64 are exact)."""
    widths = list(zip(start, end))
    if mode != "DML_PADDING_MODE_CONSTANT":
        return np.pad(x, widths, mode=NP_MODES[mode])
    bits = x.view(np.dtype(f"uint{8 * x.itemsize}"))
    return np.pad(bits, widths, constant_values=fill_bits).view(x.dtype)


def depth_to_space(x: np.ndarray, b: int, dcr: bool) -> np.ndarray:
    n, c, h, w = x.shape
    if dcr:
        t = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        t = x.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return t.reshape(n, c // (b * b), h * b, w * b)


def space_to_depth(x: np.ndarray, b: int, dcr: bool) -> np.ndarray:
    n, c, h, w = x.shape
    t = x.reshape(n, c, h // b, b, w // b, b)
    t = t.transpose(0, 3, 5, 1, 2, 4) if dcr else t.transpose(0, 1, 3, 5, 2, 4)
    return t.reshape(n, c * b * b, h // b, w // b)
