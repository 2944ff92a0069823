// session::append_devlog under concurrency (issue 24): every writer's entry is kept, and two artifacts that share a
// heading (same kernel, version and mode in one second) each get theirs.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "session/publish.hpp"
#include "support/concurrent_writers.hpp"
#include "support/sample_run.hpp"
#include "support/shell.hpp"
#include "util/fs.hpp"

namespace fs = std::filesystem;
using namespace kprof;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

fs::path fresh(const std::string& name) {
  fs::path d = test::scratch_dir("devlog_append") / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

}  // namespace

TEST(AppendDevlog, TwoArtifactsInOneSecondBothGetAnEntry) {
  // The heading (version — timestamp to the second — mode) was the key: the second artifact's entry was dropped as
  // "already there".
  fs::path d = fresh("same_second");
  ProfileRun run = kprof::testing::sample_run();
  bool appended = false;
  fs::path file = session::append_devlog(run, (d / "docs").string(), &appended, d / "out/a");
  EXPECT_TRUE(appended);
  session::append_devlog(run, (d / "docs").string(), &appended, d / "out/a-2");
  EXPECT_TRUE(appended);
  session::append_devlog(run, (d / "docs").string(), &appended, d / "out/a");  // the same artifact again
  EXPECT_FALSE(appended);
  const std::string md = read_file(file);
  EXPECT_EQ(count(md, "\n## "), 2u) << md;
  EXPECT_EQ(count(md, "<!-- kprof artifact: " + (d / "out/a").string() + " -->\n"), 1u) << md;
  EXPECT_EQ(count(md, "<!-- kprof artifact: " + (d / "out/a-2").string() + " -->\n"), 1u) << md;
  EXPECT_EQ(std::vector<fs::path>(fs::directory_iterator(d / "docs"), {}).size(), 1u);  // no lock file left
}

TEST(AppendDevlog, AnEntryWithoutAMarkStillCountsForItsHeading) {
  // A devlog written before entries were marked: the same run's entry is not added again.
  fs::path d = fresh("legacy");
  ProfileRun run = kprof::testing::sample_run();
  fs::path file = session::append_devlog(run, (d / "docs").string());
  bool appended = true;
  session::append_devlog(run, (d / "docs").string(), &appended, d / "out/a");
  EXPECT_FALSE(appended);
  EXPECT_EQ(count(read_file(file), "\n## "), 1u);
}

TEST(AppendDevlog, FiftyConcurrentWritersLoseNoEntry) {
  // Read, add, write back without a lock: writers that read the same old file each wrote it back with only their
  // own entry, and all but one entry were lost.
  fs::path d = fresh("concurrent");
  const std::string docs = (d / "docs").string();
  ProfileRun run = kprof::testing::sample_run();
  constexpr int kProcesses = 25, kThreads = 25;
  const int failures = test::run_concurrent_writers(kProcesses, kThreads, [&](int i, bool child) {
    session::append_devlog(run, docs, nullptr, d / ((child ? "out/p" : "out/t") + std::to_string(i)));
  });
  EXPECT_EQ(failures, 0);
  const std::string md = read_file(d / "docs" / (run.kernel + ".md"));
  EXPECT_EQ(count(md, "\n## "), static_cast<std::size_t>(kProcesses + kThreads));
  for (int i = 0; i < kProcesses; ++i)
    EXPECT_EQ(count(md, (d / ("out/p" + std::to_string(i))).string() + " -->"), 1u) << "p" << i;
  for (int i = 0; i < kThreads; ++i)
    EXPECT_EQ(count(md, (d / ("out/t" + std::to_string(i))).string() + " -->"), 1u) << "t" << i;
  EXPECT_EQ(count(md, "# Devlog:"), 1u);
}
