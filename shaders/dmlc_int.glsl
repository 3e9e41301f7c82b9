// dmlc integer arithmetic on elements (the IR's ARITH and COMPARE: index values computed from
// loaded ones), pasted only into kernels that compute so. 32-bit integer operations only (kp
// enables no optional Vulkan feature): 8/16/32-bit values sit zero-extended in a uint, 64-bit
// ones in a uvec2 (low, high). Results wrap modulo 2^bits; a zero divisor gives 0 (numpy's
// integer rule). Division works on magnitudes: GLSL's / and % are undefined for negative
// operands, and INT_MIN / -1 overflows.

// ---- 32-bit signed division (operands as int32 bits) ----
uint ia_mag(uint a) { return int(a) < 0 ? 0u - a : a; }
uint ia_tdiv32(uint a, uint b) {
    if (b == 0u) return 0u;
    uint q = ia_mag(a) / ia_mag(b);
    return (int(a) < 0) != (int(b) < 0) ? 0u - q : q;
}
uint ia_tmod32(uint a, uint b) {
    if (b == 0u) return 0u;
    uint r = ia_mag(a) % ia_mag(b);
    return int(a) < 0 ? 0u - r : r;
}
uint ia_fdiv32(uint a, uint b) {  // towards -inf: one less where a remainder has a's other sign
    uint q = ia_tdiv32(a, b);
    return ia_tmod32(a, b) != 0u && (int(a) < 0) != (int(b) < 0) ? q - 1u : q;
}
uint ia_fmod32(uint a, uint b) {  // the divisor's sign
    uint r = ia_tmod32(a, b);
    return r != 0u && (int(r) < 0) != (int(b) < 0) ? r + b : r;
}

// ---- 8, 16 and 32 bits: signed values sign-extended to 32 first, results masked ----
#define DMLC_IA_WORD(T, BITS, MASK) \
uint ia_s##T(uint a) { return uint(bitfieldExtract(int(a), 0, BITS)); } \
uint dmlc_ia_add_i##T(uint a, uint b) { return (a + b) & MASK; } \
uint dmlc_ia_sub_i##T(uint a, uint b) { return (a - b) & MASK; } \
uint dmlc_ia_mul_i##T(uint a, uint b) { return (a * b) & MASK; } \
uint dmlc_ia_min_i##T(uint a, uint b) { return int(ia_s##T(b)) < int(ia_s##T(a)) ? b : a; } \
uint dmlc_ia_max_i##T(uint a, uint b) { return int(ia_s##T(a)) < int(ia_s##T(b)) ? b : a; } \
uint dmlc_ia_truncdiv_i##T(uint a, uint b) { return ia_tdiv32(ia_s##T(a), ia_s##T(b)) & MASK; } \
uint dmlc_ia_truncmod_i##T(uint a, uint b) { return ia_tmod32(ia_s##T(a), ia_s##T(b)) & MASK; } \
uint dmlc_ia_floordiv_i##T(uint a, uint b) { return ia_fdiv32(ia_s##T(a), ia_s##T(b)) & MASK; } \
uint dmlc_ia_floormod_i##T(uint a, uint b) { return ia_fmod32(ia_s##T(a), ia_s##T(b)) & MASK; } \
bool dmlc_ic_lt_i##T(uint a, uint b) { return int(ia_s##T(a)) < int(ia_s##T(b)); } \
uint dmlc_ia_add_u##T(uint a, uint b) { return (a + b) & MASK; } \
uint dmlc_ia_sub_u##T(uint a, uint b) { return (a - b) & MASK; } \
uint dmlc_ia_mul_u##T(uint a, uint b) { return (a * b) & MASK; } \
uint dmlc_ia_min_u##T(uint a, uint b) { return min(a, b); } \
uint dmlc_ia_max_u##T(uint a, uint b) { return max(a, b); } \
uint dmlc_ia_truncdiv_u##T(uint a, uint b) { return b == 0u ? 0u : a / b; } \
uint dmlc_ia_truncmod_u##T(uint a, uint b) { return b == 0u ? 0u : a % b; } \
uint dmlc_ia_floordiv_u##T(uint a, uint b) { return b == 0u ? 0u : a / b; } \
uint dmlc_ia_floormod_u##T(uint a, uint b) { return b == 0u ? 0u : a % b; } \
bool dmlc_ic_lt_u##T(uint a, uint b) { return a < b; }
DMLC_IA_WORD(8, 8, 0xFFu)
DMLC_IA_WORD(16, 16, 0xFFFFu)
DMLC_IA_WORD(32, 32, 0xFFFFFFFFu)

