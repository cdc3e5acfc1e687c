// The GUI's benchmark tabs end to end: a scripted run (--bench-tab, --bench-args,
// --bench-export) in the real window under Xvfb on llvmpipe, mostly with the bandwidth benchmark
// so that the tests do not depend on the matmul, LU or power benchmarks; Cancel and closing the
// window in the middle of long runs; and the scripted options' bad input, which fails before any
// window opens.
#include <gtest/gtest.h>
#include <stb_image.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "app/gui/chart.hpp"
#include "tests/support/gui.hpp"

namespace adilab::test {
namespace {

// Pixels of exactly the first series' colour: the chart's line and markers (nothing else in the
// window uses it).
int series_pixels(const std::string& png) {
    int w = 0, h = 0, channels = 0;
    unsigned char* pixels = stbi_load(png.c_str(), &w, &h, &channels, 4);
    if (pixels == nullptr) return -1;
    const gui::Rgb c = gui::series_colour(0);
    int count = 0;
    for (int i = 0; i < w * h; ++i) {
        const unsigned char* p = pixels + 4 * i;
        if (p[0] == c.r && p[1] == c.g && p[2] == c.b) ++count;
    }
    stbi_image_free(pixels);
    return count;
}

TEST(BenchTabs, ScriptedRunCompletesDrawsTheChartAndExportsTheReport) {
    ADILAB_NEED_XVFB();
    const std::string dir = temp_folder("bench-tabs");
    const std::string json = dir + "/bandwidth.json", png = dir + "/window.png";
    auto r = run_adilab_gui(
        "--frames 2 --bench-tab bandwidth --bench-args '--mib 1,2 --repeats 2' "
        "--bench-export " +
        json + " --screenshot " + png);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("run is done: 2 rows"), std::string::npos) << r.output;
    const std::string report = read_text(json);
    EXPECT_NE(report.find("\"benchmark\": \"bandwidth\""), std::string::npos) << report;
    EXPECT_NE(report.find("\"config\": {\"mib\": \"1,2\", \"repeats\": \"2\"}"), std::string::npos)
        << "the tab's fields reach the benchmark as the CLI's options:\n"
        << report;
    EXPECT_NE(report.find("\"mib\": 1,"), std::string::npos) << report;
    EXPECT_NE(report.find("\"mib\": 2,"), std::string::npos) << report;
    // The chart's markers and line are on screen; the same window without a run has none.
    EXPECT_GT(series_pixels(png), 20) << "no chart in the screenshot";
    const std::string idle = dir + "/idle.png";
    auto plain = run_adilab_gui("--frames 2 --screenshot " + idle);
    ASSERT_EQ(plain.exit_code, 0) << plain.output;
    EXPECT_EQ(series_pixels(idle), 0);
}

TEST(BenchTabs, CsvExportByExtension) {
    ADILAB_NEED_XVFB();
    const std::string csv = temp_folder("bench-tabs-csv") + "/bandwidth.csv";
    auto r = run_adilab_gui(
        "--frames 1 --bench-tab bandwidth --bench-args '--mib=1 --repeats=1' "
        "--bench-export " +
        csv);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string text = read_text(csv);
    EXPECT_EQ(text.rfind("name,mib,min_ms,median_ms,max_ms,unstable,gb_per_s\ngl-copy-vec4,1,", 0),
              0u)
        << text;
}

TEST(BenchTabs, ABadValueFailsTheRunWithTheCliMessage) {
    ADILAB_NEED_XVFB();
    // Parsed fine, rejected by the benchmark's own validation on the worker: exit 2, as the CLI.
    auto r = run_adilab_gui("--frames 1 --bench-tab bandwidth --bench-args '--mib 0'");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("usage error: --mib: '0' is out of range"), std::string::npos)
        << r.output;
}

