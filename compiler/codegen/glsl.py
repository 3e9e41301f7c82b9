"""GLSL compute shaders from IR kernels (tinygrad's cstyle renderer, Halide's OpenGLCompute).

Codegen only prints: what each invocation runs, and which selects branch, is the kernel's
schedule (passes/schedule.py), and 8/16-bit outputs arrive as whole words (passes/legalize.py).
Every buffer is a `uint data[]` array whatever its element type: 64-bit elements are two words
(low first), 8/16-bit elements are packed four/two to a word. The shader declares no 64/16/8-bit
type. Any grid shape works: the invocation id is linearized from a 2-D grid, so the runtime can
respect the device's per-axis workgroup limit.
"""
from __future__ import annotations

import functools
import pkgutil
import re
from collections.abc import Set

from ..dtypes import DataType
from ..ir import Kernel, Node, Op, Program, VType
from ..ir.kernel import BUFFER_OPS, effects_order, kernel_buffers, magic_words, vector_width
from ..ir.ops import INFIX, toposort
from ..toolchain.spirv import GLSL_VERSION
from .chunks import chunk_count, chunk_helpers, chunk_words, chunked_effect
from .helper_files import helper_files, runtime_division

_BSWAP = ("(({0}.wzyx << 24u) | (({0}.wzyx << 8u) & uvec4(0xFF0000u)) | "
          "(({0}.wzyx >> 8u) & uvec4(0xFF00u)) | ({0}.wzyx >> 24u))")
# Reverse the elements of a 16-byte vector, by element size in bytes.
_REVERSE = {8: "{0}.zwxy", 4: "{0}.wzyx", 2: "(({0}.wzyx << 16u) | ({0}.wzyx >> 16u))", 1: _BSWAP}
_INDEX_FN = {DataType.INT32: "dmlc_index_i32", DataType.UINT32: "dmlc_index_u32",
             DataType.INT64: "dmlc_index_i64", DataType.UINT64: "dmlc_index_u64"}


@functools.lru_cache(maxsize=4)
def helpers(name: str = "dmlc_helpers.glsl") -> str:
    """A GLSL file of shaders/, through the package loader: importlib.resources' first use
    took 5 ms of a cold compile, this 0.2 ms (and the text is read once per process)."""
    data = pkgutil.get_data("dmlc.shaders", name)
    assert data is not None, name
    return data.decode("utf-8")


def _combine_fn(n: Node) -> str:
    """shaders/dmlc_reduce.glsl's function for a COMBINE of this kind and data type."""
    dtype = n.data_type
    kind = "f" if dtype.numpy.kind == "f" else ("i" if dtype.is_signed_int else "u")
    return f"dmlc_{n.mode}_{kind}{dtype.bits}"


def _integer_fn(prefix: str, n: Node) -> str:
    """shaders/dmlc_int.glsl's function for an ARITH ("ia") or COMPARE ("ic") of this kind on
    this type of operands."""
    dtype = n.src[0].data_type
    return f"dmlc_{prefix}_{n.mode}_{'i' if dtype.is_signed_int else 'u'}{dtype.bits}"


def _convert(n: Node, x: str) -> str:
    """A CONVERT, inline: the value's low word (sign-extended from 8/16 bits), then the high
    word of a 64-bit result, or the low word masked to a narrower one."""
    src, dst = n.src[0], n.data_type
    if src.dtype is VType.INT:
        low, signed = f"uint({x})", True
    else:
        t = src.data_type
        if t.bits == 64:
            low, signed = f"{x}.x", t.is_signed_int
        elif t.is_signed_int and t.bits < 32:
            low, signed = f"uint(bitfieldExtract(int({x}), 0, {t.bits}))", True
        else:
            low, signed = x, t.is_signed_int
        if t.bits == 64 and dst.bits == 64:
            return x
    if dst.bits == 64:
        return f"uvec2({low}, {f'(int({low}) < 0 ? 0xFFFFFFFFu : 0u)' if signed else '0u'})"
    return low if dst.bits == 32 else f"({low} & {(1 << dst.bits) - 1}u)"


def glsl_type(dtype: object) -> str:
    if dtype is VType.INT:
        return "int"
    if dtype is VType.BOOL:
        return "bool"
    if dtype is VType.VEC16:
        return "uvec4"
    assert isinstance(dtype, DataType)
    return "uvec2" if dtype.bits == 64 else "uint"


