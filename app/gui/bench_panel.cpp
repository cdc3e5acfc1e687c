// The benchmark tabs: see bench_panel.hpp.
//
// Threads and GL: the worker makes its own EGL headless context with
// gl::HeadlessContext::create(), which is current on the worker only; the GUI thread's GLFW
// context stays current on the GUI thread. gl::Context::current() is thread-local, so each
// thread's programs and shader cache belong to its own context. glad's entry points are
// process-wide pointers that the worker's context creation loads again; through libglvnd both
// glfwGetProcAddress and eglGetProcAddress hand out the same per-thread dispatch stubs for core
// GL, so the GUI thread keeps calling valid entry points while the worker loads.
#include "app/gui/bench_panel.hpp"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <iostream>
#include <numeric>
#include <ostream>
#include <streambuf>

#include "solvers/gl/context.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::gui {

namespace {

std::string trim(std::string_view text) {
    const auto begin = text.find_first_not_of(" \t\r\n");
    if (begin == std::string_view::npos) return {};
    const auto end = text.find_last_not_of(" \t\r\n");
    return std::string(text.substr(begin, end - begin + 1));
}

std::string join(const std::vector<std::string>& items, const char* separator) {
    std::string out;
    for (const std::string& item : items) out += (out.empty() ? "" : separator) + item;
    return out;
}

std::string registry_names() {
    std::vector<std::string> names;
    for (const bench::Benchmark& b : bench::benchmarks()) names.push_back(b.name);
    return join(names, ", ");
}

const ImVec4 kRed(1.0f, 0.42f, 0.42f, 1.0f);
const ImVec4 kYellow(1.0f, 0.82f, 0.35f, 1.0f);
const ImVec4 kGreen(0.45f, 0.85f, 0.45f, 1.0f);

void wrapped_text(const ImVec4& colour, const std::string& text) {
    ImGui::PushStyleColor(ImGuiCol_Text, colour);
    ImGui::TextWrapped("%s", text.c_str());
    ImGui::PopStyleColor();
}

}  // namespace

// ---- the option fields ------------------------------------------------------------------------

std::vector<std::string> split_command_line(std::string_view text) {
    std::vector<std::string> tokens;
    std::string current;
    bool in_token = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            if (in_token) tokens.push_back(std::move(current));
            current.clear();
            in_token = false;
        } else if (c == '\'' || c == '"') {
            in_token = true;
            const std::size_t close = [&] {
                for (std::size_t k = i + 1; k < text.size(); ++k) {
                    if (c == '"' && text[k] == '\\' && k + 1 < text.size()) {
                        current += text[++k];
                        continue;
                    }
                    if (text[k] == c) return k;
                    current += text[k];
                }
                return std::string_view::npos;
            }();
            if (close == std::string_view::npos)
                throw cli::UsageError(std::string("unterminated ") + c + " quote in '" +
                                      std::string(text) + "'");
            i = close;
        } else {
            in_token = true;
            current += c;
        }
    }
    if (in_token) tokens.push_back(std::move(current));
    return tokens;
}

OptionForm::OptionForm(std::vector<cli::OptionSpec> options) : options_(std::move(options)) {
    for (const cli::OptionSpec& spec : options_) fields_.push_back(Field{spec, {}, false, {}});
    reset();
}

std::vector<bool> OptionForm::default_choice(const Field& field) const {
    const auto& choices = field.spec.choices;
    const std::vector<std::string> named = cli::split_list(field.spec.default_value);
    std::vector<bool> chosen(choices.size(), false);
    bool any = false;
    for (std::size_t i = 0; i < choices.size(); ++i) {
        chosen[i] = std::find(named.begin(), named.end(), choices[i]) != named.end();
        any = any || chosen[i];
    }
    // No stated default, "all", or a default that names none of the choices: all of them.
    if (!any) std::fill(chosen.begin(), chosen.end(), true);
    return chosen;
}

