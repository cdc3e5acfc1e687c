// `gpu-blocked`: right-looking blocked LU with partial pivoting (seed 003 §2.3, Fig. 3-4), block
// size nb in {8, 16, 32, 64, 128}. For each block column k0 = 0, nb, 2nb, ...:
//   1. panel: rows k0..n-1, columns k0..k0+nb-1, factored with partial pivoting.
//      Beyond the paper, the panel is ONE dispatch: the panel's rows are spread over up to 128
//      work groups of 512 invocations that keep them on chip (registers or shared memory) and
//      exchange their pivot candidates through epoch-tagged slots once per column (no dispatch,
//      no counter barrier). Four such panels (Panel in lu.hpp, --panel): `registers` (default,
//      shaders/lu/panel_registers.comp: an invocation holds one column of its group's rows in
//      registers, 64 rows a group at least), `lean` (shaders/lu/panel_one_trip.comp with
//      TWO_TRIP: the rows in shared memory, 128 a group at least), `fused`
//      (shaders/lu/panel_fused.comp) and `one-trip` (panel_one_trip.comp). The paper's way (a few
//      dispatches per column, pivot_column.comp + rank1_update.comp limited to the panel) is the
//      fallback where the fused panel cannot run: on a software renderer (work groups run one
//      after another there, so only a single-group panel is safe) when the panel does not fit
//      one group, and on any GPU when it would need more than 128 groups.
//   2. the panel's row interchanges applied to all other columns and the triangular solve
//      U12 = L11^-1 A12: by default (`inverse`) X = L11^-1 explicitly (shaders/lu/trtri.comp,
//      beside the interchanges, shaders/lu/swap_trsm.comp, which gather A12's interchanged rows
//      into a scratch block row), then U12 = X * block row by matmul::gemm over A12 (MAGMA's
//      and cuBLAS's trtri + gemm; the rounding argument is in trtri.comp); or fused with the
//      interchanges by substitution (swap_trsm.comp, ADILAB_LU_TRSM below);
//   3. the trailing update A22 -= L21 U12: matmul::gemm (the matmul family's kernel) with tiles
//      chosen for an inner dimension of nb (update_tiles below), or shaders/lu/trailing_gemm.comp
//      (128 x 128 tiles, one dispatch), by TrailingUpdate.
// Look-ahead (default with the matmul update): after step 2 of panel p, the next panel's columns
// are updated first (a narrow GEMM), then panel p+1 is factored while the GEMM for the rest of
// the trailing matrix runs beside it: the two are dispatched one after the other with no
// barrier in between (they write disjoint parts of the matrix and read only panel p's L21 and
// U12), and the GPU runs them side by side where the panel leaves room on the SMs. Fewer panel
// groups leave more room (lean: at least 128 rows a group; the panel alone gets slower with
// fewer groups, the whole factorisation faster); the registers panel measured best with 64.
// 4 dispatches per block column (`inverse` adds trtri.comp and U12's GEMM).
// Same pivots and the same O(2/3 n^3) flops as unblocked LU.
//
// Current defaults (registers panel, 64 rows a group, `inverse`), H200, 2026-11-21 (session 5),
// cuSOLVER getrf fp32 (peers.py lu) in the same calls, ms at n = 4096 / 8192, nb 128:
//   call H: 12.63 / 33.32 and 12.89 / 33.26 (cuSOLVER 11.89 / 34.01: 102.2% at 8192);
//   call I: 12.89 / 33.22 and 12.88 / 33.23 (cuSOLVER 11.88 / 34.00: 102.3%);
//   lean, same calls: 36.29 at 8192. nb 64: 12.91 / 35.84.
//   call L (X by blocks of 4 rows, trtri.comp; the final main): 12.75 / 33.55, 12.79 / 33.07,
//   12.79 / 33.07 (cuSOLVER 11.90 / 34.12: 101.7-103.2% at 8192); lean 36.05; nb 64 13.07 /
//   35.99; 11.3x gpu-unblocked at 4096 (144.4 ms).
// Where the time goes (ADILAB_LU_TRACE=1, 8192, nb 128, call H; the trace itself adds ~1 ms):
// first panel 0.38 ms; per block column the interchanges beside X = L11^-1 1.88 ms in all (X is
// the longer: 1.75 alone, the interchanges 1.00; 1.75 together with X by blocks, call L), U12's GEMM 1.07, the next panel's columns
// 1.22, and the next panel beside the rest of the trailing update 29.4 (the panel alone 22.8:
// the GEMM takes longer than the panel in the first ~13 block columns, and slows it beside it).
// The registers panel's column costs ~2.8 us (the two round trips, three barriers); lean's
// rank-1 update alone cost 1.5 us of its 3.8 (profiled by leaving parts out, 30.7 against 18.3
// ms at 8192), which is what the registers panel removed.
// Machines differ: in calls A-C of session 5 (another H200 node) lean took 40.5 ms where it
// takes 36.3 on the nodes above, with cuSOLVER 34.2 on both.
// Tried in session 5 and not kept (H200, 8192, nb 128): lean with its update batched 4 or 8
// rows at a time, or with a reciprocal instead of the division, or with warps over the
// columns (30.7 against 31.9 ms for the panel: under the noise of the rest); registers with
// one subgroup taking both round trips (panel 34.2 against 22.8 ms); X by one subgroup a column
// with shuffles instead of a barrier a step (its stage 2.80 against 1.98 ms); deeper k-tiles or
// other tiles for the chain's thin GEMMs and the trailing update (no gain, up to 4 ms worse);
// 1024-invocation groups (33.06 against 33.22, but 14.71 against 12.89 at 4096).
//
// Measured on the H200 (n = 4096 / 8192, one device call, 2026-11-21 ~10:07 UTC, cuSOLVER
// getrf fp32 11.85 / 34.20 ms in the same call): the defaults (lean panel, blocked block-row
// solve) 16.67 / 42.54 ms at nb 64 and 15.88 / 39.12 ms at nb 128 (74.6% / 87.4% of cuSOLVER's
// throughput); the earlier defaults (fused panel, `shared` block-row solve) 19.85 / 49.47 at
// nb 64, 22.92 / 65.99 at nb 128. Phases at 8192, nb 64 (each alone): panel 27.1 ms (lean;
// fused 28.8: ~3.3-3.5 us a column, the same at nb 128), block-row solve 5.4 (blocked; shared
// 7.5), trailing update 19.6; panel and update side by side 36.4 (fused 37.4). nb = 128 halves
// the update's cost, and with the blocked solve (12.1 ms, shared 21.7) it is now the faster.
//
// With the block-row solve by explicit inverse (`inverse`, now the default), same call, two
// processes each, H200, 2026-11-21 ~10:45 UTC, cuSOLVER getrf fp32 11.87 / 34.08 ms:
//   inverse: 15.68 / 39.19 ms (nb 64), 15.13 / 36.45 ms (nb 128; 93.5% of cuSOLVER at 8192);
//   blocked: 16.73 / 42.18 ms (nb 64), 16.07 / 39.12 ms (nb 128; 87.1%), the two processes
//   within 0.1 ms of each other (but one 51.6 ms outlier for blocked, 4096, nb 128). The
//   block-row solve phase alone at 8192 (ADILAB_LU_PHASES=trsm: not the real interchanges
//   then): inverse 2.97 / 2.86 ms, blocked 5.31 / 4.99 (nb 64 / 128). Whole factorisation at
//   8192, one process each: U12's GEMM with 64x128x8x8x8 tiles 40.0 / 36.7 (update_tiles
//   picks 32x64x8x4x8), 32 columns a swap group (ADILAB_LU_TRSM_WG) 39.5 / 36.3: no better
//   than the defaults beyond noise.
// Tried and not landed (2026-11-21 ~12:08 UTC, H200, cuSOLVER 11.92 / 34.13 ms in the same
// call): tournament pivoting (TSLU: leaves of 256 rows factored by GEPP in their own work group,
// a tree of GEPPs on the candidates' original rows in the same dispatch, then L21 = A21 U11^-1),
// which needs no exchange between groups per column. It was slower at every size: 4096 / 8192
// ms 25.06 / 61.21 at nb 64, 35.90 / 88.66 at nb 128 (lean 15.70 / 39.36, 15.16 / 36.49),
// because a GEPP column step inside one work group cost ~1.8 us (rows spread over the lanes of
// a warp, with serial per-lane scans): (levels + 1) such steps a column is more than lean's one
// ~3.3 us exchange. A layout with one invocation a row and the columns unrolled did not finish
// on the H200 within its time limit (compile time or a hang, not told apart) and was not
// measured.
//
// Profiling knob: ADILAB_LU_PHASES (e.g. "panel,gemm") runs only the named phases (panel, trsm,
// gemm; "notrtri" leaves out X = L11^-1), so that the bench's time splits by phase; the factors
// are then wrong, of course. ADILAB_LU_TRACE=1 prints GPU timestamps by stage (below).
// Assumption of the fused panel: all its work groups are resident at once (true for <= 128
// groups of 512 invocations on the GPUs adilab targets). On a GPU where they are not, a wait
// times out (~1 s) and singular_column() reports the failure: wrong factors never pass silently.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "solvers/gl/commands.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/gl/shaders.hpp"
#include "solvers/gl/timer.hpp"
#include "solvers/lu/lu.hpp"
#include "solvers/lu/variants.hpp"
#include "solvers/matmul/matmul.hpp"

