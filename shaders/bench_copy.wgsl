// bench_copy.comp for the WebGPU backend, the same copy: vec4<u32> loads and stores, several per
// invocation, coalesced (consecutive invocations touch consecutive 16-byte vectors).
// @VEC4S@ (vectors to copy) and @PER@ (vectors per invocation) are filled in by the benchmark.
@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>) {
    let group = wg.y * groups.x + wg.x;
    let first = group * 256u * @PER@u + lid.x;
    for (var j = 0u; j < @PER@u; j++) {
        let i = first + j * 256u;
        if (i < @VEC4S@u) {
            dst[i] = src[i];
        }
    }
}