void OptionForm::reset() {
    for (Field& field : fields_) {
        field.text.clear();
        field.flag = false;
        field.chosen = default_choice(field);
    }
}

std::vector<std::string> OptionForm::tokens() const {
    std::vector<std::string> out;
    for (const Field& field : fields_) {
        const std::string option = "--" + field.spec.name;
        if (field.spec.value_name.empty()) {
            if (field.flag) out.push_back(option);
        } else if (!field.spec.choices.empty()) {
            std::vector<std::string> names;
            for (std::size_t i = 0; i < field.spec.choices.size(); ++i)
                if (field.chosen[i]) names.push_back(field.spec.choices[i]);
            if (names.empty())
                throw cli::UsageError(option + ": check at least one of " +
                                      join(field.spec.choices, ", "));
            if (field.chosen != default_choice(field)) {
                out.push_back(option);
                out.push_back(join(names, ","));
            }
        } else if (field.spec.repeatable) {
            std::string_view rest = field.text;
            while (!rest.empty()) {
                const auto semicolon = rest.find(';');
                const std::string value = trim(rest.substr(0, semicolon));
                if (!value.empty()) {
                    out.push_back(option);
                    out.push_back(value);
                }
                rest = semicolon == std::string_view::npos ? "" : rest.substr(semicolon + 1);
            }
        } else {
            const std::string value = trim(field.text);
            if (!value.empty()) {
                out.push_back(option);
                out.push_back(value);
            }
        }
    }
    return out;
}

cli::Args OptionForm::args() const { return cli::Args::parse(tokens(), options_); }

void OptionForm::set(const std::vector<std::string>& tokens) {
    const cli::Args args = cli::Args::parse(tokens, options_);
    // Check every choice before changing anything, so a rejected set leaves the form as it was.
    std::vector<Field> next = fields_;
    for (Field& field : next) {
        field.text.clear();
        field.flag = false;
        field.chosen = default_choice(field);
        const std::string& name = field.spec.name;
        if (!args.has(name)) continue;
        if (field.spec.value_name.empty()) {
            field.flag = true;
        } else if (!field.spec.choices.empty()) {
            std::fill(field.chosen.begin(), field.chosen.end(), false);
            for (const std::string& value : cli::split_list(args.get(name))) {
                if (value == "all") {
                    std::fill(field.chosen.begin(), field.chosen.end(), true);
                    continue;
                }
                const auto& choices = field.spec.choices;
                const auto found = std::find(choices.begin(), choices.end(), value);
                if (found == choices.end())
                    throw cli::UsageError("--" + name + ": '" + value + "' is not one of " +
                                          join(choices, ", "));
                field.chosen[found - choices.begin()] = true;
            }
        } else if (field.spec.repeatable) {
            field.text = join(args.all(name), "; ");
        } else {
            field.text = args.get(name);
        }
    }
    fields_ = std::move(next);
}

// ---- one run on a worker thread ---------------------------------------------------------------

// The benchmark's printed output (BenchContext::out), collected for the panel as it comes.
class BenchRunner::LogBuffer : public std::streambuf {
public:
    explicit LogBuffer(BenchRunner& runner) : runner_(runner) {}

protected:
    int_type overflow(int_type c) override {
        if (c != traits_type::eof()) {
            const char ch = traits_type::to_char_type(c);
            xsputn(&ch, 1);
        }
        return traits_type::not_eof(c);
    }
    std::streamsize xsputn(const char* text, std::streamsize count) override {
        std::lock_guard lock(runner_.mutex_);
        runner_.log_.append(text, static_cast<std::size_t>(count));
        return count;
    }

private:
    BenchRunner& runner_;
};

BenchRunner::~BenchRunner() { stop(); }

void BenchRunner::start(const bench::Benchmark& benchmark, cli::Args args, int device) {
    if (running()) throw Error("a benchmark run is still going");
    if (worker_.joinable()) worker_.join();  // the previous run, already ended
    {
        std::lock_guard lock(mutex_);
        status_ = Status{};
        status_.state = State::running;
        report_.reset();
        log_.clear();
        started_ = std::chrono::steady_clock::now();
    }
    cancel_ = false;
    worker_ = std::thread(&BenchRunner::work, this, benchmark, std::move(args), device);
}

