// The viewer's video writer (app/gui/video.hpp) without a window: PNG frame sequences, the pipe
// to ffmpeg (a stand-in script that stores what it is given, so that the bytes, the arguments and
// the rename into place are checked where ffmpeg is not installed), and its failures.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/gui/video.hpp"
#include "solvers/gl/error.hpp"
#include "tests/support/temp_folder.hpp"

namespace adilab::gui {
namespace {

namespace fs = std::filesystem;

fs::path fresh_folder(const std::string& name) {
    return test::temp_folder("video-" + name);
}

fs::path script(const fs::path& folder, const std::string& body) {
    const fs::path path = folder / "ffmpeg";
    std::ofstream(path) << "#!/bin/sh\n" << body;
    fs::permissions(path, fs::perms::owner_all);
    return path;
}

std::vector<unsigned char> frame(const VideoSettings& s, unsigned char value) {
    return std::vector<unsigned char>(std::size_t(s.width) * std::size_t(s.height) * 4, value);
}

std::string read_all(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

TEST(VideoWriter, SettingsAreClampedToEvenSizesAndARate) {
    VideoSettings s;
    s.width = 641;
    s.height = 3;
    s.fps = 0;
    s = clamped(s);
    EXPECT_EQ(s.width, 640);  // 4:2:0 video needs even sides
    EXPECT_EQ(s.height, 16);
    EXPECT_EQ(s.fps, 1);
}

TEST(VideoWriter, FindsAProgramOnAPathList) {
    const fs::path folder = fresh_folder("path");
    const fs::path program = script(folder, "exit 0\n");
    std::ofstream(folder / "not-executable") << "x";
    EXPECT_EQ(find_program("ffmpeg", "/nonexistent:" + folder.string()), program);
    EXPECT_TRUE(find_program("not-executable", folder.string()).empty());
    EXPECT_TRUE(find_program("ffmpeg", "/nonexistent").empty());
}

TEST(VideoWriter, PngFramesHaveTheCountAndSize) {
    const fs::path folder = fresh_folder("png");
    VideoSettings s;
    s.width = 32;
    s.height = 18;
    s.format = VideoSettings::Format::png;
    VideoWriter writer;
    writer.start(folder, s, {});
    for (int k = 0; k < 5; ++k) writer.add(frame(s, static_cast<unsigned char>(40 * k)));
    const VideoWriter::Result result = writer.stop();
    EXPECT_TRUE(result.error.empty()) << result.error;
    EXPECT_FALSE(result.mp4);
    EXPECT_TRUE(result.note.empty()) << "PNG was asked for: " << result.note;
    EXPECT_EQ(result.frames, 5);
    int pngs = 0;
    for (const auto& entry : fs::directory_iterator(result.path)) {
        ++pngs;
        const std::string bytes = read_all(entry.path());
        ASSERT_GT(bytes.size(), 24u);
        EXPECT_EQ(bytes.substr(1, 3), "PNG");
        // The IHDR chunk: width and height, big-endian, at bytes 16 and 20.
        auto be32 = [&](std::size_t at) {
            return (unsigned(static_cast<unsigned char>(bytes[at])) << 24) |
                   (unsigned(static_cast<unsigned char>(bytes[at + 1])) << 16) |
                   (unsigned(static_cast<unsigned char>(bytes[at + 2])) << 8) |
                   unsigned(static_cast<unsigned char>(bytes[at + 3]));
        };
        EXPECT_EQ(be32(16), 32u);
        EXPECT_EQ(be32(20), 18u);
    }
    EXPECT_EQ(pngs, 5);
    EXPECT_TRUE(fs::exists(result.path / "frame-000005.png"));
}

TEST(VideoWriter, WithoutFfmpegAnMp4BecomesPngFramesAndSaysSo) {
    const fs::path folder = fresh_folder("fallback");
    VideoSettings s;
    s.width = 16;
    s.height = 16;
    VideoWriter writer;
    writer.start(folder, s, {});  // MP4 asked for, no ffmpeg found
    writer.add(frame(s, 1));
    const VideoWriter::Result result = writer.stop();
    EXPECT_FALSE(result.mp4);
    EXPECT_EQ(result.frames, 1);
    EXPECT_NE(result.note.find("ffmpeg is not on PATH"), std::string::npos) << result.note;
    EXPECT_TRUE(fs::is_directory(result.path));
}

TEST(VideoWriter, FramesArePipedToFfmpegAndItsFileIsRenamedIntoPlace) {
    const fs::path folder = fresh_folder("pipe");
    // The stand-in writes its arguments beside it and its stdin to its last argument, the file
    // adilab gave it (a temporary name, renamed once it exits 0).
    const fs::path ffmpeg = script(folder,
                                   "for last; do :; done\necho \"$@\" > \"$0.args\"\n"
                                   "cat > \"$last\"\n");
    VideoSettings s;
    s.width = 20;
    s.height = 16;
    s.fps = 24;
    VideoWriter writer;
    writer.start(folder / "videos", s, ffmpeg);
    EXPECT_EQ(writer.path().extension(), ".mp4");
    EXPECT_FALSE(fs::exists(writer.path())) << "only the temporary file exists while recording";
    for (int k = 0; k < 7; ++k) writer.add(frame(s, static_cast<unsigned char>(k)));
    const VideoWriter::Result result = writer.stop();
    EXPECT_TRUE(result.error.empty()) << result.error;
    EXPECT_TRUE(result.mp4);
    EXPECT_EQ(result.frames, 7);
    const std::string bytes = read_all(result.path);
    ASSERT_EQ(bytes.size(), 7u * 20 * 16 * 4) << "seven raw RGBA frames, in order";
    EXPECT_EQ(bytes[0], 0);
    EXPECT_EQ(bytes[6 * 20 * 16 * 4], 6);
    const std::string args = read_all(folder / "ffmpeg.args");
    EXPECT_NE(args.find("-pix_fmt rgba -video_size 20x16 -framerate 24 -i pipe:0"),
              std::string::npos)
        << args;
    for (const auto& entry : fs::directory_iterator(folder / "videos"))
        EXPECT_EQ(entry.path().string().find(".tmp-"), std::string::npos) << entry.path();
}

TEST(VideoWriter, AFailingFfmpegLeavesNoFileAndSaysWhy) {
    const fs::path folder = fresh_folder("fail");
    const fs::path ffmpeg = script(folder, "cat > /dev/null\nexit 3\n");
    VideoSettings s;
    s.width = 16;
    s.height = 16;
    VideoWriter writer;
    writer.start(folder / "videos", s, ffmpeg);
    writer.add(frame(s, 1));
    const VideoWriter::Result result = writer.stop();
    EXPECT_NE(result.error.find("exited with status 3"), std::string::npos) << result.error;
    EXPECT_FALSE(fs::exists(result.path));
    EXPECT_TRUE(fs::is_empty(folder / "videos")) << "the temporary file is removed";
}

TEST(VideoWriter, AnFfmpegThatStopsReadingStopsTheVideoWithAMessage) {
    const fs::path folder = fresh_folder("gone");
    const fs::path ffmpeg = script(folder, "exit 0\n");  // reads nothing
    VideoSettings s;
    s.width = 512;
    s.height = 512;  // 1 MiB a frame: more than a pipe holds
    VideoWriter writer;
    writer.start(folder / "videos", s, ffmpeg);
    bool refused = false;
    for (int k = 0; k < 20 && !refused; ++k) {
        try {
            writer.add(frame(s, 1));
        } catch (const Error& e) {
            refused = true;
            EXPECT_NE(std::string(e.what()).find("ffmpeg stopped reading"), std::string::npos)
                << e.what();
        }
    }
    EXPECT_TRUE(refused);
    const VideoWriter::Result result = writer.stop();
    EXPECT_FALSE(result.error.empty());
}

TEST(VideoWriter, AMissingFolderParentIsAnErrorNamingIt) {
    const fs::path folder = fresh_folder("missing");
    const fs::path file = folder / "a-file";
    std::ofstream(file) << "x";
    VideoWriter writer;
    try {
        writer.start(file / "videos", VideoSettings{}, {});
        FAIL() << "a folder under a file was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("a-file"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(writer.active());
}

// The files module's protocol for outputs that another program writes: the target is untouched
// until commit() renames the temporary file over it; without commit() the temporary goes.
TEST(PendingFile, CommitRenamesAndAbandonLeavesTheOldFile) {
    const fs::path folder = fresh_folder("pending");
    const fs::path target = folder / "out.mp4";
    std::ofstream(target) << "old";
    {
        files::PendingFile pending(target);
        EXPECT_EQ(pending.temporary().parent_path(), folder) << "same folder: rename is atomic";
        std::ofstream(pending.temporary()) << "half";
    }  // destroyed without commit()
    EXPECT_EQ(read_all(target), "old");
    EXPECT_EQ(std::distance(fs::directory_iterator(folder), fs::directory_iterator()), 1);
    files::PendingFile pending(target);
    std::ofstream(pending.temporary()) << "new";
    pending.commit();
    EXPECT_EQ(read_all(target), "new");
    EXPECT_EQ(std::distance(fs::directory_iterator(folder), fs::directory_iterator()), 1);
    files::PendingFile nothing_written(folder / "never.mp4");
    EXPECT_THROW(nothing_written.commit(), Error) << "no temporary file to rename";
    EXPECT_FALSE(fs::exists(folder / "never.mp4"));
    EXPECT_THROW(files::PendingFile{folder}, Error) << "a folder is no target";
}

}  // namespace
}  // namespace adilab::gui
