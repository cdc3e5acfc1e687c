// The tridiagonal variants by name, for the CLI (--bench tridiag --solver NAME) and the GUI.
#include <algorithm>
#include <functional>
#include <vector>

#include "solvers/gl/error.hpp"
#include "solvers/tridiagonal/solver.hpp"
#include "solvers/tridiagonal/variants.hpp"

namespace adilab::tridiag {

namespace {

struct Entry {
    VariantInfo info;
    std::function<std::unique_ptr<Solver>()> make;
};

const std::vector<Entry>& entries() {
    static const std::vector<Entry> all = {
        {{"cr-shared",
          "one work group per line, CR -> PCR in shared memory, one dispatch "
          "(global-memory fallback for long lines)"},
         make_cr_shared},
        {{"cr-pingpong",
          "the paper's cyclic reduction: one dispatch per level, packed levels, ping-pong "
          "buffers"},
         make_cr_pingpong},
    };
    return all;
}

}  // namespace

std::span<const VariantInfo> variants() {
    static const std::vector<VariantInfo> all = [] {
        std::vector<VariantInfo> infos;
        for (const Entry& e : entries()) infos.push_back(e.info);
        return infos;
    }();
    return all;
}

std::unique_ptr<Solver> make_solver(const std::string& name) {
    for (const Entry& e : entries())
        if (e.info.name == name) return e.make();
    std::string known;
    for (const VariantInfo& v : variants()) known += (known.empty() ? "" : ", ") + v.name;
    throw Error("unknown tridiagonal solver '" + name + "' (available: " + known + ")");
}

}  // namespace adilab::tridiag