void BenchRunner::work(bench::Benchmark benchmark, cli::Args args, int device) {
    LogBuffer buffer(*this);
    std::ostream out(&buffer);
    State end = State::done;
    std::string error;
    bool usage_error = false;
    std::optional<bench::Report> report;
    try {
        // The context lives and dies on this thread, inside this block: its programs and
        // buffers are freed before the run is reported as ended.
        auto context = gl::HeadlessContext::create(device);
        bench::BenchContext ctx{context->info(), out,
                                [this](double fraction, const std::string& what) {
                                    std::lock_guard lock(mutex_);
                                    status_.fraction = std::clamp(fraction, 0.0, 1.0);
                                    status_.what = what;
                                },
                                &cancel_};
        ctx.check_cancelled();
        report = benchmark.run(args, ctx);
    } catch (const bench::Cancelled&) {
        end = State::cancelled;
    } catch (const cli::UsageError& e) {
        end = State::failed;
        usage_error = true;
        error = e.what();
    } catch (const Error& e) {
        end = State::failed;
        error = e.what();
    } catch (const std::exception& e) {
        end = State::failed;
        error = std::string("unexpected error: ") + e.what();
    } catch (...) {
        end = State::failed;
        error = "unexpected error of an unknown kind";
    }
    out.flush();
    std::lock_guard lock(mutex_);
    status_.state = end;
    status_.error = std::move(error);
    status_.usage_error = usage_error;
    status_.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    if (end == State::done) {
        status_.fraction = 1.0;
        report_ = std::move(report);
        status_.has_report = report_.has_value();
    }
}

void BenchRunner::cancel() { cancel_ = true; }

void BenchRunner::stop() {
    cancel();
    if (worker_.joinable()) worker_.join();
}

bool BenchRunner::running() const {
    std::lock_guard lock(mutex_);
    return status_.state == State::running;
}

BenchRunner::Status BenchRunner::status() const {
    std::lock_guard lock(mutex_);
    Status copy = status_;
    if (copy.state == State::running)
        copy.seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    return copy;
}

std::optional<bench::Report> BenchRunner::take_report() {
    std::lock_guard lock(mutex_);
    std::optional<bench::Report> out = std::move(report_);
    report_.reset();
    status_.has_report = false;
    return out;
}

std::string BenchRunner::log() const {
    std::lock_guard lock(mutex_);
    return log_;
}

// ---- the ImGui tab ----------------------------------------------------------------------------

std::vector<BenchPanelSpec> default_panel_specs() {
    ChartSpec matmul{"n", "gflops", {"name"}, true, 2, true, "N", "GFLOPS"};
    ChartSpec lu{"n", "gflops", {"name", "block"}, true, 2, true, "N", "GFLOPS (2/3 n^3)"};
    ChartSpec power{"rows", "speedup_vs_host", {"name"}, true, 10, true, "rows",
                    "speed-up over host"};
    return {
        {"Matmul", "matmul",
         "Dense fp32 C = A B: the paper's 32x32 shared-memory shader, a fast "
         "shader, CPU baselines and the CPU+GPU split.",
         matmul},
        {"LU", "lu",
         "LU with partial pivoting (the LU paper, Blocked LU decomposition on the GPU): unblocked "
         "and blocked right-looking LU on the GPU "
         "against the CPU.",
         lu},
        {"Power method", "power",
         "Power method on CSR sparse matrices (the power-method paper, Power method on the GPU): "
         "SpMV, the paper's fused kernels, "
         "Matrix Market input and PageRank.",
         power},
    };
}

