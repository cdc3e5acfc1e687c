// The power-method variants by name, for the CLI (--bench power --variant NAME) and the GUI.
#include "solvers/power/power.hpp"
#include "solvers/power/variants.hpp"

namespace adilab::power {

const Variants& variants() {
    static const Variants all(
        "power-method",
        {
            {{"host",
              "everything on the CPU in float64: the paper's HOST baseline and the "
              "reference the GPU variants are checked against",
              false},
             [] { return make_host(); }},
            {{"gpu-naive",
              "SpMV on the GPU; lambda, scaling and the stop test on the host, x up "
              "and y down every iteration (G-NAIVE)"},
             [] { return make_gpu_naive(); }},
            {{"gpu-full",
              "SpMV, max-reduction, update and error reduction as separate GPU "
              "kernels; the host reads lambda and the error every iteration "
              "(G-FULL)"},
             [] { return make_gpu_full(); }},
            {{"gpu-opt",
              "SpMV fused with the first reduction stage, the rest of the "
              "reduction, then scale and flag without a norm; the host reads the "
              "flag every iteration (G-OPT)"},
             [] { return make_gpu_opt(false); }},
            {{"gpu-opt-async",
              "gpu-opt reading the flag every check_every iterations only; "
              "the same result, iteration count included"},
             [] { return make_gpu_opt(true); }},
        });
    return all;
}

std::unique_ptr<Variant> make_variant(std::string_view name) {
    return variants().make(name);
}

}  // namespace adilab::power
