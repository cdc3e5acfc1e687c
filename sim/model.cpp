#include "sim/model.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "sim/state_file.hpp"
#include "solvers/common/files.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::sim {

namespace detail {

namespace {

constexpr std::int32_t kStable = std::numeric_limits<std::int32_t>::max();
constexpr std::int32_t kNotFinite = 1, kOutOfBounds = 2;  // bad_kinds (adi_common.glsl)

std::string format_number(double value) {
    std::ostringstream out;
    out.precision(6);
    out << value;
    return out.str();
}

std::string format_double(double value) {
    std::ostringstream out;
    out << std::hexfloat << value;
    return out.str();
}

}  // namespace

void check_scenario(const std::string& model, const std::vector<std::string>& known,
                    const std::string& scenario) {
    if (std::find(known.begin(), known.end(), scenario) != known.end()) return;
    std::string list;
    for (const std::string& s : known) list += (list.empty() ? "" : ", ") + s;
    throw Error("unknown scenario '" + scenario + "' for model '" + model +
                "' (available: " + list + ")");
}

AdiModel::AdiModel(std::string model, std::vector<ParamSpec> specs,
                   std::vector<std::string> scenarios, const std::string& solver)
    : model_(std::move(model)),
      specs_(std::move(specs)),
      scenarios_(std::move(scenarios)),
      solver_name_(solver) {
    for (const ParamSpec& spec : specs_) values_.push_back(spec.default_value);
    if (solver != "fused") {
        if (!tridiag::variants().at(solver).on_gpu)  // throws naming an unknown variant
            throw Error("solver '" + solver +
                        "' runs on the CPU; a simulation step must stay on the GPU");
        solver_ = tridiag::make_solver(solver);
    }
    flag_ = gl::Buffer(2 * sizeof(std::int32_t));
    clear_flag();
    parameters_changed();
}

void AdiModel::set_params(std::span<const std::pair<std::string, double>> values,
                          const std::string& scenario, int nx, int ny) {
    const std::vector<double> before = values_;
    try {
        for (const auto& [name, value] : values) assign_param(name, value);
        if (!scenario.empty()) check_parameters(scenario, nx, ny);
    } catch (...) {
        values_ = before;
        throw;
    }
    parameters_changed();
}

void AdiModel::check_parameters(const std::string& scenario, int nx, int ny) const {
    const ImplicitWeight weight = implicit_weight(scenario, nx, ny);
    if (!(weight.value > weight.limit)) return;
    std::ostringstream out;
    out << model_ << ": the implicit weight " << weight.formula << " = " << weight.value
        << " is above " << weight.limit << "; past it ";
    if (!weight.past_it.empty())
        out << weight.past_it << " (" << weight.remedy << ")";
    else if (weight.limit < kMaxImplicitWeight)
        out << "Peaceman–Rachford's explicit half step amplifies fp32 round-off faster than the"
               " scheme damps it ("
            << weight.remedy << ", or use scheme=implicit-euler)";
    else
        out << "the fp32 diagonal 1 + weight keeps too little of its 1 for the line solve to"
               " conserve the field ("
            << weight.remedy << ")";
    throw Error(out.str());
}

void AdiModel::assign_param(const std::string& name, double value) {
    for (std::size_t i = 0; i < specs_.size(); ++i) {
        if (specs_[i].name != name) continue;
        const ParamSpec& s = specs_[i];
        if (!s.choices.empty() && value != std::floor(value)) {
            std::string list;
            for (std::size_t c = 0; c < s.choices.size(); ++c)
                list += (c ? ", " : "") + std::to_string(c) + " = " + s.choices[c];
            throw Error("parameter '" + name + "' is a choice (" + list + "), not " +
                        std::to_string(value));
        }
        if (!std::isfinite(value) || value < s.min || value > s.max) {
            std::ostringstream out;
            out << "parameter '" << name << "' = " << value << " is out of range [" << s.min << ", "
                << s.max << "]" << (s.unit.empty() ? "" : " " + s.unit);
            throw Error(out.str());
        }
        values_[i] = value;
        return;
    }
    std::string list;
    for (const ParamSpec& s : specs_) list += (list.empty() ? "" : ", ") + s.name;
    throw Error("unknown parameter '" + name + "' for model '" + model_ + "' (available: " + list +
                ")");
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
    check_parameters(scenario, nx, ny);
    const bool reallocate =
        nx != nx_ || ny != ny_ || field_buffer().empty() || fused_tuning_changed_;
    if (reallocate) check_capacity(nx, ny);  // before anything changes
    scenario_ = scenario;
    parameters_changed();
    if (reallocate) {
        fused_tuning_changed_ = false;
        nx_ = nx;
        ny_ = ny;
        allocate_grid();
    }
    steps_ = 0;
    time_ = 0;
    clear_flag();
    initialize();
    gl::memory_barrier(gl::Barrier::all);
}

std::vector<gl::BufferNeed> AdiModel::line_solve_needs(int nx, int ny) const {
    if (fused()) {
        if (!split_y_sweep(ny, split_min_rows(), fused_tuning_)) return {};
        return {{model_ + "'s coarse system of the split y sweep",
                 tridiag::split_coarse_bytes(split_y_shape(ny, fused_tuning_), nx)}};
    }
    const std::uint64_t bytes = field_bytes(nx, ny);
    std::vector<gl::BufferNeed> needs = {
        {model_ + "'s right-hand side (solver " + solver_name_ + ")", bytes},
        {model_ + "'s sub-diagonal a (solver " + solver_name_ + ")", bytes},
        {model_ + "'s diagonal b (solver " + solver_name_ + ")", bytes},
        {model_ + "'s super-diagonal c (solver " + solver_name_ + ")", bytes},
    };
    for (gl::BufferNeed& scratch : solver_->scratch_needs({nx, ny}))
        needs.push_back({scratch.name + " (" + model_ + "'s line solves)", scratch.bytes});
    return needs;
}

void AdiModel::check_capacity(int nx, int ny) const {
    const std::vector<gl::BufferNeed> needs = buffer_needs(nx, ny);
    gl::check_buffers_fit(needs);
}

void AdiModel::clear_flag() {
    const std::int32_t clear[2] = {kStable, 0};
    flag_.write(std::span<const std::int32_t>(clear, 2));
}

void AdiModel::set_range_from(std::span<const float> values) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (float v : values)
        if (std::isfinite(v)) {
            lo = std::min(lo, double(v));
            hi = std::max(hi, double(v));
        }
    if (lo > hi) lo = hi = 0;  // nothing finite: the check reports the NaN at the first step
    range_low_ = lo;
    range_high_ = hi;
}

