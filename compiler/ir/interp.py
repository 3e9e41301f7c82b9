"""The IR's executable meaning: a numpy interpreter, vectorized over all items of a kernel.

Buffers are 1-D numpy arrays of each element's raw bits (uint8/16/32/64), so the interpreter, like
the shaders, never converts a value. Each effect of a kernel runs for all items before the next
effect; a kernel must not read what another item of the same kernel writes (that would be a race
on a GPU). Every address is checked against its buffer at run time as well.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ..dtypes import DataType
from .kernel import VECTOR_BYTES, Buffer, Kernel, Program
from .ops import IRError, Node, Op, VType, toposort

_BINARY: dict[Op, Callable[[Any, Any], np.ndarray]] = {
    Op.ADD: np.add, Op.MUL: np.multiply, Op.FLOORDIV: np.floor_divide, Op.FLOORMOD: np.mod,
    Op.MIN: np.minimum, Op.MAX: np.maximum, Op.CMPLT: np.less, Op.CMPNE: np.not_equal,
    Op.AND: np.logical_and}


def param_value(n: Node, params: Sequence[int]) -> int:
    """An expression of PARAMs and constants (+, *: a buffer's runtime extent) for one call's
    push-constant words."""
    if n.is_const:
        return int(n.value)
    if n.op is Op.PARAM:
        return int(params[n.param])
    if n.op in (Op.ADD, Op.MUL):
        a, c = (param_value(x, params) for x in n.src)
        return a + c if n.op is Op.ADD else a * c
    raise IRError(f"{n.op.name} is not an expression of parameters")


def normalize_index(values: np.ndarray, dtype: DataType, dim: int | np.ndarray,
                    mode: str) -> np.ndarray:
    """docs/decisions.md: negative signed indices count from the end once; then clamp to
    [0, dim-1] ("clamp") or map what is still out of range to -1 ("mask")."""
    v = np.asarray(values).view(dtype.numpy)
    if dtype.is_signed_int:
        v = v.astype(np.int64)
        with np.errstate(over="ignore"):
            v = np.where(v < 0, v + dim, v)
        inside = (v >= 0) & (v < dim)
        low = v < 0
    else:
        inside = v < np.asarray(dim).astype(np.uint64)
        low = np.zeros(v.shape, bool)
        v = np.where(inside, v, 0).astype(np.int64)
    if mode == "clamp":
        return np.where(inside, v, np.where(low, 0, dim - 1)).astype(np.int64)
    return np.where(inside, v, -1).astype(np.int64)


def _eval(n: Node, vals: dict[Node, np.ndarray], bufs: Mapping[str, np.ndarray],
          gid: np.ndarray, params: tuple[int, ...] = ()) -> np.ndarray:
    s = [vals[x] for x in n.src]
    if n.op is Op.PARAM:
        if n.param >= len(params):
            raise IRError(f"parameter {n.arg} has no value here")
        value = params[n.param]
        if not n.vmin <= value <= n.vmax:
            raise IRError(f"parameter {n.arg} = {value} outside its range")
        return np.array(value, dtype=np.int64)
    if n.op is Op.CONST:
        if isinstance(n.dtype, DataType):
            return np.array(n.arg, dtype=n.dtype.bits_dtype)
        return np.array(n.arg, dtype=bool if n.dtype is VType.BOOL else np.int64)
    if n.op is Op.VAR:
        if n.variable[0] != "gid":
            raise IRError(f"variable {n.arg} has no value here")
        return gid
    if n.op in _BINARY:
        return _BINARY[n.op](s[0], s[1])
    if n.op is Op.WHERE:  # a vector (VEC16: 16 bytes per item) is chosen as a whole
        cond = s[0] if n.dtype is not VType.VEC16 else np.reshape(s[0], (-1, 1))
        return np.where(cond, s[1], s[2])
    if n.op is Op.LOAD:
        buf = bufs[n.buffer]
        addr = np.broadcast_to(s[0], gid.shape)
        if addr.size and (addr.min() < 0 or addr.max() >= buf.size):
            raise IRError(f"load {n.arg}[{addr.min()}..{addr.max()}] outside [0, {buf.size})")
        return buf[addr]
    if n.op is Op.VLOAD:  # may read the padding of the last vector (verify.py), poisoned here
        buf = bufs[n.buffer]
        pad = -buf.size % (VECTOR_BYTES // buf.dtype.itemsize)
        first = np.broadcast_to(s[0], gid.shape)
        if pad and first.size and first.max() + VECTOR_BYTES // buf.dtype.itemsize > buf.size:
            buf = np.concatenate([buf, np.full(pad, np.iinfo(buf.dtype).max // 3, buf.dtype)])
        addr = _vector_addresses(first, buf, n.buffer)
        return np.ascontiguousarray(buf[addr]).view(np.uint8).reshape(len(gid), 16)
    if n.op is Op.REVERSE:
        size = n.itemsize
        return s[0].reshape(len(gid), 16 // size, size)[:, ::-1, :].reshape(len(gid), 16)
    if n.op is Op.VEXTRACT:
        return np.ascontiguousarray(s[0]).view(n.data_type.bits_dtype).reshape(len(gid), -1)[
            :, n.lane]
    if n.op is Op.VPACK:
        element = n.src[0].data_type.bits_dtype
        lanes = [np.broadcast_to(np.asarray(x, element), gid.shape) for x in s]
        return np.ascontiguousarray(np.stack(lanes, axis=1)).view(np.uint8).reshape(len(gid), 16)
    if n.op is Op.PACK:
        bits = n.src[0].data_type.bits
        word = np.zeros(gid.shape, np.uint32)
        for lane, x in enumerate(s):
            part = np.broadcast_to(np.asarray(x).astype(np.uint32), gid.shape)
            word |= part << np.uint32(lane * bits)
        return word
    if n.op is Op.INDEX:
        return normalize_index(s[0], n.src[0].data_type, s[1], n.mode)
    if n.op is Op.BITS:
        return s[0].astype(np.uint32).view(np.int32).astype(np.int64)
    if n.op is Op.COMBINE:
        return combine_bits(n.mode, n.data_type, s[0], s[1], gid.shape)
    if n.op is Op.ARITH:
        return arith_bits(n.mode, n.data_type, s[0], s[1])
    if n.op is Op.COMPARE:
        x, y = (_elements(v, n.src[0].data_type) for v in s)
        return np.less(x, y) if n.mode == "lt" else np.equal(x, y)
    if n.op is Op.CONVERT:
        src = n.src[0]
        x = s[0] if src.dtype is VType.INT else _elements(s[0], src.data_type)
        return np.asarray(x).astype(n.data_type.numpy).view(n.data_type.bits_dtype)
    raise IRError(f"cannot evaluate {n.op.name}")


COMBINE_UFUNCS: dict[str, np.ufunc] = {"add": np.add, "mul": np.multiply, "max": np.maximum,
                                       "min": np.minimum}


def combine_bits(kind: str, dtype: DataType, a: np.ndarray, b: np.ndarray,
                 shape: tuple[int, ...]) -> np.ndarray:
    """COMBINE: numpy's ufunc applied element by element (one call per pair, as a reduction
    applies its updates one at a time), on the raw bits of elements of `dtype`."""
    bits = dtype.bits_dtype
    x = np.broadcast_to(np.asarray(a, bits), shape).reshape(-1).view(dtype.numpy)
    y = np.broadcast_to(np.asarray(b, bits), shape).reshape(-1).view(dtype.numpy)
    fn = COMBINE_UFUNCS[kind]
    out = np.empty(x.size, dtype.numpy)
    with np.errstate(all="ignore"):
        for i in range(x.size):
            out[i] = fn(x[i], y[i])
    return out.view(bits).reshape(shape)


def _elements(raw: np.ndarray, dtype: DataType) -> np.ndarray:
    """Raw bits as the elements they are."""
    return np.asarray(raw, dtype.bits_dtype).view(dtype.numpy)


_WRAPPING: dict[str, np.ufunc] = {"add": np.add, "sub": np.subtract, "mul": np.multiply,
                                  "min": np.minimum, "max": np.maximum}


def arith_bits(kind: str, dtype: DataType, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ARITH (ir/build.py's ARITH_KINDS) on raw bits: numpy's integer arithmetic, which wraps;
    a zero divisor gives 0, and a signed division by -1 negates (wrapping: the minimum stays)."""
    x, y = _elements(a, dtype), _elements(b, dtype)
    with np.errstate(all="ignore"):
        if kind in _WRAPPING:
            out = _WRAPPING[kind](x, y)
        else:
            zero = y == 0
            minus_one = (y == -1) if dtype.is_signed_int else np.zeros_like(zero)
            d = np.where(zero | minus_one, np.ones((), dtype.numpy), y).astype(dtype.numpy)
            if kind == "floordiv":
                out = np.floor_divide(x, d)
            elif kind == "floormod":
                out = np.remainder(x, d)
            elif kind == "truncmod":
                out = np.fmod(x, d)
            else:  # truncdiv: x - fmod(x, d) is an exact multiple of d, never past x
                out = np.floor_divide(x - np.fmod(x, d), d)
            negated = np.negative(x) if kind.endswith("div") else np.zeros_like(x)
            out = np.where(zero, np.zeros((), dtype.numpy), np.where(minus_one, negated, out))
    return np.asarray(out).astype(dtype.numpy).view(dtype.bits_dtype)


