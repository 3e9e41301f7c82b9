// dmlc scatter reductions (add, mul, max, min) on raw element bits, dmlc_reduce.glsl ported to
// WGSL, pasted only into kernels that combine values. 32-bit integer arithmetic only: no float,
// 64-bit or 16-bit type, so the result is the same bits on every device (no FTZ, no fused or
// reordered float math). Values: 8/16/32-bit elements in the low bits of a u32, 64-bit ones as
// vec2<u32> (low, high). Floats follow numpy's (x86) results exactly: round to nearest even,
// gradual underflow, -0.0, and its NaN rules (see the README's "Scatter reductions").
// Where the GLSL has `out` parameters these return a struct or a wider vector; its macro
// families are marked blocks (see dmlc_int.wgsl).

// ---- 64-bit unsigned helpers (vec2<u32>: x low, y high) ----
fn r_add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = dmlc_uadd_carry(a.x, b.x);
    return vec2<u32>(lo.x, a.y + b.y + lo.y);
}
fn r_sub64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = dmlc_usub_borrow(a.x, b.x);
    return vec2<u32>(lo.x, a.y - b.y - lo.y);
}
fn r_lt64(a: vec2<u32>, b: vec2<u32>) -> bool { return a.y < b.y || (a.y == b.y && a.x < b.x); }
fn r_zero64(a: vec2<u32>) -> bool { return (a.x | a.y) == 0u; }
fn r_shl64(a: vec2<u32>, n: u32) -> vec2<u32> {
    if (n == 0u) { return a; }
    if (n >= 64u) { return vec2<u32>(0u); }
    if (n >= 32u) { return vec2<u32>(0u, a.x << (n - 32u)); }
    return vec2<u32>(a.x << n, (a.y << n) | (a.x >> (32u - n)));
}
fn r_shr64(a: vec2<u32>, n: u32) -> vec2<u32> {
    if (n == 0u) { return a; }
    if (n >= 64u) { return vec2<u32>(0u); }
    if (n >= 32u) { return vec2<u32>(a.y >> (n - 32u), 0u); }
    return vec2<u32>((a.x >> n) | (a.y << (32u - n)), a.y >> n);
}
// a >> n, with the lowest bit set if any bit shifted out was set (sticky)
fn r_shr_sticky(a: vec2<u32>, n: u32) -> vec2<u32> {
    let r = r_shr64(a, n);
    var lost: bool;
    if (n >= 64u) { lost = !r_zero64(a); } else { lost = any(r_shl64(r, n) != a); }
    return vec2<u32>(r.x | select(0u, 1u, lost), r.y);
}
// GLSL's findMSB(uint) is int; WGSL's firstLeadingBit is u32 (0xFFFFFFFF for 0: -1 as i32)
fn r_msb64(a: vec2<u32>) -> i32 {
    if (a.y != 0u) { return 32 + i32(firstLeadingBit(a.y)); }
    return i32(firstLeadingBit(a.x));
}
fn r_mask64(n: u32) -> vec2<u32> { return r_sub64(r_shl64(vec2<u32>(1u, 0u), n), vec2<u32>(1u, 0u)); }

// ---- soft float: format with E exponent bits and M fraction bits, bits in a vec2<u32> ----
// A finite value is sig * 2^(exp - bias - 61): the leading bit of a normal number at bit 61.
const R_P: u32 = 61u;

