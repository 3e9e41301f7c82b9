"""numpy's answers to the API fuzz calls (tests/device/test_fuzz_api.py): each oracle takes a
one-shot function's arguments as the fuzz test passes them, refuses (raises Refused) what
numpy's rules refuse (and what DirectML has no operator for: a dtype it has no type for, a rank
over 8), and otherwise returns the result, computed by the independent numpy references
(tests/reference*.py). No dmlc code is involved, but for the DeviceTensor an argument may be.

The rules, numpy's way (dmlc.oneshot's docstrings state them): an array is what np.asarray
makes of the argument (a list, a range; a ragged list is refused), of a DirectML data type or
bool (a byte), 1 to 8 dimensions; indices are int32, int64, uint32 or uint64 (an empty list
is int64, as numpy.take takes it); an integer is a Python or numpy integer, never a bool; a
list of integers is a list, tuple or 1-d integer array of them; a flag is a bool."""
from __future__ import annotations

import numbers
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

import reference as ref
import reference_layout as rl
import reference_nd
import reference_scatternd as rs
from cases import gather_is_valid

DATA = {np.dtype(t) for t in ("float16", "float32", "float64", "int8", "int16", "int32",
                              "int64", "uint8", "uint16", "uint32", "uint64", "bool")}
INDEX = {np.dtype(t) for t in ("int32", "int64", "uint32", "uint64")}
MAX_RANK = 8


class Refused(Exception):
    """numpy's rules (or DirectML's types and ranks) refuse the call."""


def need(condition: Any, why: str) -> None:
    if not condition:
        raise Refused(why)


def host(value: Any) -> Any:
    """A DeviceTensor's values (the fuzz tests pass dmlc.empty as out= only)."""
    return value.numpy() if hasattr(value, "numpy") and hasattr(value, "is_whole") else value


def array(value: Any, indices: bool = False, min_rank: int = 1, max_rank: int = MAX_RANK,
          empty_is_int: bool = True) -> np.ndarray:
    """`empty_is_int`: an empty list of indices (float64 to numpy) is int64, as numpy.take
    takes it (dmlc does so for an argument named indices, not for sequence lengths)."""
    value = host(value)
    try:
        a = np.asarray(value)
    except Exception as e:  # a ragged list
        raise Refused(f"np.asarray: {e}") from None
    if indices and empty_is_int and not isinstance(value, np.ndarray) and a.size == 0 \
            and a.dtype == np.float64:
        a = a.astype(np.int64)
    need(a.dtype in (INDEX if indices else DATA), f"dtype {a.dtype}")
    need(min_rank <= a.ndim <= max_rank, f"ndim {a.ndim}")
    return a


def integer(value: Any) -> int:
    need(isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)),
         f"not an integer: {value!r}")
    return operator.index(value)


def integers(value: Any) -> list[int]:
    if isinstance(value, np.ndarray):
        need(value.ndim == 1 and value.dtype.kind in "iu", f"not integers: {value!r}")
        return [int(v) for v in value.tolist()]
    need(isinstance(value, Sequence) and not isinstance(value, (str, bytes)),
         f"not a list: {value!r}")
    return [integer(v) for v in value]


def axis_of(value: Any, rank: int) -> int:
    a = integer(value)
    need(-rank <= a < rank, f"axis {a} of {rank}")
    return a % rank


def flag(value: Any) -> bool:
    need(isinstance(value, (bool, np.bool_)), f"not a flag: {value!r}")
    return bool(value)


def _elements(sizes: Any) -> int:
    n = 1
    for s in sizes:
        n *= int(s)
    return n


def _unpadded(shape: tuple[int, ...]) -> tuple[int, ...]:
    return shape[next((n for n, s in enumerate(shape) if s != 1), len(shape)):]


def _in_range(indices: np.ndarray, dim: int) -> bool:
    signed = indices.dtype.kind == "i"
    return all(ref.fix_index(v, dim, signed) is not None for v in indices.reshape(-1).tolist())