BenchPanelSpec panel_spec_for(const std::string& benchmark) {
    for (BenchPanelSpec& spec : default_panel_specs())
        if (spec.benchmark == benchmark) return spec;
    if (benchmark == "bandwidth")
        return {"Bandwidth", "bandwidth", "GPU memory bandwidth (vec4 copy).",
                {"mib", "gb_per_s", {"name"}, true, 2, false, "buffer (MiB)", "GB/s (read+write)"}};
    // Unknown to the GUI: the chart's keys are picked from the first report.
    return {benchmark, benchmark, "", {"", "median_ms", {"name"}, true, 2, true, "", ""}};
}

BenchPanel::BenchPanel(BenchPanelSpec spec)
    : spec_(std::move(spec)), benchmark_(bench::find_benchmark(spec_.benchmark)),
      chart_(spec_.chart), export_path_("./adilab-" + spec_.benchmark + ".json") {
    if (benchmark_ != nullptr) form_.emplace(benchmark_->options);
}

BenchPanel::~BenchPanel() { runner_.stop(); }

std::string BenchPanel::start() {
    if (benchmark_ == nullptr) return error_ = "the " + spec_.benchmark + " benchmark is not in this build";
    if (runner_.running()) return "a run is still going";
    try {
        cli::Args args = form_->args();
        runner_.start(*benchmark_, std::move(args));
    } catch (const cli::UsageError& e) {
        last_state_ = BenchRunner::State::failed;
        error_ = e.what();
        error_is_usage_ = true;
        return error_;
    }
    last_state_ = BenchRunner::State::running;
    error_.clear();
    error_is_usage_ = false;
    export_message_.clear();
    log_.clear();
    return {};
}

void BenchPanel::poll() {
    if (last_state_ != BenchRunner::State::running) return;
    const BenchRunner::Status status = runner_.status();
    log_ = runner_.log();
    if (status.state == BenchRunner::State::running) return;
    last_state_ = status.state;
    error_ = status.error;
    error_is_usage_ = status.usage_error;
    if (status.state == BenchRunner::State::done) {
        report_ = runner_.take_report();
        rebuild_series();
    }
}

void BenchPanel::rebuild_series() {
    series_.clear();
    skipped_points_ = 0;
    if (!report_) return;
    // Keys the report does not have: x the first integer field other than a time, y median_ms.
    const std::vector<std::string> numeric = numeric_keys(report_->rows);
    auto has = [&](const std::string& key) {
        return std::find(numeric.begin(), numeric.end(), key) != numeric.end();
    };
    if (!has(chart_.x_key)) {
        for (const bench::Row& row : report_->rows) {
            for (const bench::Field& f : row.fields()) {
                if (std::holds_alternative<std::int64_t>(f.value) && f.key != "median_ms") {
                    chart_.x_key = f.key;
                    chart_.x_label.clear();
                    break;
                }
            }
            if (has(chart_.x_key)) break;
        }
    }
    if (!has(chart_.y_key) && has("median_ms")) {
        chart_.y_key = "median_ms";
        chart_.y_label.clear();
    }
    series_ = make_series(report_->rows, chart_, &skipped_points_);
}

std::string BenchPanel::export_report(const std::filesystem::path& path) {
    if (!report_) {
        export_failed_ = true;
        return export_message_ = "nothing to export yet: run the benchmark first";
    }
    try {
        bench::check_report_path(path);
        bench::write_report(*report_, path);
    } catch (const std::exception& e) {
        export_failed_ = true;
        return export_message_ = e.what();
    }
    export_failed_ = false;
    std::error_code ignored;  // the message names the file wherever the GUI was started from
    const std::filesystem::path shown = std::filesystem::absolute(path, ignored);
    export_message_ = "report written to " + (shown.empty() ? path : shown).string();
    return {};
}