void AdiModel::widen_range(double strength) {
    if (strength > 0)
        range_high_ += strength;
    else
        range_low_ += strength;
}

void AdiModel::set_bound_uniforms(const gl::Program& program) const {
    const FieldBounds bounds = field_bounds();
    // As floats, rounded outwards; beyond float's range the bound is no bound.
    auto outward = [](double v, bool up) {
        if (!(std::abs(v) < 3.0e38))
            return up ? std::numeric_limits<float>::infinity()
                      : -std::numeric_limits<float>::infinity();
        const float f = float(v);
        if (up)
            return double(f) < v ? std::nextafter(f, std::numeric_limits<float>::infinity()) : f;
        return double(f) > v ? std::nextafter(f, -std::numeric_limits<float>::infinity()) : f;
    };
    program.set("bound_low", outward(bounds.low, false));
    program.set("bound_high", outward(bounds.high, true));
}

void AdiModel::step(int count) {
    if (specialization_version_ != version_) {
        specialization_version_ = version_;
        if (specialization() != specialization_) resolve_programs(program_shader_, program_tile_);
    }
    if (fused() && window_version_ != version_) {
        window_version_ = version_;
        window_[0] = window_[1] = nullptr;
        bands_[0].clear();
        bands_[1].clear();
        window_guarded_ = guard_by_storage_ = false;
        window_scan_ = false;
        resolve_window();
    }
    // At most two batches of about 2^28 cell updates queued ahead of the GPU (gl::QueueBound
    // says why): 4 steps at 8192^2 (about 0.1 s of shallow water on an H100), 256 at 1024^2.
    constexpr std::int64_t kCellStepsPerBatch = std::int64_t(1) << 28;
    const std::int64_t batch =
        std::max<std::int64_t>(1, kCellStepsPerBatch / std::int64_t(cells()));
    for (int i = 0; i < count; ++i) {
        ++steps_;
        step_once();
        time_ += time_step();
        if ((i + 1) % batch == 0) queue_bound_.mark();
    }
}

