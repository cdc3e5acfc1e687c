// A benchmark tab: see bench_panel.hpp.
#include "app/gui/bench_panel.hpp"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "app/files/paths.hpp"

namespace adilab::gui {

namespace {

const ImVec4 kRed(1.0f, 0.42f, 0.42f, 1.0f);
const ImVec4 kYellow(1.0f, 0.82f, 0.35f, 1.0f);
const ImVec4 kGreen(0.45f, 0.85f, 0.45f, 1.0f);

void wrapped_text(const ImVec4& colour, const std::string& text) {
    ImGui::PushStyleColor(ImGuiCol_Text, colour);
    ImGui::TextWrapped("%s", text.c_str());
    ImGui::PopStyleColor();
}

}  // namespace

std::string benchmark_names() {
    std::string names;
    for (const bench::Benchmark& b : bench::benchmarks())
        names += (names.empty() ? "" : ", ") + b.name;
    return names;
}

BenchPanel::BenchPanel(BenchPanelSpec spec)
    : spec_(std::move(spec)),
      benchmark_(bench::find_benchmark(spec_.benchmark)),
      chart_(spec_.chart),
      export_path_("./adilab-" + spec_.benchmark + ".json") {
    if (benchmark_ != nullptr) {
        form_.emplace(form_options(spec_, benchmark_->options));
        shown_ = shown_fields(spec_, benchmark_->options);
    }
}

BenchPanel::~BenchPanel() {
    runner_.stop();
}

std::string BenchPanel::start() {
    if (benchmark_ == nullptr)
        return error_ = "the " + spec_.benchmark + " benchmark is not in this build";
    if (runner_.running()) return "a run is still going";
    try {
        cli::Args args = form_->args();
        check_offered(spec_, args);
        runner_.start(*benchmark_, std::move(args));
    } catch (const cli::UsageError& e) {
        last_state_ = BenchRunner::State::failed;
        error_ = e.what();
        error_is_usage_ = true;
        return error_;
    }
    last_state_ = BenchRunner::State::running;
    stop_seconds_ = 0.0;
    frames_drawn_cancelling_ = 0;
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
    if (status.state == BenchRunner::State::cancelled) stop_seconds_ = status.seconds_since_cancel;
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
    // The message names the file wherever the GUI was started from.
    export_message_ = "report written to " + files::absolute_text(path);
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
                                  "lists: " +
                                  benchmark_names() + ").");
        ImGui::PopID();
        return;
    }
    // The options a user sets first, the rest folded away, then Run and the results: the chart
    // and table come right after, in view without scrolling.
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
        draw_results();
        if (report_) ImGui::Checkbox("Results in their own window", &pop_out_);
    }
    ImGui::PopID();
}