namespace adilab::lu {

namespace {

constexpr int kGroupsMax = 128;
constexpr int kPanelWorkGroup = 512;
// Tuning knobs for the bench (like ADILAB_LU_PHASES; the defaults are the best measured
// configuration, H200, call 2 of 2026-11-21, 8192 / 4096):
//   ADILAB_LU_PANEL_ROWS   rows per panel group at least (default 128: 51.6 / 21.3 ms; 32, the
//                          earlier default: 58.9 / 20.7 ms, both with look-ahead and REDUX)
//   ADILAB_LU_LOOKAHEAD    0 turns the look-ahead off (55.7 / 20.0 ms against 55.2 / 18.9 with
//                          it, 32 rows, no REDUX)
//   ADILAB_LU_PANEL_REDUX  1 does the panel's reductions with subgroupMax/Min instead of
//                          shuffles. Off by default: measured slower, alone (panel 29.8 against
//                          26.2 ms at 8192) and in the whole factorisation (8192, nb 64, same
//                          call, 2026-11-21 08:28 UTC: 51.7 ms with, 48.9 ms without).
//   ADILAB_LU_TRSM         reg | shared (unrolled where it does not fit, nb = 128) | unrolled |
//                          blocked | inverse (default; figures above the knobs): the
//                          block-row solve (swap_trsm.comp, trtri.comp + gemm). H200,
//                          8192, the phase alone (2026-11-21 10:00 UTC): blocked 5.42 / 12.07 ms
//                          at nb 64 / 128 against shared 7.48 / 21.67 (32 columns a group:
//                          blocked 5.39 / 15.39, shared 9.05 / 38.63); whole factorisation
//                          (one-trip panel) 47.0 against 53.1 ms at 8192, 18.3 against 20.6 ms
//                          at 4096, nb 64.
//   ADILAB_LU_PANEL        fused | one-trip | lean: the panel (lu.hpp's Panel)
//   ADILAB_LU_PANEL_GROUPS the panel's groups at most (where its rows fit them)
//   ADILAB_LU_GEMM_TILES   the trailing update's tiles (BMxBNxBKxTMxTN), instead of update_tiles
//   ADILAB_LU_INVERSE_TILES the tiles of `inverse`'s U12 = X * block row, instead of update_tiles
//   ADILAB_LU_NEXT_TILES   the tiles of the look-ahead's update of the next panel's columns
//   ADILAB_LU_PANEL_WG / ADILAB_LU_TRSM_WG  group sizes (512 / 64; for `blocked` and
//   `inverse` the columns a group, times nb / 16 invocations a column; panel groups of 256 /
//   1024 measured slower at 8192, nb 64: lean 46.0 / 44.1 ms against 42.5 with 512);
//   ADILAB_LU_PANEL_V1=1 the panel loop without the deferred scaling; ADILAB_LU_SUBGROUPS=0
//   no subgroup operations.
constexpr int kPanelRowsMin = 128;
// `registers`: rows an invocation holds at most (its registers; beyond, `lean`), and rows a
// group at least. H200, n = 4096 / 8192, nb 128, one call: 64 rows a group 12.72 / 33.43 ms,
// 128 rows 15.26 / 34.05 (33.95 in a second process); nb 64: 12.96 / 35.85 against 14.01 / 36.36.
constexpr int kRowsPerPartMax = 64;
constexpr int kRegistersRowsMin = 64;

// Tiles of the trailing update C -= A B (inner dimension nb: C is read and written once per
// panel, A and B are thin). Measured on the H200 (n = 8192, the update phase alone, every panel
// with the one configuration): nb = 64: 256x128x8x8x16 (matmul's choice for big C) 26.4 ms,
// 128x256x8x8x16 25.4, 128x128x8x16x8 23.2, 128x128x8x8x8 19.7, 128x64x8x8x8 19.5,
// 64x128x8x8x8 18.3 (17.9 in a second call; 32x128x8x4x8 17.4, 64x64x8x8x8 19.2, 64x256x8x8x16
// 23.8, 64x128x16x8x8 34.9); nb = 128: 17.0, 16.7, 14.8, 14.8, 13.1, 12.1 (12.0; 12.9, 13.0,
// 15.6, 21.9). With k this short, small
// blocks (128 invocations, 64 accumulators) win: several per SM overlap one's C traffic with
// another's products. The first of these that gives C at least 128 work groups (with blocks no
// wider than C), else the smallest.
matmul::GemmTiles update_tiles(int m, int l) {
    static const matmul::GemmTiles candidates[] = {
        {64, 128, 8, 8, 8}, {32, 64, 8, 4, 8}, {32, 32, 8, 4, 4}};
    for (const matmul::GemmTiles& t : candidates) {
        const long long groups =
            static_cast<long long>((m + t.bm - 1) / t.bm) * ((l + t.bn - 1) / t.bn);
        if (t.bn <= l && groups >= 128) return t;
    }
    return candidates[2];
}

class BlockedSolver final : public Solver {
  public:
    BlockedSolver(int block, TrailingUpdate update, Panel panel)
        : block_(block), update_(update), panel_kind_(effective_panel(panel)) {
        if (const char* most = std::getenv("ADILAB_LU_PANEL_GROUPS"))
            groups_most_ = std::clamp(std::atoi(most), 1, kGroupsMax);
        if (const char* phases = std::getenv("ADILAB_LU_PHASES")) {
            const std::string p = phases;
            panel_ = p.find("panel") != std::string::npos;
            trsm_ = p.find("trsm") != std::string::npos;
            gemm_ = p.find("gemm") != std::string::npos;
            trtri_ = p.find("notrtri") == std::string::npos;
            swap_ = p.find("noswap") == std::string::npos;
        }
        if (const char* rows = std::getenv("ADILAB_LU_PANEL_ROWS"))
            rows_min_ = std::max(1, std::atoi(rows));
        if (const char* sub = std::getenv("ADILAB_LU_SUBGROUPS"))
            subgroups_ = std::string(sub) != "0";
        if (const char* wg = std::getenv("ADILAB_LU_PANEL_WG"))
            panel_group_ = std::clamp(std::atoi(wg), 64, 1024);
        // Whole columns a group: NB invocations at least, a multiple of NB.
        panel_group_ = std::max(block_, panel_group_ / block_ * block_);
        if (const char* wg = std::getenv("ADILAB_LU_TRSM_WG"))
            trsm_group_ = std::clamp(std::atoi(wg), 32, 1024);
        if (const char* v1 = std::getenv("ADILAB_LU_PANEL_V1"))
            deferred_scale_ = std::string(v1) != "1";
        if (const char* mode = std::getenv("ADILAB_LU_TRSM")) {
            const std::string m = mode;
            if (m == "reg")
                trsm_mode_ = 0;
            else if (m == "shared")
                trsm_mode_ = 1;
            else if (m == "unrolled")
                trsm_mode_ = 2;
            else if (m == "blocked")
                trsm_mode_ = 3;
            else if (m == "inverse")
                trsm_mode_ = 4;
            else
                throw Error("ADILAB_LU_TRSM: '" + m +
                            "' is not reg, shared, unrolled, blocked or inverse");
        }
        if (const char* tiles = std::getenv("ADILAB_LU_GEMM_TILES"))
            tiles_ = matmul::GemmTiles::parse(tiles);
        if (const char* tiles = std::getenv("ADILAB_LU_NEXT_TILES"))
            next_tiles_ = matmul::GemmTiles::parse(tiles);
        if (const char* tiles = std::getenv("ADILAB_LU_INVERSE_TILES"))
            inverse_tiles_ = matmul::GemmTiles::parse(tiles);
        if (const char* redux = std::getenv("ADILAB_LU_PANEL_REDUX"))
            redux_ = std::string(redux) != "0";
        if (const char* ahead = std::getenv("ADILAB_LU_LOOKAHEAD"))
            lookahead_ = std::string(ahead) != "0";
        if (const char* trace = std::getenv("ADILAB_LU_TRACE")) trace_ = std::string(trace) != "0";
    }
    std::string name() const override { return "gpu-blocked"; }

