// dmlc integer arithmetic on elements (the IR's ARITH and COMPARE), dmlc_int.glsl ported to
// WGSL, pasted only into kernels that compute so. 32-bit integer operations only: 8/16/32-bit
// values sit zero-extended in a u32, 64-bit ones in a vec2<u32> (low, high). Results wrap
// modulo 2^bits; a zero divisor gives 0 (numpy's integer rule). Division works on magnitudes,
// as the GLSL does (WGSL defines x / 0 and INT_MIN / -1, but not as numpy does).
// WGSL has no preprocessor: each block marked as a family below is repeated once per row of its
// marker, each placeholder replaced by the row's value (codegen/wgsl_buffers.py, wgsl_helpers).

// ---- 32-bit signed division (operands as int32 bits) ----
fn ia_mag(a: u32) -> u32 { return select(a, 0u - a, i32(a) < 0); }
fn ia_tdiv32(a: u32, b: u32) -> u32 {
    if (b == 0u) { return 0u; }
    let q = ia_mag(a) / ia_mag(b);
    return select(q, 0u - q, (i32(a) < 0) != (i32(b) < 0));
}
fn ia_tmod32(a: u32, b: u32) -> u32 {
    if (b == 0u) { return 0u; }
    let r = ia_mag(a) % ia_mag(b);
    return select(r, 0u - r, i32(a) < 0);
}
fn ia_fdiv32(a: u32, b: u32) -> u32 {  // towards -inf: one less where a remainder has a's other sign
    let q = ia_tdiv32(a, b);
    return select(q, q - 1u, ia_tmod32(a, b) != 0u && (i32(a) < 0) != (i32(b) < 0));
}
fn ia_fmod32(a: u32, b: u32) -> u32 {  // the divisor's sign
    let r = ia_tmod32(a, b);
    return select(r, r + b, r != 0u && (i32(r) < 0) != (i32(b) < 0));
}

// ---- 8, 16 and 32 bits: signed values sign-extended to 32 first, results masked ----
// @family T BITS MASK: 8 8 0xFFu; 16 16 0xFFFFu; 32 32 0xFFFFFFFFu
fn ia_s$T(a: u32) -> u32 { return u32(extractBits(i32(a), 0u, ${BITS}u)); }
fn dmlc_ia_add_i$T(a: u32, b: u32) -> u32 { return (a + b) & $MASK; }
fn dmlc_ia_sub_i$T(a: u32, b: u32) -> u32 { return (a - b) & $MASK; }
fn dmlc_ia_mul_i$T(a: u32, b: u32) -> u32 { return (a * b) & $MASK; }
fn dmlc_ia_min_i$T(a: u32, b: u32) -> u32 { return select(a, b, i32(ia_s$T(b)) < i32(ia_s$T(a))); }
fn dmlc_ia_max_i$T(a: u32, b: u32) -> u32 { return select(a, b, i32(ia_s$T(a)) < i32(ia_s$T(b))); }
fn dmlc_ia_truncdiv_i$T(a: u32, b: u32) -> u32 { return ia_tdiv32(ia_s$T(a), ia_s$T(b)) & $MASK; }
fn dmlc_ia_truncmod_i$T(a: u32, b: u32) -> u32 { return ia_tmod32(ia_s$T(a), ia_s$T(b)) & $MASK; }
fn dmlc_ia_floordiv_i$T(a: u32, b: u32) -> u32 { return ia_fdiv32(ia_s$T(a), ia_s$T(b)) & $MASK; }
fn dmlc_ia_floormod_i$T(a: u32, b: u32) -> u32 { return ia_fmod32(ia_s$T(a), ia_s$T(b)) & $MASK; }
fn dmlc_ic_lt_i$T(a: u32, b: u32) -> bool { return i32(ia_s$T(a)) < i32(ia_s$T(b)); }
fn dmlc_ia_add_u$T(a: u32, b: u32) -> u32 { return (a + b) & $MASK; }
fn dmlc_ia_sub_u$T(a: u32, b: u32) -> u32 { return (a - b) & $MASK; }
fn dmlc_ia_mul_u$T(a: u32, b: u32) -> u32 { return (a * b) & $MASK; }
fn dmlc_ia_min_u$T(a: u32, b: u32) -> u32 { return min(a, b); }
fn dmlc_ia_max_u$T(a: u32, b: u32) -> u32 { return max(a, b); }
fn dmlc_ia_truncdiv_u$T(a: u32, b: u32) -> u32 { return select(a / b, 0u, b == 0u); }
fn dmlc_ia_truncmod_u$T(a: u32, b: u32) -> u32 { return select(a % b, 0u, b == 0u); }
fn dmlc_ia_floordiv_u$T(a: u32, b: u32) -> u32 { return select(a / b, 0u, b == 0u); }
fn dmlc_ia_floormod_u$T(a: u32, b: u32) -> u32 { return select(a % b, 0u, b == 0u); }
fn dmlc_ic_lt_u$T(a: u32, b: u32) -> bool { return a < b; }
// @end

