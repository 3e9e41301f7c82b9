"""dmlc: DirectML's data-movement operators, compiled to Vulkan compute shaders.

    import dmlc, numpy as np
    dmlc.gather(np.array([11., 12., 13.]), np.array([2, 0], np.int32), axis=0, index_dimensions=1)
    kernel = dmlc.compile(dmlc.GatherDesc(...)); kernel.glsl; kernel(input, indices)
    dmlc.run_module(dmlc.lang.parse_module("X: float32[4] = [1, 2, 3, 4]\nY[i] = X[3 - i]"))
"""
from . import lang
from .api import gather, gather_elements, scatter, scatter_elements, slice
from .api_copy import copy, slice_grad
from .api_join import join, split
from .api_layout import depth_to_space, pad, space_to_depth, tile
from .api_nd import gather_nd, one_hot, reverse_subsequences
from .api_scatternd import scatter_nd
from .compiled import CompiledKernel, compile
from .descriptors import (
    DepthToSpace0Desc,
    DepthToSpaceDesc,
    ExpressionDesc,
    GatherDesc,
    GatherElementsDesc,
    GatherND1Desc,
    GatherNDDesc,
    IdentityDesc,
    JoinDesc,
    OneHotDesc,
    Padding0Desc,
    PaddingDesc,
    ReverseSubsequencesDesc,
    ScatterDesc,
    ScatterNDDesc,
    Slice1Desc,
    SliceDesc,
    SliceGradDesc,
    SpaceToDepth0Desc,
    SpaceToDepthDesc,
    SplitDesc,
    TensorDesc,
    TileDesc,
)
from .dtypes import DataType
from .errors import (
    DeviceError,
    DmlcError,
    IndexOutOfRangeError,
    ParseError,
    ShaderCompileError,
    UsageError,
    ValidationError,
)
from .manifest import write_manifest
from .numpy_functions import put_along_axis, take, take_along_axis
from .program import compile_module, run_module

__version__ = "0.1.0"


def to_device(array):
    """Upload an array to the Vulkan device: a DeviceTensor that kernels and the one-shot
    functions accept (and then return one), `.numpy()` to download."""
    from .views import runtime_tensor
    return runtime_tensor().to_device(array)


def empty(shape, dtype):
    """A zeroed DeviceTensor, e.g. a kernel's `out=`."""
    from .views import runtime_tensor
    return runtime_tensor().empty(shape, dtype)


def close_device() -> None:
    """Release the Vulkan device and everything on it (device tensors made before then raise
    DeviceError; kernels rebind to a fresh device on their next call)."""
    from dmlc.runtime import close_device as close
    close()


def cache_info() -> dict[str, dict[str, int]]:
    """What dmlc holds between calls: "kernels", the in-memory compile cache (entries, bytes,
    limits, hits, misses), and "buffers", the device's pool of idle buffers shared by all
    kernels (idle buffers and bytes, the byte limit; zeros when no device is open)."""
    import sys

    from .compiled import KERNELS
    # no device module loaded (or still loading in another thread): nothing pooled
    pool_info = getattr(sys.modules.get("dmlc.runtime.device"), "pool_info", None)
    pool = pool_info() if pool_info is not None else None
    return {"kernels": KERNELS.info(),
            "buffers": pool or {"idle_buffers": 0, "idle_bytes": 0, "limit_bytes": 0,
                                "created": 0, "reused": 0}}


def clear_cache() -> None:
    """Drop every compiled kernel kept in memory and destroy the device's idle pooled buffers
    (device tensors and kernels you hold keep working)."""
    import sys

    from .compiled import clear_caches
    clear_caches()
    pool_info = getattr(sys.modules.get("dmlc.runtime.device"), "pool_info", None)
    if pool_info is not None:
        pool_info(clear=True)


__all__ = ["gather", "gather_elements", "scatter", "scatter_elements", "slice", "join", "split",
           "tile", "pad", "space_to_depth", "depth_to_space", "gather_nd", "one_hot",
           "reverse_subsequences", "copy", "slice_grad", "scatter_nd", "ScatterNDDesc", "take",
           "take_along_axis", "put_along_axis", "compile",
           "CompiledKernel", "lang", "compile_module", "run_module", "ExpressionDesc",
           "GatherDesc", "GatherElementsDesc", "ScatterDesc", "Slice1Desc", "JoinDesc", "SplitDesc",
           "TileDesc", "PaddingDesc", "Padding0Desc", "SpaceToDepthDesc", "DepthToSpaceDesc",
           "SpaceToDepth0Desc", "DepthToSpace0Desc", "GatherND1Desc", "GatherNDDesc",
           "OneHotDesc", "ReverseSubsequencesDesc", "IdentityDesc", "SliceDesc", "SliceGradDesc",
           "TensorDesc",
           "DataType", "DmlcError", "ValidationError", "IndexOutOfRangeError",
           "ShaderCompileError", "DeviceError", "ParseError", "UsageError", "to_device", "empty",
           "close_device", "cache_info", "clear_cache", "write_manifest", "__version__"]
