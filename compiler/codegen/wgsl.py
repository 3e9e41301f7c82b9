"""WGSL compute shaders from IR kernels: the GLSL renderer's twin (tinygrad's one renderer per
backend), for WebGPU (naga, Tint).

Same kernel, same meaning, same interface as render_glsl: the same schedule (workgroup size,
items per invocation, the 2-D grid linearized as group = wg.y * num_workgroups.x + wg.x), the
same storage bindings in the same order (kernel_buffers; one per chunk of a chunked buffer), the
same 32-bit words (64-bit elements as vec2<u32>, 8/16-bit ones packed), the same push-constant
words. What WGSL asks for differently:

- one view per binding (wgsl_buffers.py): `array<u32>`, `array<vec4<u32>>` (scalar words as
  lanes) or `array<atomic<u32>>` (every access atomic); `read` or `read_write` (no write-only);
- push constants: WGSL text has no immediate address space yet, so a generic kernel's words
  are a uniform buffer, `var<uniform> dmlc_p: array<vec4<u32>, K>` (uniform arrays have a
  16-byte stride: word k is dmlc_p[k / 4][k % 4]; K = ceil(words / 4)), at
  **binding N = the kernel's storage bindings** (right after the last one), group 0;
- no implicit conversions: i32(u32) and u32(i32) reinterpret the bits (the WGSL spec's scalar
  conversions between 32-bit integers), as GLSL's int(uint) does; `?:` is select(else, then, c)
  (both sides are named values already, so evaluating both costs nothing and risks nothing);
- shifts take u32 amounts, vector shifts vector amounts; `==` of two vec2<u32> is all(==);
- GLSL builtins WGSL lacks (uaddCarry, usubBorrow, umulExtended) are helper functions in
  shaders/dmlc_helpers.wgsl; findMSB is firstLeadingBit, bitfieldExtract extractBits.

Integer `/` and `%`: WGSL defines them for every operand (x / 0 = x, INT_MIN / -1 = INT_MIN,
truncating), GLSL leaves negative operands undefined. dmlc prints plain `/` and `%` only where
the dividend is proven >= 0 and the divisor >= 1 (as in GLSL), so both languages agree there;
elsewhere the helpers (dmlc_floordiv, the integer and soft-float helpers) work on magnitudes.
"""
from __future__ import annotations

from ..dtypes import DataType
from ..ir import Kernel, Node, Op, Program, VType
from ..ir.kernel import kernel_buffers, magic_words, vector_width
from ..ir.ops import toposort
from .chunks import chunk_words
from .glsl import _branch_order, _combine_fn, _integer_fn, _shown
from .helper_files import helper_files, runtime_division
from .wgsl_buffers import View, bindings, chunk_functions, declarations, views, wgsl_helpers

_BSWAP = ("(({0}.wzyx << vec4<u32>(24u)) | (({0}.wzyx << vec4<u32>(8u)) & vec4<u32>(0xFF0000u)) "
          "| (({0}.wzyx >> vec4<u32>(8u)) & vec4<u32>(0xFF00u)) | ({0}.wzyx >> vec4<u32>(24u)))")
# Reverse the elements of a 16-byte vector, by element size in bytes.
_REVERSE = {8: "{0}.zwxy", 4: "{0}.wzyx",
            2: "(({0}.wzyx << vec4<u32>(16u)) | ({0}.wzyx >> vec4<u32>(16u)))", 1: _BSWAP}
_INDEX_FN = {DataType.INT32: "dmlc_index_i32", DataType.UINT32: "dmlc_index_u32",
             DataType.INT64: "dmlc_index_i64", DataType.UINT64: "dmlc_index_u64"}
_INFIX = {Op.ADD: "+", Op.MUL: "*", Op.CMPLT: "<", Op.CMPNE: "!=", Op.AND: "&&"}


def wgsl_type(dtype: object) -> str:
    if dtype is VType.INT:
        return "i32"
    if dtype is VType.BOOL:
        return "bool"
    if dtype is VType.VEC16:
        return "vec4<u32>"
    assert isinstance(dtype, DataType)
    return "vec2<u32>" if dtype.bits == 64 else "u32"


def _int(value: int) -> str:
    """An i32 literal, typed (an abstract integer would be a const-expression error where a
    negative one meets u32()): 5i, (-5i); INT32_MIN, which no literal spells, i32(-2147483648)."""
    if value == -(2**31):
        return "i32(-2147483648)"
    return f"(-{-value}i)" if value < 0 else f"{value}i"


def _const(n: Node) -> str:
    if n.dtype is VType.BOOL:
        return "true" if n.arg else "false"
    if n.dtype is VType.INT:
        return _int(n.value)
    bits = n.value
    if wgsl_type(n.dtype) == "vec2<u32>":
        return f"vec2<u32>({bits & 0xFFFFFFFF}u, {bits >> 32}u)"
    return f"{bits}u"


