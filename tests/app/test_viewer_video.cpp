// The simulation viewer's videos under Xvfb: --record-video with --frames (every frame of the
// run at the chosen size, as PNG frames or piped to ffmpeg as an MP4) and F10 in an interactive
// run (frames at most the saved rate a second of the wall clock).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/support/viewer.hpp"

namespace adilab::test {
namespace {

TEST_F(Viewer, VideoHasEveryFrameAtTheRequestedSizeAsPngFrames) {
    ADILAB_NEED_XVFB();
    auto r =
        run("--model heat --scenario two-heaters --grid 64 --frames 8 "
            "--record-video " +
            dir +
            "/videos --video-size 320x180 "
            "--video-fps 24 --video-format png");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("video written to " + dir + "/videos/adilab-video-"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("(8 PNG frames, 320x180 at 24 fps)"), std::string::npos) << r.output;
    const auto frames = files_in(dir + "/videos");
    ASSERT_EQ(frames.size(), 8u) << r.output;
    const Image first = load_png(frames.front().string()), last = load_png(frames.back().string());
    ASSERT_TRUE(first.ok() && last.ok());
    EXPECT_EQ(first.width, 320);
    EXPECT_EQ(first.height, 180);
    EXPECT_EQ(frames.back().filename(), "frame-000008.png");
    EXPECT_GT(difference(first, last), 0.05) << "the frames follow the simulation";
    EXPECT_GT(colour_count(last), 20u);
}

TEST_F(Viewer, VideoAsMp4IsPipedToFfmpegOrSaysItWrotePngFrames) {
    ADILAB_NEED_XVFB();
    const bool have_ffmpeg = run_command("command -v ffmpeg").exit_code == 0;
    // Without ffmpeg on PATH: PNG frames and a message that says so.
    if (!have_ffmpeg) {
        auto r = run("--model heat --grid 32 --frames 3 --record-video " + dir +
                     "/plain --video-size 64x48");
        ASSERT_EQ(r.exit_code, 0) << r.output;
        EXPECT_NE(r.output.find("ffmpeg is not on PATH, so PNG frames instead of an MP4"),
                  std::string::npos)
            << r.output;
        EXPECT_EQ(files_in(dir + "/plain").size(), 3u);
    }
    // A stand-in ffmpeg first on PATH that stores the frames it is piped: adilab's side of the
    // pipe (the raw frames, their count and size, the rename into place), wherever ffmpeg is
    // missing.
    std::filesystem::create_directories(dir + "/bin");
    write_text(dir + "/bin/ffmpeg", "#!/bin/sh\nfor last; do :; done\ncat > \"$last\"\n");
    std::filesystem::permissions(dir + "/bin/ffmpeg", std::filesystem::perms::owner_all);
    auto r = run(
        "--model heat --grid 32 --frames 5 --record-video " + dir + "/stand-in --video-size 64x48",
        "480x300", "PATH='" + dir + "/bin':\"$PATH\" ");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    auto files = files_in(dir + "/stand-in");
    ASSERT_EQ(files.size(), 1u) << r.output;
    EXPECT_EQ(files[0].extension(), ".mp4");
    EXPECT_EQ(std::filesystem::file_size(files[0]), 5u * 64 * 48 * 4) << "five raw 64x48 frames";
    EXPECT_NE(r.output.find("(5 frames, 64x48 at 30 fps)"), std::string::npos) << r.output;
    if (!have_ffmpeg)
        GTEST_SKIP() << "ffmpeg is not installed: the MP4 was checked with a stand-in that stores "
                        "the piped frames (apt-get install ffmpeg for the real encoder)";
    r = run("--model heat --grid 32 --frames 6 --record-video " + dir + "/real --video-size 64x48");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    files = files_in(dir + "/real");
    ASSERT_EQ(files.size(), 1u) << r.output;
    EXPECT_EQ(files[0].extension(), ".mp4");
    EXPECT_GT(std::filesystem::file_size(files[0]), 100u);
    if (run_command("command -v ffprobe").exit_code == 0) {
        const ProcessResult probe = run_command(
            "ffprobe -v error -count_frames -select_streams v:0 -show_entries "
            "stream=nb_read_frames,width,height -of csv=p=0 '" +
            files[0].string() + "'");
        EXPECT_NE(probe.output.find("64,48,6"), std::string::npos) << probe.output;
    }
}

TEST_F(Viewer, F10StartsAndStopsAVideoOfTheSavedSize) {
    ADILAB_NEED_XVFB();
    ADILAB_NEED_KEY_SENDER();
    save_settings("videos_folder = " + dir +
                  "/videos\nvideo_format = png\nvideo_width = 160\n"
                  "video_height = 90\nvideo_fps = 10\n");
    const KeyRun session =
        run_keys("--window 480x300 --model heat --scenario two-heaters --grid 32",
                 "F10@300 F10@1500 close@300");
    ASSERT_TRUE(session.ended_cleanly());
    const auto frames = files_in(dir + "/videos");
    ASSERT_FALSE(frames.empty()) << "F10 wrote no video: " << session.output;
    // At most 10 frames a second of the ~1.5 s between the presses (and the frames it took to
    // see them), however fast the window ran.
    EXPECT_LE(frames.size(), 30u);
    const Image image = load_png(frames.front().string());
    EXPECT_EQ(image.width, 160);
    EXPECT_EQ(image.height, 90);
    EXPECT_NE(session.output.find("status: video " + dir + "/videos/adilab-video-"),
              std::string::npos)
        << "the status line says where: " << session.output;
}

}  // namespace
}  // namespace adilab::test
