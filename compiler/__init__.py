"""dmlc: DirectML's data-movement operators, compiled to Vulkan compute shaders.

    import dmlc, numpy as np
    dmlc.gather(np.array([11., 12., 13.]), np.array([2, 0], np.int32), axis=0, index_dimensions=1)
    kernel = dmlc.compile(dmlc.GatherDesc(...)); kernel.glsl; kernel(input, indices)
    dmlc.run_module(dmlc.lang.parse_module("X: float32[4] = [1, 2, 3, 4]\nY[i] = X[3 - i]"))
"""
from typing import Any

# first: glslang's table build (toolchain.library.warm_up) runs beside the rest of the import
from . import toolchain as toolchain

# isort: split
from . import expr as expr
from . import lang as lang
from .compiled import CompiledKernel
from .compiled import compile as _compile
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
from .family.registry import families
from .family.tensor import TensorDesc
from .manifest import write_manifest
from .modules import compile_module, run_module
from .numpy_api import put_along_axis, take, take_along_axis

# The operator families, one line each: dmlc/ops/<family>/ registers its descriptors' rules
# and names (its __all__) the functions and descriptors it adds here.
from .ops.copy import *
from .ops.expression import *
from .ops.gather import *
from .ops.gather_nd import *
from .ops.join import *
from .ops.one_hot import *
from .ops.pad import *
from .ops.reverse import *
from .ops.scatter import *
from .ops.slice import *
from .ops.space_depth import *
from .ops.tile import *
from .plan import PlanLimits

__version__ = "0.1.0"


def to_device(array):
    """Upload an array to the device (the current backend's): a DeviceTensor that kernels and
    the one-shot functions accept (and then return one), `.numpy()` to download.

    Parameters
    ----------
    array : array_like
        The data (a bool array moves as its bytes).

    Returns
    -------
    DeviceTensor
        On the current backend's device.

    Raises
    ------
    DeviceError
        No usable device.

    Examples
    --------
    >>> x = dmlc.to_device(np.array([[1., 2.], [3., 4.]], np.float32))
    >>> x.shape, x.dtype
    ((2, 2), dtype('float32'))
    >>> print(dmlc.take(x, [1], axis=0).numpy())
    [[3. 4.]]
    """
    from .ops.copy.tensor import to_device as upload
    return upload(array)


def empty(shape, dtype):
    """A zeroed DeviceTensor, e.g. a kernel's `out=`.

    Parameters
    ----------
    shape : tuple of int
        Its shape.
    dtype : numpy dtype
        Its element type.

    Returns
    -------
    DeviceTensor
        Zeros, on the current backend's device.

    Raises
    ------
    DeviceError
        No usable device.

    Examples
    --------
    >>> y = dmlc.empty((2, 2), np.int32)
    >>> _ = dmlc.tile(np.array([1, 2], np.int32), (2, 1), out=y)
    >>> print(y.numpy())
    [[1 2]
     [1 2]]
    """
    from .ops.copy.tensor import empty as new
    return new(shape, dtype)


def set_device(device: int | str) -> None:
    """Choose the current backend's device, before dmlc first uses one: an index into `dmlc
    info`'s list of devices (Vulkan's physical devices, or WebGPU's adapters), or a piece of a
    device's name ("swiftshader", "llvmpipe"). Overrides $DMLC_DEVICE (which takes the same);
    VK_ICD_FILENAMES chooses which Vulkan drivers are listed.

    Parameters
    ----------
    device : int or str
        An index, or a piece of a device's name.

    Raises
    ------
    DeviceError
        No such device, or another device already in use.

    Examples
    --------
    >>> try:
    ...     dmlc.set_device(-1)
    ... except dmlc.DeviceError as e:
    ...     print(e)
    set_device() must be a device index >= 0, got -1
    """
    from .runtime import set_device as choose
    choose(device)


def close_device() -> None:
    """Release the device (of every backend) and everything on it (device tensors made before
    then raise DeviceError; kernels rebind to a fresh device on their next call).

    Examples
    --------
    >>> x = dmlc.to_device(np.ones(2, np.float32))
    >>> dmlc.close_device()
    >>> try:
    ...     x.numpy()
    ... except dmlc.DeviceError:
    ...     print("closed")
    closed
    >>> print(dmlc.tile(np.ones(1, np.float32), 2))
    [1. 1.]
    """
    from .runtime import close_device as close
    close()


def synchronize() -> None:
    """Wait until the device has run every kernel called so far. A call on device tensors
    returns once its kernels are submitted, and the host prepares the next call while the
    device runs them; reading a result (`.numpy()`) waits by itself, so this is for timing a
    loop of calls, or for handing the device's memory to other code.

    Examples
    --------
    >>> x = dmlc.to_device(np.arange(4, dtype=np.float32))
    >>> y = dmlc.tile(x, 2)
    >>> dmlc.synchronize()
    >>> print(y.numpy())
    [0. 1. 2. 3. 0. 1. 2. 3.]
    """
    from .runtime.backend import synchronize as wait
    wait()


def set_backend(backend: str) -> None:
    """Run kernels on "vulkan" (Kompute) or "webgpu" (wgpu-py) from now on; overrides
    $DMLC_BACKEND (which takes the same). By default dmlc uses Vulkan where kp and a Vulkan
    device are there, else WebGPU. Device tensors stay on the device they were made on, and a
    kernel called with device tensors runs on their device.

    Parameters
    ----------
    backend : {"vulkan", "webgpu"}
        The backend.

    Raises
    ------
    DeviceError
        Another name.

    Examples
    --------
    >>> before = dmlc.get_backend()
    >>> dmlc.set_backend("vulkan")
    >>> dmlc.get_backend()
    'vulkan'
    >>> dmlc.set_backend(before)
    """
    from .runtime.backend import set_backend as choose
    choose(backend)


