#include "sim/model.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

#include "sim/state_file.hpp"
#include "solvers/common/files.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::sim {

void Simulation::set_terrain(const std::string& name) {
    throw Error("model '" + model() + "' has no terrain (asked for '" + name + "')");
}

namespace detail {

namespace {

constexpr std::int32_t kStable = std::numeric_limits<std::int32_t>::max();

int next_power_of_two(int n) { return int(std::bit_ceil(unsigned(std::max(n, 1)))); }

std::string format_double(double value) {
    std::ostringstream out;
    out << std::hexfloat << value;
    return out.str();
}

}  // namespace

namespace {
// The subgroup width of the subgroup solve: the device's subgroup size when it has shuffles (a
// power of two, 4 .. 128) and ADILAB_FUSED_SUBGROUPS is not 0; else 32 invocations that
// exchange through shared memory.
int fused_warp(bool& subgroups) {
    const gl::DeviceInfo& info = gl::Context::current().info();
    const char* env = std::getenv("ADILAB_FUSED_SUBGROUPS");
    const int size = info.subgroup_size;
    subgroups = info.subgroups && size >= 4 && size <= 128 && std::has_single_bit(unsigned(size)) &&
                !(env && std::string(env) == "0");
    return subgroups ? size : 32;
}

std::string env_string(const char* name) {
    const char* value = std::getenv(name);
    return value ? value : "";
}

// Floats of shared scratch (adi_common.glsl) and bytes of shared memory in all.
int scratch_floats(const FusedShape& s) {
    const int reduced = 3 * s.lines * (2 * s.threads_per_line + (s.solve == 1 ? 0 : 1));
    const int tile = s.tiled ? s.tile_fields * (s.lines + 2 * s.tile_halo) * s.threads_per_line *
                                   (s.chunk + 1)
                             : 0;
    return std::max(reduced, tile);
}
int shared_bytes(const FusedShape& s) {
    const int exchange = s.solve == 1 && !s.subgroups ? s.lines * s.warp * 12 : 0;
    return 4 * scratch_floats(s) + exchange;
}
}  // namespace

FusedShape fused_shape(int direction, int nx, int ny, int tile) {
    const int length = direction == 0 ? nx : ny;
    // Tuning override for benchmarks: ADILAB_FUSED_CHUNK (4, 8, 16 or 32), ADILAB_FUSED_LINES,
    // ADILAB_FUSED_SOLVE (subgroup or pcr), ADILAB_FUSED_TILE (0: never, 1: wherever it fits),
    // ADILAB_FUSED_SUBGROUPS=0.
    // Measured on an H200 (device runs of 2026-11-21): K = 8, 8 lines a group at 1024; at 4096
    // K = 16 with 4 lines a group (1024 invocations) beat 2 lines by 1.3-1.6x, the wider
    // column groups of the y sweep filling more of each 32-byte sector. The simperf run 1 sweep
    // (K 4..32 x 1..8 lines, subgroup solve) found nothing faster than K = 8, 8 lines at 1024.
    int chunk = length <= 256 ? 4 : length <= 1024 ? 8 : length <= 4096 ? 16 : 32;
    if (const char* env = std::getenv("ADILAB_FUSED_CHUNK")) {
        const int wanted = std::atoi(env);
        if (wanted == 4 || wanted == 8 || wanted == 16 || wanted == 32) chunk = wanted;
    }
    FusedShape shape;
    shape.chunk = chunk;
    shape.threads_per_line = next_power_of_two((length + chunk - 1) / chunk);
    // Reduced solve, H200 (simperf runs 1 and 2, 2026-11-21). The subgroup solve (2 barriers)
    // beat the shared-memory PCR (2 log2 2P barriers) by 5-12% at 256^2 (4 reduced rows a
    // lane); at 1024^2 (8 rows a lane) by 4-7% with the x rows tiled (heat 44.0 vs 46.0 us a
    // step, shallow water 48.5 vs 52.4), while untiled it was 1-3% slower; at 2048^2 and 4096^2
    // (K = 16, 8 and 16 rows a lane) it was 6-60% slower (register arrays): PCR there.
    bool subgroups = false;
    const int warp = fused_warp(subgroups);
    const std::string solve = env_string("ADILAB_FUSED_SOLVE");
    shape.solve = solve == "subgroup" ? 1 : solve == "pcr" ? 0 : length <= 1024 ? 1 : 0;
    if (shape.solve == 1) {
        // The subgroup solve gives each line one subgroup whose lanes own >= 2 reduced rows.
        shape.warp = warp;
        shape.subgroups = subgroups;
        shape.threads_per_line = std::max(shape.threads_per_line, warp);
    }
    if (shape.threads_per_line > 1024) throw Error("line of " + std::to_string(length) + " cells is too long for the fused kernel");
    // Registers: about 3 * chunk floats per invocation; the work group shrinks as they grow.
    const int max_threads = chunk <= 16 ? 1024 : 512;
    int lines = std::max(1, std::min(8, max_threads / shape.threads_per_line));
    if (const char* env = std::getenv("ADILAB_FUSED_LINES")) {
        const int wanted = std::atoi(env);
        if (wanted >= 1 && wanted <= 32 && wanted * shape.threads_per_line <= 1024) lines = wanted;
    }
    shape.lines = lines;
    // The x half step can stage its rows through shared memory (TILED), so that each lane of a
    // warp no longer reads its own 32-byte sector, with as many lines a group as the tile
    // leaves room for. H200 (simperf run 2): at 1024^2, 8 lines a group (5 for shallow
    // water's two fields), heat's step went from 50.5 to 46.0 us and advection's from 44.0 to
    // 37.1; at 256^2 it cost 2-4%, and where the tile left 1-3 lines a group (2048^2, 4096^2)
    // 3-23%. So by default: lines of 512 cells and more, and only with >= 5 lines a group.
    const int limit = gl::Context::current().info().max_shared_memory_bytes;
    const std::string tile_env = env_string("ADILAB_FUSED_TILE");
    if (direction == 0 && tile != 0 && tile_env != "0" && (tile_env == "1" || length >= 512)) {
        shape.tiled = true;
        shape.tile_fields = tile == 2 ? 2 : 1;
        shape.tile_halo = tile == 2 ? 0 : 1;
        while (shape.lines > 1 && shared_bytes(shape) > limit) --shape.lines;
        if (shared_bytes(shape) > limit || (tile_env != "1" && shape.lines < 5)) {
            shape.tiled = false;
            shape.lines = lines;
        }
    }
    while (shape.lines > 1 && shared_bytes(shape) > limit) --shape.lines;
    return shape;
}

gl::Defines fused_defines(int direction, int nx, int ny, int tile) {
    const FusedShape shape = fused_shape(direction, nx, ny, tile);
    gl::Defines defines = {{"DIRECTION", std::to_string(direction)},
                           {"KERNEL_FUSED", "1"},
                           {"LINES", std::to_string(shape.lines)},
                           {"THREADS_PER_LINE", std::to_string(shape.threads_per_line)},
                           {"CHUNK", std::to_string(shape.chunk)},
                           {"GROUP_SIZE", std::to_string(shape.lines * shape.threads_per_line)},
                           {"REDUCED_SOLVE", std::to_string(shape.solve)},
                           {"WARP", std::to_string(shape.warp)},
                           {"SCRATCH_FLOATS", std::to_string(scratch_floats(shape))}};
    if (shape.subgroups) defines.push_back({"SUBGROUPS", "1"});
    if (shape.tiled) {
        defines.push_back({"TILED", "1"});
        defines.push_back({"TILE_FIELDS", std::to_string(shape.tile_fields)});
        defines.push_back({"TILE_HALO", std::to_string(shape.tile_halo)});
    }
    return defines;
}

unsigned fused_groups(int direction, int nx, int ny, int tile) {
    const int count = direction == 0 ? ny : nx;
    const FusedShape shape = fused_shape(direction, nx, ny, tile);
    return unsigned((count + shape.lines - 1) / shape.lines);
}

void check_scenario(const std::string& model, const std::vector<std::string>& known,
                    const std::string& scenario) {
    if (std::find(known.begin(), known.end(), scenario) != known.end()) return;
    std::string list;
    for (const std::string& s : known) list += (list.empty() ? "" : ", ") + s;
    throw Error("unknown scenario '" + scenario + "' for model '" + model + "' (available: " +
                list + ")");
}

AdiModel::AdiModel(std::string model, std::vector<ParamSpec> specs,
                   std::vector<std::string> scenarios, const std::string& solver)
    : model_(std::move(model)), specs_(std::move(specs)), scenarios_(std::move(scenarios)),
      solver_name_(solver) {
    for (const ParamSpec& spec : specs_) values_.push_back(spec.default_value);
    if (solver != "fused") {
        solver_ = tridiag::make_solver(solver);  // throws naming the unknown variant
        for (const tridiag::VariantInfo& v : tridiag::variants())
            if (v.name == solver && !v.on_gpu)
                throw Error("solver '" + solver + "' runs on the CPU; a simulation step must stay on the GPU");
    }
    flag_ = gl::Buffer(sizeof(std::int32_t));
    flag_.fill(kStable);
    parameters_changed();
}

void AdiModel::set_param(const std::string& name, double value) {
    for (std::size_t i = 0; i < specs_.size(); ++i) {
        if (specs_[i].name != name) continue;
        const ParamSpec& s = specs_[i];
        if (!std::isfinite(value) || value < s.min || value > s.max) {
            std::ostringstream out;
            out << "parameter '" << name << "' = " << value << " is out of range [" << s.min
                << ", " << s.max << "]" << (s.unit.empty() ? "" : " " + s.unit);
            throw Error(out.str());
        }
        values_[i] = value;
        parameters_changed();
        return;
    }
    std::string list;
    for (const ParamSpec& s : specs_) list += (list.empty() ? "" : ", ") + s.name;
    throw Error("unknown parameter '" + name + "' for model '" + model_ + "' (available: " + list + ")");
}

double AdiModel::param(const std::string& name) const {
    for (std::size_t i = 0; i < specs_.size(); ++i)
        if (specs_[i].name == name) return values_[i];
    throw Error("unknown parameter '" + name + "' for model '" + model_ + "'");
}

void AdiModel::reset(const std::string& scenario, int nx, int ny) {
    check_scenario(model_, scenarios_, scenario);
    if (nx < kMinGrid || ny < kMinGrid || nx > kMaxGrid || ny > kMaxGrid)
        throw Error("grid " + std::to_string(nx) + " x " + std::to_string(ny) + " is outside " +
                    std::to_string(kMinGrid) + " .. " + std::to_string(kMaxGrid));
    scenario_ = scenario;
    parameters_changed();
    if (nx != nx_ || ny != ny_ || field_buffer().empty()) {
        nx_ = nx;
        ny_ = ny;
        allocate();
    }
    steps_ = 0;
    time_ = 0;
    flag_.fill(kStable);
    initialize();
    gl::memory_barrier(gl::Barrier::all);
}

void AdiModel::step(int count) {
    for (int i = 0; i < count; ++i) {
        ++steps_;
        step_once();
        time_ += time_step();
    }
}

namespace {
std::uint64_t next_version() {
    static std::uint64_t counter = 0;
    return ++counter;
}
// program id -> the version of the model that last set its uniforms
std::map<gl::Id, std::uint64_t>& uniform_owners() {
    static std::map<gl::Id, std::uint64_t> owners;
    return owners;
}
}  // namespace

void AdiModel::parameters_changed() { version_ = next_version(); }

bool AdiModel::uniforms_stale(const gl::Program& program) const {
    std::uint64_t& owner = uniform_owners()[program.id()];
    if (owner == version_) return false;
    owner = version_;
    return true;
}

void AdiModel::resolve_programs(const std::string& shader, int tile) {
    for (int d = 0; d < 2; ++d) {
        const std::string dir = std::to_string(d);
        fused_[d] = &gl::compute_program(shader, fused_defines(d, nx_, ny_, tile));
        fused_groups_[d] = fused_groups(d, nx_, ny_, tile);  // shape fixed with the program
        rows_[d] = &gl::compute_program(shader, {{"DIRECTION", dir}, {"KERNEL_ROWS", "1"}});
        finish_[d] = &gl::compute_program(shader, {{"DIRECTION", dir}, {"KERNEL_FINISH", "1"}});
    }
}

bool AdiModel::use_program(const gl::Program& program) const {
    program.use();
    const bool stale = uniforms_stale(program);
    if (stale) {
        set_grid_uniforms(program);
        set_uniforms(program);
    }
    set_step_uniform(program);
    return stale;
}

void AdiModel::set_step_uniform(const gl::Program& program) const {
    program.set("step_index", int(std::min<std::int64_t>(steps_, kStable - 1)));
}

void AdiModel::set_grid_uniforms(const gl::Program& program) const {
    program.set("nx", nx_);
    program.set("ny", ny_);
    program.set("step_index", int(std::min<std::int64_t>(steps_, kStable - 1)));
}

std::int64_t AdiModel::first_bad_step() const {
    const std::int32_t bad = flag_.read<std::int32_t>(1)[0];
    return bad == kStable ? -1 : bad;
}

Stats AdiModel::stats() {
    gl::memory_barrier(gl::Barrier::buffer_update);
    Stats s;
    s.time = time_;
    s.steps = steps_;
    const std::vector<float> values = read_field();
    double sum = 0;
    float lo = std::numeric_limits<float>::infinity(), hi = -lo;
    bool finite = true;
    for (float v : values) {
        if (!std::isfinite(v)) {
            finite = false;
            continue;
        }
        sum += v;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    s.min = values.empty() ? 0 : lo;
    s.max = values.empty() ? 0 : hi;
    s.sum = sum;
    const std::int32_t bad = flag_.read<std::int32_t>(1)[0];
    s.stable = finite && bad == kStable;
    if (bad != kStable) s.first_bad_step = bad;
    else if (!finite) s.first_bad_step = steps_;
    return s;
}

void AdiModel::set_field(std::span<const float> values) {
    if (values.size() != cells())
        throw Error("field of " + std::to_string(values.size()) + " values given for a " +
                    std::to_string(nx_) + " x " + std::to_string(ny_) + " grid");
    field_buffer().write(values);
    after_set_field();
    gl::memory_barrier(gl::Barrier::all);
}

void AdiModel::dispatch_brush(const Brush& brush, gl::Buffer& first, gl::Buffer* second) {
    if (!(brush.radius > 0) || !std::isfinite(brush.strength)) return;
    const gl::Program& program = gl::compute_program(
        "sim/brush.comp", second ? gl::Defines{{"TWO_FIELDS", "1"}} : gl::Defines{});
    program.use();
    program.set("nx", nx_);
    program.set("ny", ny_);
    program.set("center", glm::vec2(brush.center_x, brush.center_y));
    program.set("radius", brush.radius);
    program.set("strength", brush.strength);
    first.bind_storage(0);
    if (second) second->bind_storage(1);
    gl::dispatch(cell_groups());
    gl::memory_barrier(gl::Barrier::storage | gl::Barrier::buffer_update);
}

// State file: a text header, then raw buffers.
//   ADILAB-STATE 1 / model M / solver S / scenario S / terrain T / grid NX NY / steps N /
//   time HEX / param NAME HEX (each) / buffer NAME BYTES, then BYTES raw bytes and a newline.
void AdiModel::save_state(const std::filesystem::path& path) const {
    auto* self = const_cast<AdiModel*>(this);  // buffers are read, not changed
    gl::memory_barrier(gl::Barrier::buffer_update);
    std::ostringstream out;
    out << "ADILAB-STATE 1\nmodel " << model_ << "\nsolver " << solver_name_ << "\nscenario "
        << scenario_ << "\nterrain " << terrain_ << "\ngrid " << nx_ << " " << ny_ << "\nsteps "
        << steps_ << "\ntime " << format_double(time_) << "\n";
    for (std::size_t i = 0; i < specs_.size(); ++i)
        out << "param " << specs_[i].name << " " << format_double(values_[i]) << "\n";
    auto buffers = self->state_buffers();
    buffers.emplace_back("flag", &self->flag_);
    for (auto& [name, buffer] : buffers) {
        const std::vector<char> bytes = buffer->read<char>(buffer->size());
        out << "buffer " << name << " " << bytes.size() << "\n";
        out.write(bytes.data(), std::streamsize(bytes.size()));
        out << "\n";
    }
    out << "end\n";
    files::write_file_atomically(path, out.str());  // a failure leaves the old file as it was
}

void AdiModel::load_state(const std::filesystem::path& path) {
    // Everything the file alone can tell is checked by read_state_file (sim/state_file.hpp);
    // what needs this model is checked here, all before anything changes.
    const StateFile state = read_state_file(path, kMinGrid, kMaxGrid);
    auto fail = [&](const std::string& why) {
        throw files::InputError("state file '" + path.string() + "': " + why);
    };
    if (state.model != model_) fail("holds model '" + state.model + "', not '" + model_ + "'");
    try {
        check_scenario(model_, scenarios_, state.scenario);
    } catch (const Error& e) {
        fail(e.what());
    }
    for (const auto& [name, value] : state.params) {
        const ParamSpec* spec = nullptr;
        for (const ParamSpec& s : specs_)
            if (s.name == name) spec = &s;
        if (spec == nullptr) fail("param '" + name + "' is not a parameter of " + model_);
        if (!(value >= spec->min && value <= spec->max)) {
            std::ostringstream why;
            why << "param " << name << " = " << value << " is out of range [" << spec->min << ", "
                << spec->max << "]";
            fail(why.str());
        }
    }
    for (const auto& [name, value] : state.params) set_param(name, value);
    scenario_ = state.scenario;
    terrain_ = state.terrain.empty() ? "flat" : state.terrain;
    if (state.nx != nx_ || state.ny != ny_ || field_buffer().empty()) {
        nx_ = state.nx;
        ny_ = state.ny;
        allocate();
    }
    const auto& buffers = state.buffers;
    const std::int64_t steps = state.steps;
    const double time = state.time;
    auto all = state_buffers();
    all.emplace_back("flag", &flag_);
    for (auto& [name, buffer] : all) {
        auto found = buffers.find(name);
        if (found == buffers.end()) fail("has no buffer '" + name + "'");
        if (found->second.size() != buffer->size())
            fail("buffer '" + name + "' holds " + std::to_string(found->second.size()) +
                 " bytes, the " + std::to_string(nx_) + " x " + std::to_string(ny_) +
                 " grid needs " + std::to_string(buffer->size()));
        buffer->upload(0, found->second.size(), found->second.data());
    }
    steps_ = steps;
    time_ = time;
    parameters_changed();
    gl::memory_barrier(gl::Barrier::all);
}

}  // namespace detail
}  // namespace adilab::sim