void BenchPanel::draw() {
    poll();
    ImGui::PushID(spec_.benchmark.c_str());
    if (!spec_.about.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        ImGui::TextWrapped("%s", spec_.about.c_str());
        ImGui::PopStyleColor();
    }
    if (benchmark_ == nullptr) {
        wrapped_text(kYellow, "The '" + spec_.benchmark +
                                  "' benchmark is not in this build (app/bench/registry.cpp "
                                  "lists: " + registry_names() + ").");
        ImGui::PopID();
        return;
    }
    ImGui::Separator();
    draw_options();
    draw_run_controls();
    ImGui::Separator();
    if (pop_out_) {
        ImGui::SetNextWindowSize(ImVec2(760, 560), ImGuiCond_FirstUseEver);
        const std::string title = spec_.title + " results###results-" + spec_.benchmark;
        if (ImGui::Begin(title.c_str(), &pop_out_)) draw_results();
        ImGui::End();
        ImGui::Checkbox("Results in their own window", &pop_out_);
    } else {
        ImGui::Checkbox("Results in their own window", &pop_out_);
        draw_results();
    }
    ImGui::PopID();
}

void BenchPanel::draw_options() {
    const bool busy = runner_.running();
    ImGui::BeginDisabled(busy);
    float label_width = 0.0f;
    for (const auto& field : form_->fields())
        label_width = std::max(label_width, ImGui::CalcTextSize(("--" + field.spec.name).c_str()).x);
    if (ImGui::BeginTable("options", 2, ImGuiTableFlags_SizingStretchProp)) {
        ImGui::TableSetupColumn("option", ImGuiTableColumnFlags_WidthFixed, label_width);
        ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch);
        for (auto& field : form_->fields()) {
            ImGui::PushID(field.spec.name.c_str());
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::AlignTextToFramePadding();
            ImGui::Text("--%s", field.spec.name.c_str());
            const std::string help = cli::full_help(field.spec);
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", help.c_str());
            ImGui::TableNextColumn();
            if (field.spec.value_name.empty()) {
                ImGui::Checkbox("##flag", &field.flag);
            } else if (!field.spec.choices.empty()) {
                // Checkboxes, wrapped to the column's width.
                const float right = ImGui::GetCursorScreenPos().x + ImGui::GetContentRegionAvail().x;
                for (std::size_t i = 0; i < field.spec.choices.size(); ++i) {
                    const std::string& choice = field.spec.choices[i];
                    if (i > 0) {
                        const float need = ImGui::GetFrameHeight() +
                                           ImGui::GetStyle().ItemInnerSpacing.x +
                                           ImGui::CalcTextSize(choice.c_str()).x;
                        ImGui::SameLine();
                        if (ImGui::GetCursorScreenPos().x + need > right) ImGui::NewLine();
                    }
                    bool checked = field.chosen[i];
                    if (ImGui::Checkbox(choice.c_str(), &checked)) field.chosen[i] = checked;
                }
            } else {
                ImGui::SetNextItemWidth(-FLT_MIN);
                const std::string& stated = field.spec.default_value;
                std::string hint = stated.empty() ? field.spec.value_name : "default " + stated;
                if (field.spec.repeatable) hint += " (several: a; b)";
                ImGui::InputTextWithHint("##value", hint.c_str(), &field.text);
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", help.c_str());
            }
            ImGui::PopID();
        }
        ImGui::EndTable();
    }
    ImGui::EndDisabled();
}

void BenchPanel::draw_run_controls() {
    const BenchRunner::Status status = runner_.status();
    if (status.state == BenchRunner::State::running) {
        const float cancel_width = ImGui::CalcTextSize("Cancel").x + 2 * ImGui::GetStyle().FramePadding.x;
        char overlay[160];
        std::snprintf(overlay, sizeof overlay, "%.0f%%  %s  (%.1f s)", 100.0 * status.fraction,
                      status.what.c_str(), status.seconds);
        ImGui::ProgressBar(static_cast<float>(status.fraction),
                           ImVec2(-(cancel_width + ImGui::GetStyle().ItemSpacing.x), 0), overlay);
        ImGui::SameLine();
        if (ImGui::Button("Cancel")) runner_.cancel();
        ImGui::TextDisabled("The benchmark stops at its next check; the GUI stays live.");
        return;
    }
    if (ImGui::Button("Run")) start();
    ImGui::SameLine();
    if (ImGui::Button("Defaults")) form_->reset();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("every field back to the benchmark's default");
    switch (last_state_) {
    case BenchRunner::State::failed:
        wrapped_text(kRed, (error_is_usage_ ? "usage error: " : "error: ") + error_);
        break;
    case BenchRunner::State::cancelled:
        wrapped_text(kYellow, "cancelled");
        break;
    case BenchRunner::State::done:
        if (report_) {
            char text[96];
            std::snprintf(text, sizeof text, "done in %.1f s: %zu rows", status.seconds,
                          report_->rows.size());
            wrapped_text(kGreen, text);
        }
        break;
    default:
        break;
    }
}