    void factor(Factors& f) override {
        const gl::DeviceInfo& info = gl::Context::current().info();
        const std::string nb = std::to_string(block_);
        const int n = f.n;
        // `registers`: each invocation holds one column of rows_per_part rows of its group;
        // enough rows a group that the first panel fits the co-resident groups, at least
        // rows_min (ADILAB_LU_PANEL_ROWS), a multiple of 4 a part (the multipliers are read 4
        // rows at a time).
        const int parts = panel_group_ / block_;
        const int groups_cap = info.software ? 1 : std::min(kGroupsMax, panel_group_);
        const int rows_min =
            rows_min_ > 0 ? rows_min_
                          : panel_kind_ == Panel::registers ? kRegistersRowsMin : kPanelRowsMin;
        const int rows_wanted = std::max(rows_min, (n + groups_cap - 1) / groups_cap);
        const int rows_per_part = ((rows_wanted + parts - 1) / parts + 3) / 4 * 4;
        const bool registers =
            panel_kind_ == Panel::registers && rows_per_part <= kRowsPerPartMax;
        // `lean`, `one-trip`, `fused`: shared memory for the panel's rows, what the group may
        // use less the reduction arrays; `registers` where its rows would need too many
        // registers (n > 64 rows_per_part x 128 groups), `lean`.
        const int shared_bytes = std::min(info.max_shared_memory_bytes, 48 * 1024);
        const int rows_max =
            registers ? parts * rows_per_part
                      : std::max(1, (shared_bytes - 3 * 4 * panel_group_ - 8 * block_ - 256) /
                                        (4 * block_ + 4));  // a row and its label
        const bool redux = redux_ && info.subgroups && subgroups_ && info.subgroup_arithmetic;
        // one-trip and lean: shaders/lu/panel_one_trip.comp (lean with TWO_TRIP).
        const bool one_trip = panel_kind_ != Panel::fused;
        // one-trip, lean and registers: invocation s of a group takes slot s's header, so
        // groups <= its invocations.
        const int groups_max =
            info.software ? 1 : std::min(kGroupsMax, one_trip ? panel_group_ : kGroupsMax);
        const gl::Program& panel =
            registers ? gl::compute_program(
                            "lu/panel_registers.comp",
                            {{"WG_SIZE", std::to_string(panel_group_)},
                             {"NB", nb},
                             {"ROWS_PER_PART", std::to_string(rows_per_part)},
                             {"GROUPS_MAX", std::to_string(kGroupsMax)},
                             {"SUBGROUPS", info.subgroups && subgroups_ ? "1" : "0"},
                             {"SOFTWARE", info.software ? "1" : "0"}})
            : one_trip
                ? gl::compute_program(
                      "lu/panel_one_trip.comp",
                      {{"WG_SIZE", std::to_string(panel_group_)},
                       {"NB", nb},
                       {"ROWS_MAX", std::to_string(rows_max)},
                       {"GROUPS_MAX", std::to_string(kGroupsMax)},
                       {"SUBGROUPS", info.subgroups && subgroups_ ? "1" : "0"},
                       {"SOFTWARE", info.software ? "1" : "0"},
                       {"TWO_TRIP", panel_kind_ != Panel::one_trip ? "1" : "0"}})
                     : gl::compute_program(
                           "lu/panel_fused.comp",
                           {{"WG_SIZE", std::to_string(panel_group_)},
                            {"NB", nb},
                            {"ROWS_MAX", std::to_string(rows_max)},
                            {"GROUPS_MAX", std::to_string(kGroupsMax)},
                            {"SUBGROUPS", info.subgroups && subgroups_ ? "1" : "0"},
                            {"DEFERRED_SCALE", deferred_scale_ ? "1" : "0"},
                            {"REDUX", redux ? "1" : "0"}});
        const gl::Program& pivot =
            gl::compute_program("lu/pivot_column.comp", {{"WG_SIZE", "1024"}});
        const gl::Program& update = gl::compute_program("lu/rank1_update.comp");
        const gl::Program& origin = gl::compute_program("lu/panel_origin.comp");
        // The shared-memory solve where L11 and the block row's columns fit the group's memory.
        // L11 packed (nb (nb - 1) / 2 floats) and, for `shared`, the group's columns; where they
        // do not fit, `shared` becomes `unrolled`, and L11 is read from the matrix if need be.
        // `blocked` (mode 3): trsm_group_ columns a group, nb / part_rows invocations a column.
        const int part_rows = std::min(block_, 16);
        const bool inverse = trsm_mode_ == 4;
        const int trsm_invocations =
            trsm_mode_ >= 3 ? trsm_group_ * (block_ / part_rows) : trsm_group_;
        const int lower_bytes = block_ * (block_ - 1) / 2 * 4 + 3 * block_ * 4 + 256 +
                                (trsm_mode_ == 3 ? part_rows * trsm_group_ * 4 : 0);
        const bool lower_fits = !inverse && lower_bytes <= info.max_shared_memory_bytes;
        const bool shared_fits =
            lower_fits && lower_bytes + block_ * trsm_group_ * 4 <= info.max_shared_memory_bytes;
        const int trsm_mode = trsm_mode_ == 1 && !shared_fits ? 2 : trsm_mode_;
        if (trsm_invocations > info.max_work_group_invocations)
            throw Error("gpu-blocked: the block-row solve's work group (" +
                        std::to_string(trsm_invocations) + " invocations) exceeds the device's " +
                        std::to_string(info.max_work_group_invocations));
        const gl::Program& swap_trsm =
            gl::compute_program("lu/swap_trsm.comp", {{"NB", nb},
                                                      {"WG_SIZE", std::to_string(trsm_invocations)},
                                                      {"TRSM_MODE", std::to_string(trsm_mode)},
                                                      {"LOWER_SHARED", lower_fits ? "1" : "0"},
                                                      {"PS", std::to_string(part_rows)},
                                                      {"TRSM_COLS", std::to_string(trsm_group_)}});
        const gl::Program& gemm = gl::compute_program("lu/trailing_gemm.comp");
        // `inverse`: X = L11^-1 by trtri.comp, CB columns of X a group, nb * CB invocations.
        // (One subgroup a column with shuffles instead of a barrier a step measured slower: the
        // interchanges and X took 2.80 ms of the factorisation against 1.98, H200, 8192, nb 128.)
        // (Columns a group at nb 128, H200, n = 8192, the interchanges and X together: 1 column
        // 3.93 ms, 2 2.38, 4 1.89, 8 1.94; X alone 1.75 ms, the interchanges alone 1.00.)
        const int inverse_cols = std::clamp(512 / block_, 1, block_);
        const bool inverse_lower_fits = block_ * (block_ - 1) / 2 * 4 + 8 * inverse_cols * 4 + 64 <=
                                        info.max_shared_memory_bytes;
        const gl::Program* trtri =
            inverse ? &gl::compute_program("lu/trtri.comp",
                                           {{"NB", nb},
                                            {"CB", std::to_string(inverse_cols)},
                                            {"WG_SIZE", std::to_string(block_ * inverse_cols)},
                                            {"LOWER_SHARED", inverse_lower_fits ? "1" : "0"}})
                    : nullptr;

        const int panels = (n + block_ - 1) / block_;
        if (headers_.empty()) {
            // fused: headers (uvec4) and rows (uvec2 a value); one-trip: headers and rows
            // together (uvec4 words: the header, then 3 values a word), in `headers_`.
            const int words = one_trip ? 1 + (block_ + 2) / 3 : 1;
            headers_ = gl::Buffer(2 * (kGroupsMax + 1) * words * 4 * sizeof(unsigned));
            values_ = gl::Buffer(2 * (kGroupsMax + 1) * (block_ + 1) * 2 * sizeof(unsigned));
        }
        // `inverse`: X (nb x nb) and the interchanged block row (nb x the trailing width, rows
        // padded to whole vec4s so that the GEMM reads it by vec4 where the matrix allows).
        const int w_ld_max = (n + 3) / 4 * 4;
        if (inverse && inverse_.size() < static_cast<std::size_t>(block_) * block_ * 4)
            inverse_ = gl::Buffer(static_cast<std::size_t>(block_) * block_ * 4);
        if (inverse && block_row_.size() < static_cast<std::size_t>(block_) * w_ld_max * 4)
            block_row_ = gl::Buffer(static_cast<std::size_t>(block_) * w_ld_max * 4);
        if (origin_.size() < static_cast<std::size_t>(n) * sizeof(int)) {
            origin_ = gl::Buffer(static_cast<std::size_t>(n) * sizeof(int));
            origin_.zero();  // valid row indices even where ADILAB_LU_PHASES skips the panel
        }
        // Epochs restart at 1 in every factorisation: no slot may keep one from the last.
        headers_.zero();
        values_.zero();

        auto bind = [&] {  // again after every matmul::gemm, which binds its own
            f.values.bind_storage(0);
            f.pivots.bind_storage(1);
            f.status.bind_storage(2);
            headers_.bind_storage(3);
            values_.bind_storage(4);
            f.values.bind_storage(5);  // the vec4 view of the trailing update
            origin_.bind_storage(6);
        };
        // Panel p: columns k0..k0+width-1, rows k0..n-1. `barrier_after` = false leaves the
        // fused panel's dispatch unordered against the next one (look-ahead below).
        auto factor_panel = [&](int p, bool barrier_after) {
            if (!panel_) return;
            bind();
            const int k0 = p * block_;
            const int width = std::min(block_, n - k0);
            const int m = n - k0;
            const int groups_needed = (m + rows_max - 1) / rows_max;
            const int groups = std::max(
                groups_needed,
                std::min({groups_max, groups_most_, (m + rows_min - 1) / rows_min}));
            if (groups <= groups_max) {
                panel.use();
                panel.set("n", n);
                panel.set("k0", k0);
                panel.set("width", width);
                panel.set("groups", groups);
                panel.set("rows_per_group", (m + groups - 1) / groups);
                panel.set("epoch_base", p * block_ + 1);
                gl::dispatch(static_cast<unsigned>(groups));
                if (barrier_after) gl::memory_barrier(gl::Barrier::storage);
                return;
            }
            for (int j = 0; j < width; ++j) {
                const int k = k0 + j;
                pivot.use();
                pivot.set("n", n);
                pivot.set("k", k);
                pivot.set("col_begin", k0);
                pivot.set("col_end", k0 + width);
                gl::dispatch(1);
                gl::memory_barrier(gl::Barrier::storage);
                const int cols = k0 + width - k - 1, rows = n - k - 1;
                if (cols <= 0 || rows <= 0) continue;
                update.use();
                update.set("n", n);
                update.set("k", k);
                update.set("col_end", k0 + width);
                gl::dispatch(static_cast<unsigned>((cols + 15) / 16),
                             static_cast<unsigned>((rows + 15) / 16));
                gl::memory_barrier(gl::Barrier::storage);
            }
            origin.use();
            origin.set("n", n);
            origin.set("k0", k0);
            origin.set("width", width);
            gl::dispatch(1);
            gl::memory_barrier(gl::Barrier::storage);
        };
        auto solve_block_row = [&](int p) {
            const int k0 = p * block_;
            const int width = std::min(block_, n - k0);
            if (!trsm_ || n <= width) return;
            bind();
            const int rest = n - k0 - width;
            const int w_ld = (rest + 3) / 4 * 4;
            if (inverse && rest > 0 && trtri_) {
                // X = L11^-1, beside the interchanges (it reads only L11, which they leave
                // alone, and writes its own buffer): one barrier after both.
                inverse_.bind_storage(7);
                trtri->use();
                trtri->set("n", n);
                trtri->set("k0", k0);
                trtri->set("width", width);
                gl::dispatch(static_cast<unsigned>(block_ / inverse_cols));
            }
            if (inverse) block_row_.bind_storage(7);
            if (swap_) {
                swap_trsm.use();
                swap_trsm.set("n", n);
                swap_trsm.set("k0", k0);
                swap_trsm.set("width", width);
                if (inverse) swap_trsm.set("w_ld", w_ld);
                gl::dispatch(static_cast<unsigned>((n - width + trsm_group_ - 1) / trsm_group_));
            }
            gl::memory_barrier(gl::Barrier::storage);
            mark(kTraceSwap);
            if (inverse && rest > 0) {
                // U12 = X * (A12 interchanged), written over A12 (beta = 0: A12 is not read);
                // ends with a barrier.
                const std::size_t N = static_cast<std::size_t>(n);
                matmul::gemm(width, width, rest, 1.0f, {&inverse_, 0, block_},
                             {&block_row_, 0, w_ld}, 0.0f, {&f.values, k0 * N + k0 + width, n},
                             inverse_tiles_ ? *inverse_tiles_ : update_tiles(width, rest));
                mark(kTraceBlockRow);
            }
        };
        // Trailing update of panel p restricted to the columns [r0 + c_begin, r0 + c_end) of A22
        // (all of its rows): A22 -= L21 U12 there. matmul::gemm ends with a barrier.
        auto update_trailing = [&](int p, int c_begin, int c_end) {
            const int k0 = p * block_;
            const int width = std::min(block_, n - k0);
            const int r0 = k0 + width, rest = n - r0;
            if (!gemm_ || rest <= 0 || c_end <= c_begin) return;
            const std::size_t N = static_cast<std::size_t>(n);
            if (update_ == TrailingUpdate::matmul) {
                matmul::gemm(rest, width, c_end - c_begin, -1.0f, {&f.values, r0 * N + k0, n},
                             {&f.values, k0 * N + r0 + c_begin, n}, 1.0f,
                             {&f.values, r0 * N + r0 + c_begin, n},
                             c_end - c_begin > block_ ? (tiles_ ? *tiles_ : update_tiles(rest, c_end - c_begin))
                             : next_tiles_ ? *next_tiles_
                                           : update_tiles(rest, c_end - c_begin));
                return;
            }
            bind();  // own kernel: the whole of A22 only (no look-ahead with it)
            gemm.use();
            gemm.set("n", n);
            gemm.set("k0", k0);
            gemm.set("width", width);
            gemm.set("aligned", n % 4 == 0 ? 1 : 0);
            const unsigned tiles = static_cast<unsigned>((rest + 127) / 128);
            gl::dispatch(tiles, tiles);
            gl::memory_barrier(gl::Barrier::storage);
        };

        if (!lookahead_ || update_ != TrailingUpdate::matmul) {
            for (int p = 0; p < panels; ++p) {
                const int rest = n - p * block_ - std::min(block_, n - p * block_);
                factor_panel(p, true);
                solve_block_row(p);
                update_trailing(p, 0, rest);
            }
            return;
        }
        // Look-ahead: the next panel's columns are updated first (a narrow GEMM), then the next
        // panel is factored by its co-resident groups while the rest of the trailing matrix is
        // updated by a GEMM dispatched right after it with no barrier in between: the two write
        // disjoint parts of the matrix (panel p+1's columns / the columns right of them) and
        // read only L21 and U12 of panel p, so the GPU may run them side by side. The panel is
        // dispatched first so that its groups are resident before the GEMM's blocks take the
        // SMs. One barrier after both; then panel p+1's interchanges and block-row solve.
        mark(-1);
        factor_panel(0, true);
        mark(kTraceFirstPanel);
        for (int p = 0; p < panels; ++p) {
            solve_block_row(p);
            const int rest = n - p * block_ - std::min(block_, n - p * block_);
            if (rest <= 0) break;
            const int next = std::min(block_, rest);
            update_trailing(p, 0, next);
            mark(kTraceNextColumns);
            factor_panel(p + 1, false);
            if (gemm_ && rest > next)
                update_trailing(p, next, rest);  // ends with the barrier for both
            else
                gl::memory_barrier(gl::Barrier::storage);
            mark(kTraceWindow);
        }
        if (trace_) print_trace(n);
    }