namespace {
std::uint64_t next_version() {
    static std::atomic<std::uint64_t> counter = 0;
    return ++counter;
}
}  // namespace

void AdiModel::parameters_changed() {
    version_ = next_version();
}

bool AdiModel::uniforms_stale(const gl::Program& program) const {
    if (program.uniforms_owner() == version_) return false;
    program.set_uniforms_owner(version_);
    return true;
}

void AdiModel::resolve_programs(const std::string& shader, int tile) {
    program_shader_ = shader;
    program_tile_ = tile;
    specialization_ = specialization();
    const auto program = [&](gl::Defines defines) {
        defines.insert(defines.end(), specialization_.begin(), specialization_.end());
        return &gl::compute_program(shader, defines);
    };
    for (int d = 0; d < 2; ++d) {
        const std::string dir = std::to_string(d);
        fused_[d] = rows_[d] = finish_[d] = nullptr;
        if (fused()) {
            fused_[d] =
                program(fused_defines(d, nx_, ny_, tile, fused_tuning_, x_hierarchy_chunks()));
            fused_groups_[d] = fused_groups(d, nx_, ny_, tile, fused_tuning_,
                                            x_hierarchy_chunks());  // fixed with the program
        } else {
            rows_[d] = program({{"DIRECTION", dir}, {"KERNEL_ROWS", "1"}});
            if (has_finish(d)) finish_[d] = program({{"DIRECTION", dir}, {"KERNEL_FINISH", "1"}});
        }
    }
    for (const gl::Program*& split : split_) split = nullptr;
    if (fused() && split_y_sweep(ny_, split_min_rows(), fused_tuning_)) {
        split_shape_ = split_y_shape(ny_, fused_tuning_);
        const tridiag::SplitStage stages[3] = {tridiag::SplitStage::reduce,
                                               tridiag::SplitStage::coarse,
                                               tridiag::SplitStage::substitute};
        for (int s = 0; s < 3; ++s) {
            gl::Defines defines = {{"DIRECTION", "1"}, {"KERNEL_SPLIT", "1"}};
            for (auto& define : tridiag::split_defines(split_shape_, stages[s]))
                defines.push_back(define);
            split_[s] = program(defines);
        }
    }
    resolve_model_programs();
}

void AdiModel::allocate_grid() {
    allocate();
    coarse_ = gl::Buffer();
    if (split_[0] != nullptr) coarse_ = gl::Buffer(tridiag::split_coarse_bytes(split_shape_, nx_));
    if (fused()) return;  // the solver is chosen once, at construction
    for (gl::Buffer* buffer : {&sweep_a_, &sweep_b_, &sweep_c_, &sweep_rhs_})
        *buffer = gl::Buffer(cells() * sizeof(float));
}

void AdiModel::bind_sweep(int, const gl::Buffer& in, gl::Buffer& out) {
    in.bind_storage(0);
    out.bind_storage(1);
}

gl::Buffer& AdiModel::sweep_solution(int, gl::Buffer& out) {
    return out;
}

void AdiModel::half_step(int direction, const gl::Buffer& in, gl::Buffer& out) {
    if (!fused()) {
        generic_half_step(direction, in, out);
        return;
    }
    if (!bands_[direction].empty()) {
        banded_half_step(direction, in, out);
        return;
    }
    if (window_[direction] == nullptr) {
        line_solve_half_step(direction, in, out, false);
        return;
    }
    use_program(*window_[direction]);
    bind_sweep(direction, in, out);
    if (direction == 0) in.bind_storage(4);  // the same field as vec4s: 16-byte loads
    bind_flag();
    if (!window_guarded_) {
        gl::dispatch(window_groups_[direction][0], window_groups_[direction][1]);
        gl::memory_barrier(gl::Barrier::storage);
        return;
    }
    // Exactly one of the two runs: no barrier between them.
    window_[direction]->set("sweep_guarded", int(guard_by_storage_));
    sweep_arguments_.bind_storage(14);
    dispatch_guarded(2 * direction, window_groups_[direction][0], window_groups_[direction][1]);
    line_solve_half_step(direction, in, out, true);
}

