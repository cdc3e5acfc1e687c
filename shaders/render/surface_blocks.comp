// The 3-D view's acceleration structure, rebuilt every frame in one dispatch (surface_ray.comp
// reads it). The drawn surface is S = max(h, b), the water where wet and the terrain where dry,
// in world units: z = (S - base_level) * height_scale; a non-finite h is drawn at z = 0 (and
// coloured as "no value" by the ray pass, never through the colormap).
//
// One work group of BLOCK x BLOCK invocations per block of BLOCK x BLOCK dual cells: a dual cell
// is the square between four cell centres (samples), over which S is bilinear, so a block spans
// samples [k * BLOCK, k * BLOCK + BLOCK] on each axis (BLOCK + 1 of them, shared with the next
// block). Each invocation writes the z of its samples (the edge invocations also the block's far
// row and column) and the group reduces the (min, max) of its (BLOCK + 1)^2 samples, the
// interval that bounds the bilinear patches inside the block. The whole surface's (min, max)
// goes to `bounds` by atomics on order-preserving keys (cleared by the host before the
// dispatch), so a ray can skip the empty space above the relief in one step.
layout(local_size_x = BLOCK, local_size_y = BLOCK) in;

layout(std430, binding = 0) readonly buffer Field { float field[]; };
layout(std430, binding = 2) readonly buffer Bottom { float bottom[]; };
layout(std430, binding = 4) writeonly buffer Surface { float surface[]; };  // z per sample
layout(std430, binding = 5) writeonly buffer Blocks { vec2 blocks[]; };     // (min z, max z)
// key(min z) and key(-max z): both reduced by atomicMin from 0xFFFFFFFF.
layout(std430, binding = 6) buffer Bounds { uint bound_keys[2]; };

uniform ivec2 grid;          // samples (cells) along x and y
uniform ivec2 block_count;   // blocks along x and y: ceil((grid - 1) / BLOCK)
uniform float height_scale;  // world units per metre
uniform float base_level;    // metres drawn at z = 0
uniform int has_bottom;
uniform float floor_level;   // metres, when there is no bottom buffer

shared float group_min[BLOCK * BLOCK];
shared float group_max[BLOCK * BLOCK];

// Floats as uints in the same order (negative: all bits flipped; positive: sign bit set).
uint order_key(float x) {
    const uint bits = floatBitsToUint(x);
    return (bits & 0x80000000u) != 0u ? ~bits : (bits | 0x80000000u);
}

float surface_z(ivec2 s) {
    const uint k = uint(s.y) * uint(grid.x) + uint(s.x);
    const float h = field[k];
    float b = has_bottom != 0 ? bottom[k] : floor_level;
    if (isnan(b) || isinf(b)) b = base_level;
    return (isnan(h) || isinf(h)) ? 0.0 : (max(h, b) - base_level) * height_scale;
}

void main() {
    const ivec2 local = ivec2(gl_LocalInvocationID.xy);
    const ivec2 block = ivec2(gl_WorkGroupID.xy);
    const ivec2 s = block * BLOCK + local;
    const ivec2 last = grid - 1;
    float lo = 3.4e38, hi = -3.4e38;
    // This invocation's sample, and on the block's far edges the next block's first ones.
    for (int dy = 0; dy <= (local.y == BLOCK - 1 ? 1 : 0); ++dy)
        for (int dx = 0; dx <= (local.x == BLOCK - 1 ? 1 : 0); ++dx) {
            const ivec2 q = s + ivec2(dx, dy);
            if (any(greaterThan(q, last))) continue;
            const float z = surface_z(q);
            // Samples on a shared edge are written by two groups, with the same value.
            surface[uint(q.y) * uint(grid.x) + uint(q.x)] = z;
            lo = min(lo, z);
            hi = max(hi, z);
        }
    const uint i = gl_LocalInvocationIndex;
    group_min[i] = lo;
    group_max[i] = hi;
    barrier();
    for (uint half_count = BLOCK * BLOCK / 2; half_count > 0u; half_count >>= 1) {
        if (i < half_count) {
            group_min[i] = min(group_min[i], group_min[i + half_count]);
            group_max[i] = max(group_max[i], group_max[i + half_count]);
        }
        barrier();
    }
    if (i == 0u && all(lessThan(block, block_count))) {
        blocks[block.y * block_count.x + block.x] = vec2(group_min[0], group_max[0]);
        atomicMin(bound_keys[0], order_key(group_min[0]));
        atomicMin(bound_keys[1], order_key(-group_max[0]));
    }
}