fn r_sign_bit(E: u32, M: u32) -> vec2<u32> { return r_shl64(vec2<u32>(1u, 0u), E + M); }
fn r_frac(v: vec2<u32>, M: u32) -> vec2<u32> { return v & r_mask64(M); }
fn r_bexp(v: vec2<u32>, E: u32, M: u32) -> u32 { return r_shr64(v, M).x & ((1u << E) - 1u); }
fn r_nan(v: vec2<u32>, E: u32, M: u32) -> bool {
    return r_bexp(v, E, M) == (1u << E) - 1u && !r_zero64(r_frac(v, M));
}
fn r_inf(v: vec2<u32>, E: u32, M: u32) -> bool {
    return r_bexp(v, E, M) == (1u << E) - 1u && r_zero64(r_frac(v, M));
}
fn r_quiet(v: vec2<u32>, M: u32) -> vec2<u32> { return v | r_shl64(vec2<u32>(1u, 0u), M - 1u); }
fn r_default_nan(E: u32, M: u32) -> vec2<u32> {  // x86's: sign set, quiet bit set, payload 0
    return r_sign_bit(E, M) | r_shl64(vec2<u32>((1u << E) - 1u, 0u), M)
        | r_shl64(vec2<u32>(1u, 0u), M - 1u);
}
fn r_inf_bits(s: u32, E: u32, M: u32) -> vec2<u32> {
    return select(vec2<u32>(0u), r_sign_bit(E, M), s != 0u) | r_shl64(vec2<u32>((1u << E) - 1u, 0u), M);
}
// significand (implicit bit included) and exponent of a finite value, unnormalized
struct RUnpacked { sig: vec2<u32>, e: i32 }
fn r_unpack(v: vec2<u32>, E: u32, M: u32) -> RUnpacked {
    let be = r_bexp(v, E, M);
    var sig = r_frac(v, M);
    if (be != 0u) { sig = sig | r_shl64(vec2<u32>(1u, 0u), M); }
    return RUnpacked(sig, select(i32(be), 1, be == 0u));
}
// round sig * 2^(e - bias - 61) to nearest even and pack it with sign s
fn r_round_pack(s: u32, e_in: i32, sig_in: vec2<u32>, E: u32, M: u32) -> vec2<u32> {
    var e = e_in;
    var sig = sig_in;
    let sgn = select(vec2<u32>(0u), r_sign_bit(E, M), s != 0u);
    if (r_zero64(sig)) { return sgn; }
    let msb = r_msb64(sig);
    if (msb > i32(R_P)) {
        sig = r_shr_sticky(sig, u32(msb - i32(R_P)));
        e += msb - i32(R_P);
    } else if (msb < i32(R_P)) {
        let up = min(i32(R_P) - msb, max(e - 1, 0));
        sig = r_shl64(sig, u32(up));
        e -= up;
    }
    if (e < 1) {  // below the normal range: denormal, with sticky
        sig = r_shr_sticky(sig, u32(min(1 - e, 64)));
        e = 1;
    }
    let rb = R_P - M;  // bits rounded off
    var keep = r_shr64(sig, rb);
    let rem = sig & r_mask64(rb);
    let half_ = r_shl64(vec2<u32>(1u, 0u), rb - 1u);
    if (r_lt64(half_, rem) || (all(rem == half_) && (keep.x & 1u) != 0u)) {
        keep = r_add64(keep, vec2<u32>(1u, 0u));
    }
    if (!r_zero64(r_shr64(keep, M + 1u))) {  // rounding carried out: one more binade
        keep = r_shr64(keep, 1u);
        e += 1;
    }
    let normal = !r_zero64(r_shr64(keep, M));
    if (e >= i32((1u << E) - 1u)) { return r_inf_bits(s, E, M); }
    let be = r_shl64(vec2<u32>(select(0u, u32(e), normal), 0u), M);
    return sgn | be | r_frac(keep, M);
}
// NaN operands: f32/f64 (second_first false) take a's NaN first, f16 b's (numpy's rules);
// the GLSL's r_nan_result(..., out r), split: whether, then which
fn r_any_nan(a: vec2<u32>, b: vec2<u32>, E: u32, M: u32) -> bool {
    return r_nan(a, E, M) || r_nan(b, E, M);
}
fn r_nan_result(a: vec2<u32>, b: vec2<u32>, E: u32, M: u32, second_first: bool) -> vec2<u32> {
    let na = r_nan(a, E, M);
    let nb = r_nan(b, E, M);
    return r_quiet(select(select(b, a, na), select(a, b, nb), second_first), M);
}
fn r_fadd(a: vec2<u32>, b: vec2<u32>, E: u32, M: u32, second_first: bool) -> vec2<u32> {
    if (r_any_nan(a, b, E, M)) { return r_nan_result(a, b, E, M, second_first); }
    var sa = r_shr64(a, E + M).x & 1u;
    var sb = r_shr64(b, E + M).x & 1u;
    let ia = r_inf(a, E, M);
    let ib = r_inf(b, E, M);
    if (ia && ib) { return select(r_default_nan(E, M), a, sa == sb); }
    if (ia) { return a; }
    if (ib) { return b; }
    let ua = r_unpack(a, E, M);
    let ub = r_unpack(b, E, M);
    var ma = r_shl64(ua.sig, R_P - M);
    var mb = r_shl64(ub.sig, R_P - M);
    var ea = ua.e;
    var eb = ub.e;
    if (ea < eb || (ea == eb && r_lt64(ma, mb))) {  // |a| >= |b| from here
        let tm = ma; ma = mb; mb = tm;
        let te = ea; ea = eb; eb = te;
        let ts = sa; sa = sb; sb = ts;
    }
    mb = r_shr_sticky(mb, u32(min(ea - eb, 64)));
    let sum = select(r_sub64(ma, mb), r_add64(ma, mb), sa == sb);
    if (r_zero64(sum)) { return r_round_pack(select(0u, sa, sa == sb), 1, sum, E, M); }
    return r_round_pack(sa, ea, sum, E, M);
}
// the full 128-bit product of two 64-bit values (w0 lowest)
fn r_mul128(a: vec2<u32>, b: vec2<u32>) -> vec4<u32> {
    let p00 = dmlc_umul_extended(a.x, b.x);  // (low, high)
    let p01 = dmlc_umul_extended(a.x, b.y);
    let p10 = dmlc_umul_extended(a.y, b.x);
    let p11 = dmlc_umul_extended(a.y, b.y);
    var w1 = dmlc_uadd_carry(p00.y, p01.x);
    var c1 = w1.y;
    w1 = dmlc_uadd_carry(w1.x, p10.x); c1 += w1.y;
    var w2 = dmlc_uadd_carry(p01.y, p10.y);
    var c2 = w2.y;
    w2 = dmlc_uadd_carry(w2.x, p11.x); c2 += w2.y;
    w2 = dmlc_uadd_carry(w2.x, c1); c2 += w2.y;
    return vec4<u32>(p00.x, w1.x, w2.x, p11.y + c2);
}
fn r_fmul(a: vec2<u32>, b: vec2<u32>, E: u32, M: u32, second_first: bool) -> vec2<u32> {
    if (r_any_nan(a, b, E, M)) { return r_nan_result(a, b, E, M, second_first); }
    let s = (r_shr64(a, E + M).x ^ r_shr64(b, E + M).x) & 1u;
    let ia = r_inf(a, E, M);
    let ib = r_inf(b, E, M);
    let za = r_zero64(a & ~r_sign_bit(E, M));
    let zb = r_zero64(b & ~r_sign_bit(E, M));
    if ((ia && zb) || (ib && za)) { return r_default_nan(E, M); }
    if (ia || ib) { return r_inf_bits(s, E, M); }
    let ua = r_unpack(a, E, M);
    let ub = r_unpack(b, E, M);
    var ma = ua.sig;
    var mb = ub.sig;
    var ea = ua.e;
    var eb = ub.e;
    if (r_zero64(ma) || r_zero64(mb)) { return r_inf_bits(s, E, M) & r_sign_bit(E, M); }  // +-0
    // denormals normalized (exponent below 1), so the product's leading bit is at 2M or 2M+1
    let da = i32(M) - r_msb64(ma);
    let db = i32(M) - r_msb64(mb);
    ma = r_shl64(ma, u32(da)); ea -= da;
    mb = r_shl64(mb, u32(db)); eb -= db;
    let p = r_mul128(ma, mb);  // in [2^2M, 2^(2M + 2))
    let bias = i32((1u << (E - 1u)) - 1u);
    var sig: vec2<u32>;
    if (2u * M > R_P) {  // f64: the 106-bit product >> (2M - 61), with sticky
        let n = 2u * M - R_P;  // 43: from inside w1
        sig = vec2<u32>((p.y >> (n - 32u)) | (p.z << (64u - n)), (p.z >> (n - 32u)) | (p.w << (64u - n)));
        let lost = p.x != 0u || (p.y & ((1u << (n - 32u)) - 1u)) != 0u;
        sig.x |= select(0u, 1u, lost);
    } else {
        sig = r_shl64(p.xy, R_P - 2u * M);
    }
    return r_round_pack(s, ea + eb - bias, sig, E, M);
}
// float order of non-NaN values (-0.0 == +0.0)
fn r_flt(a: vec2<u32>, b: vec2<u32>, E: u32, M: u32) -> bool {
    let sb = r_sign_bit(E, M);
    let aa = a & ~sb;
    let ab = b & ~sb;
    let na = !r_zero64(a & sb);
    let nb = !r_zero64(b & sb);
    if (r_zero64(aa) && r_zero64(ab)) { return false; }
    if (na != nb) { return na; }
    return select(r_lt64(aa, ab), r_lt64(ab, aa), na);
}
// numpy: a NaN operand as it is (a's first); f32/f64 keep b on ties (SIMD max/min), f16 a
fn r_fmax(a: vec2<u32>, b: vec2<u32>, E: u32, M: u32, keep_a_on_tie: bool) -> vec2<u32> {
    if (r_nan(a, E, M)) { return a; }
    if (r_nan(b, E, M)) { return b; }
    if (r_flt(b, a, E, M)) { return a; }
    if (r_flt(a, b, E, M)) { return b; }
    return select(b, a, keep_a_on_tie);
}
fn r_fmin(a: vec2<u32>, b: vec2<u32>, E: u32, M: u32, keep_a_on_tie: bool) -> vec2<u32> {
    if (r_nan(a, E, M)) { return a; }
    if (r_nan(b, E, M)) { return b; }
    if (r_flt(a, b, E, M)) { return a; }
    if (r_flt(b, a, E, M)) { return b; }
    return select(b, a, keep_a_on_tie);
}