TEST(BenchTabs, ScriptedOptionsAreCheckedBeforeTheWindowOpens) {
    // No display needed: each of these fails before the window.
    auto unknown = run_adilab("--bench-tab nope --frames 1");
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_NE(unknown.output.find("unknown benchmark 'nope' (available: "), std::string::npos)
        << unknown.output;
    auto bad_args = run_adilab("--bench-tab bandwidth --bench-args '--mob 1' --frames 1");
    EXPECT_EQ(bad_args.exit_code, 2);
    EXPECT_NE(bad_args.output.find("--bench-args: unknown option '--mob'"), std::string::npos)
        << bad_args.output;
    auto quote = run_adilab("--bench-tab bandwidth --bench-args \"--mib '1\" --frames 1");
    EXPECT_EQ(quote.exit_code, 2);
    EXPECT_NE(quote.output.find("unterminated"), std::string::npos) << quote.output;
    auto lonely = run_adilab("--bench-args '--mib 1' --frames 1");
    EXPECT_EQ(lonely.exit_code, 2);
    EXPECT_NE(lonely.output.find("need --bench-tab"), std::string::npos) << lonely.output;
    auto export_path =
        run_adilab("--bench-tab bandwidth --bench-export /nonexistent-folder/r.json --frames 1");
    EXPECT_EQ(export_path.exit_code, 1);
    EXPECT_NE(export_path.output.find("/nonexistent-folder"), std::string::npos)
        << export_path.output;
    auto cancel = run_adilab("--bench-cancel-after 2 --frames 1");
    EXPECT_EQ(cancel.exit_code, 2);
    EXPECT_NE(cancel.output.find("need --bench-tab"), std::string::npos) << cancel.output;
    // The sim tab cannot draw the GUI's interface into its own benchmark (--ui).
    auto ui = run_adilab("--bench-tab sim --bench-args '--render 64x64 --ui' --frames 1");
    EXPECT_EQ(ui.exit_code, 2);
    EXPECT_NE(ui.output.find("--bench-args: --ui is not offered in the Sim speed tab"),
              std::string::npos)
        << ui.output;
    auto help = run_adilab("--help");
    for (const char* option :
         {"--bench-tab", "--bench-args", "--bench-export", "--bench-cancel-after"})
        EXPECT_NE(help.output.find(option), std::string::npos) << option;
}

TEST(BenchTabs, TheTridiagAndSimBenchmarksRunFromTheirTabs) {
    ADILAB_NEED_XVFB();
    const std::string dir = temp_folder("bench-tabs-new");
    auto tridiag = run_adilab_gui(
        "--frames 2 --bench-tab tridiag --bench-args '--grid 32,64 --solver "
        "cr-pingpong,lu-scan --direction x --coefficients general --repeats 1 "
        "--warmup-ms 0' --bench-export " +
        dir + "/tridiag.csv --screenshot " + dir + "/tridiag.png");
    ASSERT_EQ(tridiag.exit_code, 0) << tridiag.output;
    EXPECT_NE(tridiag.output.find("run is done: 4 rows"), std::string::npos) << tridiag.output;
    EXPECT_EQ(read_text(dir + "/tridiag.csv").rfind("name,grid,direction,coefficients,", 0), 0u);
    EXPECT_GT(series_pixels(dir + "/tridiag.png"), 20) << "no chart in the screenshot";
    auto sim = run_adilab_gui(
        "--frames 2 --bench-tab sim --bench-args '--scenario heat/two-heaters "
        "--grid 32 --steps 2 --repeats 1' --bench-export " +
        dir + "/sim.json");
    ASSERT_EQ(sim.exit_code, 0) << sim.output;
    EXPECT_NE(sim.output.find("run is done: 1 rows"), std::string::npos) << sim.output;
    EXPECT_NE(read_text(dir + "/sim.json").find("\"steps_per_s\""), std::string::npos);
}

// The seconds a scripted run took to stop after Cancel, from "it stopped X s after Cancel".
double stopped_after(const std::string& output) {
    const std::string marker = "it stopped ";
    const std::size_t at = output.find(marker);
    return at == std::string::npos ? -1.0 : std::atof(output.c_str() + at + marker.size());
}

