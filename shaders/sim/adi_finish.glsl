// The generic path's last kernel of a half step: the solver wrote the line solution into the
// output field; store() applies the model's pins and clamps (heaters, dry cells) and the
// stability flag in place, as the fused kernel does on its way out.
#include "sim/adi_common.glsl"

layout(local_size_x = 256) in;

void main() {
    const int id = int(gl_GlobalInvocationID.x);
    if (id >= nx * ny) return;
    const ivec2 cell = ivec2(id % nx, id / nx);
#if DIRECTION == 0
    store(cell.y, cell.x, solved_value(id), store_input(cell.y, cell.x));
#else
    store(cell.x, cell.y, solved_value(id), store_input(cell.x, cell.y));
#endif
    report_checks();
}
