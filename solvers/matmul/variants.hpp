#pragma once
// Private to solvers/matmul: the variants' factories and the GPU variants' shared host side.
#include <memory>

#include "solvers/matmul/matmul.hpp"

namespace adilab::matmul {

std::unique_ptr<Multiplier> make_cpu_ijk();
std::unique_ptr<Multiplier> make_cpu_ikj();
std::unique_ptr<Multiplier> make_cpu_blocked();
std::unique_ptr<Multiplier> make_gpu_tiled32();
std::unique_ptr<Multiplier> make_gpu_fast(std::optional<GemmTiles> tiles);
std::unique_ptr<Multiplier> make_cpgpu(std::optional<GemmTiles> tiles);

// A GPU variant's host entry: upload A and B, multiply_gpu, download C. The buffers are kept for
// the next call of the same shape.
class GpuMultiplier : public Multiplier {
  public:
    bool on_gpu() const override { return true; }
    void multiply_host(Shape shape, const float* a, const float* b, float* c) override;

  protected:
    gl::Buffer a_, b_, c_;
    Shape allocated_{};
    void allocate(Shape shape);
};

}  // namespace adilab::matmul