def _vector_addresses(first: np.ndarray, buf: np.ndarray, name: str) -> np.ndarray:
    width = VECTOR_BYTES // buf.dtype.itemsize
    addr = first[:, None] + np.arange(width)
    if addr.size and (addr.min() < 0 or addr.max() >= buf.size):
        raise IRError(f"vector access {name}[{addr.min()}..{addr.max()}] outside [0, {buf.size})")
    return addr


def _apply(e: Node, vals: dict[Node, np.ndarray], bufs: dict[str, np.ndarray],
           gid: np.ndarray) -> None:
    buf = bufs[e.buffer]
    if e.op is Op.VSTORE:
        addr = _vector_addresses(np.broadcast_to(vals[e.src[0]], gid.shape), buf, str(e.arg))
        buf[addr] = np.ascontiguousarray(vals[e.src[1]]).view(buf.dtype).reshape(addr.shape)
        return
    if e.op is Op.WSTORE:  # the word's lanes past the buffer's elements are its padding
        lanes = 4 // buf.itemsize
        first = np.broadcast_to(vals[e.src[0]], gid.shape) * lanes
        words = np.ascontiguousarray(np.broadcast_to(vals[e.src[1]], gid.shape), np.uint32)
        addr = (first[:, None] + np.arange(lanes)).reshape(-1)
        if addr.size and (addr.min() < 0 or addr.max() >= buf.size + lanes - 1):
            raise IRError(f"word write {e.arg}[{addr.min()}..{addr.max()}] outside the buffer")
        elements = words.view(buf.dtype).reshape(-1)
        inside = addr < buf.size
        buf[addr[inside]] = elements[inside]
        return
    addr = np.broadcast_to(vals[e.src[0]], gid.shape)
    value = np.broadcast_to(vals[e.src[1]], gid.shape)
    mask = np.broadcast_to(vals[e.src[2]], gid.shape) if len(e.src) > 2 else np.ones_like(gid, bool)
    addr, value = addr[mask], value[mask]
    if addr.size and (addr.min() < 0 or addr.max() >= buf.size):
        raise IRError(f"write {e.arg}[{addr.min()}..{addr.max()}] outside [0, {buf.size})")
    if e.op in (Op.STORE, Op.ATOMIC_STORE):
        buf[addr] = value
    else:
        np.maximum.at(buf, addr, value.astype(buf.dtype))