void BenchPanel::draw_chart_controls() {
    if (!report_) return;
    const std::vector<std::string> keys = numeric_keys(report_->rows);
    bool changed = false;
    const float combo_width = ImGui::GetContentRegionAvail().x * 0.5f - ImGui::CalcTextSize("y ").x -
                              ImGui::GetStyle().ItemSpacing.x * 2;
    auto key_combo = [&](const char* label, std::string& key, std::string& axis_label) {
        ImGui::AlignTextToFramePadding();
        ImGui::TextUnformatted(label);
        ImGui::SameLine();
        ImGui::SetNextItemWidth(combo_width);
        if (ImGui::BeginCombo((std::string("##") + label).c_str(), key.c_str())) {
            for (const std::string& k : keys) {
                if (ImGui::Selectable(k.c_str(), k == key) && k != key) {
                    key = k;
                    axis_label.clear();  // the spec's label named the old key
                    changed = true;
                }
            }
            ImGui::EndCombo();
        }
    };
    key_combo("y", chart_.y_key, chart_.y_label);
    ImGui::SameLine();
    key_combo("x", chart_.x_key, chart_.x_label);
    changed |= ImGui::Checkbox("log x", &chart_.log_x);
    ImGui::SameLine();
    changed |= ImGui::Checkbox("log y", &chart_.log_y);
    if (changed) series_ = make_series(report_->rows, chart_, &skipped_points_);
}

void BenchPanel::draw_table() {
    const std::vector<bench::Row>& rows = report_->rows;
    std::vector<std::string> columns;
    for (const bench::Row& row : rows)
        for (const bench::Field& f : row.fields())
            if (std::find(columns.begin(), columns.end(), f.key) == columns.end())
                columns.push_back(f.key);
    // Dear ImGui tables hold at most 64 columns; reports have a dozen or so.
    const int count = static_cast<int>(std::min<std::size_t>(columns.size(), 64));
    if (count == 0) return;
    const float height =
        std::min(ImGui::GetTextLineHeightWithSpacing() * (static_cast<float>(rows.size()) + 2.5f),
                 ImGui::GetTextLineHeightWithSpacing() * 14);
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg |
                                  ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY |
                                  ImGuiTableFlags_Resizable | ImGuiTableFlags_SizingFixedFit |
                                  ImGuiTableFlags_Sortable | ImGuiTableFlags_SortTristate;
    if (!ImGui::BeginTable("rows", count, flags, ImVec2(0, height))) return;
    ImGui::TableSetupScrollFreeze(1, 1);
    for (int c = 0; c < count; ++c) ImGui::TableSetupColumn(columns[c].c_str());
    ImGui::TableHeadersRow();
    // Row order: the benchmark's, or sorted by the clicked column (numbers as numbers).
    std::vector<std::size_t> order(rows.size());
    std::iota(order.begin(), order.end(), 0);
    if (const ImGuiTableSortSpecs* sort = ImGui::TableGetSortSpecs(); sort && sort->SpecsCount > 0) {
        const ImGuiTableColumnSortSpecs& s = sort->Specs[0];
        const std::string& key = columns[s.ColumnIndex];
        const bool ascending = s.SortDirection == ImGuiSortDirection_Ascending;
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            const double x = rows[a].number(key), y = rows[b].number(key);
            bool less = false, greater = false;
            if (!std::isnan(x) && !std::isnan(y)) {
                less = x < y, greater = y < x;
            } else {
                const std::string p = rows[a].text(key), q = rows[b].text(key);
                less = p < q, greater = q < p;
            }
            return ascending ? less : greater;
        });
    }
    for (std::size_t r : order) {
        ImGui::TableNextRow();
        for (int c = 0; c < count; ++c) {
            ImGui::TableNextColumn();
            const bench::Value* v = rows[r].find(columns[c]);
            ImGui::TextUnformatted(v ? bench::format_value(*v).c_str() : "");
        }
    }
    ImGui::EndTable();
}

