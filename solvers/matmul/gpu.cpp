// The GPU variants of C = A * B (fp32, row-major; A m x n, B n x l, any sizes >= 1).
//  - gpu-tiled32: the OpenGL matmul paper, Algorithm 1 (host) and Algorithm 2
//  (shaders/matmul/tiled32.comp),
//    faithfully: 32 x 32 work groups, dispatched in chunks of at most 64 x 64 work groups with the
//    chunk origin (x0, y0) as uniforms, one dispatch per chunk.
//  - gpu-fast: matmul::gemm (shaders/matmul/gemm.comp) with alpha = 1, beta = 0.
#include <algorithm>

#include "solvers/gl/commands.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/gl/shaders.hpp"
#include "solvers/matmul/variants.hpp"

namespace adilab::matmul {

void GpuMultiplier::allocate(Shape s) {
    if (s.m == allocated_.m && s.n == allocated_.n && s.l == allocated_.l) return;
    check_shape(s, true, gl::Context::current().info());  // A, B and C named, before any of them
    a_ = gl::Buffer(sizeof(float) * static_cast<std::size_t>(s.m) * s.n);
    b_ = gl::Buffer(sizeof(float) * static_cast<std::size_t>(s.n) * s.l);
    c_ = gl::Buffer(sizeof(float) * static_cast<std::size_t>(s.m) * s.l);
    allocated_ = s;
}

void GpuMultiplier::multiply_host(Shape s, const float* a, const float* b, float* c) {
    allocate(s);
    a_.upload(0, a_.size(), a);
    b_.upload(0, b_.size(), b);
    multiply_gpu(s, a_, b_, c_);
    c_.download(0, c_.size(), c);  // waits for the GPU
}

namespace {

class GpuTiled32 final : public GpuMultiplier {
  public:
    std::string name() const override { return "gpu-tiled32"; }
    void multiply_gpu(Shape s, const gl::Buffer& a, const gl::Buffer& b, gl::Buffer& c) override {
        constexpr unsigned kBlockSize = 32,
                           kChunk = 64;  // Algorithm 1: wsize 32 x 32, gsize 64 x 64
        const gl::Program& p = gl::compute_program("matmul/tiled32.comp");
        p.use();
        p.set("m", static_cast<unsigned>(s.m));
        p.set("n", static_cast<unsigned>(s.n));
        p.set("l", static_cast<unsigned>(s.l));
        a.bind_storage(0);
        b.bind_storage(1);
        c.bind_storage(2);
        // wcnt = ceil((l, m) / 32) work groups; gcnt = ceil(wcnt / 64) chunks.
        const unsigned groups_x = (static_cast<unsigned>(s.l) + kBlockSize - 1) / kBlockSize;
        const unsigned groups_y = (static_cast<unsigned>(s.m) + kBlockSize - 1) / kBlockSize;
        for (unsigned yi = 0; yi * kChunk < groups_y; ++yi) {
            p.set("y0", yi * kChunk * kBlockSize);
            for (unsigned xi = 0; xi * kChunk < groups_x; ++xi) {
                p.set("x0", xi * kChunk * kBlockSize);
                // The paper dispatches a full 64 x 64 chunk even at the edges (those groups write
                // nothing); only the groups that cover R are dispatched here.
                gl::dispatch(std::min(kChunk, groups_x - xi * kChunk),
                             std::min(kChunk, groups_y - yi * kChunk));
            }
        }
        gl::memory_barrier(gl::Barrier::storage | gl::Barrier::buffer_update);
    }
};

class GpuFast final : public GpuMultiplier {
  public:
    explicit GpuFast(std::optional<GemmTiles> tiles) : tiles_(tiles) {}
    std::string name() const override {
        return tiles_ ? "gpu-fast[" + tiles_->label() + "]" : "gpu-fast";
    }
    std::string config(Shape s) const override {
        return (tiles_ ? *tiles_ : choose_tiles(s.m, s.l)).label();
    }
    void multiply_gpu(Shape s, const gl::Buffer& a, const gl::Buffer& b, gl::Buffer& c) override {
        gemm(s.m, s.n, s.l, 1.0f, {&a, 0, s.n}, {&b, 0, s.l}, 0.0f, {&c, 0, s.l}, tiles_);
    }

  private:
    std::optional<GemmTiles> tiles_;
};

}  // namespace

std::unique_ptr<Multiplier> make_gpu_tiled32() {
    return std::make_unique<GpuTiled32>();
}
std::unique_ptr<Multiplier> make_gpu_fast(std::optional<GemmTiles> tiles) {
    return std::make_unique<GpuFast>(tiles);
}

}  // namespace adilab::matmul
