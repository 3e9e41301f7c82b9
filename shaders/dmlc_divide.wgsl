// dmlc shader helper, pasted into a generic kernel whose program divides by pushed sizes
// (passes/divisors.py).

// a / d for 0 <= a < 2^31 by a pushed divisor d's magic words (m, s): (mulhi(a, m) + a) >> s
// (dmlc's ir/kernel.py, division_magic); WGSL has no multiply-high: the high word of a * m
// from 16-bit halves, each product and sum within 32 bits.
fn dmlc_divide(a: i32, m: u32, s: u32) -> i32 {
    let n = u32(a);
    let low = (n & 0xFFFFu) * (m & 0xFFFFu);
    let cross1 = (n >> 16u) * (m & 0xFFFFu);
    let cross2 = (n & 0xFFFFu) * (m >> 16u);
    let middle = (low >> 16u) + (cross1 & 0xFFFFu) + (cross2 & 0xFFFFu);
    let high = (n >> 16u) * (m >> 16u) + (cross1 >> 16u) + (cross2 >> 16u) + (middle >> 16u);
    return i32((high + n) >> s);
}