void BenchPanel::draw_results() {
    if (!report_ && log_.empty()) {
        ImGui::TextDisabled("No results yet: set the options and press Run.");
        return;
    }
    if (report_) {
        ImGui::TextDisabled("%s on %s, %s", report_->benchmark.c_str(), report_->renderer.c_str(),
                            report_->created.c_str());
        draw_chart_controls();
        const float width = ImGui::GetContentRegionAvail().x;
        const float height = std::clamp(width * 0.7f, 180.0f, std::max(180.0f, ImGui::GetContentRegionAvail().y * 0.55f));
        draw_chart("chart", series_, chart_, width, height);
        if (skipped_points_ > 0)
            ImGui::TextDisabled("%d rows not plotted (no %s or %s%s)", skipped_points_,
                                chart_.x_key.c_str(), chart_.y_key.c_str(),
                                chart_.log_x || chart_.log_y ? ", or not positive on a log axis" : "");
        draw_table();
        for (const std::string& note : report_->notes) wrapped_text(kYellow, "note: " + note);

        // Export through the same writer as `adilab --bench --report`.
        ImGui::SetNextItemWidth(-FLT_MIN);
        ImGui::InputTextWithHint("##export", "report path (.json or .csv)", &export_path_);
        auto export_as = [&](const char* extension) {
            std::filesystem::path path = export_path_;
            if (path.extension() != extension) path.replace_extension(extension);
            export_path_ = path.string();
            export_report(path);
        };
        if (ImGui::Button("Export JSON")) export_as(".json");
        ImGui::SameLine();
        if (ImGui::Button("Export CSV")) export_as(".csv");
        if (!export_message_.empty()) wrapped_text(export_failed_ ? kRed : kGreen, export_message_);
    }
    if (!log_.empty() && ImGui::CollapsingHeader("Printed output")) {
        ImGui::BeginChild("log", ImVec2(0, ImGui::GetTextLineHeightWithSpacing() * 10), true,
                          ImGuiWindowFlags_HorizontalScrollbar);
        ImGui::TextUnformatted(log_.c_str());
        ImGui::EndChild();
    }
}

// ---- the tabs and scripted runs ---------------------------------------------------------------

std::vector<cli::OptionSpec> bench_tab_options() {
    return {
        {"bench-tab", "NAME",
         "select the tab of benchmark NAME (any registered one) and start its run at start-up; "
         "with --frames N the GUI runs N frames and until the run has ended and been drawn, then "
         "exits 0, or 1 if it failed (2 for a bad option)"},
        {"bench-args", "ARGS",
         "with --bench-tab: the tab's options, as for --bench NAME (e.g. \"--mib 1,2\")"},
        {"bench-export", "FILE",
         "with --bench-tab: export the report (.json or .csv) when the run has ended"},
    };
}

