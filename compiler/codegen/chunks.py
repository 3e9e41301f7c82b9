"""Buffers larger than one binding (maxStorageBufferRange): chunked.

kp binds a whole VkBuffer to each binding and cannot bind a sub-range, so a buffer over the
device's binding limit is stored as several device buffers, "chunks", each bound at its own
binding. Each chunk but the last holds 2^k words, so a flat word index w (what the IR computes,
and what verify.py proved inside the buffer) lies in chunk w >> k at offset w & (2^k - 1), and a
16-byte vector never straddles two chunks. Every access of a chunked buffer goes through a small
function that picks the chunk with an if/else chain over the few chunks there are; a buffer
within one binding is printed exactly as before.
"""
from __future__ import annotations

from ..dtypes import DataType
from ..ir import Kernel, Node, Op, Program
from ..ir.kernel import BUFFER_OPS, effects_order, kernel_buffers, vector_width


def chunk_words(words: int, guard_words: int, binding_bytes: int) -> int:
    """0 when a buffer of `words` words (between guard regions of `guard_words` words each)
    fits one binding of `binding_bytes`; else the words of each of its chunks: the largest power
    of two that fits one binding with its guards, so that word w lies in chunk w >> k at w & mask
    and a 16-byte vector never straddles two chunks."""
    if 4 * (words + 2 * guard_words) <= binding_bytes:
        return 0
    room = binding_bytes // 4 - 2 * guard_words
    if room < 4:
        raise ValueError(f"a binding of {binding_bytes} bytes holds no 16-byte vector")
    return 1 << (room.bit_length() - 1)


def chunk_count(words: int, chunk: int) -> int:
    return -(-words // chunk) if chunk else 1


_HELPERS = (  # op, return type, function, parameters, vector?, access of chunk word/vector `{0}`
    (Op.LOAD, "uint", "ld", "uint i", False, "return {0}"),
    (Op.VLOAD, "uvec4", "vld", "uint i", True, "return {0}"),
    (Op.STORE, "void", "st", "uint i, uint x", False, "{0} = x"),
    (Op.WSTORE, "void", "st", "uint i, uint x", False, "{0} = x"),
    (Op.VSTORE, "void", "vst", "uint i, uvec4 x", True, "{0} = x"),
    (Op.ATOMIC_MAX, "void", "amax", "uint i, uint x", False, "atomicMax({0}, x)"),
    (Op.ATOMIC_STORE, "void", "aand", "uint i, uint x", False, "atomicAnd({0}, x)"),
    (Op.ATOMIC_STORE, "void", "aor", "uint i, uint x", False, "atomicOr({0}, x)"))


def chunk_helpers(k: Kernel, p: Program, chunks: dict[str, int],
                  names: dict[str, str]) -> list[str]:
    """For each chunked buffer kernel `k` uses (`names`: its GLSL name), the functions its
    accesses go through: each splits a flat word (or vector) index into a chunk, i >> k, and an
    offset in it, i & mask, and accesses that chunk's binding. verify.py proved the flat index
    inside the buffer, so the chunk exists and the offset lies inside it."""
    nodes = effects_order(k)
    out = []
    for buf in kernel_buffers(k, p):
        if buf.name not in chunks:
            continue
        cw, name = chunks[buf.name], names[buf.name]
        parts = chunk_count(buf.words, cw)
        ops = {n.op for n in nodes if n.op in BUFFER_OPS and n.buffer == buf.name}
        made = set()
        for op, ret_type, fn, params, vector, access in _HELPERS:
            if op not in ops or fn in made:
                continue
            made.add(fn)
            shift = cw.bit_length() - 1 - (2 if vector else 0)
            out += [f"{ret_type} dmlc_{fn}_{name}({params}) {{",
                    f"    uint o = i & {(1 << shift) - 1}u;", f"    uint c = i >> {shift}u;"]
            for j in range(parts):
                cond = (("if" if j == 0 else "else if") + f" (c == {j}u) " if j < parts - 1
                        else "else ")
                chunk = f"c{j}{'v' if vector else ''}_{name}.data[o]"
                out.append(f"    {cond}{{ {access.format(chunk)}; }}")
            out.append("}")
    return out


def chunked_effect(e: Node, dtype: DataType, name: str, addr: str, value: str) -> list[str]:
    """An effect on a chunked buffer: the same words, through the helpers that pick the
    chunk (_chunk_helpers)."""
    if e.op is Op.ATOMIC_MAX:
        return [f"dmlc_amax_{name}(uint({addr}), uint({value}));"]
    if e.op is Op.ATOMIC_STORE:
        lanes, bits = 32 // dtype.bits, dtype.bits
        mask = "0xFFu" if bits == 8 else "0xFFFFu"
        word = f"uint({addr}) / {lanes}u"
        shift = f"((uint({addr}) & {lanes - 1}u) * {bits}u)"
        return [f"dmlc_aand_{name}({word}, ~({mask} << {shift}));",
                f"dmlc_aor_{name}({word}, (uint({value}) & {mask}) << {shift});"]
    if e.op is Op.VSTORE:
        return [f"dmlc_vst_{name}(uint({addr} >> {vector_width(dtype).bit_length() - 1}), "
                f"{value});"]
    if e.op is Op.STORE and dtype.bits == 64:
        return [f"dmlc_st_{name}(uint({addr}) * 2u, {value}.x);",
                f"dmlc_st_{name}(uint({addr}) * 2u + 1u, {value}.y);"]
    if e.op is Op.WSTORE or dtype.bits == 32:
        return [f"dmlc_st_{name}(uint({addr}), {value});"]
    raise ValueError(f"an {dtype.bits}-bit store of single elements: legalize first")
