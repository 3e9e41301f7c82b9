// dmlc scatter reductions (add, mul, max, min) on raw element bits, pasted only into kernels
// that combine values. 32-bit integer arithmetic only: no float, 64-bit or 16-bit type, so the
// result is the same bits on every device (no FTZ, no fused or reordered float math).
// Values: 8/16/32-bit elements in the low bits of a uint, 64-bit ones as uvec2 (low, high).
// Floats follow numpy's (x86) results exactly: round to nearest even, gradual underflow,
// -0.0, and its NaN rules (see the README's "Scatter reductions").

// ---- 64-bit unsigned helpers (uvec2: x low, y high) ----
uvec2 r_add64(uvec2 a, uvec2 b) {
    uint c; uint lo = uaddCarry(a.x, b.x, c); return uvec2(lo, a.y + b.y + c);
}
uvec2 r_sub64(uvec2 a, uvec2 b) {
    uint c; uint lo = usubBorrow(a.x, b.x, c); return uvec2(lo, a.y - b.y - c);
}
bool r_lt64(uvec2 a, uvec2 b) { return a.y < b.y || (a.y == b.y && a.x < b.x); }
bool r_zero64(uvec2 a) { return (a.x | a.y) == 0u; }
uvec2 r_shl64(uvec2 a, uint n) {
    if (n == 0u) return a;
    if (n >= 64u) return uvec2(0u);
    if (n >= 32u) return uvec2(0u, a.x << (n - 32u));
    return uvec2(a.x << n, (a.y << n) | (a.x >> (32u - n)));
}
uvec2 r_shr64(uvec2 a, uint n) {
    if (n == 0u) return a;
    if (n >= 64u) return uvec2(0u);
    if (n >= 32u) return uvec2(a.y >> (n - 32u), 0u);
    return uvec2((a.x >> n) | (a.y << (32u - n)), a.y >> n);
}
// a >> n, with the lowest bit set if any bit shifted out was set (sticky)
uvec2 r_shr_sticky(uvec2 a, uint n) {
    uvec2 r = r_shr64(a, n);
    bool lost = n >= 64u ? !r_zero64(a) : r_shl64(r, n) != a;
    return uvec2(r.x | (lost ? 1u : 0u), r.y);
}
int r_msb64(uvec2 a) { return a.y != 0u ? 32 + findMSB(a.y) : findMSB(a.x); }
uvec2 r_mask64(uint n) { return r_sub64(r_shl64(uvec2(1u, 0u), n), uvec2(1u, 0u)); }

// ---- soft float: format with E exponent bits and M fraction bits, bits in a uvec2 ----
// A finite value is sig * 2^(exp - bias - 61): the leading bit of a normal number at bit 61.
const uint R_P = 61u;