void BenchPanel::draw_fields(bool advanced) {
    auto& fields = form_->fields();
    float label_width = 0.0f;
    for (const FieldLabel& shown : shown_)
        if (shown.advanced == advanced)
            label_width = std::max(label_width, ImGui::CalcTextSize(shown.label.c_str()).x);
    // A label wraps rather than squeeze its field below ~55% of a narrow panel.
    label_width = std::min(label_width + 4.0f, ImGui::GetContentRegionAvail().x * 0.45f);
    if (!ImGui::BeginTable(advanced ? "more options" : "options", 2,
                           ImGuiTableFlags_SizingStretchProp))
        return;
    ImGui::TableSetupColumn("option", ImGuiTableColumnFlags_WidthFixed, label_width);
    ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch);
    for (const FieldLabel& shown : shown_) {
        if (shown.advanced != advanced) continue;
        const auto found =
            std::find_if(fields.begin(), fields.end(),
                         [&](const OptionForm::Field& f) { return f.spec.name == shown.option; });
        if (found == fields.end()) continue;
        OptionForm::Field& field = *found;
        const cli::OptionSpec& spec = field.spec;
        ImGui::PushID(spec.name.c_str());
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::AlignTextToFramePadding();
        ImGui::TextWrapped("%s", shown.label.c_str());
        // The help, and the option's command-line form for those who script the same run.
        const std::string help = cli::full_help(spec) + "\ncommand line: --" + spec.name +
                                 (spec.value_name.empty() ? "" : " " + spec.value_name);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", help.c_str());
        ImGui::TableNextColumn();
        if (spec.value_name.empty()) {
            ImGui::Checkbox("##flag", &field.flag);
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", help.c_str());
        } else if (!spec.choices.empty()) {
            // Checkboxes, wrapped to the column's width.
            const float right = ImGui::GetCursorScreenPos().x + ImGui::GetContentRegionAvail().x;
            for (std::size_t i = 0; i < spec.choices.size(); ++i) {
                const std::string& choice = spec.choices[i];
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
        } else if (!shown.one_of.empty()) {
            // One value of a few: a drop-down; the default stands for "not given".
            const std::string& stated = spec.default_value;
            auto item = [&](const std::string& value) {
                return value == stated ? value + " (default)" : value;
            };
            ImGui::SetNextItemWidth(-FLT_MIN);
            if (ImGui::BeginCombo("##one of",
                                  item(field.text.empty() ? stated : field.text).c_str())) {
                for (const std::string& value : shown.one_of) {
                    const bool selected =
                        field.text.empty() ? value == stated : value == field.text;
                    if (ImGui::Selectable(item(value).c_str(), selected))
                        field.text = value == stated ? "" : value;
                }
                ImGui::EndCombo();
            }
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", help.c_str());
        } else {
            ImGui::SetNextItemWidth(-FLT_MIN);
            // The default, or an example of the form: never a bare placeholder.
            std::string hint =
                !spec.default_value.empty() ? "default " + spec.default_value : shown.hint;
            if (spec.repeatable && hint.find(';') == std::string::npos)
                hint += hint.empty() ? "several: a; b" : " (several: a; b)";
            ImGui::InputTextWithHint("##value", hint.c_str(), &field.text);
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", help.c_str());
        }
        ImGui::PopID();
    }
    ImGui::EndTable();
}

void BenchPanel::draw_options() {
    ImGui::BeginDisabled(runner_.running());
    draw_fields(false);
    const bool any_advanced =
        std::any_of(shown_.begin(), shown_.end(), [](const FieldLabel& f) { return f.advanced; });
    if (any_advanced && ImGui::CollapsingHeader("More options")) draw_fields(true);
    ImGui::EndDisabled();
}

