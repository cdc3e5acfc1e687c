// The one registry shape of the solver families (solvers/common/registry.hpp): lookups, the
// factory's arguments, and the same unknown-name message from every family. Unknown names are
// refused before any factory runs, so these need no GL context.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "app/bench/benchmark.hpp"
#include "solvers/common/registry.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/lu/lu.hpp"
#include "solvers/matmul/matmul.hpp"
#include "solvers/power/power.hpp"
#include "solvers/tridiagonal/solver.hpp"

namespace adilab {
namespace {

// Built as Product{v}: clang before 16 (clang-tidy's parser in .ci/tidy) has no parenthesized
// aggregate initialization, which make_unique<Product>(v) needs.
struct Product {
    int value = 0;
};
struct ToyInfo : VariantInfo {
    bool extra = false;
};
using Toys = Registry<ToyInfo, Product, int>;

const Toys& toys() {
    static const Toys all("toy",
                          {
                              {{{"double", "twice the argument"}, true},
                               [](int v) { return std::make_unique<Product>(Product{2 * v}); }},
                              {{{"same", "the argument", false}},
                               [](int v) { return std::make_unique<Product>(Product{v}); }},
                          });
    return all;
}

std::string message_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(Registry, ListsFindsAndMakesInTableOrder) {
    EXPECT_EQ(toys().size(), 2u);
    EXPECT_EQ(toys().names(), (std::vector<std::string>{"double", "same"}));
    EXPECT_EQ(toys().list(), "double, same");
    ASSERT_NE(toys().find("same"), nullptr);
    EXPECT_FALSE(toys().find("same")->on_gpu);
    EXPECT_TRUE(toys().at("double").extra);
    EXPECT_EQ(toys().find("triple"), nullptr);
    EXPECT_EQ(toys().make("double", 21)->value, 42);
    EXPECT_EQ(toys().make("same", 21)->value, 21);
    std::vector<std::string> iterated;
    for (const ToyInfo& info : toys()) iterated.push_back(info.name);
    EXPECT_EQ(iterated, toys().names());
}

TEST(Registry, UnknownNamesGetTheSameMessageInEveryFamily) {
    EXPECT_EQ(message_of([] { toys().at("triple"); }),
              "unknown toy variant 'triple' (available: double, same)");
    EXPECT_EQ(message_of([] { toys().make("triple", 1); }),
              "unknown toy variant 'triple' (available: double, same)");
    EXPECT_EQ(message_of([] { tridiag::make_solver("x"); }),
              "unknown tridiagonal variant 'x' (available: " + tridiag::variants().list() + ")");
    EXPECT_EQ(message_of([] { matmul::make_multiplier("x"); }),
              "unknown matmul variant 'x' (available: " + matmul::variants().list() + ")");
    EXPECT_EQ(message_of([] { lu::make_solver("x"); }),
              "unknown LU variant 'x' (available: " + lu::variants().list() + ")");
    EXPECT_EQ(message_of([] { power::make_variant("x"); }),
              "unknown power-method variant 'x' (available: " + power::variants().list() + ")");
}

// What the families' callers rely on: the CPU baselines are marked, the names are the ones the
// CLI and the reports use.
TEST(Registry, FamiliesMarkTheirCpuVariants) {
    EXPECT_FALSE(tridiag::variants().at("thomas-cpu").on_gpu);
    EXPECT_TRUE(tridiag::variants().at("cr-shared").on_gpu);
    EXPECT_FALSE(matmul::variants().at("cpgpu").on_gpu);
    EXPECT_TRUE(matmul::variants().at("cpgpu").uses_gpu);
    EXPECT_TRUE(matmul::variants().at("cpu-ijk").cpu_baseline);
    EXPECT_FALSE(lu::variants().at("cpu").on_gpu);
    EXPECT_TRUE(lu::variants().at("gpu-blocked").blocked);
    EXPECT_FALSE(lu::variants().at("gpu-unblocked").blocked);
    EXPECT_EQ(power::variants().names(), (std::vector<std::string>{"host", "gpu-naive", "gpu-full",
                                                                   "gpu-opt", "gpu-opt-async"}));
    EXPECT_FALSE(power::variants().at("host").on_gpu);
}

// The benchmarks' list options: all alone, names once each in the order given, and a usage
// error naming the option for an unknown name or all among names.
TEST(Registry, BenchmarksChooseVariantsByName) {
    const std::vector<cli::OptionSpec> known = {{"impl", "LIST", "variants"}};
    auto choose = [&](std::vector<std::string> tokens) {
        return bench::chosen_variants(cli::Args::parse(tokens, known), "impl", toys());
    };
    EXPECT_EQ(choose({}), toys().names());
    EXPECT_EQ(choose({"--impl", "all"}), toys().names());
    EXPECT_EQ(choose({"--impl", "same,double,same"}), (std::vector<std::string>{"same", "double"}));
    try {
        choose({"--impl", "same,triple"});
        ADD_FAILURE() << "no error";
    } catch (const cli::UsageError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "--impl: unknown variant 'triple' (available: all, double, same)");
    }
    EXPECT_THROW(choose({"--impl", "all,same"}), cli::UsageError);
}

}  // namespace
}  // namespace adilab
