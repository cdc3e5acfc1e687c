#include "app/gui/recorder.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <iomanip>
#include <sstream>

#include "solvers/common/files.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::gui {

namespace {

// Linear interpolation between order statistics (numpy's default percentile).
double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const double k = p / 100.0 * static_cast<double>(v.size() - 1);
    const std::size_t lo = static_cast<std::size_t>(std::floor(k));
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (k - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

std::string number(double v) {
    if (!std::isfinite(v)) return "null";
    std::ostringstream s;
    s << std::setprecision(9) << v;
    return s.str();
}

}  // namespace

RecordingSummary summarise(const std::vector<FrameSample>& rows) {
    RecordingSummary s;
    s.frames = static_cast<std::int64_t>(rows.size());
    if (rows.empty()) return s;
    std::vector<double> fps, frame_ms;
    double total_ms = 0;
    std::int64_t steps = 0;
    for (const FrameSample& r : rows) {
        total_ms += r.frame_ms;
        steps += r.steps;
        frame_ms.push_back(r.frame_ms);
        fps.push_back(r.frame_ms > 0 ? 1000.0 / r.frame_ms : 0.0);
    }
    s.duration_s = total_ms / 1000.0;
    s.fps_mean = s.duration_s > 0 ? static_cast<double>(rows.size()) / s.duration_s : 0;
    s.fps_median = percentile(fps, 50);
    s.fps_p5 = percentile(fps, 5);
    s.fps_p95 = percentile(fps, 95);
    s.frame_ms_median = percentile(frame_ms, 50);
    s.steps_per_s = s.duration_s > 0 ? static_cast<double>(steps) / s.duration_s : 0;
    return s;
}

std::string format_csv(const std::vector<FrameSample>& rows) {
    std::ostringstream out;
    out << "frame,t_s,frame_ms,sim_ms,render_ms,steps\n" << std::setprecision(9);
    for (const FrameSample& r : rows)
        out << r.frame << ',' << r.t_s << ',' << r.frame_ms << ',' << r.sim_ms << ',' << r.render_ms
            << ',' << r.steps << '\n';
    return out.str();
}

std::string format_json(const RecordingInfo& info, const RecordingSummary& s) {
    std::ostringstream out;
    out << "{\n"
        << "  \"tool\": \"adilab\",\n"
        << "  \"renderer\": " << json_string(info.renderer) << ",\n"
        << "  \"gl_version\": " << json_string(info.gl_version) << ",\n"
        << "  \"model\": " << json_string(info.model) << ",\n"
        << "  \"scenario\": " << json_string(info.scenario) << ",\n"
        << "  \"grid\": " << info.grid << ",\n"
        << "  \"solver\": " << json_string(info.solver) << ",\n"
        << "  \"steps_per_frame\": " << info.steps_per_frame << ",\n"
        << "  \"timing\": " << json_string(info.timing) << ",\n"
        << "  \"frames\": " << s.frames << ",\n"
        << "  \"fps_mean\": " << number(s.fps_mean) << ",\n"
        << "  \"fps_median\": " << number(s.fps_median) << ",\n"
        << "  \"fps_p5\": " << number(s.fps_p5) << ",\n"
        << "  \"fps_p95\": " << number(s.fps_p95) << ",\n"
        << "  \"frame_ms_median\": " << number(s.frame_ms_median) << ",\n"
        << "  \"steps_per_s\": " << number(s.steps_per_s) << ",\n"
        << "  \"duration_s\": " << number(s.duration_s) << "\n"
        << "}\n";
    return out.str();
}

std::string timestamped_name(const std::string& prefix) {
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &local);
    return prefix + "-" + buf;
}

void Recorder::start(const std::filesystem::path& folder, RecordingInfo info, double max_seconds) {
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    if (ec || !std::filesystem::is_directory(folder))
        throw Error("cannot create the reports folder '" + folder.string() + "': " + ec.message());
    // A second recording within the same second gets a suffix instead of overwriting.
    std::string base = timestamped_name("adilab-fps");
    std::filesystem::path csv = folder / (base + ".csv");
    for (int k = 2; std::filesystem::exists(csv); ++k)
        csv = folder / (base + "-" + std::to_string(k) + ".csv");
    csv_path_ = csv;
    json_path_ = std::filesystem::path(csv).replace_extension(".json");
    // Fail now, not at the end of a long recording, if the folder is not writable.
    files::write_file_atomically(csv_path_, "frame,t_s,frame_ms,sim_ms,render_ms,steps\n");
    info_ = std::move(info);
    max_seconds_ = max_seconds;
    rows_.clear();
    active_ = true;
}

void Recorder::add(const FrameSample& sample) {
    if (active_) rows_.push_back(sample);
}

void Recorder::set_sim_ms(std::int64_t frame, double ms) {
    if (frame >= 1 && frame <= static_cast<std::int64_t>(rows_.size()))
        rows_[static_cast<std::size_t>(frame - 1)].sim_ms = ms;
}

void Recorder::set_render_ms(std::int64_t frame, double ms) {
    if (frame >= 1 && frame <= static_cast<std::int64_t>(rows_.size()))
        rows_[static_cast<std::size_t>(frame - 1)].render_ms = ms;
}

bool Recorder::time_is_up() const {
    return active_ && max_seconds_ > 0 && elapsed_s() >= max_seconds_;
}

std::filesystem::path Recorder::stop() {
    if (!active_) return {};
    active_ = false;
    files::write_file_atomically(csv_path_, format_csv(rows_));
    files::write_file_atomically(json_path_, format_json(info_, summarise(rows_)));
    return csv_path_;
}

}  // namespace adilab::gui
