// matmul::gemm: the host side of shaders/matmul/gemm.comp (gpu-fast), reusable on sub-blocks.
// Splits C into whole BM x BN blocks (the unguarded kernel) and the right and bottom strips
// (the guarded one), so the hot loop carries no bounds checks.
#include <climits>
#include <sstream>
#include <vector>

#include "solvers/common/numbers.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/gl/shaders.hpp"
#include "solvers/matmul/matmul.hpp"

namespace adilab::matmul {

std::string GemmTiles::label() const {
    std::ostringstream s;
    s << bm << 'x' << bn << 'x' << bk << 'x' << tm << 'x' << tn;
    if (apad != 1) s << 'x' << apad;
    return s.str();
}

GemmTiles GemmTiles::parse(const std::string& text) {
    GemmTiles t;
    std::vector<int> numbers;
    std::size_t start = 0;
    for (;;) {
        const std::size_t x = text.find('x', start);
        const std::string piece =
            text.substr(start, x == std::string::npos ? std::string::npos : x - start);
        // Strictly (solvers/common/numbers.hpp): no sign games, no wrap; the shaders' tile sizes
        // are small powers of two, check_tiles says which.
        const auto value = adilab::numbers::to_integer(piece);
        if (!value || *value < 0 || *value > 65536 || piece.front() == '+')
            throw Error("tile configuration '" + text + "': '" + piece +
                        "' is not a size from 0 to 65536 (expected BMxBNxBKxTMxTN[xAPAD], e.g. "
                        "128x128x8x8x8)");
        numbers.push_back(static_cast<int>(*value));
        if (x == std::string::npos) break;
        start = x + 1;
    }
    if (numbers.size() != 5 && numbers.size() != 6)
        throw Error("tile configuration '" + text +
                    "' is not BMxBNxBKxTMxTN[xAPAD] (e.g. 128x128x8x8x8)");
    t.bm = numbers[0];
    t.bn = numbers[1];
    t.bk = numbers[2];
    t.tm = numbers[3];
    t.tn = numbers[4];
    if (numbers.size() == 6) t.apad = numbers[5];
    return t;
}

std::size_t GemmTiles::shared_bytes() const {
    const std::size_t vec4 = 16;
    // Two buffers of As[bk][bm/4 + apad] and Bs[bk][bn/4] (BPAD = 0).
    return 2 * vec4 * static_cast<std::size_t>(bk) * (bm / 4 + apad + bn / 4);
}

std::span<const GemmTiles> tuned_tiles() {
    // Largest first. Large blocks win once there are enough of them to fill the SMs; below that,
    // filling the SMs matters more than the block's reuse, so the smaller shapes serve small C
    // (docs/performance.md, "Matmul": the sweep and the tries with BK = 16 that lost).
    static const GemmTiles all[] = {{256, 128, 8, 8, 16},
                                    {128, 128, 8, 16, 8},
                                    {64, 128, 8, 8, 8},
                                    {32, 64, 8, 4, 8},
                                    {32, 32, 8, 4, 4}};
    return all;
}

GemmTiles choose_tiles(int m, int l) {
    for (const GemmTiles& t : tuned_tiles()) {
        const long long groups =
            static_cast<long long>((m + t.bm - 1) / t.bm) * ((l + t.bn - 1) / t.bn);
        if (groups >= 128) return t;
    }
    return tuned_tiles().back();
}

void check_tiles(const GemmTiles& t, const gl::DeviceInfo& device) {
    auto fail = [&](const std::string& why) {
        throw Error("tile configuration " + t.label() + ": " + why);
    };
    if (t.bm <= 0 || t.bn <= 0 || t.bk <= 0 || t.tm <= 0 || t.tn <= 0)
        fail("sizes must be positive");
    if (t.apad < 0 || t.apad > 4) fail("APAD must be 0 to 4 vec4s");
    if (t.tm % 4 != 0 || t.tn % 4 != 0 || t.bk % 4 != 0)
        fail("TM, TN and BK must be multiples of 4");
    if (t.bm % t.tm != 0 || t.bn % t.tn != 0) fail("BM must be a multiple of TM and BN of TN");
    if (t.threads() > device.max_work_group_invocations ||
        t.threads() > device.max_work_group_size[0])
        fail(std::to_string(t.threads()) + " invocations per work group exceed the device's limit");
    if (t.shared_bytes() > static_cast<std::size_t>(device.max_shared_memory_bytes))
        fail(std::to_string(t.shared_bytes()) + " bytes of shared memory exceed the device's " +
             std::to_string(device.max_shared_memory_bytes));
}

namespace {

gl::Defines tile_defines(const GemmTiles& t, bool vec4, bool guarded) {
    return {{"BM", std::to_string(t.bm)},
            {"BN", std::to_string(t.bn)},
            {"BK", std::to_string(t.bk)},
            {"TM", std::to_string(t.tm)},
            {"TN", std::to_string(t.tn)},
            {"APAD", std::to_string(t.apad)},
            {"BPAD", "0"},
            {"VEC4", vec4 ? "1" : "0"},
            {"GUARDED", guarded ? "1" : "0"},
            {"WG_SIZE", std::to_string(t.threads())}};
}

void check_ref(const MatrixRef& r, int rows, int cols, const char* which) {
    if (r.buffer == nullptr || r.buffer->empty())
        throw Error(std::string("gemm: matrix ") + which + " has no buffer");
    if (r.ld < cols)
        throw Error(std::string("gemm: leading dimension of ") + which +
                    " is below its column count");
    const long long last =
        static_cast<long long>(r.offset) + static_cast<long long>(rows - 1) * r.ld + cols;
    if (last > INT_MAX)
        throw Error(std::string("gemm: matrix ") + which + " reaches beyond 32-bit indices");
    if (static_cast<std::size_t>(last) * sizeof(float) > r.buffer->size())
        throw Error(std::string("gemm: matrix ") + which + " reaches beyond the end of its buffer");
}

void set_common(const gl::Program& p, int m, int n, int l, float alpha, const MatrixRef& a,
                const MatrixRef& b, float beta, const MatrixRef& c) {
    p.use();
    p.set("M", m);
    p.set("N", n);
    p.set("L", l);
    p.set("lda", a.ld);
    p.set("ldb", b.ld);
    p.set("ldc", c.ld);
    p.set("a_offset", static_cast<int>(a.offset));
    p.set("b_offset", static_cast<int>(b.offset));
    p.set("c_offset", static_cast<int>(c.offset));
    p.set("alpha", alpha);
    p.set("beta", beta);
}

}  // namespace

void gemm(int m, int n, int l, float alpha, const MatrixRef& a, const MatrixRef& b, float beta,
          const MatrixRef& c, std::optional<GemmTiles> tiles) {
    const GemmTiles t = tiles ? *tiles : choose_tiles(m, l);
    if (m <= 0 || n <= 0 || l <= 0) throw Error("gemm: sizes must be positive");
    check_ref(a, m, n, "A");
    check_ref(b, n, l, "B");
    check_ref(c, m, l, "C");
    const bool vec4 = a.offset % 4 == 0 && b.offset % 4 == 0 && c.offset % 4 == 0 &&
                      a.ld % 4 == 0 && b.ld % 4 == 0 && c.ld % 4 == 0;
    const int full_rows = m / t.bm * t.bm, full_cols = l / t.bn * t.bn;
    auto bind = [&](bool with_vec4) {
        a.buffer->bind_storage(0);
        b.buffer->bind_storage(1);
        c.buffer->bind_storage(2);
        if (with_vec4) {
            a.buffer->bind_storage(3);
            b.buffer->bind_storage(4);
            c.buffer->bind_storage(5);
        }
    };
    if (full_rows > 0 && full_cols > 0) {
        const gl::Program& p =
            gl::compute_program("matmul/gemm.comp", tile_defines(t, vec4, false));
        set_common(p, m, n, l, alpha, a, b, beta, c);
        p.set("origin", glm::ivec2(0, 0));
        bind(vec4);
        gl::dispatch(static_cast<unsigned>(full_cols / t.bn),
                     static_cast<unsigned>(full_rows / t.bm));
    }
    if (full_rows < m || full_cols < l) {
        const gl::Program& p =
            gl::compute_program("matmul/gemm.comp", tile_defines(t, false, true));
        set_common(p, m, n, l, alpha, a, b, beta, c);
        bind(false);
        if (full_cols < l) {  // right strip, every row
            p.set("origin", glm::ivec2(0, full_cols));
            gl::dispatch(1u, static_cast<unsigned>((m + t.bm - 1) / t.bm));
        }
        if (full_rows < m && full_cols > 0) {  // bottom strip left of the right one
            p.set("origin", glm::ivec2(full_rows, 0));
            gl::dispatch(static_cast<unsigned>(full_cols / t.bn), 1u);
        }
    }
    gl::memory_barrier(gl::Barrier::storage | gl::Barrier::buffer_update);
}

}  // namespace adilab::matmul