TEST(BenchTabs, CancelStopsALongRunWithinASecond) {
    ADILAB_NEED_XVFB();
    // Minutes of work on llvmpipe: 500 steps of a 512^2 plate per timed interval (the warm-up
    // and each interval one call into the simulation), and 100000 timed copies of 32 MiB. The
    // tab's Cancel is pressed 3 s into each; the runs stop at their next GPU dispatch. The bound
    // is generous for a loaded machine: the run stops within tens of milliseconds here. (512^2:
    // Cancel waits for the dispatch in flight, and one 1024^2 sweep on llvmpipe under
    // AddressSanitizer beside another test process took seconds in the sanitized CI run.)
    const std::vector<std::string> runs = {
        "--bench-tab sim --bench-args '--scenario heat/two-heaters --grid 512 --steps 500 "
        "--repeats 3'",
        "--bench-tab bandwidth --bench-args '--mib 32 --repeats 100000'"};
    for (const std::string& run : runs) {
        auto r = run_adilab_gui("--frames 2 " + run + " --bench-cancel-after 3");
        ASSERT_EQ(r.exit_code, 0) << "a run cancelled at the script's request: " << r.output;
        EXPECT_NE(r.output.find("pressing Cancel in the"), std::string::npos) << r.output;
        EXPECT_NE(r.output.find("tab's run was cancelled: it stopped"), std::string::npos)
            << r.output;
        const double seconds = stopped_after(r.output);
        EXPECT_GE(seconds, 0.0) << r.output;
        EXPECT_LT(seconds, 3.0) << r.output;
    }
}

TEST(BenchTabs, ClosingTheWindowMidRunExitsWithinASecond) {
    ADILAB_NEED_XVFB();
#ifndef ADILAB_XKEY_EXE
    GTEST_SKIP() << "libX11's headers (libx11-dev) were missing at configure time: no key sender";
#else
    // The worst case: llvmpipe multiplies 1024^2 matrices with gpu-tiled32 in one dispatch of
    // seconds, which nothing can interrupt. The window is closed (WM_DELETE_WINDOW, as a window
    // manager sends it) 3 s into the run: the program exits without waiting for that dispatch.
    const std::string dir = temp_folder("bench-tabs-close");
    const std::string script = dir + "/close.sh";
    std::ofstream(script)
        << "timeout -k 5 300 '" << ADILAB_EXE << "' --frames 100000 --window 1000x700"
        << " --bench-tab matmul --bench-args '--sizes 1024 --impl gpu-tiled32 --repeats 5'"
        << " --first-screenshot '" << dir << "/first.png' &\npid=$!\n'" << ADILAB_XKEY_EXE
        << "' --after '" << dir << "/first.png' adilab close@3000\necho \"keys=$?\"\n"
        << "closed=$(date +%s.%N)\nwait $pid\necho \"adilab=$?\"\n"
        << "echo \"exit_seconds=$(echo \"$(date +%s.%N) - $closed\" | bc)\"\n";
    const auto lock = std::filesystem::temp_directory_path() / "adilab-xvfb.lock";
    const ProcessResult r =
        run_command("XDG_CONFIG_HOME='" + dir + "' HOME='" + dir + "' flock -o -w 600 '" +
                    lock.string() + "' xvfb-run -a -s '-screen 0 1024x768x24' sh '" + script + "'");
    ASSERT_NE(r.output.find("keys=0"), std::string::npos) << r.output;
    // Exit 1: a scripted tab's run that did not finish; never a crash (134, 139) or the timeout.
    EXPECT_NE(r.output.find("adilab=1"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("did not finish (the window was closed)"), std::string::npos)
        << r.output;
    const std::size_t at = r.output.find("exit_seconds=");
    ASSERT_NE(at, std::string::npos) << r.output;
    const double seconds = std::atof(r.output.c_str() + at + 13);
    EXPECT_GT(seconds, 0.0) << r.output;
    EXPECT_LT(seconds, 3.0) << r.output;
#endif
}

}  // namespace
}  // namespace adilab::test