void AdiModel::line_solve_half_step(int direction, const gl::Buffer& in, gl::Buffer& out,
                                    bool guarded) {
    if (direction == 1 && splits_y_line_solve(guarded)) {
        split_half_step(in, out, 0, 0, guarded);
        return;
    }
    use_fused(direction);
    fused_[direction]->set("sweep_guarded", int(guarded && guard_by_storage_));
    bind_sweep(direction, in, out);
    bind_flag();
    if (guarded)
        dispatch_guarded(direction == 0 ? 1 : 3, fused_groups_[direction], 1);
    else
        gl::dispatch(fused_groups_[direction]);
    gl::memory_barrier(gl::Barrier::storage);
}

// The split solve where the model's rule built it (split_min_rows) or the tuning asks for it
// always, except, by the rule, behind a guarded window on fewer than 8192 rows. There the line
// solve runs only on the rare steps that the window cannot take, and is dispatched empty on every
// other one: the split solve's two more dispatches and barriers cost shallow water 5% of a step at
// 2048^2 and 2% at 4096^2 (H100, docs/performance.md). On 8192 rows the fused kernel's one pass of
// a y line is 12 times slower than the split solve where it runs.
bool AdiModel::splits_y_line_solve(bool guarded) const {
    return split_[0] != nullptr && (fused_tuning_.split == 1 || !(guarded && ny_ < 8192));
}

// Why by storage only to 1024^2 cells (FusedTuning::guard_storage_cells): the sweeps read as
// storage spare the kernel that chooses them a barrier with GL_COMMAND_BARRIER_BIT (2 us a step
// at 1024^2 on an H200), but the sweep not chosen then starts all its work groups to end them,
// the line solves' groups grow with the grid, and the check costs the windows registers: with
// it, shallow water's step was 3.7% shorter at 1024^2, 0.2% longer at 2048^2, 2.7% at 4096^2
// and 1.7% at 8192^2 (docs/performance.md).
bool AdiModel::guards_by_storage() const {
    return std::int64_t(nx_) * ny_ <= std::int64_t(fused_tuning_.guard_storage_cells);
}

void AdiModel::guard_window() {
    window_guarded_ = window_[0] != nullptr;
    guard_by_storage_ = window_guarded_ && guards_by_storage();
    if (!window_guarded_) return;
    std::vector<unsigned> full(3 * kSweepEntries, 0);
    const auto put = [&full](int entry, unsigned x, unsigned y) {
        full[std::size_t(3 * entry)] = x;
        full[std::size_t(3 * entry + 1)] = y;
        full[std::size_t(3 * entry + 2)] = 1;
    };
    put(0, window_groups_[0][0], window_groups_[0][1]);
    put(1, fused_groups_[0], 1);
    put(2, window_groups_[1][0], window_groups_[1][1]);
    if (!splits_y_line_solve(true)) {
        put(3, fused_groups_[1], 1);
    } else {
        const tridiag::SplitStage stages[3] = {tridiag::SplitStage::reduce,
                                               tridiag::SplitStage::coarse,
                                               tridiag::SplitStage::substitute};
        for (int s = 0; s < 3; ++s) {
            const tridiag::SplitGroups groups = tridiag::split_groups(split_shape_, stages[s], nx_);
            put(3 + s, groups.x, groups.y);
        }
    }
    // Live: the windows (the model's kernels choose before the first step); full; no step yet.
    std::vector<unsigned> words = full;
    for (int entry : {1, 3, 4, 5})
        for (int k = 0; k < 3; ++k) words[std::size_t(3 * entry + k)] = 0;
    words.insert(words.end(), full.begin(), full.end());
    words.push_back(0);
    sweep_arguments_.write(words);
}

void AdiModel::split_half_step(const gl::Buffer& in, gl::Buffer& out, unsigned first_line_group,
                               unsigned line_groups, bool guarded) {
    const tridiag::SplitStage stages[3] = {tridiag::SplitStage::reduce, tridiag::SplitStage::coarse,
                                           tridiag::SplitStage::substitute};
    for (int s = 0; s < 3; ++s) {
        use_program(*split_[s]);
        split_[s]->set("first_line_group", int(first_line_group));
        split_[s]->set("sweep_guarded", int(guarded && guard_by_storage_));
        bind_sweep(1, in, out);
        bind_flag();
        coarse_.bind_storage(13);
        const tridiag::SplitGroups groups = tridiag::split_groups(split_shape_, stages[s], nx_);
        if (guarded)
            dispatch_guarded(3 + s, groups.x, groups.y);
        else
            gl::dispatch(line_groups != 0 ? line_groups : groups.x, groups.y);
        gl::memory_barrier(gl::Barrier::storage);
    }
}