// ---- 64 bits: (low, high) word pairs ----
fn ia_add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = dmlc_uadd_carry(a.x, b.x);
    return vec2<u32>(lo.x, a.y + b.y + lo.y);
}
fn ia_sub64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = dmlc_usub_borrow(a.x, b.x);
    return vec2<u32>(lo.x, a.y - b.y - lo.y);
}
fn ia_mul64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let p = dmlc_umul_extended(a.x, b.x);
    return vec2<u32>(p.x, p.y + a.x * b.y + a.y * b.x);
}
fn ia_ult64(a: vec2<u32>, b: vec2<u32>) -> bool { return a.y < b.y || (a.y == b.y && a.x < b.x); }
fn ia_slt64(a: vec2<u32>, b: vec2<u32>) -> bool {
    return i32(a.y) < i32(b.y) || (a.y == b.y && a.x < b.x);
}
fn ia_neg64(a: vec2<u32>) -> bool { return i32(a.y) < 0; }
fn ia_negate64(a: vec2<u32>) -> vec2<u32> { return ia_sub64(vec2<u32>(0u), a); }
fn ia_mag64(a: vec2<u32>) -> vec2<u32> { return select(a, ia_negate64(a), ia_neg64(a)); }
fn ia_zero64(a: vec2<u32>) -> bool { return (a.x | a.y) == 0u; }
// n / d and n % d of unsigned 64-bit values (d != 0), as (q.x, q.y, r.x, r.y): one word when
// both fit, else long division a bit at a time (a remainder that shifted past 64 bits is
// larger than d).
fn ia_udivmod64(n: vec2<u32>, d: vec2<u32>) -> vec4<u32> {
    if (n.y == 0u && d.y == 0u) { return vec4<u32>(n.x / d.x, 0u, n.x % d.x, 0u); }
    var q = vec2<u32>(0u);
    var r = vec2<u32>(0u);
    for (var i: i32 = 63; i >= 0; i--) {
        let carry = (r.y >> 31u) != 0u;
        var bit: u32;
        if (i >= 32) { bit = (n.y >> u32(i - 32)) & 1u; } else { bit = (n.x >> u32(i)) & 1u; }
        r = vec2<u32>((r.x << 1u) | bit, (r.y << 1u) | (r.x >> 31u));
        if (carry || !ia_ult64(r, d)) {
            r = ia_sub64(r, d);
            if (i >= 32) { q.y |= 1u << u32(i - 32); } else { q.x |= 1u << u32(i); }
        }
    }
    return vec4<u32>(q, r);
}
fn ia_tdiv64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    if (ia_zero64(b)) { return vec2<u32>(0u); }
    let q = ia_udivmod64(ia_mag64(a), ia_mag64(b)).xy;
    return select(q, ia_negate64(q), ia_neg64(a) != ia_neg64(b));
}
fn ia_tmod64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    if (ia_zero64(b)) { return vec2<u32>(0u); }
    let r = ia_udivmod64(ia_mag64(a), ia_mag64(b)).zw;
    return select(r, ia_negate64(r), ia_neg64(a));
}
fn dmlc_ia_add_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return ia_add64(a, b); }
fn dmlc_ia_sub_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return ia_sub64(a, b); }
fn dmlc_ia_mul_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return ia_mul64(a, b); }
fn dmlc_ia_min_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return select(a, b, ia_slt64(b, a)); }
fn dmlc_ia_max_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return select(a, b, ia_slt64(a, b)); }
fn dmlc_ia_truncdiv_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return ia_tdiv64(a, b); }
fn dmlc_ia_truncmod_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return ia_tmod64(a, b); }
fn dmlc_ia_floordiv_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let q = ia_tdiv64(a, b);
    let down = !ia_zero64(ia_tmod64(a, b)) && ia_neg64(a) != ia_neg64(b);
    return select(q, ia_sub64(q, vec2<u32>(1u, 0u)), down);
}
fn dmlc_ia_floormod_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let r = ia_tmod64(a, b);
    return select(r, ia_add64(r, b), !ia_zero64(r) && ia_neg64(r) != ia_neg64(b));
}
fn dmlc_ic_lt_i64(a: vec2<u32>, b: vec2<u32>) -> bool { return ia_slt64(a, b); }
fn dmlc_ia_add_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return ia_add64(a, b); }
fn dmlc_ia_sub_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return ia_sub64(a, b); }
fn dmlc_ia_mul_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return ia_mul64(a, b); }
fn dmlc_ia_min_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return select(a, b, ia_ult64(b, a)); }
fn dmlc_ia_max_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return select(a, b, ia_ult64(a, b)); }
fn dmlc_ia_truncdiv_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    if (ia_zero64(b)) { return vec2<u32>(0u); }
    return ia_udivmod64(a, b).xy;
}
fn dmlc_ia_truncmod_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    if (ia_zero64(b)) { return vec2<u32>(0u); }
    return ia_udivmod64(a, b).zw;
}
fn dmlc_ia_floordiv_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return dmlc_ia_truncdiv_u64(a, b); }
fn dmlc_ia_floormod_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return dmlc_ia_truncmod_u64(a, b); }
fn dmlc_ic_lt_u64(a: vec2<u32>, b: vec2<u32>) -> bool { return ia_ult64(a, b); }
