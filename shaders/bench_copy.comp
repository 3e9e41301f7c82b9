#version 430
// The best plain copy dmlc's benchmark compares against: uvec4 loads and stores, several per
// invocation, coalesced (consecutive invocations touch consecutive 16-byte vectors).
// @VEC4S@ (vectors to copy) and @PER@ (vectors per invocation) are filled in by the benchmark.
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) restrict readonly buffer Src { uvec4 data[]; } src;
layout(std430, set = 0, binding = 1) restrict writeonly buffer Dst { uvec4 data[]; } dst;

void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint first = group * 256u * @PER@u + gl_LocalInvocationID.x;
    for (uint j = 0u; j < @PER@u; j++) {
        uint i = first + j * 256u;
        if (i < @VEC4S@u) dst.data[i] = src.data[i];
    }
}