void AdiModel::generic_half_step(int direction, const gl::Buffer& in, gl::Buffer& out) {
    use_program(*rows_[direction]);
    bind_sweep(direction, in, out);
    sweep_rhs_.bind_storage(3);
    sweep_a_.bind_storage(4);
    sweep_b_.bind_storage(5);
    sweep_c_.bind_storage(6);
    bind_flag();
    gl::dispatch(cell_groups());
    gl::memory_barrier(gl::Barrier::storage);
    solver_->solve({nx_, ny_}, direction == 0 ? tridiag::Direction::x : tridiag::Direction::y,
                   tridiag::GeneralCoefficients{&sweep_a_, &sweep_b_, &sweep_c_}, sweep_rhs_,
                   sweep_solution(direction, out));
    gl::memory_barrier(gl::Barrier::storage);
    if (finish_[direction] == nullptr) return;
    // The Solver bound its own buffers (up to binding 8 for lu-scan's bands): bind again.
    use_program(*finish_[direction]);
    bind_sweep(direction, in, out);
    bind_flag();
    gl::dispatch(cell_groups());
    gl::memory_barrier(gl::Barrier::storage);
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

void AdiModel::dispatch_guarded(int entry, unsigned x, unsigned y) const {
    if (guard_by_storage_)
        gl::dispatch(x, y);
    else
        gl::dispatch_indirect(sweep_arguments_, std::size_t(3 * entry) * sizeof(unsigned));
}

void AdiModel::set_step_uniform(const gl::Program& program) const {
    program.set("step_index", int(std::min<std::int64_t>(steps_, kStable - 1)));
    set_bound_uniforms(program);
}

void AdiModel::set_grid_uniforms(const gl::Program& program) const {
    program.set("nx", nx_);
    program.set("ny", ny_);
    set_step_uniform(program);
}

std::int64_t AdiModel::first_bad_step() const {
    const std::int32_t bad = flag_.read<std::int32_t>(1)[0];
    return bad == kStable ? -1 : bad;
}

std::string AdiModel::instability() const {
    const std::vector<std::int32_t> flag = flag_.read<std::int32_t>(2);
    if (flag[0] == kStable) return {};
    const std::string quantity = model_info(model_).field_name;
    std::string what;
    if (flag[1] & kNotFinite) what = quantity + " became NaN or infinite";
    if (flag[1] & kOutOfBounds) {
        const FieldBounds bounds = field_bounds();
        std::string unit;
        for (const ModelInfo& m : models())
            if (m.name == model_) unit = m.field_unit;
        what += (what.empty() ? "" : "; ") + quantity + " left its bounds [" +
                format_number(bounds.low) + ", " + format_number(bounds.high) + "] " + unit +
                (bounds.why.empty() ? "" : " (" + bounds.why + ")");
    }
    return what + " at step " + std::to_string(flag[0]);
}

Stats AdiModel::stats() {
    gl::memory_barrier(gl::Barrier::buffer_update);
    Stats s;
    s.time = time_;
    s.steps = steps_;
    const std::vector<float> values = read_field();
    const std::vector<float> compensation = total_compensation();
    double sum = 0;
    float lo = std::numeric_limits<float>::infinity(), hi = -lo;
    bool finite = true;
    for (std::size_t k = 0; k < values.size(); ++k) {
        const float v = values[k];
        if (!std::isfinite(v)) {
            finite = false;
            continue;
        }
        sum += compensation.empty() ? double(v) : double(v) + double(compensation[k]);
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    s.min = values.empty() ? 0 : lo;
    s.max = values.empty() ? 0 : hi;
    s.sum = sum;
    const std::int32_t bad = flag_.read<std::int32_t>(1)[0];
    s.stable = finite && bad == kStable;
    if (bad != kStable) {
        s.first_bad_step = bad;
        s.instability = instability();
    } else if (!finite) {
        s.first_bad_step = steps_;
        s.instability =
            model_ + "'s field holds NaN or infinite values after step " + std::to_string(steps_);
    }
    return s;
}

void AdiModel::set_field(std::span<const float> values) {
    if (values.size() != cells())
        throw Error("field of " + std::to_string(values.size()) + " values given for a " +
                    std::to_string(nx_) + " x " + std::to_string(ny_) + " grid");
    field_buffer().write(values);
    set_range_from(values);
    after_set_field();
    gl::memory_barrier(gl::Barrier::all);
}

void AdiModel::dispatch_brush(const Brush& brush, gl::Buffer& first, gl::Buffer* second,
                              bool non_negative) {
    if (!(brush.radius > 0) || !std::isfinite(brush.strength)) return;
    gl::Defines defines;
    if (second) defines.push_back({"TWO_FIELDS", "1"});
    if (non_negative) defines.push_back({"NON_NEGATIVE", "1"});
    const gl::Program& program = gl::compute_program("sim/brush.comp", defines);
    widen_range(brush.strength);
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
    buffers.push_back({"flag", &self->flag_});
    for (const StateBuffer& state_buffer : buffers) {
        std::vector<char> bytes = state_buffer.buffer->read<char>(state_buffer.buffer->size());
        if (state_buffer.to_file) bytes = state_buffer.to_file(bytes);
        out << "buffer " << state_buffer.name << " " << bytes.size() << "\n";
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
    // Every state buffer is one field of the file's grid or has its own size (the flag).
    std::vector<StateBuffer> all = state_buffers();
    all.push_back({"flag", &flag_, false, flag_.size()});
    for (const StateBuffer& b : all) {
        const auto found = state.buffers.find(b.name);
        if (found == state.buffers.end()) {
            if (b.zero_if_missing) continue;
            fail("has no buffer '" + b.name + "'");
        }
        const std::uint64_t need = b.bytes != 0 ? b.bytes : field_bytes(state.nx, state.ny);
        if (found->second.size() != need)
            fail("buffer '" + b.name + "' holds " + std::to_string(found->second.size()) +
                 " bytes, the " + std::to_string(state.nx) + " x " + std::to_string(state.ny) +
                 " grid needs " + std::to_string(need));
    }
    const bool reallocate =
        state.nx != nx_ || state.ny != ny_ || field_buffer().empty() || fused_tuning_changed_;
    if (reallocate) check_capacity(state.nx, state.ny);  // a valid file the GPU cannot hold: exit 1
    const std::vector<double> before = values_;
    try {
        for (const auto& [name, value] : state.params) assign_param(name, value);
        check_parameters(state.scenario, state.nx, state.ny);
    } catch (const Error& e) {
        values_ = before;
        fail(e.what());
    }
    parameters_changed();
    scenario_ = state.scenario;
    terrain_ = state.terrain.empty() ? "flat" : state.terrain;
    if (reallocate) {
        fused_tuning_changed_ = false;
        nx_ = state.nx;
        ny_ = state.ny;
        allocate_grid();
    }
    const auto& buffers = state.buffers;
    const std::int64_t steps = state.steps;
    const double time = state.time;
    all = state_buffers();  // the buffers were reallocated for the file's grid
    all.push_back({"flag", &flag_, false, flag_.size()});
    loaded_buffers_.clear();
    for (const StateBuffer& b : all) {
        const auto found = buffers.find(b.name);
        if (found == buffers.end()) {
            b.buffer->zero();  // zero_if_missing, checked above
        } else {
            const std::vector<char> converted =
                b.from_file ? b.from_file(found->second) : std::vector<char>();
            const std::vector<char>& bytes = b.from_file ? converted : found->second;
            b.buffer->upload(0, bytes.size(), bytes.data());
            loaded_buffers_.push_back(b.name);
        }
    }
    steps_ = steps;
    time_ = time;
    {
        const std::vector<char>& bytes = buffers.at(all.front().name);
        std::vector<float> field(bytes.size() / sizeof(float));
        std::memcpy(field.data(), bytes.data(), field.size() * sizeof(float));
        set_range_from(field);
    }
    parameters_changed();
    gl::memory_barrier(gl::Barrier::all);
}

}  // namespace detail
}  // namespace adilab::sim