uvec2 r_sign_bit(uint E, uint M) { return r_shl64(uvec2(1u, 0u), E + M); }
uvec2 r_frac(uvec2 v, uint M) { return uvec2(v.x & r_mask64(M).x, v.y & r_mask64(M).y); }
uint r_bexp(uvec2 v, uint E, uint M) { return r_shr64(v, M).x & ((1u << E) - 1u); }
bool r_nan(uvec2 v, uint E, uint M) {
    return r_bexp(v, E, M) == (1u << E) - 1u && !r_zero64(r_frac(v, M));
}
bool r_inf(uvec2 v, uint E, uint M) {
    return r_bexp(v, E, M) == (1u << E) - 1u && r_zero64(r_frac(v, M));
}
uvec2 r_quiet(uvec2 v, uint M) { uvec2 q = r_shl64(uvec2(1u, 0u), M - 1u); return v | q; }
uvec2 r_default_nan(uint E, uint M) {  // x86's: sign set, quiet bit set, payload 0
    return r_sign_bit(E, M) | r_shl64(uvec2((1u << E) - 1u, 0u), M) | r_shl64(uvec2(1u, 0u), M - 1u);
}
uvec2 r_inf_bits(uint s, uint E, uint M) {
    return (s != 0u ? r_sign_bit(E, M) : uvec2(0u)) | r_shl64(uvec2((1u << E) - 1u, 0u), M);
}
// significand (implicit bit included) and exponent of a finite value, unnormalized
void r_unpack(uvec2 v, uint E, uint M, out uvec2 sig, out int e) {
    uint be = r_bexp(v, E, M);
    sig = r_frac(v, M);
    if (be != 0u) sig = sig | r_shl64(uvec2(1u, 0u), M);
    e = be == 0u ? 1 : int(be);
}
// round sig * 2^(e - bias - 61) to nearest even and pack it with sign s
uvec2 r_round_pack(uint s, int e, uvec2 sig, uint E, uint M) {
    uvec2 sign = s != 0u ? r_sign_bit(E, M) : uvec2(0u);
    if (r_zero64(sig)) return sign;
    int msb = r_msb64(sig);
    if (msb > int(R_P)) {
        sig = r_shr_sticky(sig, uint(msb - int(R_P)));
        e += msb - int(R_P);
    } else if (msb < int(R_P)) {
        int up = min(int(R_P) - msb, max(e - 1, 0));
        sig = r_shl64(sig, uint(up));
        e -= up;
    }
    if (e < 1) {  // below the normal range: denormal, with sticky
        sig = r_shr_sticky(sig, uint(min(1 - e, 64)));
        e = 1;
    }
    uint rb = R_P - M;  // bits rounded off
    uvec2 keep = r_shr64(sig, rb);
    uvec2 rem = sig & r_mask64(rb);
    uvec2 half_ = r_shl64(uvec2(1u, 0u), rb - 1u);
    if (r_lt64(half_, rem) || (rem == half_ && (keep.x & 1u) != 0u)) {
        keep = r_add64(keep, uvec2(1u, 0u));
    }
    if (!r_zero64(r_shr64(keep, M + 1u))) {  // rounding carried out: one more binade
        keep = r_shr64(keep, 1u);
        e += 1;
    }
    bool normal = !r_zero64(r_shr64(keep, M));
    if (e >= int((1u << E) - 1u)) return r_inf_bits(s, E, M);
    uvec2 be = r_shl64(uvec2(normal ? uint(e) : 0u, 0u), M);
    return sign | be | r_frac(keep, M);
}
// NaN operands: f32/f64 (second_first false) take a's NaN first, f16 b's (numpy's rules)
bool r_nan_result(uvec2 a, uvec2 b, uint E, uint M, bool second_first, out uvec2 r) {
    bool na = r_nan(a, E, M), nb = r_nan(b, E, M);
    if (!na && !nb) return false;
    r = r_quiet(second_first ? (nb ? b : a) : (na ? a : b), M);
    return true;
}
uvec2 r_fadd(uvec2 a, uvec2 b, uint E, uint M, bool second_first) {
    uvec2 r;
    if (r_nan_result(a, b, E, M, second_first, r)) return r;
    uint sa = r_shr64(a, E + M).x & 1u, sb = r_shr64(b, E + M).x & 1u;
    bool ia = r_inf(a, E, M), ib = r_inf(b, E, M);
    if (ia && ib) return sa == sb ? a : r_default_nan(E, M);
    if (ia) return a;
    if (ib) return b;
    uvec2 ma, mb; int ea, eb;
    r_unpack(a, E, M, ma, ea);
    r_unpack(b, E, M, mb, eb);
    ma = r_shl64(ma, R_P - M);
    mb = r_shl64(mb, R_P - M);
    if (ea < eb || (ea == eb && r_lt64(ma, mb))) {  // |a| >= |b| from here
        uvec2 tm = ma; ma = mb; mb = tm;
        int te = ea; ea = eb; eb = te;
        uint ts = sa; sa = sb; sb = ts;
    }
    mb = r_shr_sticky(mb, uint(min(ea - eb, 64)));
    uvec2 sum = sa == sb ? r_add64(ma, mb) : r_sub64(ma, mb);
    if (r_zero64(sum)) return r_round_pack(sa == sb ? sa : 0u, 1, sum, E, M);
    return r_round_pack(sa, ea, sum, E, M);
}
// the full 128-bit product of two 64-bit values (w0 lowest)
uvec4 r_mul128(uvec2 a, uvec2 b) {
    uint h00, l00, h01, l01, h10, l10, h11, l11, c;
    umulExtended(a.x, b.x, h00, l00);
    umulExtended(a.x, b.y, h01, l01);
    umulExtended(a.y, b.x, h10, l10);
    umulExtended(a.y, b.y, h11, l11);
    uint w1 = uaddCarry(h00, l01, c); uint c1 = c;
    w1 = uaddCarry(w1, l10, c); c1 += c;
    uint w2 = uaddCarry(h01, h10, c); uint c2 = c;
    w2 = uaddCarry(w2, l11, c); c2 += c;
    w2 = uaddCarry(w2, c1, c); c2 += c;
    return uvec4(l00, w1, w2, h11 + c2);
}
uvec2 r_fmul(uvec2 a, uvec2 b, uint E, uint M, bool second_first) {
    uvec2 r;
    if (r_nan_result(a, b, E, M, second_first, r)) return r;
    uint s = (r_shr64(a, E + M).x ^ r_shr64(b, E + M).x) & 1u;
    bool ia = r_inf(a, E, M), ib = r_inf(b, E, M);
    bool za = r_zero64(a & ~r_sign_bit(E, M)), zb = r_zero64(b & ~r_sign_bit(E, M));
    if ((ia && zb) || (ib && za)) return r_default_nan(E, M);
    if (ia || ib) return r_inf_bits(s, E, M);
    uvec2 ma, mb; int ea, eb;
    r_unpack(a, E, M, ma, ea);
    r_unpack(b, E, M, mb, eb);
    if (r_zero64(ma) || r_zero64(mb)) return r_inf_bits(s, E, M) & r_sign_bit(E, M);  // +-0
    // denormals normalized (exponent below 1), so the product's leading bit is at 2M or 2M+1
    int da = int(M) - r_msb64(ma), db = int(M) - r_msb64(mb);
    ma = r_shl64(ma, uint(da)); ea -= da;
    mb = r_shl64(mb, uint(db)); eb -= db;
    uvec4 p = r_mul128(ma, mb);  // in [2^2M, 2^(2M + 2))
    int bias = int((1u << (E - 1u)) - 1u);
    uvec2 sig;
    if (2u * M > R_P) {  // f64: the 106-bit product >> (2M - 61), with sticky
        uint n = 2u * M - R_P;  // 43: from inside w1
        sig = uvec2((p.y >> (n - 32u)) | (p.z << (64u - n)), (p.z >> (n - 32u)) | (p.w << (64u - n)));
        bool lost = p.x != 0u || (p.y & ((1u << (n - 32u)) - 1u)) != 0u;
        sig.x |= lost ? 1u : 0u;
    } else {
        sig = r_shl64(p.xy, R_P - 2u * M);
    }
    return r_round_pack(s, ea + eb - bias, sig, E, M);
}
// float order of non-NaN values (-0.0 == +0.0)
bool r_flt(uvec2 a, uvec2 b, uint E, uint M) {
    uvec2 sb = r_sign_bit(E, M);
    uvec2 aa = a & ~sb, ab = b & ~sb;
    bool na = !r_zero64(a & sb), nb = !r_zero64(b & sb);
    if (r_zero64(aa) && r_zero64(ab)) return false;
    if (na != nb) return na;
    return na ? r_lt64(ab, aa) : r_lt64(aa, ab);
}
// numpy: a NaN operand as it is (a's first); f32/f64 keep b on ties (SIMD max/min), f16 a
uvec2 r_fmax(uvec2 a, uvec2 b, uint E, uint M, bool keep_a_on_tie) {
    if (r_nan(a, E, M)) return a;
    if (r_nan(b, E, M)) return b;
    if (r_flt(b, a, E, M)) return a;
    if (r_flt(a, b, E, M)) return b;
    return keep_a_on_tie ? a : b;
}
uvec2 r_fmin(uvec2 a, uvec2 b, uint E, uint M, bool keep_a_on_tie) {
    if (r_nan(a, E, M)) return a;
    if (r_nan(b, E, M)) return b;
    if (r_flt(a, b, E, M)) return a;
    if (r_flt(b, a, E, M)) return b;
    return keep_a_on_tie ? a : b;
}

