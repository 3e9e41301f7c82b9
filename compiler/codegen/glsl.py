"""GLSL compute shaders from IR kernels (tinygrad's cstyle renderer, Halide's OpenGLCompute).

Every buffer is a `uint data[]` array whatever its element type: 64-bit elements are two words
(low first), 8/16-bit elements are packed four/two to a word. The shader declares no 64/16/8-bit
type. An invocation handles `lanes` consecutive items so that it owns every 32-bit word of an
8/16-bit output it writes (verify.py guarantees such stores write element gid). Any grid shape
works: the invocation id is linearized from a 2-D grid, so the runtime can respect the device's
per-axis workgroup limit.
"""
from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import Optional

from ..dtypes import DataType
from ..ir import Buffer, Kernel, Node, Op, Program, VType
from ..ir.build import vector_width
from ..ir.kernel import BUFFER_OPS, kernel_buffers
from ..ir.ops import toposort

LOCAL_SIZE = 64
"""Invocations per workgroup, where the kernel has enough of them (local_size): on lavapipe 256
measured the same as 64."""
MIN_LOCAL_SIZE = 8       # llvmpipe runs 8 invocations per SIMD instruction (256-bit)
MIN_GROUPS = 16
"""Workgroups a kernel should have at least, so that every thread (lavapipe) or compute unit
gets work: a smaller kernel takes smaller workgroups. Measured on lavapipe, scatter f32
[2048, 1024] by lines (64 invocations, each a loop): 0.17 of the copy shader in one workgroup
of 64, 0.30 in eight of 8."""
UNROLL = 4               # items per invocation for large kernels
UNROLL_MIN_ITEMS = 1 << 16

_INFIX = {Op.ADD: "+", Op.MUL: "*", Op.CMPLT: "<", Op.CMPNE: "!=", Op.AND: "&&"}
_BSWAP = ("(({0}.wzyx << 24u) | (({0}.wzyx << 8u) & uvec4(0xFF0000u)) | "
          "(({0}.wzyx >> 8u) & uvec4(0xFF00u)) | ({0}.wzyx >> 24u))")
# Reverse the elements of a 16-byte vector, by element size in bytes.
_REVERSE = {8: "{0}.zwxy", 4: "{0}.wzyx", 2: "(({0}.wzyx << 16u) | ({0}.wzyx >> 16u))", 1: _BSWAP}
_INDEX_FN = {DataType.INT32: "dmlc_index_i32", DataType.UINT32: "dmlc_index_u32",
             DataType.INT64: "dmlc_index_i64", DataType.UINT64: "dmlc_index_u64"}


def helpers() -> str:
    return resources.files("dmlc.shaders").joinpath("dmlc_helpers.glsl").read_text()


def glsl_type(dtype: object) -> str:
    if dtype is VType.INT:
        return "int"
    if dtype is VType.BOOL:
        return "bool"
    if dtype is VType.VEC16:
        return "uvec4"
    assert isinstance(dtype, DataType)
    return "uvec2" if dtype.bits == 64 else "uint"