def use_backend(backend: str) -> Any:
    """set_backend() for a `with` block: `with dmlc.use_backend("webgpu"): ...`, the previous
    choice restored after it.

    Parameters
    ----------
    backend : {"vulkan", "webgpu"}
        The backend within the block.

    Returns
    -------
    context manager

    Examples
    --------
    >>> before = dmlc.get_backend()
    >>> with dmlc.use_backend("vulkan"):
    ...     print(dmlc.get_backend())
    vulkan
    >>> dmlc.get_backend() == before
    True
    """
    from .runtime.backend import use_backend as within
    return within(backend)


def get_backend() -> str:
    """The backend kernels run on now: "vulkan" or "webgpu" (see set_backend).

    Returns
    -------
    str
        "vulkan" or "webgpu".

    Examples
    --------
    >>> dmlc.get_backend() in ("vulkan", "webgpu")
    True
    """
    from .runtime.backend import name
    return name()


def cache_info() -> dict[str, dict[str, int]]:
    """What dmlc holds between calls: "kernels", the in-memory compile cache (entries, bytes,
    limits, hits, misses); "compiles", the compiles by operator ("DML_GATHER generic" for
    generic kernels); "generic", each generic kernel (its dynamic dimensions) and how many
    call sizes it served; and "buffers", the device's pool of buffers shared by all kernels
    (idle buffers and bytes, the byte limit; on Vulkan also its arenas: "arenas",
    "arena_bytes", "live_bytes", "free_bytes", "floor_bytes"; zeros when no device is open:
    docs/python-api.md); "objects",
    what the open device has made since it opened, for seeing what a loop creates once warm
    (Vulkan: "tensors" (buffers), "algorithms" (a pipeline and a descriptor set each) and
    "sequences"; WebGPU: "tensors", "pipelines" and "bind_groups"; empty when no device is
    open).

    Returns
    -------
    dict
        "kernels", "compiles", "generic", "buffers" and "objects", each a dict.

    Examples
    --------
    >>> sorted(dmlc.cache_info())
    ['buffers', 'compiles', 'generic', 'kernels', 'objects']
    >>> _ = dmlc.tile(np.ones(1, np.float32), 2)
    >>> any(name.startswith("DML_TILE") for name in dmlc.cache_info()["compiles"])
    True
    """
    from .compiled import KERNELS
    from .runtime.backend import objects_info, pool_info  # no kp, no device opened
    pool = pool_info()
    return {"kernels": KERNELS.info(), "compiles": dict(KERNELS.compiles),
            "generic": KERNELS.generic.info(),
            "buffers": pool or {"idle_buffers": 0, "idle_bytes": 0, "limit_bytes": 0,
                                "created": 0, "reused": 0},
            "objects": objects_info() or {}}


def clear_cache() -> None:
    """Drop every compiled kernel kept in memory and destroy the device's idle pooled buffers
    (device tensors and kernels you hold keep working).

    Examples
    --------
    >>> _ = dmlc.tile(np.ones(1, np.float32), 2)
    >>> dmlc.clear_cache()
    >>> dmlc.cache_info()["kernels"]["entries"]
    0
    """
    from .compiled import clear_caches
    from .runtime.backend import pool_info
    clear_caches()
    pool_info(clear=True)


__all__ = [*(name for family in families() for name in family.exports),
           "take", "take_along_axis", "put_along_axis", "compile", "CompiledKernel", "lang",
           "expr", "compile_module", "run_module", "TensorDesc", "DataType", "DmlcError",
           "ValidationError", "IndexOutOfRangeError", "ShaderCompileError", "DeviceError",
           "ParseError", "UsageError", "to_device", "empty", "set_device", "close_device",
           "synchronize",
           "set_backend", "use_backend", "get_backend",
           "cache_info", "clear_cache", "write_manifest", "PlanLimits", "__version__"]


def compile(desc: Any, **options: Any) -> Any:
    """dmlc.compiled.compile (validate, lower, generate and compile `desc`: its docstring
    says the options); a descriptor whose tensors have symbolic sizes (a name, or None, for a
    dimension) gives a SymbolicKernel (dmlc/oneshot/symbolic.py), compiled for the sizes each
    call brings (generic kernels: one compile for every size).

    Parameters
    ----------
    desc : descriptor
        One of the descriptors (GatherDesc, ..., ExpressionDesc).
    **options
        dump_after, check_indices, guard_words, target, limits, dynamic: see
        dmlc.compiled.compile.

    Returns
    -------
    CompiledKernel or SymbolicKernel
        Call it with the operator's tensors, in the descriptor's order.

    Raises
    ------
    ValidationError
        A descriptor that breaks its operator's rules.
    ShaderCompileError
        A generated shader rejected (a dmlc bug).

    Examples
    --------
    >>> kernel = dmlc.compile(dmlc.TileDesc(
    ...     input=dmlc.TensorDesc(data_type="INT32", sizes=(2,)), repeats=(3,)))
    >>> print(kernel(np.array([1, 2], np.int32)))
    [1 2 1 2 1 2]
    >>> print(kernel.reference(np.array([1, 2], np.int32)))
    [1 2 1 2 1 2]
    >>> "void main" in kernel.glsl
    True
    """
    from .oneshot.symbolic import SymbolicKernel, has_symbols
    if has_symbols(desc):
        return SymbolicKernel(desc, options)
    return _compile(desc, **options)
