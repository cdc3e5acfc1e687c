// Copies x (storage buffer) into the 2D texture the SpMV gathers it from (power/x_image.glsl),
// after x changed outside Step3: a new start vector, gpu-naive's upload, gpu-full's update.
layout(local_size_x = WG_SIZE) in;
layout(std430, binding = 3) restrict readonly buffer X { double x[]; };
#define X_IMAGE_WRITE
#include "power/x_image.glsl"
uniform uint rows;

void main() {
    const uint pairs = (rows + 1u) / 2u;
    for (uint p = gl_GlobalInvocationID.x; p < pairs; p += gl_NumWorkGroups.x * uint(WG_SIZE)) {
        const uint i = 2u * p;
        store_x_pair(int(p), x[i], i + 1u < rows ? x[i + 1u] : 0.0);
    }
}
