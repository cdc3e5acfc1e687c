// The panel factorisation of blocked LU (Fig. 3-4 of the LU paper, its §2.3) in ONE dispatch,
// with the panel's rows in shared memory: `lean`, the fallback of the `registers` panel
// (panel_registers.comp) where its rows would need more than 64 registers an invocation, and
// a panel of its own by Tuning::registers_panel = 0. Same partial pivoting, same pivots as
// column-by-column LU: the panel (rows k0..n-1, columns k0..k0+width-1) split over `groups`
// work groups that keep their rows (at most ROWS_MAX) in shared memory for the whole panel.
//
// Per column j, every group:
//   1. publishes its candidate (largest |a(i,j)|, i >= k0+j, ties: smallest row) TOGETHER with
//      the candidate's whole row, in its own slot: a header uvec4 (|value|, row, label, epoch)
//      and ceil(NB / 3) uvec4 chunks (3 values, epoch). The owner of row k0+j also publishes
//      that row in the diagonal slot. Every 16-byte word carries the epoch (unique per panel
//      and column), so each one is valid alone: no ordering between the stores is needed, and a
//      reader needs no fence between a stamp and its data (NVIDIA performs aligned 16-byte
//      accesses whole).
//   2. reads the headers of all slots, spinning until every stamp is the column's epoch (the
//      first round trip through L2);
//   3. reduces the headers (from shared memory, every subgroup by itself: no extra barrier) to
//      the same winner in every group, then fetches the winner's row (the second round trip);
//      the invocations that hold it write the pivot row and the interchange of rows k0+j and p.
//   4. the rank-1 update; the invocations that update column j+1 find its candidates as they
//      go (the next column's search costs no pass and no barrier of its own), and column j is
//      scaled by the pivot only in step 3 of the next column (deferred: nobody waits for it;
//      the published rows are scaled on the fly).
// Why two round trips and not one: publishing rows and reading every candidate's row at once
// saves a round trip but makes every group read (groups + 1) x NB values a column, which cost
// more than the trip (docs/performance.md, "LU", the panels that lost). Three barriers a column.
// Slots alternate by column parity: a group writes column j+2's slots only after every group
// published column j+1, which each does only after it finished reading column j's.
//
// Limits: all `groups` work groups resident at once (groups <= GROUPS_MAX, groups <= WG_SIZE,
// hardware GPUs only; a software renderer uses groups == 1, with a barrier between publishing
// and gathering, SOFTWARE); a wait that spins too long sets `failed` instead of hanging.
#if SUBGROUPS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#endif
layout(local_size_x = WG_SIZE) in;

const uint SPIN_LIMIT = 1u << 22;  // ~1 s: a real wait is a microsecond

// Words of a slot: the header, then the row 3 values a word.
#define CHUNKS (1 + (NB + 2) / 3)
// Words an invocation gathers in step 2: one header (groups <= WG_SIZE).
#define GATHER 1
// Invocations per column in the rank-1 update (NB divides WG_SIZE).
#define PARTS (WG_SIZE / NB)

layout(std430, binding = 0) buffer Matrix { float a[]; };
layout(std430, binding = 1) writeonly buffer Pivots { int pivots[]; };
layout(std430, binding = 2) coherent buffer Status { int first_singular; int failed; };
// [parity][slot][CHUNKS]; slot GROUPS_MAX is the diagonal row.
layout(std430, binding = 3) coherent volatile buffer Mail { uvec4 mail[]; };
layout(std430, binding = 6) writeonly buffer Origin { int origin[]; };

uniform int n;
uniform int k0;
uniform int width;            // panel columns, <= NB
uniform int groups;           // work groups taking part, <= GROUPS_MAX, <= WG_SIZE
uniform int rows_per_group;   // <= ROWS_MAX
uniform int epoch_base;       // epoch of column j is epoch_base + j (>= 1)

shared float rows[ROWS_MAX * NB];
shared int label[ROWS_MAX];
shared float pivot_row[NB];
shared float part_abs[PARTS];  // the next column's candidates, one per updating invocation
shared int part_row[PARTS];
shared float head_abs[GROUPS_MAX];  // the gathered headers
shared int head_row[GROUPS_MAX];
shared int head_label[GROUPS_MAX];
shared int diagonal_label;
shared bool abandoned;

int word(int parity, int slot, int chunk) {
    return (parity * (GROUPS_MAX + 1) + slot) * CHUNKS + chunk;
}

#include "lu/panel_exchange.glsl"

// Gathered word e of `total`: headers of slots 0..groups-1 first (invocation e has header e),
// then the diagonal slot's CHUNKS words, then the candidate rows' chunks first_chunk..CHUNKS-1
// (`row_chunks` of them): a group that does not own the diagonal row needs the winner's row
// only from column j on (the pivot and U's part; the L part goes to the diagonal row's owner),
// which halves what it reads on average.
int first_chunk, row_chunks;
void decode(int e, out int slot, out int chunk) {
    if (e < groups) {
        slot = e;
        chunk = 0;
    } else if (e < groups + CHUNKS) {
        slot = GROUPS_MAX;
        chunk = e - groups;
    } else {
        const int f = e - groups - CHUNKS;
        slot = f / row_chunks;
        chunk = first_chunk + f % row_chunks;
    }
}

