#pragma once
// One registry shape for the four solver families (tridiagonal, matmul, LU, power method): a
// fixed table of named variants, each with a one-line summary, whether it runs on the GPU and
// the factory that builds it. The CLI's --help, the benchmarks' option checks and the GUI list a
// family's variants from its table instead of hard-coding names, and an unknown name gets the
// same message in every family: "unknown LU variant 'x' (available: cpu, gpu-unblocked, ...)".
//
// The families differ only in what a factory takes (a Tuning, a block size, GEMM tiles) and in
// the few facts a caller needs beyond name, summary and on_gpu (matmul's CPU baselines, LU's
// block size), so the table is a template over both: Info is VariantInfo or a struct derived
// from it, Args are the factory's parameters. A family keeps one table in a function-local
// static (its registry.cpp) and returns it from `variants()`; iterating the table gives the
// Infos in the order --help lists them.
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "solvers/gl/error.hpp"

namespace adilab {

struct VariantInfo {
    std::string name;
    std::string summary;  // one line for --help and the GUI: the method, its limits, its paper
    bool on_gpu = true;   // false: it computes on the CPU (reads back and uploads; bench only)
};

template <class Info, class Product, class... Args>
class Registry {
  public:
    using Factory = std::function<std::unique_ptr<Product>(Args...)>;
    struct Entry {
        Info info;
        Factory make;
    };

    // `family` names a variant in messages: "tridiagonal" gives "unknown tridiagonal variant".
    Registry(std::string family, std::vector<Entry> entries) : family_(std::move(family)) {
        for (Entry& entry : entries) {
            infos_.push_back(std::move(entry.info));
            factories_.push_back(std::move(entry.make));
        }
    }

    auto begin() const { return infos_.cbegin(); }
    auto end() const { return infos_.cend(); }
    std::size_t size() const { return infos_.size(); }
    std::vector<std::string> names() const {
        std::vector<std::string> out;
        for (const Info& info : infos_) out.push_back(info.name);
        return out;
    }
    // The names joined by ", ", for --help and messages.
    std::string list() const {
        std::string out;
        for (const Info& info : infos_) out += (out.empty() ? "" : ", ") + info.name;
        return out;
    }

    // nullptr if `name` is unknown.
    const Info* find(std::string_view name) const {
        for (const Info& info : infos_)
            if (info.name == name) return &info;
        return nullptr;
    }
    // Throws adilab::Error with unknown(name) if `name` is unknown.
    const Info& at(std::string_view name) const { return infos_[index(name)]; }
    // Builds the variant; throws as at(), or whatever its factory throws for bad arguments.
    std::unique_ptr<Product> make(std::string_view name, Args... args) const {
        return factories_[index(name)](std::forward<Args>(args)...);
    }

    // "unknown matmul variant 'x' (available: cpu-ijk, ...)".
    std::string unknown(std::string_view name) const {
        return "unknown " + family_ + " variant '" + std::string(name) + "' (available: " + list() +
               ")";
    }

  private:
    std::size_t index(std::string_view name) const {
        for (std::size_t i = 0; i < infos_.size(); ++i)
            if (infos_[i].name == name) return i;
        throw Error(unknown(name));
    }

    std::string family_;
    std::vector<Info> infos_;
    std::vector<Factory> factories_;
};

}  // namespace adilab
