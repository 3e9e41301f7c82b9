"""WGSL's buffers: one declaration per binding, and every access of it spelled for that view.

GLSL may declare two blocks at one binding (`uint data[]` and `uvec4 data[]`); WGSL allows one
variable per binding, so each buffer a kernel binds gets exactly one view, chosen from how the
kernel touches it:

- `array<atomic<u32>>` when the kernel runs ATOMIC_MAX or ATOMIC_STORE on it: WGSL atomics live
  only in atomic types, so every other access of that buffer in the kernel goes through
  atomicLoad / atomicStore too (a vector access of such a buffer is refused: none is planned);
- `array<vec4<u32>>` when it moves 16-byte vectors (VLOAD, VSTORE); its scalar words, if the
  kernel also reads or writes some, are lanes of those vectors: `b[w >> 2u][w & 3u]` (a
  component reference: one 32-bit load or store, as the GLSL's `uint data[]` view does);
- `array<u32>` otherwise.

Access is `read` where the kernel only reads the buffer, else `read_write` (WGSL has no write-only
storage). Chunked buffers (codegen/chunks.py) get one variable per chunk, all of the buffer's
view, and accesses go through functions that pick the chunk, as in GLSL.
"""
from __future__ import annotations

import functools
import string
from dataclasses import dataclass

from ..ir import Kernel, Op, Program
from ..ir.kernel import BUFFER_OPS, Buffer, effects_order, kernel_buffers
from .chunks import chunk_count
from .glsl import glsl_name, helpers

ATOMIC, VEC4, WORD = "atomic", "vec4", "u32"


@dataclass(frozen=True)
class View:
    """How one buffer is declared and reached in one kernel's WGSL."""

    name: str
    """Its GLSL name (glsl_name): the variable is b_<name>, or c<j>_<name> per chunk."""
    kind: str
    """ATOMIC, VEC4 or WORD (the module docstring)."""
    writes: bool
    guarded: bool
    """Declared as a struct {guard, data} (tests' guard words): elements are .data[...]."""
    chunks: int = 1
    chunk_words: int = 0

    def ref(self, j: int | None = None) -> str:
        """The array of the whole buffer, or of its chunk j."""
        var = f"b_{self.name}" if j is None else f"c{j}_{self.name}"
        return f"{var}.data" if self.guarded else var

    def load(self, i: str, j: int | None = None) -> str:
        """Word i (an i32 or u32 expression)."""
        if self.kind == ATOMIC:
            return f"atomicLoad(&{self.ref(j)}[{i}])"
        if self.kind == VEC4:
            return f"{self.ref(j)}[u32({i}) >> 2u][u32({i}) & 3u]"
        return f"{self.ref(j)}[{i}]"

    def store(self, i: str, x: str, j: int | None = None) -> str:
        """Word i = x (a statement, without its `;`)."""
        if self.kind == ATOMIC:
            return f"atomicStore(&{self.ref(j)}[{i}], {x})"
        if self.kind == VEC4:
            return f"{self.ref(j)}[u32({i}) >> 2u][u32({i}) & 3u] = {x}"
        return f"{self.ref(j)}[{i}] = {x}"


def views(k: Kernel, p: Program, guard_words: int,
          chunks: dict[str, int]) -> list[tuple[Buffer, View]]:
    """The view of each buffer kernel k binds, in binding order (kernel_buffers)."""
    nodes = effects_order(k)
    out = []
    for buf in kernel_buffers(k, p):
        ops = {n.op for n in nodes if n.op in BUFFER_OPS and n.buffer == buf.name}
        atomic = bool(ops & {Op.ATOMIC_MAX, Op.ATOMIC_STORE})
        vector = bool(ops & {Op.VLOAD, Op.VSTORE})
        if atomic and vector:
            raise NotImplementedError(
                f"WGSL: kernel {k.name} moves buffer {buf.name!r} both atomically and as "
                "vectors, and a WGSL binding has one view (atomic<u32> or vec4<u32>)")
        kind = ATOMIC if atomic else (VEC4 if vector else WORD)
        writes = bool(ops - {Op.LOAD, Op.VLOAD})
        cw = chunks.get(buf.name, 0)
        out.append((buf, View(glsl_name(p, buf.name), kind, writes, guard_words > 0,
                              chunk_count(buf.words, cw), cw)))
    return out


_ELEMENT = {ATOMIC: "atomic<u32>", VEC4: "vec4<u32>", WORD: "u32"}