def run_kernel(k: Kernel, bufs: dict[str, np.ndarray], params: tuple[int, ...] = ()) -> None:
    """Every item at once, step after step (items never read what other items write); a
    generic kernel runs the `count` items (and `step_count` steps) its parameters say."""
    items = k.items if k.count is None else params[k.count.param]
    gid = np.arange(items, dtype=np.int64)
    steps = k.steps if k.step_count is None else params[k.step_count.param]
    for step in range(steps):
        vals: dict[Node, np.ndarray] = {k.step: np.full(items, step, np.int64)}
        for e in k.effects:
            for n in toposort([e]):
                if n not in vals and n.dtype is not VType.VOID:
                    vals[n] = _eval(n, vals, bufs, gid, params)
            _apply(e, vals, bufs, gid)


def run_program(p: Program, *arrays: np.ndarray, params: tuple[int, ...] = ()) -> np.ndarray:
    """Run `p` on raw element arrays (one per p.inputs, flat, any dtype of the right width);
    return the output buffer as raw bits (a flat array of the output's unsigned type).
    params: a generic program's push-constant words."""
    return run_buffers(p, *arrays, params=params)[p.output]


def buffer_count(buf: Buffer, params: tuple[int, ...]) -> int:
    """A buffer's elements in a call: its count, or for a generic buffer its extent's value."""
    return buf.count if buf.extent is None else param_value(buf.extent, params)


def run_buffers(p: Program, *arrays: np.ndarray,
                params: tuple[int, ...] = ()) -> dict[str, np.ndarray]:
    """run_program(), returning every buffer (as raw bits) after the last kernel."""
    bufs: dict[str, np.ndarray] = {}
    given = dict(zip(p.inputs, arrays))
    if len(params) != len(p.params):
        raise IRError(f"{p.name} takes {len(p.params)} parameters, got {len(params)}")
    for buf in p.buffers:
        count = buffer_count(buf, params)
        if buf.role == "input":
            a = np.ascontiguousarray(given[buf.name]).reshape(-1).view(buf.dtype.bits_dtype)
            if a.size < count:
                raise IRError(f"input {buf.name} has {a.size} elements, needs {count}")
            bufs[buf.name] = a if buf.extent is None else a[:count]
        elif buf.role in ("scratch", "status"):
            bufs[buf.name] = np.zeros(count, buf.dtype.bits_dtype)
        else:  # output and temp buffers hold anything until written: a program may not read
            # what it did not write (on a GPU a new buffer is not zero either)
            bufs[buf.name] = np.full(count, 0xA5A5A5A5A5A5A5A5, np.uint64).astype(
                buf.dtype.bits_dtype)
    for k in p.kernels:
        run_kernel(k, bufs, params)
    return bufs