def _no_empty_axis(shape: Sequence[int], *axes: int) -> None:
    """An index into an axis of no element has nothing to clamp to."""
    need(all(shape[a] > 0 for a in axes), "an index into an empty axis")


def gather(x: Any, i: Any, axis: Any, index_dimensions: Any = None,
           check_indices: Any = False) -> np.ndarray:
    x, i, check = array(x), array(i, indices=True), flag(check_indices)
    need(x.ndim == i.ndim, "one DimensionCount")
    ax = axis_of(axis, x.ndim)
    if index_dimensions is None:
        k = i.ndim - next((n for n, s in enumerate(i.shape) if s != 1), i.ndim)
    else:
        k = integer(index_dimensions)
    need(0 <= k <= x.ndim and gather_is_valid(x.shape, i.shape, ax, k), "DML_GATHER's shapes")
    if i.size:
        _no_empty_axis(x.shape, ax)
    need(not check or _in_range(i, x.shape[ax]), "an index out of range")
    return ref.gather(x, i, ax, k)


def gather_elements(x: Any, i: Any, axis: Any, check_indices: Any = False) -> np.ndarray:
    x, i, check = array(x), array(i, indices=True), flag(check_indices)
    need(x.ndim == i.ndim, "one DimensionCount")
    ax = axis_of(axis, x.ndim)
    need(all(a == b for d, (a, b) in enumerate(zip(x.shape, i.shape)) if d != ax),
         "indices of the input's sizes off the axis")
    if i.size:
        _no_empty_axis(x.shape, ax)
    need(not check or _in_range(i, x.shape[ax]), "an index out of range")
    return ref.gather_elements(x, i, ax)


def scatter(x: Any, i: Any, u: Any, axis: Any, check_indices: Any = False) -> np.ndarray:
    x, i, u, check = array(x), array(i, indices=True), array(u), flag(check_indices)
    need(x.ndim == i.ndim == u.ndim and i.shape == u.shape and x.dtype == u.dtype,
         "DML_SCATTER's shapes and types")
    ax = axis_of(axis, x.ndim)
    need(all(a == b for d, (a, b) in enumerate(zip(x.shape, i.shape)) if d != ax),
         "indices of the input's sizes off the axis")
    need(not check or _in_range(i, x.shape[ax]), "an index out of range")
    return ref.scatter(x, i, u, ax)


def _window(rank: int, offsets: Any, sizes: Any, strides: Any) -> tuple[list[int], ...]:
    o, s, st = integers(offsets), integers(sizes), integers(strides)
    need(len(o) == len(s) == len(st) == rank, "one offset, size and stride a dimension")
    need(all(v != 0 for v in st), "a stride of 0")
    return o, s, st


