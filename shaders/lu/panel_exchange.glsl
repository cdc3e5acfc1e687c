// The candidate exchange shared by the one-dispatch panels that gather every group's header
// (panel_lean.comp, panel_registers.comp). Included after their declarations: it uses the
// uniform `groups`, the shared head_abs / head_row and `abandoned`, and Status's `failed`.

// Candidate (v, row) beats (than_v, than_row): the larger |value|, ties to the smaller row.
bool better(float v, int row, float than_v, int than_row) {
    return v > than_v || (v == than_v && row < than_row);
}

void give_up() {
    atomicMax(failed, 1);
    abandoned = true;
}

// The winner among the gathered headers, computed by every subgroup (or invocation) alone.
void best_header(out float w, out int w_row, out int w_slot) {
    w = -2.0;
    w_row = 0x7fffffff;
    w_slot = 0;
#if SUBGROUPS
    for (uint s = gl_SubgroupInvocationID; s < uint(groups); s += gl_SubgroupSize)
        if (better(head_abs[s], head_row[s], w, w_row)) {
            w = head_abs[s];
            w_row = head_row[s];
            w_slot = int(s);
        }
    for (uint offset = gl_SubgroupSize / 2u; offset > 0u; offset >>= 1u) {
        const float o = subgroupShuffleXor(w, offset);
        const int o_row = subgroupShuffleXor(w_row, offset);
        const int o_slot = subgroupShuffleXor(w_slot, offset);
        if (better(o, o_row, w, w_row)) {
            w = o;
            w_row = o_row;
            w_slot = o_slot;
        }
    }
#else
    for (int s = 0; s < groups; ++s)
        if (better(head_abs[s], head_row[s], w, w_row)) {
            w = head_abs[s];
            w_row = head_row[s];
            w_slot = s;
        }
#endif
}