BenchTabs::BenchTabs(const cli::Args& args) {
    for (BenchPanelSpec& spec : default_panel_specs())
        panels_.push_back(std::make_unique<BenchPanel>(std::move(spec)));
    if (!args.has("bench-tab")) {
        if (args.has("bench-args") || args.has("bench-export"))
            throw cli::UsageError("--bench-args and --bench-export need --bench-tab NAME");
        return;
    }
    const std::string name = args.get("bench-tab");
    if (bench::find_benchmark(name) == nullptr)
        throw cli::UsageError("--bench-tab: unknown benchmark '" + name + "' (available: " +
                              registry_names() + ")");
    for (auto& panel : panels_)
        if (panel->spec().benchmark == name) scripted_ = panel.get();
    if (scripted_ == nullptr) {  // a registered benchmark without a tab of its own
        panels_.push_back(std::make_unique<BenchPanel>(panel_spec_for(name)));
        scripted_ = panels_.back().get();
    }
    try {
        scripted_->form()->set(split_command_line(args.get("bench-args")));
    } catch (const cli::UsageError& e) {
        throw cli::UsageError(std::string("--bench-args: ") + e.what());
    }
    scripted_export_ = args.get("bench-export");
    if (!scripted_export_.empty()) bench::check_report_path(scripted_export_);
    select_scripted_ = true;
}

BenchTabs::~BenchTabs() { stop(); }

void BenchTabs::stop() {
    for (auto& panel : panels_) panel->cancel();  // all at once, then wait for each
    for (auto& panel : panels_) panel->stop();
    if (scripted_ != nullptr && !scripted_finished_) {
        std::cerr << "adilab: the " << scripted_->spec().benchmark
                  << " tab's run did not finish (the window was closed)\n";
        exit_code_ = 1;
        scripted_finished_ = true;
    }
}

void BenchTabs::draw_tab_items() {
    for (auto& panel : panels_) {
        const bool select = select_scripted_ && panel.get() == scripted_;
        if (ImGui::BeginTabItem(panel->spec().title.c_str(), nullptr,
                                select ? ImGuiTabItemFlags_SetSelected : 0)) {
            panel->draw();
            if (panel.get() == scripted_ && scripted_started_ &&
                panel->last_state() != BenchRunner::State::running)
                ++scripted_frames_drawn_;
            ImGui::EndTabItem();
        } else {
            panel->poll();  // a hidden tab's run still ends and keeps its report
        }
    }
    select_scripted_ = false;
    if (scripted_ != nullptr && scripted_->running()) ++scripted_frames_during_run_;
    follow_scripted_run();
}

void BenchTabs::follow_scripted_run() {
    if (scripted_ == nullptr || scripted_finished_) return;
    const std::string name = scripted_->spec().benchmark;
    if (!scripted_started_) {
        scripted_started_ = true;
        scripted_->start();  // a bad form ends the run at once, as failed
        return;
    }
    // Two frames: a new table measures its columns in its first frame and fits them in the next.
    if (scripted_->last_state() == BenchRunner::State::running || scripted_frames_drawn_ < 2) return;
    scripted_finished_ = true;
    switch (scripted_->last_state()) {
    case BenchRunner::State::done: {
        std::cout << "adilab: the " << name << " tab's run is done: "
                  << scripted_->report()->rows.size() << " rows (the GUI drew "
                  << scripted_frames_during_run_ << " frames during the run)\n";
        if (!scripted_export_.empty()) {
            const std::string error = scripted_->export_report(scripted_export_);
            if (!error.empty()) {
                std::cerr << "adilab: error: " << error << "\n";
                exit_code_ = 1;
            } else {
                std::cout << "report written to " << scripted_export_.string() << "\n";
            }
        }
        break;
    }
    case BenchRunner::State::failed:
        // A usage error prints the usage line as in every other mode (app/cli/args.hpp).
        if (scripted_->error_is_usage())
            exit_code_ = cli::print_usage_error(
                std::cerr, "the " + name + " tab's run failed: usage error: " + scripted_->error());
        else {
            std::cerr << "adilab: the " << name << " tab's run failed: error: " << scripted_->error()
                      << "\n";
            exit_code_ = 1;
        }
        break;
    default:
        std::cerr << "adilab: the " << name << " tab's run was cancelled\n";
        exit_code_ = 1;
        break;
    }
}

bool BenchTabs::scripted_run_finished() const { return scripted_ == nullptr || scripted_finished_; }

}  // namespace adilab::gui
