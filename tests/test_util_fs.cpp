// util/fs: copy_file_atomic, the artifact's copy of its raw inputs (session/artifact.hpp ExtraFile::copy_of).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

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