@dataclass(frozen=True)
class Schedule:
    """How a kernel's items map onto invocations, chosen per kernel."""

    local_size: int
    lanes: int
    """Consecutive items per invocation (so 8/16-bit stores fill whole words)."""
    unroll: int
    """Items per invocation, strided by local_size, so neighbouring invocations touch
    neighbouring memory (the best copy shader's layout)."""
    items: int

    @property
    def invocations(self) -> int:
        """Invocations to launch (whole workgroups)."""
        per_group = self.local_size * self.unroll * self.lanes
        return -(-self.items // per_group) * self.local_size


def packed_stores(k: Kernel, p: Program) -> list[Buffer]:
    """The 8/16-bit buffers this kernel stores to (each invocation assembles whole words)."""
    names = sorted({e.arg for e in k.effects if e.op is Op.STORE})  # type: ignore[type-var]
    return [buf for buf in map(p.buffer, names) if buf.dtype.bits < 32]


def local_size(invocations: int) -> int:
    """LOCAL_SIZE, or for a kernel of fewer than MIN_GROUPS such workgroups the power of two
    (at least MIN_LOCAL_SIZE) that makes about MIN_GROUPS of them."""
    size = LOCAL_SIZE
    while size > MIN_LOCAL_SIZE and invocations < size * MIN_GROUPS:
        size //= 2
    return size


def schedule(k: Kernel, p: Program) -> Schedule:
    packed = packed_stores(k, p)
    if packed:
        lanes = 4 // min(buf.dtype.itemsize for buf in packed)
        return Schedule(local_size(-(-k.items // lanes)), lanes, 1, k.items)
    unroll = UNROLL if k.items >= UNROLL_MIN_ITEMS and k.unrolled == 1 else 1
    return Schedule(local_size(-(-k.items // unroll)), 1, unroll, k.items)


def _const(n: Node) -> str:
    if n.dtype is VType.BOOL:
        return "true" if n.arg else "false"
    if n.dtype is VType.INT:
        return f"({n.arg})" if n.arg < 0 else str(n.arg)  # type: ignore[operator]
    bits = int(n.arg)  # type: ignore[call-overload]
    if glsl_type(n.dtype) == "uvec2":
        return f"uvec2({bits & 0xFFFFFFFF}u, {bits >> 32}u)"
    return f"{bits}u"


def _load(buf: str, dtype: DataType, a: str) -> str:
    data = f"b_{buf}.data"
    if dtype.bits == 32:
        return f"{data}[{a}]"
    if dtype.bits == 64:
        return f"uvec2({data}[uint({a}) * 2u], {data}[uint({a}) * 2u + 1u])"
    per_word, mask = (2, "0xFFFFu") if dtype.bits == 16 else (4, "0xFFu")
    shift = f"((uint({a}) & {per_word - 1}u) * {dtype.bits}u)"
    return f"(({data}[uint({a}) / {per_word}u] >> {shift}) & {mask})"


class _KernelWriter:
    def __init__(self, k: Kernel, p: Program) -> None:
        self.k, self.p = k, p
        self.names: dict[Node, str] = {}
        self.lines: list[str] = []

    def name(self, n: Node) -> str:
        if n.op is Op.CONST:
            return _const(n)
        if n.op is Op.VAR:  # gid or step; the step of a kernel without steps is 0 (no loop)
            name, lo, hi = n.arg  # type: ignore[misc]
            return str(lo) if name == "step" and lo == hi else str(name)
        return self.names[n]

    def expr(self, n: Node) -> str:
        a = [self.name(s) for s in n.src]
        if n.op in _INFIX:
            return f"{a[0]} {_INFIX[n.op]} {a[1]}"
        if n.op in (Op.FLOORDIV, Op.FLOORMOD):
            d = int(n.src[1].arg)  # type: ignore[call-overload]
            if d & (d - 1) == 0:  # two's complement: x >> k == x // 2^k, x & (2^k - 1) == x % 2^k
                return (f"{a[0]} >> {d.bit_length() - 1}" if n.op is Op.FLOORDIV
                        else f"{a[0]} & {d - 1}")
            if n.src[0].vmin >= 0:  # plain / and % only where the dividend is proven >= 0
                return f"{a[0]} {'/' if n.op is Op.FLOORDIV else '%'} {a[1]}"
            return f"dmlc_{n.op.name.lower()}({a[0]}, {a[1]})"
        if n.op in (Op.MIN, Op.MAX):
            return f"{n.op.name.lower()}({a[0]}, {a[1]})"
        if n.op is Op.WHERE:
            return f"{a[0]} ? {a[1]} : {a[2]}"
        if n.op is Op.LOAD:
            return _load(n.arg, n.dtype, a[0])  # type: ignore[arg-type]
        if n.op is Op.VLOAD:
            width = vector_width(self.p.buffer(n.arg).dtype)  # type: ignore[arg-type]
            return f"b_{n.arg}_v.data[{a[0]} >> {width.bit_length() - 1}]"  # aligned, >= 0: verify.py
        if n.op is Op.REVERSE:
            return _REVERSE[n.arg].format(a[0])  # type: ignore[index]
        if n.op is Op.VEXTRACT:  # 32-bit: one component; 64-bit: a pair (low word first)
            lane = int(n.arg)  # type: ignore[call-overload]
            return f"{a[0]}.{'xyzw'[lane]}" if n.dtype.bits == 32 else (  # type: ignore[union-attr]
                f"{a[0]}.{('xy', 'zw')[lane]}")
        if n.op is Op.VPACK:
            return f"uvec4({', '.join(a)})"  # uvec4(uvec2, uvec2) concatenates too
        if n.op is Op.INDEX:
            fn = _INDEX_FN[n.src[0].dtype]  # type: ignore[index]
            return f"{fn}({a[0]}, {a[1]}, {'true' if n.arg == 'clamp' else 'false'})"
        if n.op is Op.BITS:
            return f"int({a[0]})"
        raise NotImplementedError(n.op)

    def effect(self, e: Node, indent: str, lane: int) -> list[str]:
        buf = self.p.buffer(e.arg)  # type: ignore[arg-type]
        addr, value = self.name(e.src[0]), self.name(e.src[1])
        data = f"b_{buf.name}.data"
        if e.op is Op.ATOMIC_MAX:
            body = [f"atomicMax({data}[{addr}], uint({value}));"]
        elif e.op is Op.VSTORE:
            body = [f"b_{buf.name}_v.data[{addr} >> {vector_width(buf.dtype).bit_length() - 1}] "
                    f"= {value};"]
        elif buf.dtype.bits == 64:
            body = [f"{data}[uint({addr}) * 2u] = {value}.x;",
                    f"{data}[uint({addr}) * 2u + 1u] = {value}.y;"]
        elif buf.dtype.bits == 32:
            body = [f"{data}[{addr}] = {value};"]
        else:  # packed: this invocation assembles the whole word (verify.py)
            mask = "0xFFu" if buf.dtype.bits == 8 else "0xFFFFu"
            body = [f"word_{buf.name} |= ({value} & {mask}) << {lane * buf.dtype.bits}u;"]
        if len(e.src) > 2:
            pred = self.name(e.src[2])
            return [f"{indent}if ({pred}) {{"] + [f"{indent}    {b}" for b in body] + [f"{indent}}}"]
        return [indent + b for b in body]

    def lane_body(self, lane: int, indent: str) -> list[str]:
        self.names = {}
        out: list[str] = []
        for e in self.k.effects:
            for n in toposort([e], stop=self.names.keys()):  # named nodes: their sources too
                if n in self.names or n.op in (Op.CONST, Op.VAR) or n.dtype is VType.VOID:
                    continue
                self.names[n] = f"v{len(self.names)}"
                out.append(f"{indent}{glsl_type(n.dtype)} {self.names[n]} = {self.expr(n)};")
            out += self.effect(e, indent, lane)
        return out


def _declarations(k: Kernel, p: Program, guard_words: int = 0) -> list[str]:
    """One `uint data[]` block per buffer, plus a `uvec4` view of the same binding for buffers
    this kernel moves as vectors. `restrict` only where a binding has a single view.
    guard_words (a multiple of 4; tests only): `data` starts that many words into the binding,
    after a guard region the kernel never names, so that the memory-safety tests can check that
    no access lands before or after a buffer (the address arithmetic is unchanged)."""
    guard = f"uint guard[{guard_words}]; " if guard_words else ""
    vguard = f"uvec4 guard[{guard_words // 4}]; " if guard_words else ""
    nodes = toposort(list(k.effects))
    lines = []
    for i, buf in enumerate(kernel_buffers(k, p)):
        mine = [n for n in nodes if n.arg == buf.name and n.op in BUFFER_OPS]
        scalar = [n for n in mine if n.op in (Op.LOAD, Op.STORE, Op.ATOMIC_MAX)]
        vector = [n for n in mine if n.op in (Op.VLOAD, Op.VSTORE)]
        reads = any(n.op in (Op.LOAD, Op.VLOAD, Op.ATOMIC_MAX) for n in mine)
        writes = any(n.op in (Op.STORE, Op.VSTORE, Op.ATOMIC_MAX) for n in mine)
        access = "writeonly " if writes and not reads else ("" if writes else "readonly ")
        restrict = "restrict " if not (scalar and vector) else ""
        note = f"  // {buf.dtype.name.lower()}[{buf.count}]"
        if scalar or not vector:
            lines.append(f"layout(std430, set = 0, binding = {i}) {restrict}{access}buffer "
                         f"Buffer{i} {{ {guard}uint data[]; }} b_{buf.name};{note}")
        if vector:
            lines.append(f"layout(std430, set = 0, binding = {i}) {restrict}{access}buffer "
                         f"Buffer{i}v {{ {vguard}uvec4 data[]; }} b_{buf.name}_v;{note}")
    return lines


def render_glsl(k: Kernel, p: Program, sched: Optional[Schedule] = None,
                guard_words: int = 0) -> str:
    """GLSL 4.50 source of kernel `k` of program `p`; binding i is kernel_buffers(k, p)[i]."""
    if guard_words % 4 or guard_words < 0:
        raise ValueError(f"guard_words must be a non-negative multiple of 4, got {guard_words}")
    sched = sched or schedule(k, p)
    w = _KernelWriter(k, p)
    lines = ["#version 450", f"// dmlc: kernel {k.name} of program {p.name}",
             f"layout(local_size_x = {sched.local_size}) in;"]
    lines += _declarations(k, p, guard_words)
    lines += ["", helpers().rstrip(), "", "void main() {",
              "    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;"]
    packed = [buf.name for buf in packed_stores(k, p)]
    if packed and k.steps > 1:
        raise NotImplementedError("8/16-bit stores in a kernel with steps")
    if packed:  # lanes consecutive items, assembled into whole 32-bit words
        lines += [f"    uint inv = group * {sched.local_size}u + gl_LocalInvocationID.x;",
                  f"    if (inv >= {-(-k.items // sched.lanes)}u) return;"]
        lines += [f"    uint word_{name} = 0u;" for name in packed]
        for lane in range(sched.lanes):
            lines += ["    {", f"        int gid = int(inv) * {sched.lanes} + {lane};",
                      f"        if (gid < {k.items}) {{"]
            lines += w.lane_body(lane, "            ") + ["        }", "    }"]
        lines += [f"    b_{name}.data[inv] = word_{name};" for name in packed]
    else:  # unroll items strided by the workgroup size; compare in uint before the int cast
        span = sched.local_size * sched.unroll
        loop = k.steps > 1  # the steps run in order: a loop (at most 65,535 passes: verify.py)
        indent = "                " if loop else "            "
        for j in range(sched.unroll):
            lines += ["    {", f"        uint item = group * {span}u + {j * sched.local_size}u + "
                      "gl_LocalInvocationID.x;",
                      f"        if (item < {k.items}u) {{", "            int gid = int(item);"]
            if loop:
                lines.append(f"            for (int step = 0; step < {k.steps}; step++) {{")
            lines += w.lane_body(0, indent) + (["            }"] if loop else [])
            lines += ["        }", "    }"]
    return "\n".join(lines + ["}", ""])