uint dmlc_add_f16(uint a, uint b) { return r_fadd(uvec2(a, 0u), uvec2(b, 0u), 5u, 10u, true).x; }
uint dmlc_mul_f16(uint a, uint b) { return r_fmul(uvec2(a, 0u), uvec2(b, 0u), 5u, 10u, true).x; }
uint dmlc_max_f16(uint a, uint b) { return r_fmax(uvec2(a, 0u), uvec2(b, 0u), 5u, 10u, true).x; }
uint dmlc_min_f16(uint a, uint b) { return r_fmin(uvec2(a, 0u), uvec2(b, 0u), 5u, 10u, true).x; }
uint dmlc_add_f32(uint a, uint b) { return r_fadd(uvec2(a, 0u), uvec2(b, 0u), 8u, 23u, false).x; }
uint dmlc_mul_f32(uint a, uint b) { return r_fmul(uvec2(a, 0u), uvec2(b, 0u), 8u, 23u, false).x; }
uint dmlc_max_f32(uint a, uint b) { return r_fmax(uvec2(a, 0u), uvec2(b, 0u), 8u, 23u, false).x; }
uint dmlc_min_f32(uint a, uint b) { return r_fmin(uvec2(a, 0u), uvec2(b, 0u), 8u, 23u, false).x; }
uvec2 dmlc_add_f64(uvec2 a, uvec2 b) { return r_fadd(a, b, 11u, 52u, false); }
uvec2 dmlc_mul_f64(uvec2 a, uvec2 b) { return r_fmul(a, b, 11u, 52u, false); }
uvec2 dmlc_max_f64(uvec2 a, uvec2 b) { return r_fmax(a, b, 11u, 52u, false); }
uvec2 dmlc_min_f64(uvec2 a, uvec2 b) { return r_fmin(a, b, 11u, 52u, false); }