def _convert(n: Node, x: str) -> str:
    """A CONVERT, inline (glsl._convert's rule): the value's low word (sign-extended from 8/16
    bits), then the high word of a 64-bit result, or the low word masked to a narrower one."""
    src, dst = n.src[0], n.data_type
    if src.dtype is VType.INT:
        low, signed = f"u32({x})", True
    else:
        t = src.data_type
        if t.bits == 64:
            low, signed = f"{x}.x", t.is_signed_int
        elif t.is_signed_int and t.bits < 32:
            low, signed = f"u32(extractBits(i32({x}), 0u, {t.bits}u))", True
        else:
            low, signed = x, t.is_signed_int
        if t.bits == 64 and dst.bits == 64:
            return x
    if dst.bits == 64:
        high = f"select(0u, 0xFFFFFFFFu, i32({low}) < 0)" if signed else "0u"
        return f"vec2<u32>({low}, {high})"
    return low if dst.bits == 32 else f"({low} & {(1 << dst.bits) - 1}u)"


def _word_param(k: int) -> str:
    """Push-constant word k in the uniform array of vec4s."""
    return f"dmlc_p[{k // 4}].{'xyzw'[k % 4]}"


class _WgslWriter:
    """glsl._KernelWriter's walk (effects in order, the schedule's branches as if/else), each
    node printed as WGSL."""

    def __init__(self, k: Kernel, p: Program, bound: dict[str, View]) -> None:
        self.k, self.p, self.views = k, p, bound
        self.names: dict[Node, str] = {}
        self.count = 0
        self.branches = k.schedule.branches if k.schedule else frozenset()
        self.magic = {q: f"{_word_param(m)}, {_word_param(s)}"
                      for q, (m, s) in magic_words(p).items()}

    def name(self, n: Node) -> str:
        if n.op is Op.CONST:
            return _const(n)
        if n.op is Op.VAR:  # gid or step; the step of a kernel without steps is 0 (no loop)
            name, lo, hi = n.variable
            return _int(lo) if name == "step" and lo == hi else str(name)
        if n.op is Op.PARAM:  # a push-constant word (a size; its range fits i32: verify.py)
            return f"i32({_word_param(n.param)})"
        return self.names[n]

    def word(self, buf: str, i: str) -> str:
        """Word i of a buffer, through its view (or its chunk function)."""
        v = self.views[buf]
        return f"dmlc_ld_{v.name}(u32({i}))" if v.chunks > 1 else v.load(i)

    def put(self, buf: str, i: str, x: str) -> str:
        v = self.views[buf]
        return f"dmlc_st_{v.name}(u32({i}), {x});" if v.chunks > 1 else f"{v.store(i, x)};"

    def load(self, buf: str, dtype: DataType, a: str) -> str:
        if dtype.bits == 32:
            return self.word(buf, a)
        if dtype.bits == 64:
            return (f"vec2<u32>({self.word(buf, f'u32({a}) * 2u')}, "
                    f"{self.word(buf, f'u32({a}) * 2u + 1u')})")
        per_word, mask = (2, "0xFFFFu") if dtype.bits == 16 else (4, "0xFFu")
        shift = f"((u32({a}) & {per_word - 1}u) * {dtype.bits}u)"
        return f"(({self.word(buf, f'u32({a}) / {per_word}u')} >> {shift}) & {mask})"

    def expr(self, n: Node) -> str:
        a = [self.name(s) for s in n.src]
        if n.op in (Op.FLOORDIV, Op.FLOORMOD) and not n.src[1].is_const:
            return runtime_division(n, a, self.magic)
        if n.op in (Op.FLOORDIV, Op.FLOORMOD):
            d = n.src[1].value
            if d & (d - 1) == 0:  # two's complement: x >> k == x // 2^k, x & (2^k - 1) == x % 2^k
                return (f"{a[0]} >> {d.bit_length() - 1}u" if n.op is Op.FLOORDIV
                        else f"{a[0]} & {d - 1}")
            if n.src[0].vmin >= 0:  # plain / and % only where the dividend is proven >= 0
                return f"{a[0]} {'/' if n.op is Op.FLOORDIV else '%'} {a[1]}"
            return f"dmlc_{n.op.name.lower()}({a[0]}, {a[1]})"
        if n.op in _INFIX:
            return f"{a[0]} {_INFIX[n.op]} {a[1]}"
        if n.op in (Op.MIN, Op.MAX):
            return f"{n.op.name.lower()}({a[0]}, {a[1]})"
        if n.op is Op.WHERE:
            return f"select({a[2]}, {a[1]}, {a[0]})"
        if n.op is Op.LOAD:
            return self.load(n.buffer, n.data_type, a[0])
        if n.op is Op.VLOAD:
            width = vector_width(self.p.buffer(n.buffer).dtype)
            # aligned and >= 0 (verify.py): a shift finds the vector
            at = f"{a[0]} >> {width.bit_length() - 1}u"
            v = self.views[n.buffer]
            return f"dmlc_vld_{v.name}(u32({at}))" if v.chunks > 1 else f"{v.ref()}[{at}]"
        if n.op is Op.REVERSE:
            return _REVERSE[n.itemsize].format(a[0])
        if n.op is Op.VEXTRACT:  # 32-bit: one component; 64-bit: a pair (low word first)
            lane = n.lane
            return f"{a[0]}.{'xyzw'[lane]}" if n.data_type.bits == 32 else (
                f"{a[0]}.{('xy', 'zw')[lane]}")
        if n.op is Op.VPACK:
            return f"vec4<u32>({', '.join(a)})"  # vec4<u32>(vec2, vec2) concatenates too
        if n.op is Op.PACK:  # lane 0 in the lowest bits
            bits = n.src[0].data_type.bits
            mask = "0xFFu" if bits == 8 else "0xFFFFu"
            return " | ".join(f"(({x} & {mask}) << {lane * bits}u)" for lane, x in enumerate(a))
        if n.op is Op.INDEX:
            fn = _INDEX_FN[n.src[0].data_type]
            return f"{fn}({a[0]}, {a[1]}, {'true' if n.mode == 'clamp' else 'false'})"
        if n.op is Op.BITS:
            return f"i32({a[0]})"
        if n.op is Op.COMBINE:
            return f"{_combine_fn(n)}({a[0]}, {a[1]})"
        if n.op is Op.ARITH:
            return f"{_integer_fn('ia', n)}({a[0]}, {a[1]})"
        if n.op is Op.COMPARE:
            if n.mode == "eq":
                wide = n.src[0].data_type.bits == 64
                return f"all({a[0]} == {a[1]})" if wide else f"({a[0]} == {a[1]})"
            return f"{_integer_fn('ic', n)}({a[0]}, {a[1]})"
        if n.op is Op.CONVERT:
            return _convert(n, a[0])
        raise NotImplementedError(n.op)

    def effect(self, e: Node, indent: str) -> list[str]:
        buf = self.p.buffer(e.buffer)
        addr, value = self.name(e.src[0]), self.name(e.src[1])
        v = self.views[buf.name]
        chunked = v.chunks > 1
        if e.op is Op.ATOMIC_MAX:
            body = [f"dmlc_amax_{v.name}(u32({addr}), u32({value}));" if chunked else
                    f"atomicMax(&{v.ref()}[{addr}], u32({value}));"]
        elif e.op is Op.WSTORE:  # a whole word of 8/16-bit elements (passes/legalize.py)
            body = [self.put(buf.name, addr, value)]
        elif e.op is Op.ATOMIC_STORE:  # other invocations may own the word's other elements
            lanes, bits = 32 // buf.dtype.bits, buf.dtype.bits
            mask = "0xFFu" if bits == 8 else "0xFFFFu"
            word = f"u32({addr}) / {lanes}u"
            shift = f"((u32({addr}) & {lanes - 1}u) * {bits}u)"
            clear, put = f"~({mask} << {shift})", f"(u32({value}) & {mask}) << {shift}"
            body = ([f"dmlc_aand_{v.name}({word}, {clear});", f"dmlc_aor_{v.name}({word}, {put});"]
                    if chunked else [f"atomicAnd(&{v.ref()}[{word}], {clear});",
                                     f"atomicOr(&{v.ref()}[{word}], {put});"])
        elif e.op is Op.VSTORE:
            at = f"{addr} >> {vector_width(buf.dtype).bit_length() - 1}u"
            body = [f"dmlc_vst_{v.name}(u32({at}), {value});" if chunked else
                    f"{v.ref()}[{at}] = {value};"]
        elif buf.dtype.bits == 64:
            body = [self.put(buf.name, f"u32({addr}) * 2u", f"{value}.x"),
                    self.put(buf.name, f"u32({addr}) * 2u + 1u", f"{value}.y")]
        elif buf.dtype.bits == 32:
            body = [self.put(buf.name, addr, value)]
        else:
            raise ValueError(f"an {buf.dtype.bits}-bit store of single elements: legalize first")
        if len(e.src) > 2:
            pred = self.name(e.src[2])
            inner = [f"{indent}    {b}" for b in body]
            return [f"{indent}if ({pred}) {{", *inner, f"{indent}}}"]
        return [indent + b for b in body]

    def body(self, indent: str) -> list[str]:
        """glsl._KernelWriter.body's order: each effect's values, then the effect."""
        self.names, self.count = {}, 0
        out: list[str] = []
        for e in self.k.effects:
            nodes = toposort([e], stop=self.names.keys())
            if any(n in self.branches for n in nodes):
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
            out.append(f"{indent}let {self.fresh(n)}: {wgsl_type(n.dtype)} = {self.expr(n)};")
        return out

    def fresh(self, n: Node) -> str:
        self.names[n] = f"v{self.count}"
        self.count += 1
        return self.names[n]

    def lazy(self, n: Node, indent: str) -> list[str]:
        """glsl._KernelWriter.lazy: n named, each select that branches as if/else."""
        out: list[str] = []
        for m in _branch_order(n, self.names.keys(), self.branches):
            if m not in self.branches:
                out += self.declare([m], indent)
                continue
            name = f"v{self.count}"
            self.count += 1
            out += [f"{indent}var {name}: {wgsl_type(m.dtype)};",
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


def binding_types(k: Kernel, p: Program, guard_words: int = 0,
                  binding_bytes: int | None = None) -> tuple[str, ...]:
    """What a WebGPU bind group layout needs for render_wgsl(k, p, ...) (an explicit pipeline
    layout must match the shader): each binding's buffer binding type, in binding order:
    "read-only-storage" for a buffer the kernel only reads, "storage" for one it writes (one
    per chunk of a chunked buffer), then "uniform" for the push words of a generic program
    (its binding is the number of storage bindings)."""
    bound = views(k, p, guard_words, _chunks(k, p, guard_words, binding_bytes))
    storage = tuple("storage" if v.writes else "read-only-storage"
                    for _, v in bound for _ in range(v.chunks))
    return storage + (("uniform",) if p.params else ())


def _chunks(k: Kernel, p: Program, guard_words: int, binding_bytes: int | None) -> dict[str, int]:
    return {} if binding_bytes is None else {
        b.name: c for b in kernel_buffers(k, p)
        if b.extent is None and (c := chunk_words(b.words, guard_words, binding_bytes))}


def render_wgsl(k: Kernel, p: Program, guard_words: int = 0,
                binding_bytes: int | None = None) -> str:
    """WGSL source of kernel `k` of program `p` (scheduled: passes/schedule.py), with
    render_glsl's arguments and meaning: storage binding i is kernel_buffers(k, p)[i] (one per
    chunk of a chunked buffer, in order), group 0; a generic kernel's push words are the uniform
    buffer at the binding after them (push_binding)."""
    if guard_words % 4 or guard_words < 0:
        raise ValueError(f"guard_words must be a non-negative multiple of 4, got {guard_words}")
    sched = k.schedule
    if sched is None:
        raise ValueError(f"kernel {k.name} has no schedule: run the pipeline (passes.schedule)")
    bound = views(k, p, guard_words, _chunks(k, p, guard_words, binding_bytes))
    w = _WgslWriter(k, p, {b.name: v for b, v in bound})
    lines = [f"// dmlc: kernel {_shown(k.name)} of program {_shown(p.name)} (WGSL)"]
    lines += declarations(bound, guard_words)
    if p.params:  # a generic kernel's sizes, per dispatch: a uniform buffer of vec4s
        lines.append(f"@group(0) @binding({bindings(bound)}) var<uniform> dmlc_p: "
                     f"array<vec4<u32>, {-(-p.push_words // 4)}>;  // push words "
                     f"0..{p.push_words - 1}: word k is dmlc_p[k / 4][k % 4]")
    chunk_fns = chunk_functions(k, bound)
    if chunk_fns:
        lines += ["", *chunk_fns]
    lines += ["", *(x for name in helper_files(k, p)
                    for x in (wgsl_helpers(f"{name}.wgsl").rstrip(), ""))]
    lines += [f"@compute @workgroup_size({sched.local_size})",
              "fn main(@builtin(workgroup_id) wg: vec3<u32>, "
              "@builtin(num_workgroups) groups: vec3<u32>,",
              "        @builtin(local_invocation_id) local: vec3<u32>) {",
              "    let group = wg.y * groups.x + wg.x;"]
    span = sched.local_size * sched.stride  # sched.stride items, a workgroup apart
    loop = k.steps > 1 or k.step_count is not None
    steps = k.steps if k.step_count is None else f"i32({_word_param(k.step_count.param)})"
    indent = "                " if loop else "            "
    count = f"{k.items}u" if k.count is None else _word_param(k.count.param)
    for j in range(sched.stride):
        lines += ["    {", f"        let item = group * {span}u + {j * sched.local_size}u + "
                  "local.x;",
                  f"        if (item < {count}) {{", "            let gid = i32(item);"]
        if loop:
            lines.append(f"            for (var step = 0; step < {steps}; step++) {{")
        lines += w.body(indent) + (["            }"] if loop else [])
        lines += ["        }", "    }"]
    return "\n".join(lines + ["}", ""])


__all__ = ["binding_types", "render_wgsl", "wgsl_type"]