void BenchPanel::draw_run_controls() {
    const BenchRunner::Status status = runner_.status();
    if (status.state == BenchRunner::State::running) {
        const float cancel_width =
            ImGui::CalcTextSize("Cancel").x + 2 * ImGui::GetStyle().FramePadding.x;
        char overlay[200];
        if (status.cancel_requested)
            std::snprintf(overlay, sizeof overlay, "cancelling...  (%.1f s)",
                          status.seconds_since_cancel);
        else
            std::snprintf(overlay, sizeof overlay, "%.0f%%  %s  (%.1f s)", 100.0 * status.fraction,
                          status.what.c_str(), status.seconds);
        ImGui::ProgressBar(static_cast<float>(status.fraction),
                           ImVec2(-(cancel_width + ImGui::GetStyle().ItemSpacing.x), 0), overlay);
        ImGui::SameLine();
        ImGui::BeginDisabled(status.cancel_requested);
        if (ImGui::Button("Cancel")) runner_.cancel();
        ImGui::EndDisabled();
        if (status.cancel_requested) {
            ++frames_drawn_cancelling_;
            wrapped_text(kYellow, "cancelling... the run stops at its next GPU dispatch");
        }
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
        case BenchRunner::State::cancelled: {
            char text[96];
            std::snprintf(text, sizeof text, "cancelled (stopped %.1f s after Cancel)",
                          stop_seconds_);
            wrapped_text(kYellow, text);
            break;
        }
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
    // One line per axis: the column by its title in words (the report's key in the tooltip),
    // and its scale.
    auto axis_line = [&](const char* label, std::string& key, std::string& axis_label, bool& log) {
        ImGui::PushID(label);
        ImGui::AlignTextToFramePadding();
        ImGui::TextUnformatted(label);
        ImGui::SameLine();
        const float log_width = ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x +
                                ImGui::CalcTextSize("log").x;
        ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - log_width -
                                ImGui::GetStyle().ItemSpacing.x);
        const std::string shown = axis_label.empty() ? axis_title(key) : axis_label;
        if (ImGui::BeginCombo("##column", shown.c_str())) {
            for (const std::string& k : keys) {
                ImGui::PushID(k.c_str());
                if (ImGui::Selectable(axis_title(k).c_str(), k == key) && k != key) {
                    key = k;
                    axis_label.clear();  // the spec's title named the old column
                    changed = true;
                }
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("report column %s", k.c_str());
                ImGui::PopID();
            }
            ImGui::EndCombo();
        }
        ImGui::SameLine();
        changed |= ImGui::Checkbox("log", &log);
        ImGui::PopID();
    };
    axis_line("y", chart_.y_key, chart_.y_label, chart_.log_y);
    axis_line("x", chart_.x_key, chart_.x_label, chart_.log_x);
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
    const float line = ImGui::GetTextLineHeightWithSpacing();
    const float height = std::min(line * (static_cast<float>(rows.size()) + 1.2f), line * 14) +
                         ImGui::GetStyle().ScrollbarSize + 2 * ImGui::GetStyle().CellPadding.y;
    // Not resizable: a fixed-fit column the user has not resized fits its header and cells anew
    // every frame (ImGuiTableColumnFlags_WidthAuto), so a later run's wider values are never cut
    // off by the widths of the first; no saved settings for the same reason. Wider than the
    // panel, the table scrolls sideways with the name column frozen.
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg |
                                  ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY |
                                  ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_NoSavedSettings |
                                  ImGuiTableFlags_Sortable | ImGuiTableFlags_SortTristate;
    if (!ImGui::BeginTable("rows", count, flags, ImVec2(0, height))) return;
    ImGui::TableSetupScrollFreeze(1, 1);
    for (int c = 0; c < count; ++c) ImGui::TableSetupColumn(columns[c].c_str());
    ImGui::TableHeadersRow();
    // Row order: the benchmark's, or sorted by the clicked column (numbers as numbers).
    std::vector<std::size_t> order(rows.size());
    std::iota(order.begin(), order.end(), 0);
    if (const ImGuiTableSortSpecs* sort = ImGui::TableGetSortSpecs();
        sort && sort->SpecsCount > 0) {
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
            if (v == nullptr) continue;
            // Four significant figures in the cell; every digit (as exported) when hovered.
            const std::string shown = format_cell(*v), full = bench::format_value(*v);
            ImGui::TextUnformatted(shown.c_str());
            if (shown != full && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", full.c_str());
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
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        ImGui::TextWrapped("%s on %s, %s", report_->benchmark.c_str(), report_->renderer.c_str(),
                           report_->created.c_str());
        ImGui::PopStyleColor();
        draw_chart_controls();
        const float width = ImGui::GetContentRegionAvail().x;
        const float height = std::clamp(width * 0.7f, 180.0f,
                                        std::max(180.0f, ImGui::GetContentRegionAvail().y * 0.55f));
        draw_chart("chart", series_, chart_, width, height);
        if (skipped_points_ > 0) {
            char text[160];
            std::snprintf(
                text, sizeof text, "%d rows not plotted: they have no %s or no %s%s",
                skipped_points_, chart_.y_key.c_str(), chart_.x_key.c_str(),
                chart_.log_x || chart_.log_y ? ", or a value not above 0 on a log axis" : "");
            ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
            ImGui::TextWrapped("%s", text);
            ImGui::PopStyleColor();
        }
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

}  // namespace adilab::gui