// ---- 64 bits: (low, high) word pairs ----
uvec2 ia_add64(uvec2 a, uvec2 b) { uint c; uint lo = uaddCarry(a.x, b.x, c); return uvec2(lo, a.y + b.y + c); }
uvec2 ia_sub64(uvec2 a, uvec2 b) { uint c; uint lo = usubBorrow(a.x, b.x, c); return uvec2(lo, a.y - b.y - c); }
uvec2 ia_mul64(uvec2 a, uvec2 b) {
    uint hi, lo;
    umulExtended(a.x, b.x, hi, lo);
    return uvec2(lo, hi + a.x * b.y + a.y * b.x);
}
bool ia_ult64(uvec2 a, uvec2 b) { return a.y < b.y || (a.y == b.y && a.x < b.x); }
bool ia_slt64(uvec2 a, uvec2 b) { return int(a.y) < int(b.y) || (a.y == b.y && a.x < b.x); }
bool ia_neg64(uvec2 a) { return int(a.y) < 0; }
uvec2 ia_negate64(uvec2 a) { return ia_sub64(uvec2(0u), a); }
uvec2 ia_mag64(uvec2 a) { return ia_neg64(a) ? ia_negate64(a) : a; }
bool ia_zero64(uvec2 a) { return (a.x | a.y) == 0u; }
// n / d and n % d of unsigned 64-bit values (d != 0): one word when both fit, else long
// division a bit at a time (a remainder that shifted past 64 bits is larger than d).
uvec2 ia_udivmod64(uvec2 n, uvec2 d, out uvec2 r) {
    if (n.y == 0u && d.y == 0u) { r = uvec2(n.x % d.x, 0u); return uvec2(n.x / d.x, 0u); }
    uvec2 q = uvec2(0u);
    r = uvec2(0u);
    for (int i = 63; i >= 0; i--) {
        bool carry = (r.y >> 31) != 0u;
        uint bit = i >= 32 ? (n.y >> uint(i - 32)) & 1u : (n.x >> uint(i)) & 1u;
        r = uvec2((r.x << 1) | bit, (r.y << 1) | (r.x >> 31));
        if (carry || !ia_ult64(r, d)) {
            r = ia_sub64(r, d);
            if (i >= 32) q.y |= 1u << uint(i - 32); else q.x |= 1u << uint(i);
        }
    }
    return q;
}
uvec2 ia_tdiv64(uvec2 a, uvec2 b) {
    if (ia_zero64(b)) return uvec2(0u);
    uvec2 r;
    uvec2 q = ia_udivmod64(ia_mag64(a), ia_mag64(b), r);
    return ia_neg64(a) != ia_neg64(b) ? ia_negate64(q) : q;
}
uvec2 ia_tmod64(uvec2 a, uvec2 b) {
    if (ia_zero64(b)) return uvec2(0u);
    uvec2 r;
    ia_udivmod64(ia_mag64(a), ia_mag64(b), r);
    return ia_neg64(a) ? ia_negate64(r) : r;
}
uvec2 dmlc_ia_add_i64(uvec2 a, uvec2 b) { return ia_add64(a, b); }
uvec2 dmlc_ia_sub_i64(uvec2 a, uvec2 b) { return ia_sub64(a, b); }
uvec2 dmlc_ia_mul_i64(uvec2 a, uvec2 b) { return ia_mul64(a, b); }
uvec2 dmlc_ia_min_i64(uvec2 a, uvec2 b) { return ia_slt64(b, a) ? b : a; }
uvec2 dmlc_ia_max_i64(uvec2 a, uvec2 b) { return ia_slt64(a, b) ? b : a; }
uvec2 dmlc_ia_truncdiv_i64(uvec2 a, uvec2 b) { return ia_tdiv64(a, b); }
uvec2 dmlc_ia_truncmod_i64(uvec2 a, uvec2 b) { return ia_tmod64(a, b); }
uvec2 dmlc_ia_floordiv_i64(uvec2 a, uvec2 b) {
    uvec2 q = ia_tdiv64(a, b);
    bool down = !ia_zero64(ia_tmod64(a, b)) && ia_neg64(a) != ia_neg64(b);
    return down ? ia_sub64(q, uvec2(1u, 0u)) : q;
}
uvec2 dmlc_ia_floormod_i64(uvec2 a, uvec2 b) {
    uvec2 r = ia_tmod64(a, b);
    return !ia_zero64(r) && ia_neg64(r) != ia_neg64(b) ? ia_add64(r, b) : r;
}
bool dmlc_ic_lt_i64(uvec2 a, uvec2 b) { return ia_slt64(a, b); }
uvec2 dmlc_ia_add_u64(uvec2 a, uvec2 b) { return ia_add64(a, b); }
uvec2 dmlc_ia_sub_u64(uvec2 a, uvec2 b) { return ia_sub64(a, b); }
uvec2 dmlc_ia_mul_u64(uvec2 a, uvec2 b) { return ia_mul64(a, b); }
uvec2 dmlc_ia_min_u64(uvec2 a, uvec2 b) { return ia_ult64(b, a) ? b : a; }
uvec2 dmlc_ia_max_u64(uvec2 a, uvec2 b) { return ia_ult64(a, b) ? b : a; }
uvec2 dmlc_ia_truncdiv_u64(uvec2 a, uvec2 b) {
    uvec2 r;
    return ia_zero64(b) ? uvec2(0u) : ia_udivmod64(a, b, r);
}
uvec2 dmlc_ia_truncmod_u64(uvec2 a, uvec2 b) {
    uvec2 r = uvec2(0u);
    if (!ia_zero64(b)) ia_udivmod64(a, b, r);
    return r;
}
uvec2 dmlc_ia_floordiv_u64(uvec2 a, uvec2 b) { return dmlc_ia_truncdiv_u64(a, b); }
uvec2 dmlc_ia_floormod_u64(uvec2 a, uvec2 b) { return dmlc_ia_truncmod_u64(a, b); }
bool dmlc_ic_lt_u64(uvec2 a, uvec2 b) { return ia_ult64(a, b); }