def _const(n: Node) -> str:
    if n.dtype is VType.BOOL:
        return "true" if n.arg else "false"
    if n.dtype is VType.INT:
        return f"({n.value})" if n.value < 0 else str(n.value)
    bits = n.value
    if glsl_type(n.dtype) == "uvec2":
        return f"uvec2({bits & 0xFFFFFFFF}u, {bits >> 32}u)"
    return f"{bits}u"


SAFE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*(_[A-Za-z0-9]+)*")
MAX_NAME = 32


def glsl_name(p: Program, name: str) -> str:
    """How buffer `name` is called in GLSL: as written when it is a short ASCII name GLSL takes
    as it is (no `__`, which GLSL reserves); otherwise by its index in the program, so that no
    user's name of any length or spelling reaches the shader."""
    if len(name) <= MAX_NAME and SAFE_NAME.fullmatch(name):
        return name
    return str([b.name for b in p.buffers].index(name))


def _shown(name: str) -> str:
    """A kernel's or program's name for a GLSL comment."""
    return name if len(name) <= MAX_NAME and SAFE_NAME.fullmatch(name) else "(unnamed)"


def _load(buf: str, dtype: DataType, a: str, chunked: bool = False) -> str:
    def word(i: str) -> str:  # chunked: the helper that picks the chunk (_chunk_helpers)
        return f"dmlc_ld_{buf}(uint({i}))" if chunked else f"b_{buf}.data[{i}]"
    if dtype.bits == 32:
        return word(a)
    if dtype.bits == 64:
        return f"uvec2({word(f'uint({a}) * 2u')}, {word(f'uint({a}) * 2u + 1u')})"
    per_word, mask = (2, "0xFFFFu") if dtype.bits == 16 else (4, "0xFFu")
    shift = f"((uint({a}) & {per_word - 1}u) * {dtype.bits}u)"
    return f"(({word(f'uint({a}) / {per_word}u')} >> {shift}) & {mask})"


