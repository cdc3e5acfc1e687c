#extension GL_NV_shader_thread_group : require
// The device's SM count and warps per SM (NVIDIA), read once by heat to size its persistent
// step (sim/heat.cpp): values[0] = gl_SMCountNV, values[1] = gl_WarpsPerSMNV.
layout(local_size_x = 1) in;
layout(std430, binding = 0) writeonly buffer Values { uint values[]; };
void main() {
    values[0] = gl_SMCountNV;
    values[1] = gl_WarpsPerSMNV;
}
