// dmlc shader helper, pasted into a generic kernel whose program divides by pushed sizes
// (passes/divisors.py).

// a / d for 0 <= a < 2^31 by a pushed divisor d's magic words (m, s): (mulhi(a, m) + a) >> s
// (dmlc's ir/kernel.py, division_magic).
int dmlc_divide(int a, uint m, uint s) {
    uint hi, lo;
    umulExtended(uint(a), m, hi, lo);
    return int((hi + uint(a)) >> s);
}