class _KernelWriter:
    def __init__(self, k: Kernel, p: Program, chunks: dict[str, int] | None = None) -> None:
        self.k, self.p = k, p
        self.chunks = chunks or {}
        """Words per chunk of each chunked buffer (chunk_words)."""
        self.names: dict[Node, str] = {}
        self.lines: list[str] = []
        self.branches = k.schedule.branches if k.schedule else frozenset()
        self.magic = {q: f"dmlc_p.p[{m}], dmlc_p.p[{s}]" for q, (m, s) in magic_words(p).items()}

    def name(self, n: Node) -> str:
        if n.op is Op.CONST:
            return _const(n)
        if n.op is Op.VAR:  # gid or step; the step of a kernel without steps is 0 (no loop)
            name, lo, hi = n.variable
            return str(lo) if name == "step" and lo == hi else str(name)
        if n.op is Op.PARAM:  # a push-constant word (a size; its range fits int: verify.py)
            return f"int(dmlc_p.p[{n.param}])"
        return self.names[n]

    def expr(self, n: Node) -> str:
        a = [self.name(s) for s in n.src]
        if n.op in (Op.FLOORDIV, Op.FLOORMOD) and not n.src[1].is_const:
            return runtime_division(n, a, self.magic)
        if n.op in (Op.FLOORDIV, Op.FLOORMOD):
            d = n.src[1].value
            if d & (d - 1) == 0:  # two's complement: x >> k == x // 2^k, x & (2^k - 1) == x % 2^k
                return (f"{a[0]} >> {d.bit_length() - 1}" if n.op is Op.FLOORDIV
                        else f"{a[0]} & {d - 1}")
            if n.src[0].vmin >= 0:  # plain / and % only where the dividend is proven >= 0
                return f"{a[0]} {'/' if n.op is Op.FLOORDIV else '%'} {a[1]}"
            return f"dmlc_{n.op.name.lower()}({a[0]}, {a[1]})"
        if n.op in INFIX:  # the IR's own infix table: + * < != && mean the same in GLSL
            return f"{a[0]} {INFIX[n.op]} {a[1]}"
        if n.op in (Op.MIN, Op.MAX):
            return f"{n.op.name.lower()}({a[0]}, {a[1]})"
        if n.op is Op.WHERE:
            return f"{a[0]} ? {a[1]} : {a[2]}"
        if n.op is Op.LOAD:
            return _load(glsl_name(self.p, n.buffer), n.data_type, a[0],
                         n.buffer in self.chunks)
        if n.op is Op.VLOAD:
            width = vector_width(self.p.buffer(n.buffer).dtype)
            # aligned and >= 0 (verify.py): a shift finds the vector
            at = f"{a[0]} >> {width.bit_length() - 1}"
            if n.buffer in self.chunks:
                return f"dmlc_vld_{glsl_name(self.p, n.buffer)}(uint({at}))"
            return f"b_{glsl_name(self.p, n.buffer)}_v.data[{at}]"
        if n.op is Op.REVERSE:
            return _REVERSE[n.itemsize].format(a[0])
        if n.op is Op.VEXTRACT:  # 32-bit: one component; 64-bit: a pair (low word first)
            lane = n.lane
            return f"{a[0]}.{'xyzw'[lane]}" if n.data_type.bits == 32 else (
                f"{a[0]}.{('xy', 'zw')[lane]}")
        if n.op is Op.VPACK:
            return f"uvec4({', '.join(a)})"  # uvec4(uvec2, uvec2) concatenates too
        if n.op is Op.PACK:  # lane 0 in the lowest bits
            bits = n.src[0].data_type.bits
            mask = "0xFFu" if bits == 8 else "0xFFFFu"
            return " | ".join(f"(({x} & {mask}) << {lane * bits}u)" for lane, x in enumerate(a))
        if n.op is Op.INDEX:
            fn = _INDEX_FN[n.src[0].data_type]
            return f"{fn}({a[0]}, {a[1]}, {'true' if n.mode == 'clamp' else 'false'})"
        if n.op is Op.BITS:
            return f"int({a[0]})"
        if n.op is Op.COMBINE:
            return f"{_combine_fn(n)}({a[0]}, {a[1]})"
        if n.op is Op.ARITH:
            return f"{_integer_fn('ia', n)}({a[0]}, {a[1]})"
        if n.op is Op.COMPARE:
            return (f"({a[0]} == {a[1]})" if n.mode == "eq" else
                    f"{_integer_fn('ic', n)}({a[0]}, {a[1]})")
        if n.op is Op.CONVERT:
            return _convert(n, a[0])
        raise NotImplementedError(n.op)

    def effect(self, e: Node, indent: str) -> list[str]:
        buf = self.p.buffer(e.buffer)
        addr, value = self.name(e.src[0]), self.name(e.src[1])
        name = glsl_name(self.p, buf.name)
        data = f"b_{name}.data"
        if buf.name in self.chunks:
            body = chunked_effect(e, buf.dtype, name, addr, value)
        elif e.op is Op.ATOMIC_MAX:
            body = [f"atomicMax({data}[{addr}], uint({value}));"]
        elif e.op is Op.WSTORE:  # a whole word of 8/16-bit elements (passes/legalize.py)
            body = [f"{data}[{addr}] = {value};"]
        elif e.op is Op.ATOMIC_STORE:  # other invocations may own the word's other elements
            lanes, bits = 32 // buf.dtype.bits, buf.dtype.bits
            mask = "0xFFu" if bits == 8 else "0xFFFFu"
            word = f"{data}[uint({addr}) / {lanes}u]"
            shift = f"((uint({addr}) & {lanes - 1}u) * {bits}u)"
            body = [f"atomicAnd({word}, ~({mask} << {shift}));",
                    f"atomicOr({word}, (uint({value}) & {mask}) << {shift});"]
        elif e.op is Op.VSTORE:
            body = [f"b_{name}_v.data[{addr} >> {vector_width(buf.dtype).bit_length() - 1}] "
                    f"= {value};"]
        elif buf.dtype.bits == 64:
            body = [f"{data}[uint({addr}) * 2u] = {value}.x;",
                    f"{data}[uint({addr}) * 2u + 1u] = {value}.y;"]
        elif buf.dtype.bits == 32:
            body = [f"{data}[{addr}] = {value};"]
        else:
            raise ValueError(f"an {buf.dtype.bits}-bit store of single elements: legalize first")
        if len(e.src) > 2:
            pred = self.name(e.src[2])
            inner = [f"{indent}    {b}" for b in body]
            return [f"{indent}if ({pred}) {{", *inner, f"{indent}}}"]
        return [indent + b for b in body]

    def body(self, indent: str) -> list[str]:
        self.names, self.count = {}, 0
        out: list[str] = []
        for e in self.k.effects:
            nodes = toposort([e], stop=self.names.keys())  # named nodes: their sources too
            if any(n in self.branches for n in nodes):
                # Selects the schedule runs as if/else (passes/schedule.py): the address
                # arithmetic first, then each side only on its branch. What only a branch
                # needs (its addresses) is computed in that branch.
                out += self.lazy(e.src[1], indent)
                out += self.declare(toposort([e], stop=self.names.keys()), indent)
            else:
                out += self.declare(nodes, indent)
            out += self.effect(e, indent)
        return out

    def declare(self, nodes: list[Node], indent: str) -> list[str]:
        out = []
        for n in nodes:
            if n in self.names or n.op in (Op.CONST, Op.VAR, Op.PARAM) or n.dtype is VType.VOID:
                continue
            out.append(f"{indent}{glsl_type(n.dtype)} {self.fresh(n)} = {self.expr(n)};")
        return out

    def fresh(self, n: Node) -> str:
        self.names[n] = f"v{self.count}"
        self.count += 1
        return self.names[n]

    def lazy(self, n: Node, indent: str) -> list[str]:
        """n named, with each select that branches (the schedule's) as if/else: what a branch
        names is dropped when it closes (recomputed if needed again)."""
        out: list[str] = []
        for m in _branch_order(n, self.names.keys(), self.branches):
            if m not in self.branches:
                out += self.declare([m], indent)
                continue
            name = f"v{self.count}"
            self.count += 1
            out += [f"{indent}{glsl_type(m.dtype)} {name};",
                    f"{indent}if ({self.name(m.src[0])}) {{"]
            for branch, opener in ((m.src[1], None), (m.src[2], f"{indent}}} else {{")):
                if opener:
                    out.append(opener)
                outer = dict(self.names)
                out += self.lazy(branch, indent + "    ")
                out.append(f"{indent}    {name} = {self.name(branch)};")
                self.names = outer
            self.names[m] = name
            out.append(f"{indent}}}")
        return out