// @family T E M SECOND: f16 5u 10u true; f32 8u 23u false
fn dmlc_add_$T(a: u32, b: u32) -> u32 { return r_fadd(vec2<u32>(a, 0u), vec2<u32>(b, 0u), $E, $M, $SECOND).x; }
fn dmlc_mul_$T(a: u32, b: u32) -> u32 { return r_fmul(vec2<u32>(a, 0u), vec2<u32>(b, 0u), $E, $M, $SECOND).x; }
fn dmlc_max_$T(a: u32, b: u32) -> u32 { return r_fmax(vec2<u32>(a, 0u), vec2<u32>(b, 0u), $E, $M, $SECOND).x; }
fn dmlc_min_$T(a: u32, b: u32) -> u32 { return r_fmin(vec2<u32>(a, 0u), vec2<u32>(b, 0u), $E, $M, $SECOND).x; }
// @end
fn dmlc_add_f64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return r_fadd(a, b, 11u, 52u, false); }
fn dmlc_mul_f64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return r_fmul(a, b, 11u, 52u, false); }
fn dmlc_max_f64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return r_fmax(a, b, 11u, 52u, false); }
fn dmlc_min_f64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return r_fmin(a, b, 11u, 52u, false); }

// ---- integers: wrap modulo 2^bits ----
fn r_sext(v: u32, bits: u32) -> i32 { return extractBits(i32(v), 0u, bits); }
// @family T BITS MASK: 8 8 0xFFu; 16 16 0xFFFFu; 32 32 0xFFFFFFFFu
fn dmlc_add_u$T(a: u32, b: u32) -> u32 { return (a + b) & $MASK; }
fn dmlc_mul_u$T(a: u32, b: u32) -> u32 { return (a * b) & $MASK; }
fn dmlc_max_u$T(a: u32, b: u32) -> u32 { return max(a & $MASK, b & $MASK); }
fn dmlc_min_u$T(a: u32, b: u32) -> u32 { return min(a & $MASK, b & $MASK); }
fn dmlc_add_i$T(a: u32, b: u32) -> u32 { return (a + b) & $MASK; }
fn dmlc_mul_i$T(a: u32, b: u32) -> u32 { return (a * b) & $MASK; }
fn dmlc_max_i$T(a: u32, b: u32) -> u32 { return select(b, a, r_sext(a, ${BITS}u) >= r_sext(b, ${BITS}u)); }
fn dmlc_min_i$T(a: u32, b: u32) -> u32 { return select(b, a, r_sext(a, ${BITS}u) <= r_sext(b, ${BITS}u)); }
// @end

fn dmlc_add_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return r_add64(a, b); }
fn dmlc_mul_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return r_mul128(a, b).xy; }
fn dmlc_max_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return select(a, b, r_lt64(a, b)); }
fn dmlc_min_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return select(a, b, r_lt64(b, a)); }
fn r_slt64(a: vec2<u32>, b: vec2<u32>) -> bool {
    return i32(a.y) < i32(b.y) || (a.y == b.y && a.x < b.x);
}
fn dmlc_add_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return r_add64(a, b); }
fn dmlc_mul_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return r_mul128(a, b).xy; }
fn dmlc_max_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return select(a, b, r_slt64(a, b)); }
fn dmlc_min_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return select(a, b, r_slt64(b, a)); }
