// dmlc shader helpers, pasted into every generated WGSL kernel: dmlc_helpers.glsl's, ported
// (32-bit types only, as there). WGSL's `/` and `%` are defined for every operand (x / 0 is x,
// INT_MIN / -1 is INT_MIN, truncating) but are still only right for floor division where the
// dividend is >= 0, so codegen calls these where value ranges do not prove it.

// Floor division and modulo by a positive divisor d.
fn dmlc_floordiv(a: i32, d: i32) -> i32 {
    if (a >= 0) { return a / d; }
    return -1 - (-1 - a) / d;  // -1 - a >= 0 here
}
fn dmlc_floormod(a: i32, d: i32) -> i32 { return a - d * dmlc_floordiv(a, d); }

// Index normalization (dmlc's README, "Decisions"): a negative signed index counts from the end
// of the axis once; an index still outside [0, dim) is clamped to [0, dim - 1] when clamp_it,
// else -1. Branch-free (selects only), as the GLSL is.
fn dmlc_index_i32(w: u32, dim: i32, clamp_it: bool) -> i32 {
    var v = i32(w);  // i32(u32) reinterprets the bits
    v += select(0, dim, v < 0);  // cannot overflow: v >= -2^31 and 0 < dim < 2^31
    return select(select(-1, v, v >= 0 && v < dim), clamp(v, 0, dim - 1), clamp_it);
}

fn dmlc_index_u32(w: u32, dim: i32, clamp_it: bool) -> i32 {
    return select(select(-1, dim - 1, clamp_it), i32(w), w < u32(dim));
}

// 64-bit indices arrive as (low word, high word) and are read whole: a value outside int32 is
// out of range, never truncated into range.
fn dmlc_index_i64(w: vec2<u32>, dim: i32, clamp_it: bool) -> i32 {
    let fits = w.y == select(0u, 0xFFFFFFFFu, (w.x >> 31u) != 0u);
    let outside = select(-1, select(dim - 1, 0, i32(w.y) < 0), clamp_it);
    return select(outside, dmlc_index_i32(w.x, dim, clamp_it), fits);
}

fn dmlc_index_u64(w: vec2<u32>, dim: i32, clamp_it: bool) -> i32 {
    return select(select(-1, dim - 1, clamp_it), dmlc_index_u32(w.x, dim, clamp_it), w.y == 0u);
}

// GLSL's uaddCarry, usubBorrow and umulExtended, which WGSL lacks: (result, carry),
// (result, borrow) and (low word, high word) of the full 64-bit product.
fn dmlc_uadd_carry(a: u32, b: u32) -> vec2<u32> {
    let s = a + b;
    return vec2<u32>(s, select(0u, 1u, s < a));
}
fn dmlc_usub_borrow(a: u32, b: u32) -> vec2<u32> {
    return vec2<u32>(a - b, select(0u, 1u, a < b));
}
fn dmlc_umul_extended(a: u32, b: u32) -> vec2<u32> {  // 16-bit halves: no partial overflows
    let a0 = a & 0xFFFFu;
    let a1 = a >> 16u;
    let b0 = b & 0xFFFFu;
    let b1 = b >> 16u;
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let mid = (p00 >> 16u) + (p01 & 0xFFFFu) + (p10 & 0xFFFFu);  // < 3 * 2^16
    let lo = (mid << 16u) | (p00 & 0xFFFFu);
    return vec2<u32>(lo, a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u));
}