def _branch_order(root: Node, named: Set[Node], branches: Set[Node]) -> list[Node]:
    """What computing root needs, dependencies first, not yet named; the sides of a select
    that branches are left out (lazy() computes each inside its own branch), its condition
    not."""
    seen: set[Node] = set()
    order: list[Node] = []
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
        elif node not in seen and node not in named:
            seen.add(node)
            stack.append((node, True))
            branching = node in branches
            stack.extend((s, False) for s in reversed(node.src[:1] if branching else node.src))
    return order


def _declarations(k: Kernel, p: Program, guard_words: int = 0,
                  chunks: dict[str, int] | None = None) -> list[str]:
    """One `uint data[]` block per buffer, plus a `uvec4` view of the same binding for buffers
    this kernel moves as vectors. `restrict` only where a binding has a single view.
    guard_words (a multiple of 4; tests only): `data` starts that many words into the binding,
    after a guard region the kernel never names, so that the memory-safety tests can check that
    no access lands before or after a buffer (the address arithmetic is unchanged).
    chunks: a chunked buffer (chunk_words) takes one binding per chunk, each declared as the
    whole buffer would be, named c<j>_<name> (and c<j>v_<name>); _chunk_helpers reads them."""
    guard = f"uint guard[{guard_words}]; " if guard_words else ""
    vguard = f"uvec4 guard[{guard_words // 4}]; " if guard_words else ""
    nodes = effects_order(k)
    lines = []
    i = 0  # the binding: one per buffer, one per chunk of a chunked buffer
    for buf in kernel_buffers(k, p):
        mine = [n for n in nodes if n.op in BUFFER_OPS and n.buffer == buf.name]
        scalar = [n for n in mine if n.op in (Op.LOAD, Op.STORE, Op.ATOMIC_MAX, Op.WSTORE,
                                              Op.ATOMIC_STORE)]
        vector = [n for n in mine if n.op in (Op.VLOAD, Op.VSTORE)]
        atomic = (Op.ATOMIC_MAX, Op.ATOMIC_STORE)  # read-modify-write: never writeonly
        reads = any(n.op in (Op.LOAD, Op.VLOAD, *atomic) for n in mine)
        writes = any(n.op in (Op.STORE, Op.VSTORE, Op.WSTORE, *atomic) for n in mine)
        access = "writeonly " if writes and not reads else ("" if writes else "readonly ")
        restrict = "restrict " if not (scalar and vector) else ""
        note = f"  // {buf.dtype.name.lower()}[{buf.count}]"
        name = glsl_name(p, buf.name)
        parts = chunk_count(buf.words, chunks.get(buf.name, 0)) if chunks else 1
        for j in range(parts):
            scalar_name, vector_name = ((f"c{j}_{name}", f"c{j}v_{name}") if parts > 1
                                        else (f"b_{name}", f"b_{name}_v"))
            if scalar or not vector:
                lines.append(f"layout(std430, set = 0, binding = {i}) {restrict}{access}buffer "
                             f"Buffer{i} {{ {guard}uint data[]; }} {scalar_name};{note}")
            if vector:
                lines.append(f"layout(std430, set = 0, binding = {i}) {restrict}{access}buffer "
                             f"Buffer{i}v {{ {vguard}uvec4 data[]; }} {vector_name};"
                             f"{note}")
            i += 1
    return lines