void main() {
    const int t = int(gl_LocalInvocationID.x);
    const int g = int(gl_WorkGroupID.x);
    const int row_begin = k0 + g * rows_per_group;
    const int count = clamp(n - row_begin, 0, rows_per_group);
    if (t == 0) abandoned = failed != 0;  // an earlier panel failed: do nothing more
    barrier();
    if (abandoned) return;

    for (int e = t; e < count * NB; e += WG_SIZE) {
        int r = e / NB, c = e % NB;
        rows[e] = c < width ? a[(row_begin + r) * n + k0 + c] : 0.0;
    }
    for (int r = t; r < count; r += WG_SIZE) label[r] = row_begin + r;
    barrier();
    // Column 0's candidates, by the invocations that will later update column 0's successors
    // (the same split as the update below: column t % NB, rows t / NB + PARTS i).
    const int c = t % NB;
    if (c == 0) {
        float s_abs = -1.0;
        int s_row = n;
        for (int r = t / NB; r < count; r += PARTS) {
            const float v = abs(rows[r * NB]);
            if (v > s_abs) {
                s_abs = v;
                s_row = row_begin + r;
            }
        }
        part_abs[t / NB] = s_abs;
        part_row[t / NB] = s_row;
    }
    barrier();

    int scale_column = -1, scale_first = 0;  // the previous column's scaling, still to do
    float scale_pivot = 1.0;
    for (int j = 0; j < width; ++j) {
        const int d = k0 + j;  // the diagonal row of this column
        const int parity = j & 1;
        const uint epoch = uint(epoch_base + j);
        const bool own_d = d >= row_begin && d < row_begin + count;
        const int total = groups;
        // 1. Publish: this group's candidate with its row, and the diagonal row. Rows at or
        //    below d are the ones the deferred scaling of column j-1 covers: scaled here.
        for (int e = t; e < 2 * CHUNKS; e += WG_SIZE) {
            const bool diagonal = e >= CHUNKS;
            if (diagonal && !own_d) break;
            float b_abs = -1.0;
            int b_row = n;
            if (diagonal) {
                b_abs = 0.0;
                b_row = d;
            } else {
                for (int k = 0; k < PARTS; ++k)
                    if (better(part_abs[k], part_row[k], b_abs, b_row)) {
                        b_abs = part_abs[k];
                        b_row = part_row[k];
                    }
            }
            const int local = b_row - row_begin;
            const int chunk = diagonal ? e - CHUNKS : e;
            uvec4 out_word;
            if (chunk == 0) {
                out_word = uvec4(floatBitsToUint(b_abs), uint(b_row),
                                 uint(b_row < n ? label[local] : -1), epoch);
            } else {
                float v[3];
                for (int q = 0; q < 3; ++q) {
                    const int col = 3 * (chunk - 1) + q;
                    v[q] = 0.0;
                    if (b_row < n && col < NB) {
                        v[q] = rows[local * NB + col];
                        if (col == scale_column) v[q] = v[q] / scale_pivot;
                    }
                }
                out_word = uvec4(floatBitsToUint(v[0]), floatBitsToUint(v[1]),
                                 floatBitsToUint(v[2]), epoch);
            }
            mail[word(parity, diagonal ? GROUPS_MAX : g, chunk)] = out_word;
        }
#if SOFTWARE
        // A software renderer runs a group's invocations one after another between barriers:
        // without this one, an invocation would spin on a word that a later one publishes.
        barrier();
#endif
        // 2. Gather every slot, all loads issued before any wait.
        uvec4 got[GATHER];
        for (int i = 0; i < GATHER; ++i) {
            const int e = t + i * WG_SIZE;
            if (e < total) {
                int s, ch;
                decode(e, s, ch);
                got[i] = mail[word(parity, s, ch)];
            }
        }
        // Every round re-reads all the stale words together: one round trip a round (waiting
        // on one word after another would cost a round trip per word).
        for (uint spins = 0u;; ++spins) {
            bool current = true;
            for (int i = 0; i < GATHER; ++i)
                if (t + i * WG_SIZE < total && got[i].w != epoch) current = false;
            if (current) break;
            if (spins > SPIN_LIMIT) {
                give_up();
                break;
            }
            for (int i = 0; i < GATHER; ++i) {
                const int e = t + i * WG_SIZE;
                if (e < total && got[i].w != epoch) {
                    int s, ch;
                    decode(e, s, ch);
                    got[i] = mail[word(parity, s, ch)];
                }
            }
        }
        // Checked again after the loop: a compiler may bound a loop's iterations by itself
        // (llvmpipe ends any loop after 65535), leaving it with a stale word and no give_up().
        for (int i = 0; i < GATHER; ++i)
            if (t + i * WG_SIZE < total && got[i].w != epoch) give_up();
        for (int i = 0; i < GATHER; ++i) {
            const int e = t + i * WG_SIZE;
            if (e < total) {
                if (e < groups) {
                    head_abs[e] = uintBitsToFloat(got[i].x);
                    head_row[e] = int(got[i].y);
                    head_label[e] = int(got[i].z);
                } else if (e == groups) {
                    diagonal_label = int(got[i].z);
                }
            }
        }
        barrier();
        if (abandoned) return;
        // 3. The same winner everywhere; the pivot row and the interchange from registers.
        float w;
        int p, w_slot;
        best_header(w, p, w_slot);
        const bool own_p = p >= row_begin && p < row_begin + count;
        const bool swap = p != d;
        // Column j-1's deferred scaling, except in the rows about to be overwritten (their new
        // content was published scaled).
        if (scale_column >= 0)
            for (int r = scale_first + t; r < count; r += WG_SIZE)
                if (!swap || (r != d - row_begin && r != p - row_begin))
                    rows[r * NB + scale_column] = rows[r * NB + scale_column] / scale_pivot;
        for (int i = 0; i < GATHER; ++i) {
            const int e = t + i * WG_SIZE;
            if (e < total) {
                int s, ch;
                decode(e, s, ch);
                if (ch == 0) continue;
                const bool winner = s == w_slot;
                const bool diagonal = s == GROUPS_MAX && own_p && swap;
                for (int q = 0; q < 3; ++q) {
                    const int col = 3 * (ch - 1) + q;
                    if (col >= NB) break;
                    const float v = uintBitsToFloat(got[i][q]);
                    if (winner) {
                        pivot_row[col] = v;
                        if (own_d && swap) rows[(d - row_begin) * NB + col] = v;
                    }
                    if (diagonal) rows[(p - row_begin) * NB + col] = v;
                }
            }
        }
        // The second round trip: the winner's row, and the diagonal row (only the winner's
        // owner needs it), fetched once the winner is known.
        for (int e = t; e < 2 * CHUNKS - 1; e += WG_SIZE) {
            const bool diagonal = e >= CHUNKS - 1;
            if (diagonal && !(own_p && swap)) break;
            const int ch = diagonal ? e - CHUNKS + 2 : e + 1;  // diagonal: header as CHUNKS
            const int at = word(parity, diagonal ? GROUPS_MAX : w_slot, ch % CHUNKS);
            uvec4 v = mail[at];
            uint spins = 0u;
            while (v.w != epoch) {
                if (++spins > SPIN_LIMIT) break;
                v = mail[at];
            }
            if (v.w != epoch) give_up();  // also where the compiler bounded the loop
            if (ch == CHUNKS) {
                label[p - row_begin] = int(v.z);
                continue;
            }
            for (int q = 0; q < 3; ++q) {
                const int col = 3 * (ch - 1) + q;
                if (col >= NB) break;
                const float x = uintBitsToFloat(v[q]);
                if (!diagonal) {
                    pivot_row[col] = x;
                    if (own_d && swap) rows[(d - row_begin) * NB + col] = x;
                } else {
                    rows[(p - row_begin) * NB + col] = x;
                }
            }
        }
        if (t == 0 && swap && own_d) label[d - row_begin] = head_label[w_slot];
        if (g == 0 && t == 0) {
            pivots[d] = p;
            if (w == 0.0) atomicMin(first_singular, d);
        }
        barrier();
        if (abandoned) return;
        // 4. The rank-1 update, each invocation dividing by the pivot itself (the same division,
        //    so the same multiplier), and column j+1's candidates found on the way. A zero pivot
        //    means the column is all zero below d: nothing is updated or scaled.
        const float pivot = pivot_row[j];
        const int first = max(d + 1 - row_begin, 0);
        if (c > j && c < width) {
            const bool next = c == j + 1;
            float s_abs = -1.0;
            int s_row = n;
            if (pivot != 0.0) {
                const float u = pivot_row[c];
                for (int r = first + t / NB; r < count; r += PARTS) {
                    const float v = rows[r * NB + c] - (rows[r * NB + j] / pivot) * u;
                    rows[r * NB + c] = v;
                    if (next && abs(v) > s_abs) {
                        s_abs = abs(v);
                        s_row = row_begin + r;
                    }
                }
            } else if (next) {
                for (int r = first + t / NB; r < count; r += PARTS) {
                    const float v = abs(rows[r * NB + c]);
                    if (v > s_abs) {
                        s_abs = v;
                        s_row = row_begin + r;
                    }
                }
            }
            if (next) {
                part_abs[t / NB] = s_abs;
                part_row[t / NB] = s_row;
            }
        }
        barrier();
        scale_column = pivot != 0.0 ? j : -1;
        scale_first = first;
        scale_pivot = pivot;
    }

    if (scale_column >= 0)
        for (int r = scale_first + t; r < count; r += WG_SIZE)
            rows[r * NB + scale_column] = rows[r * NB + scale_column] / scale_pivot;
    barrier();
    for (int e = t; e < count * NB; e += WG_SIZE) {
        int r = e / NB, col = e % NB;
        if (col < width) a[(row_begin + r) * n + k0 + col] = rows[e];
    }
    for (int r = t; r < count; r += WG_SIZE) origin[row_begin + r] = label[r];
}