  private:
    // ADILAB_LU_TRACE=1: GPU timestamps at the look-ahead loop's barriers, summed by stage and
    // printed after every factorisation (stderr), to see where the time between panels goes.
    enum TraceStage {
        kTraceFirstPanel,
        kTraceSwap,         // interchanges (and trtri beside them)
        kTraceBlockRow,     // U12 = X * block row
        kTraceNextColumns,  // the next panel's columns updated
        kTraceWindow,       // the next panel beside the rest of the trailing update
        kTraceStages
    };
    void mark(int stage) {
        if (trace_) stamps_.mark(stage);
    }
    void print_trace(int n) {
        static const char* names[kTraceStages] = {"first panel", "interchanges+trtri", "U12 gemm",
                                                  "next columns", "panel||update"};
        const gl::StampLog::Totals totals = stamps_.collect(kTraceStages);
        double sum = 0;
        std::string line = "lu trace n=" + std::to_string(n) + " nb=" + std::to_string(block_);
        for (int s = 0; s < kTraceStages; ++s) {
            char part[96];
            std::snprintf(part, sizeof part, " | %s %.3f ms (%d)", names[s], totals.ms[s],
                          totals.marks[s]);
            line += part;
            sum += totals.ms[s];
        }
        std::fprintf(stderr, "%s | sum %.3f ms\n", line.c_str(), sum);
    }