def declarations(bound: list[tuple[Buffer, View]], guard_words: int) -> list[str]:
    """The storage variables, bindings 0, 1, ... (one per buffer, one per chunk of a chunked
    one); guard_words (tests only) put `guard_words` words before each buffer's data, as GLSL's
    `uint guard[N]` member does."""
    lines = []
    i = 0
    for buf, v in bound:
        element = _ELEMENT[v.kind]
        access = "read_write" if v.writes else "read"
        note = f"  // {buf.dtype.name.lower()}[{buf.count}]"
        for j in range(v.chunks):
            var = f"b_{v.name}" if v.chunks == 1 else f"c{j}_{v.name}"
            if guard_words:
                guard = guard_words // 4 if v.kind == VEC4 else guard_words
                lines.append(f"struct Buffer{i} {{ guard: array<{element}, {guard}>, "
                             f"data: array<{element}> }}")
                typ = f"Buffer{i}"
            else:
                typ = f"array<{element}>"
            lines.append(f"@group(0) @binding({i}) var<storage, {access}> {var}: {typ};{note}")
            i += 1
    return lines


def bindings(bound: list[tuple[Buffer, View]]) -> int:
    """Storage bindings: the push words' uniform buffer is bound right after them."""
    return sum(v.chunks for _, v in bound)


def chunk_functions(k: Kernel, bound: list[tuple[Buffer, View]]) -> list[str]:
    """For each chunked buffer, the functions its accesses go through (codegen/chunks.py's
    chunk_helpers, in WGSL): each splits a flat word (or vector) index into a chunk, i >> k, and
    an offset in it, i & mask, and accesses that chunk's variable with the buffer's view."""
    nodes = effects_order(k)
    out = []
    for buf, v in bound:
        if v.chunks == 1:
            continue
        ops = {n.op for n in nodes if n.op in BUFFER_OPS and n.buffer == buf.name}
        made = [fn for op, fn in _CHUNK_FNS if op in ops]
        for fn in dict.fromkeys(made):
            params, ret, vector = _CHUNK_SIGNATURES[fn]
            shift = v.chunk_words.bit_length() - 1 - (2 if vector else 0)
            out += [f"fn dmlc_{fn}_{v.name}({params}){f' -> {ret}' if ret else ''} {{",
                    f"    let o = i & {(1 << shift) - 1}u;", f"    let c = i >> {shift}u;"]
            for j in range(v.chunks):
                cond = (("if" if j == 0 else "else if") + f" (c == {j}u) " if j < v.chunks - 1
                        else "else ")
                out.append(f"    {cond}{{ {_chunk_access(fn, v, j)}; }}")
            out.append("}")
    return out


_CHUNK_FNS = ((Op.LOAD, "ld"), (Op.VLOAD, "vld"), (Op.STORE, "st"), (Op.WSTORE, "st"),
              (Op.VSTORE, "vst"), (Op.ATOMIC_MAX, "amax"), (Op.ATOMIC_STORE, "aand"),
              (Op.ATOMIC_STORE, "aor"))
_CHUNK_SIGNATURES = {  # parameters, return type, vector?
    "ld": ("i: u32", "u32", False), "vld": ("i: u32", "vec4<u32>", True),
    "st": ("i: u32, x: u32", "", False), "vst": ("i: u32, x: vec4<u32>", "", True),
    "amax": ("i: u32, x: u32", "", False), "aand": ("i: u32, x: u32", "", False),
    "aor": ("i: u32, x: u32", "", False)}


def _chunk_access(fn: str, v: View, j: int) -> str:
    """What chunk function `fn` does to chunk j at offset `o` (a word, or a vector)."""
    if fn == "ld":
        return f"return {v.load('o', j)}"
    if fn == "vld":
        return f"return {v.ref(j)}[o]"
    if fn == "st":
        return v.store("o", "x", j)
    if fn == "vst":
        return f"{v.ref(j)}[o] = x"
    atomic = {"amax": "atomicMax", "aand": "atomicAnd", "aor": "atomicOr"}[fn]
    return f"{atomic}(&{v.ref(j)}[o], x)"


@functools.lru_cache(maxsize=8)
def wgsl_helpers(name: str) -> str:
    """A WGSL file of shaders/, its `// @family NAMES: ROW; ROW; ...` blocks (up to `// @end`)
    expanded: WGSL has no preprocessor, so what GLSL's helpers write as a macro family is one
    block repeated per row, each $NAME replaced by the row's value."""
    out: list[str] = []
    block: list[str] | None = None
    names: list[str] = []
    rows: list[list[str]] = []
    for line in helpers(name).splitlines():
        if line.startswith("// @family "):
            head, _, values = line[len("// @family "):].partition(":")
            names, rows, block = head.split(), [r.split() for r in values.split(";")], []
        elif line.startswith("// @end") and block is not None:
            for row in rows:
                assert len(row) == len(names), (name, row)
                out += [string.Template(t).substitute(dict(zip(names, row))) for t in block]
            block = None
        elif block is not None:
            block.append(line)
        else:
            out.append(line)
    return "\n".join(out)