def slice1(x: Any, offsets: Any, sizes: Any, strides: Any, output_sizes: Any = None
           ) -> np.ndarray:
    x = array(x)
    o, s, st = _window(x.ndim, offsets, sizes, strides)
    need(all(0 <= a and 0 <= b and a + b <= n for a, b, n in zip(o, s, x.shape)),
         "a window inside the input")
    most = [0 if b == 0 else 1 + (b - 1) // abs(c) for b, c in zip(s, st)]
    out = most if output_sizes is None else integers(output_sizes)
    need(len(out) == x.ndim and all(min(1, m) <= a <= m for a, m in zip(out, most)),
         "output sizes (1 or more from a window that reads anything)")
    return ref.slice1(x, o, s, st, out)


def slice_grad(dy: Any, input_shape: Any, offsets: Any, sizes: Any, strides: Any
               ) -> np.ndarray:
    dy, shape = array(dy), integers(input_shape)
    need(len(shape) == dy.ndim and all(n >= 0 for n in shape), "the input's shape")
    o, s, st = _window(dy.ndim, offsets, sizes, strides)
    need(all(0 <= a and 0 <= b and a + b <= n for a, b, n in zip(o, s, shape)),
         "a window inside the input")
    most = tuple(0 if b == 0 else 1 + (b - 1) // abs(c) for b, c in zip(s, st))
    need(dy.shape == most, "dy of the window's shape")
    out = np.zeros(shape, dy.dtype)
    key = []
    for a, b, c in zip(o, s, st):
        start = a + b - 1 if c < 0 else a
        stop = start + c * (1 + (b - 1) // abs(c)) if b else start
        key.append(slice(start, stop if stop >= 0 else None, c))
    out[tuple(key)] = dy
    return out


def join(tensors: Any, axis: Any) -> np.ndarray:
    need(not isinstance(tensors, (str, bytes)), "a sequence of tensors")
    try:
        items = list(host(tensors))
    except TypeError:
        raise Refused("not a sequence") from None
    xs = [array(t) for t in items]
    need(xs, "no tensor")
    ax = axis_of(axis, xs[0].ndim)
    need(all(x.ndim == xs[0].ndim and x.dtype == xs[0].dtype for x in xs), "one ndim, one dtype")
    need(all(x.shape[:ax] + x.shape[ax + 1:] == xs[0].shape[:ax] + xs[0].shape[ax + 1:]
             for x in xs), "the sizes off the axis")
    return ref.join(xs, ax)


def split(x: Any, sizes: Any, axis: Any) -> list[np.ndarray]:
    x = array(x)
    ax = axis_of(axis, x.ndim)
    n = x.shape[ax]
    if isinstance(sizes, numbers.Integral) and not isinstance(sizes, (bool, np.bool_)):
        k = integer(sizes)
        need(0 < k < 2**31 and n % k == 0, "equal pieces dividing the axis, a list of them")
        pieces = [n // k] * k
    else:
        pieces = integers(sizes)
        need(pieces and all(p >= 0 for p in pieces) and sum(pieces) == n,
             "sizes summing to the axis")
    return ref.split(x, pieces, ax)


def tile(x: Any, repeats: Any) -> np.ndarray:
    x = array(x)
    reps = [integer(repeats)] if isinstance(repeats, numbers.Integral) \
        and not isinstance(repeats, (bool, np.bool_)) else integers(repeats)
    need(all(r >= 0 for r in reps) and max(x.ndim, len(reps)) <= MAX_RANK, "repeats")
    shape = (1,) * (len(reps) - x.ndim) + x.shape
    reps = [1] * (len(shape) - len(reps)) + reps
    need(all(a * r < 2**63 for a, r in zip(shape, reps)), "numpy's largest size")
    need(_elements(a * r for a, r in zip(shape, reps)) * x.itemsize < 2**31,
         "a result the device holds")
    return np.tile(x, reps)


NP_MODES = {"constant": "constant", "edge": "edge", "reflect": "reflect",
            "reflection": "reflect", "symmetric": "symmetric", "wrap": "wrap"}
NP_MODES.update({f"DML_PADDING_MODE_{m}": n for m, n in [
    ("CONSTANT", "constant"), ("EDGE", "edge"), ("REFLECTION", "reflect"),
    ("SYMMETRIC", "symmetric"), ("WRAP", "wrap")]})


def _fill(x: np.ndarray, value: Any) -> Any:
    """The constant, as numpy.pad casts it into x's dtype (a number; never a bool's bits)."""
    need(isinstance(value, numbers.Real), f"not a number: {value!r}")
    if x.dtype == np.bool_:
        return bool(value)
    need(not isinstance(value, (bool, np.bool_)), "a bool is no number (but for bool data)")
    if x.dtype.kind in "iu":
        need(not isinstance(value, float) or float(value).is_integer(), "a fraction")
        v = int(value)
        info = np.iinfo(x.dtype)
        need(info.min <= v <= info.max, "out of the dtype's range")
        return v
    try:
        finite = float(value)
    except OverflowError:
        raise Refused("a number past float64") from None
    with np.errstate(over="ignore"):
        rounded = np.float64(finite).astype(x.dtype)
    # dmlc's rule (README, literals): a finite value that rounds past the type's largest
    # finite one is refused, not made an infinity (numpy makes it one)
    need(not np.isfinite(finite) or np.isfinite(rounded), "a finite value out of the type's range")
    return value


def _pad(x: np.ndarray, widths: list[tuple[int, int]], mode: Any, value: Any) -> np.ndarray:
    need(isinstance(mode, str) and mode in NP_MODES, f"mode {mode!r}")
    np_mode = NP_MODES[mode]
    fill = _fill(x, value)  # DML_PADDING1's PaddingValue, in x's type whatever the mode
    need(all(a >= 0 and b >= 0 for a, b in widths), "negative padding")
    need(_elements(n + a + b for (a, b), n in zip(widths, x.shape)) * x.itemsize < 2**31,
         "a result the device holds")
    for (a, b), n in zip(widths, x.shape):
        if np_mode == "constant" or a == b == 0:
            continue
        need(n > 0, "a mirror of nothing")
        if np_mode == "reflect":
            need(max(a, b) <= n - 1, "reflect reaches one width less than x")
        elif np_mode in ("symmetric", "wrap"):
            need(max(a, b) <= n, "a mirror reaches one width of x")
    if np_mode == "constant":
        return np.pad(x, widths, mode="constant", constant_values=fill)
    return np.pad(x, widths, mode=np_mode)


def pad(x: Any, start: Any, end: Any, mode: Any = "constant", value: Any = 0) -> np.ndarray:
    """dmlc.pad(x, start, end, mode=..., value=...): DirectML's form."""
    need(isinstance(value, numbers.Real), f"PaddingValue, a number: {value!r}")
    if end is None:  # numpy's form: start is pad_width
        return pad_numpy_form(x, start, mode, None, value)
    x = array(x)
    if isinstance(start, numbers.Integral) and not isinstance(start, (bool, np.bool_)):
        s = [integer(start)] * x.ndim
    else:
        s = integers(start)
    if isinstance(end, numbers.Integral) and not isinstance(end, (bool, np.bool_)):
        e = [integer(end)] * x.ndim
    else:
        e = integers(end)
    need(len(s) == len(e) == x.ndim, "one start and end a dimension")
    return _pad(x, list(zip(s, e)), mode, value)


def pad_numpy_form(x: Any, pad_width: Any, mode: Any, constant_values: Any,
                   value: Any = 0) -> np.ndarray:
    """dmlc.pad(x, pad_width, mode=..., constant_values=...): numpy.pad's form (`value`: the
    fill when constant_values is None)."""
    x = array(x)
    if isinstance(pad_width, numbers.Integral) and not isinstance(pad_width, (bool, np.bool_)):
        widths = [(integer(pad_width),) * 2] * x.ndim
    else:
        try:
            w = np.asarray(pad_width)
        except Exception:
            raise Refused("pad_width") from None
        need(w.dtype.kind in "iu", "integer widths")
        need(w.ndim <= 2, "pairs of widths")
        try:
            w = np.broadcast_to(w, (x.ndim, 2))
        except ValueError:
            raise Refused("pad_width's shape") from None
        widths = [(int(a), int(b)) for a, b in w.tolist()]
    if isinstance(constant_values, numbers.Real):  # one number, as it is
        value = constant_values
    elif constant_values is not None:
        try:
            v = np.asarray(constant_values)
        except Exception:
            raise Refused("constant_values") from None
        need(v.dtype.kind in "iuf" and v.size > 0, "numbers")
        values = v.reshape(-1).tolist()
        if x.dtype == np.bool_:  # cast to bool first, as numpy casts them (2 is True)
            values = [bool(t) for t in values]
        need(len(set(values)) == 1, "one fill value")
        try:
            np.broadcast_to(v, (x.ndim, 2))
        except ValueError:
            raise Refused("constant_values' shape") from None
        value = v.reshape(-1)[0].item()
    need(isinstance(mode, str), f"mode {mode!r}")
    return _pad(x, widths, mode, value)


def depth_space(x: Any, block: Any, order: Any, to_depth: bool) -> np.ndarray:
    x = array(x)
    b = integer(block)
    need(order in ("DCR", "CRD"), f"order {order!r}")
    need(x.ndim == 4 and b >= 1, "NCHW and a block of 1 or more")
    n, c, h, w = x.shape
    if to_depth:
        need(h % b == 0 and w % b == 0, "H and W multiples of the block")
        return rl.space_to_depth(x, b, order == "DCR")
    need(c % (b * b) == 0, "C a multiple of block * block")
    return rl.depth_to_space(x, b, order == "DCR")


def gather_nd(x: Any, i: Any, batch: Any, check_indices: Any = False) -> np.ndarray:
    x, i = array(x), array(i, indices=True)
    check = flag(check_indices)
    b = integer(batch)
    k = i.shape[-1]
    need(0 <= b < min(x.ndim, i.ndim) and i.shape[:b] == x.shape[:b] and 1 <= k <= x.ndim - b,
         "ONNX GatherND's shapes")
    if i.size:
        _no_empty_axis(x.shape, *range(b, b + k))
    if check:
        need(all(_in_range(i[..., j], x.shape[b + j]) for j in range(k)), "out of range")
    return reference_nd.gather_nd(x, i, b)


def scatter_nd(x: Any, i: Any, u: Any, reduction: Any, check_indices: Any = False
               ) -> np.ndarray:
    x, i, u = array(x), array(i, indices=True), array(u, min_rank=0)
    check = flag(check_indices)
    need(reduction in ("none", "add", "mul", "max", "min"), f"reduction {reduction!r}")
    need(x.dtype == u.dtype, "one data type")
    k = i.shape[-1]
    need(0 <= k <= x.ndim and _unpadded(u.shape) == _unpadded(i.shape[:-1] + x.shape[k:]),
         "ONNX ScatterND's shapes (leading 1s aside: dmlc pads every rank to one)")
    if check:
        need(all(_in_range(i[..., j], x.shape[j]) for j in range(k)), "out of range")
    if k == 0:  # each (empty) tuple names the whole input (ONNX's reference evaluator too)
        out = x.copy()
        for update in u.reshape(-1, *x.shape) if x.size else ():  # row-major, one at a time
            out = update.copy() if reduction == "none" else _combined(reduction, out, update)
        return out
    return rs.scatter_nd(x, i, u, x.ndim, reduction)


def _combined(reduction: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """numpy's combine of one update into the whole input (bools: add is `or`, mul `and`)."""
    fn = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}[reduction]
    with np.errstate(all="ignore"):
        return fn(a, b).astype(a.dtype)


def one_hot(i: Any, values: Any, depth: Any, axis: Any) -> np.ndarray:
    i, v, d = array(i, indices=True), array(values), integer(depth)
    need(v.size == 2 and d >= 1, "two values, a depth of 1 or more")
    need(i.ndim + 1 <= MAX_RANK, "a rank for the classes")
    need(d < 2**31, "a depth the output's strides hold (int32 elements)")
    need(_elements(i.shape) * d * v.itemsize < 2**31, "a result the device holds")
    ax = axis_of(axis, i.ndim + 1)
    return reference_nd.one_hot(i, v.reshape(-1), d, ax)


def reverse_subsequences(x: Any, lengths: Any, axis: Any) -> np.ndarray:
    x, n = array(x), array(lengths, indices=True, empty_is_int=False)
    ax = axis_of(axis, x.ndim)
    want = x.shape[:ax] + (1,) + x.shape[ax + 1:]
    need(n.ndim <= x.ndim, "lengths of x's rank at most")
    n = n.reshape((1,) * (x.ndim - n.ndim) + n.shape)
    need(n.shape[ax] == 1, "lengths of 1 along the axis")
    try:
        n = np.broadcast_to(n, want)
    except ValueError:
        raise Refused("lengths that broadcast to x's shape") from None
    return reference_nd.reverse_subsequences(x, n, ax)


def copy(x: Any) -> np.ndarray:
    return np.ascontiguousarray(array(x))


def take(a: Any, indices: Any, axis: Any, out: Any, mode: Any) -> np.ndarray:
    """numpy.take itself, on arrays of DirectML's types (a rank of 0 too, as numpy takes), its
    indices of any integer type, or bool (0 and 1, as numpy.take)."""
    a = array(a, min_rank=0, max_rank=64)
    try:
        i = np.asarray(host(indices))
    except Exception as e:
        raise Refused(f"np.asarray: {e}") from None
    if not isinstance(indices, np.ndarray) and i.size == 0 and i.dtype == np.float64:
        i = i.astype(np.int64)
    need(i.dtype.kind in "iub", f"indices of dtype {i.dtype}")
    if i.dtype == np.uint64 and not (i.size and int(i.max()) >= 2**63):
        i = i.astype(np.int64)  # (numpy refuses to cast uint64 to its index type)
    elif i.dtype == np.uint64:
        # numpy.take on their values: numpy refuses to cast uint64 to its index type, dmlc
        # takes them (DirectML's index types include uint64)
        n = a.size if axis is None else a.shape[axis_of(axis, a.ndim)] if a.ndim else 0
        need(n > 0, "an index into an empty axis")
        vals = [int(v) for v in i.reshape(-1).tolist()]
        if mode == "wrap":
            vals = [v % n for v in vals]
        elif mode == "clip":
            vals = [min(v, n - 1) for v in vals]
        else:
            need(all(v < n for v in vals), "an index out of range")
        i = np.array(vals, np.int64).reshape(i.shape)
    need(axis is None or integer(axis) is not None, "an axis")
    if out is not None and not isinstance(out, np.ndarray):  # a DeviceTensor: no cast
        need(hasattr(out, "numpy"), "out: an array")
        got = take(a, i, axis, None, mode)
        need(got.shape == out.shape and got.dtype == out.dtype, "out's shape and dtype")
        return got
    if isinstance(out, np.ndarray):
        need(out.flags.writeable, "a read-only out")
        out = out.copy()  # numpy's own: dmlc writes the caller's
    if mode == "wrap" and (a.size if axis is None else a.shape[axis_of(axis, a.ndim)]
                           if a.ndim else 1) == 0:
        # numpy 1.26 loops forever wrapping into an empty axis where the result is empty
        # (np.take(np.zeros((0, 3)), np.int32(0), axis=0, mode="wrap")); clip says the same
        mode = "clip"
    try:
        return np.array(np.take(a, i, axis=axis, out=out, mode=mode))
    except Exception as e:
        raise Refused(f"numpy.take: {e}") from None


def compiled_gather_elements(x: Any, i: Any, out: Any) -> np.ndarray:
    """The kernel test_fuzz_api.py compiles: GatherElements of a float32 (3, 4) input by
    int32 (1, 4) indices along axis 0; its arguments must be of those shapes and types."""
    x, i = array(x), array(i, indices=True)
    need(x.shape == (3, 4) and x.dtype == np.float32, "the compiled input")
    need(i.shape == (1, 4) and i.dtype == np.int32, "the compiled indices")
    if out is not None:  # a compiled kernel writes device tensors only (artifact.check_out)
        need(hasattr(out, "is_whole"), "out: a DeviceTensor")
        need(out.shape == (1, 4) and out.dtype == np.float32, "out of the output's shape, dtype")
    return ref.gather_elements(x, i, 0)