def render_glsl(k: Kernel, p: Program, guard_words: int = 0,
                binding_bytes: int | None = None) -> str:
    """GLSL 4.50 source of kernel `k` of program `p` (scheduled: passes/schedule.py); binding i
    is kernel_buffers(k, p)[i]. binding_bytes: the most one binding holds (the plan's
    maxStorageBufferRange): a buffer larger is chunked (chunk_words), taking one binding per
    chunk, in order; None: none is."""
    if guard_words % 4 or guard_words < 0:
        raise ValueError(f"guard_words must be a non-negative multiple of 4, got {guard_words}")
    sched = k.schedule
    if sched is None:
        raise ValueError(f"kernel {k.name} has no schedule: run the pipeline (passes.schedule)")
    chunks = {} if binding_bytes is None else {
        b.name: c for b in kernel_buffers(k, p)
        if b.extent is None and (c := chunk_words(b.words, guard_words, binding_bytes))}
    w = _KernelWriter(k, p, chunks)
    lines = [GLSL_VERSION, f"// dmlc: kernel {_shown(k.name)} of program {_shown(p.name)}",
             f"layout(local_size_x = {sched.local_size}) in;"]
    lines += _declarations(k, p, guard_words, chunks)
    if p.params:  # a generic kernel's sizes, pushed per dispatch (at most 32 words: 128 bytes)
        lines.append(f"layout(push_constant) uniform Params {{ uint p[{p.push_words}]; }} dmlc_p;")
    if chunks:
        lines += ["", *chunk_helpers(k, p, chunks, {n: glsl_name(p, n) for n in chunks})]
    lines += ["", *(x for f in helper_files(k, p) for x in (helpers(f"{f}.glsl").rstrip(), ""))]
    lines += ["void main() {",
              "    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;"]
    # sched.stride items, a workgroup apart; compare in uint before the int cast
    span = sched.local_size * sched.stride
    # the steps run in order: a loop (at most 65,535 passes: verify.py), to the pushed count
    loop = k.steps > 1 or k.step_count is not None
    steps = k.steps if k.step_count is None else f"int(dmlc_p.p[{k.step_count.param}])"
    indent = "                " if loop else "            "
    count = f"{k.items}u" if k.count is None else f"dmlc_p.p[{k.count.param}]"
    for j in range(sched.stride):
        lines += ["    {", f"        uint item = group * {span}u + {j * sched.local_size}u + "
                  "gl_LocalInvocationID.x;",
                  f"        if (item < {count}) {{", "            int gid = int(item);"]
        if loop:
            lines.append(f"            for (int step = 0; step < {steps}; step++) {{")
        lines += w.body(indent) + (["            }"] if loop else [])
        lines += ["        }", "    }"]
    return "\n".join(lines + ["}", ""])