    int block_;
    TrailingUpdate update_;
    Panel panel_kind_;                               // ADILAB_LU_PANEL overrides (lu.hpp)
    int groups_most_ = kGroupsMax;                   // ADILAB_LU_PANEL_GROUPS
    bool panel_ = true, trsm_ = true, gemm_ = true;  // ADILAB_LU_PHASES
    bool trtri_ = true;  // ADILAB_LU_PHASES "notrtri": `inverse` without X (profiling)
    bool swap_ = true;   // ADILAB_LU_PHASES "noswap": without the interchanges (profiling)
    int rows_min_ = 0;  // ADILAB_LU_PANEL_ROWS (0: the panel's default)
    int panel_group_ = kPanelWorkGroup;              // ADILAB_LU_PANEL_WG: 128, 256, 512, 1024
    int trsm_group_ = 64;                            // ADILAB_LU_TRSM_WG: 32, 64, 128
    bool subgroups_ = true;  // ADILAB_LU_SUBGROUPS=0: shared-memory reductions
    int trsm_mode_ = 4;  // ADILAB_LU_TRSM: reg 0, shared 1, unrolled 2, blocked 3, inverse 4
    std::optional<matmul::GemmTiles> tiles_;  // ADILAB_LU_GEMM_TILES: the trailing GEMM's tiles
    std::optional<matmul::GemmTiles> next_tiles_;  // ADILAB_LU_NEXT_TILES: next panel's columns
    std::optional<matmul::GemmTiles> inverse_tiles_;  // ADILAB_LU_INVERSE_TILES: U12 = X A12's
    bool redux_ = false;                      // ADILAB_LU_PANEL_REDUX: subgroupMax/Min in the panel
    bool lookahead_ = true;       // ADILAB_LU_LOOKAHEAD: next panel beside the trailing update
    bool deferred_scale_ = true;  // ADILAB_LU_PANEL_V1=1: the loop with 4 barriers a column
    bool trace_ = false;          // ADILAB_LU_TRACE
    gl::StampLog stamps_;
    gl::Buffer headers_;          // the panel groups' candidates (panel_fused.comp) ...
    gl::Buffer values_;           // ... and their rows
    gl::Buffer origin_;           // where each panel row came from (n ints)
    gl::Buffer inverse_;          // `inverse`: X = L11^-1 (nb x nb) ...
    gl::Buffer block_row_;        // ... and A12 interchanged (nb x the trailing width)
};

}  // namespace

std::unique_ptr<Solver> make_blocked_solver(int block, TrailingUpdate update, Panel panel) {
    return std::make_unique<BlockedSolver>(block, update, panel);
}

}  // namespace adilab::lu
