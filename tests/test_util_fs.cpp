// util/fs: copy_file_atomic, the artifact's copy of its raw inputs (session/artifact.hpp ExtraFile::copy_of).
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "util/errors.hpp"
#include "util/fs.hpp"

namespace fs = std::filesystem;
using namespace kprof;

namespace {

const fs::path kRoot = fs::temp_directory_path() / ("kprof_test_fs_" + std::to_string(::getpid()));

// A fresh folder per test; the whole root is removed when the test program ends.
fs::path scratch(const std::string& name) {
  static const struct Cleanup {
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(kRoot, ec);
    }
  } cleanup;
  fs::path d = kRoot / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::size_t files_in(const fs::path& d) {
  std::size_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(d)) n += e.is_regular_file();
  return n;
}

}  // namespace

TEST(CopyFileAtomic, CopiesARegularFileByteForByte) {
  fs::path d = scratch("regular");
  std::string bytes(3 << 20, '\0');  // 3 MiB: more than one buffer, all byte values
  std::mt19937 rng(7);
  for (auto& c : bytes) c = static_cast<char>(rng());
  write_file_atomic(d / "in.csv", bytes);
  copy_file_atomic(d / "in.csv", d / "out/sub/copy.csv");  // parents created
  EXPECT_EQ(read_file(d / "out/sub/copy.csv"), bytes);
  EXPECT_EQ(files_in(d), 2u);  // no temporary file left
  write_file_atomic(d / "empty.csv", "");
  copy_file_atomic(d / "empty.csv", d / "empty-copy.csv");
  EXPECT_TRUE(fs::exists(d / "empty-copy.csv"));
  EXPECT_EQ(fs::file_size(d / "empty-copy.csv"), 0u);
}

TEST(CopyFileAtomic, FilesThatReportNoSizeAreCopiedThroughABuffer) {
  // procfs reports size 0: copy_file_range would copy nothing.
  fs::path d = scratch("procfs");
  copy_file_atomic("/proc/self/status", d / "status");
  std::string got = read_file(d / "status");
  EXPECT_EQ(got.rfind("Name:", 0), 0u) << got.substr(0, 80);
}

TEST(CopyFileAtomic, AMissingSourceIsBadInputAndLeavesNothing) {
  fs::path d = scratch("missing");
  try {
    copy_file_atomic(d / "nope.csv", d / "copy.csv");
    FAIL() << "expected Error";
  } catch (const CannotWrite&) {
    FAIL() << "a missing source is not a write error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), kExitBadInput);
    EXPECT_NE(std::string(e.what()).find("nope.csv"), std::string::npos) << e.what();
  }
  EXPECT_EQ(files_in(d), 0u);
  EXPECT_THROW(copy_file_atomic(d, d / "copy.csv"), Error);  // a directory
  EXPECT_THROW(copy_file_atomic(d / "nope.csv", d / "new/dir/copy.csv"), Error);
  EXPECT_FALSE(fs::exists(d / "new"));  // a bad source creates no folder for the copy
  EXPECT_EQ(files_in(d), 0u);
}

TEST(CopyFileAtomic, AnUnwritableDestinationIsCannotWrite) {
  fs::path d = scratch("unwritable");
  write_file_atomic(d / "in.csv", "\"ID\"\n");
  write_file_atomic(d / "file", "x");
  try {
    copy_file_atomic(d / "in.csv", d / "file/copy.csv");  // a path under a file
    FAIL() << "expected CannotWrite";
  } catch (const CannotWrite& e) {
    EXPECT_EQ(e.exit_code(), kExitCannotWrite);
  }
  EXPECT_EQ(files_in(d), 2u);
}

// --- writes never follow links (issue 24) -------------------------------------------------------------------------

TEST(WriteFileAtomic, ALinkPlantedAtTheOldTemporaryNameIsNotWrittenThrough) {
  // The temporary file was "<file>.tmp.<pid>", opened without O_EXCL: a link planted there was followed and its
  // target truncated and overwritten.
  fs::path d = scratch("planted");
  write_file_atomic(d / "victim", "precious");
  fs::create_symlink(d / "victim", d / ("report.md.tmp." + std::to_string(::getpid())));
  write_file_atomic(d / "report.md", "new report");
  EXPECT_EQ(read_file(d / "victim"), "precious");
  EXPECT_EQ(read_file(d / "report.md"), "new report");
  EXPECT_FALSE(fs::is_symlink(d / "report.md"));
}

TEST(WriteFileAtomic, ALinkedDestinationIsReplacedNotItsTarget) {
  fs::path d = scratch("linked_dest");
  write_file_atomic(d / "target", "target's own");
  fs::create_symlink(d / "target", d / "out.md");
  write_file_atomic(d / "out.md", "written");
  EXPECT_FALSE(fs::is_symlink(d / "out.md"));
  EXPECT_EQ(read_file(d / "out.md"), "written");
  EXPECT_EQ(read_file(d / "target"), "target's own");
  write_file_atomic(d / "in.csv", "copied");
  fs::create_symlink(d / "target", d / "copy.csv");
  copy_file_atomic(d / "in.csv", d / "copy.csv");
  EXPECT_FALSE(fs::is_symlink(d / "copy.csv"));
  EXPECT_EQ(read_file(d / "copy.csv"), "copied");
  EXPECT_EQ(read_file(d / "target"), "target's own");
}

TEST(WriteFileAtomic, ANameOf250BytesIsWritable) {
  // "<250 bytes>.tmp.<pid>" was over NAME_MAX: ENAMETOOLONG.
  fs::path d = scratch("long_name");
  const std::string name(250, 'n');
  write_file_atomic(d / name, "long");
  EXPECT_EQ(read_file(d / name), "long");
  copy_file_atomic(d / name, d / (std::string(249, 'c') + "é"));  // 251 bytes, a two-byte character at the end
  EXPECT_EQ(read_file(d / (std::string(249, 'c') + "é")), "long");
  EXPECT_EQ(files_in(d), 2u);
}

TEST(WriteFileAtomic, ThreadsWritingOneFileNeverShareATemporary) {
  // One temporary name per process: a thread's rename took the file another was still writing, whose own rename
  // then failed (ENOENT) or published a mix.
  fs::path d = scratch("threads");
  constexpr int kThreads = 50;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      std::string content(64 << 10, static_cast<char>('A' + t % 26));
      for (int i = 0; i < 4; ++i) try {
          write_file_atomic(d / "shared.md", content);
          copy_file_atomic(d / "shared.md", d / "copy.md");
        } catch (const Error&) {
          ++failures;
        }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  for (auto f : {"shared.md", "copy.md"}) {
    std::string got = read_file(d / f);
    ASSERT_EQ(got.size(), 64u << 10);
    EXPECT_EQ(got.find_first_not_of(got[0]), std::string::npos) << f << ": a mix of two writers";
  }
  EXPECT_EQ(files_in(d), 2u);  // no temporary file left
}

TEST(WriteFileAtomic, AFileAtThePredictableOldTemporaryNameIsLeftAlone) {
  // The old temporary name was predictable and opened with O_TRUNC: a file there was overwritten and renamed away.
  fs::path d = scratch("unpredictable");
  const fs::path in_the_way = d / ("f.tmp." + std::to_string(::getpid()));
  write_file_atomic(in_the_way, "in the way");
  write_file_atomic(d / "f", "new");
  EXPECT_EQ(read_file(d / "f"), "new");
  EXPECT_EQ(read_file(in_the_way), "in the way");
}
