// dmlc shader helpers, pasted into every generated kernel (only 32-bit types: kp enables no
// optional Vulkan features). GLSL `/` and `%` are undefined for negative operands, so codegen
// calls these where value ranges do not prove the dividend non-negative.

// Floor division and modulo by a positive divisor d.
int dmlc_floordiv(int a, int d) { return a >= 0 ? a / d : -1 - (-1 - a) / d; }
int dmlc_floormod(int a, int d) { return a - d * dmlc_floordiv(a, d); }

// Index normalization (dmlc's README, "Decisions"): a negative signed index counts from the end
// of the axis once; an index still outside [0, dim) is clamped to [0, dim - 1] when clamp_it,
// else -1.
// Branch-free (selects only): invocations run in lock-step on SIMD hardware and on llvmpipe.
int dmlc_index_i32(uint w, int dim, bool clamp_it) {
    int v = int(w);
    v += v < 0 ? dim : 0;  // cannot overflow: v >= -2^31 and 0 < dim < 2^31
    return clamp_it ? clamp(v, 0, dim - 1) : (v >= 0 && v < dim ? v : -1);
}

int dmlc_index_u32(uint w, int dim, bool clamp_it) {
    bool inside = w < uint(dim);
    return inside ? int(w) : (clamp_it ? dim - 1 : -1);
}

// 64-bit indices arrive as (low word, high word) and are read whole: a value outside int32 is
// out of range, never truncated into range.
int dmlc_index_i64(uvec2 w, int dim, bool clamp_it) {
    bool fits = w.y == ((w.x >> 31) != 0u ? 0xFFFFFFFFu : 0u);
    int outside = clamp_it ? (int(w.y) < 0 ? 0 : dim - 1) : -1;
    return fits ? dmlc_index_i32(w.x, dim, clamp_it) : outside;
}

int dmlc_index_u64(uvec2 w, int dim, bool clamp_it) {
    return w.y == 0u ? dmlc_index_u32(w.x, dim, clamp_it) : (clamp_it ? dim - 1 : -1);
}