// ---- integers: wrap modulo 2^bits ----
int r_sext(uint v, int bits) { return bitfieldExtract(int(v), 0, bits); }
#define DMLC_SMALL_INT(T, BITS, MASK) \
uint dmlc_add_u##T(uint a, uint b) { return (a + b) & MASK; } \
uint dmlc_mul_u##T(uint a, uint b) { return (a * b) & MASK; } \
uint dmlc_max_u##T(uint a, uint b) { return max(a & MASK, b & MASK); } \
uint dmlc_min_u##T(uint a, uint b) { return min(a & MASK, b & MASK); } \
uint dmlc_add_i##T(uint a, uint b) { return (a + b) & MASK; } \
uint dmlc_mul_i##T(uint a, uint b) { return (a * b) & MASK; } \
uint dmlc_max_i##T(uint a, uint b) { return r_sext(a, BITS) >= r_sext(b, BITS) ? a : b; } \
uint dmlc_min_i##T(uint a, uint b) { return r_sext(a, BITS) <= r_sext(b, BITS) ? a : b; }
DMLC_SMALL_INT(8, 8, 0xFFu)
DMLC_SMALL_INT(16, 16, 0xFFFFu)
DMLC_SMALL_INT(32, 32, 0xFFFFFFFFu)

uvec2 dmlc_add_u64(uvec2 a, uvec2 b) { return r_add64(a, b); }
uvec2 dmlc_mul_u64(uvec2 a, uvec2 b) { return r_mul128(a, b).xy; }
uvec2 dmlc_max_u64(uvec2 a, uvec2 b) { return r_lt64(a, b) ? b : a; }
uvec2 dmlc_min_u64(uvec2 a, uvec2 b) { return r_lt64(b, a) ? b : a; }
bool r_slt64(uvec2 a, uvec2 b) {
    return int(a.y) < int(b.y) || (a.y == b.y && a.x < b.x);
}
uvec2 dmlc_add_i64(uvec2 a, uvec2 b) { return r_add64(a, b); }
uvec2 dmlc_mul_i64(uvec2 a, uvec2 b) { return r_mul128(a, b).xy; }
uvec2 dmlc_max_i64(uvec2 a, uvec2 b) { return r_slt64(a, b) ? b : a; }
uvec2 dmlc_min_i64(uvec2 a, uvec2 b) { return r_slt64(b, a) ? b : a; }
