// session::ArtifactStage: two runs that write the same --out, and staging directories left by killed runs (issue 24).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "session/artifact.hpp"
#include "support/shell.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"

namespace fs = std::filesystem;
using namespace kprof;

namespace {

fs::path fresh(const std::string& name) {
  fs::path d = test::scratch_dir("artifact_stage") / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// A staged artifact with one file saying who wrote it.
void stage_files(const session::ArtifactStage& s, const std::string& who) {
  write_file_atomic(s.dir() / "profile.json", "{}");
  write_file_atomic(s.dir() / "who", who);
}

std::size_t entries_in(const fs::path& d) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(d)) ++n;
  return n;
}

}  // namespace

TEST(ArtifactStage, TwoWritersOfOneOutWithoutReplaceDoNotBothSucceed) {
  // Both checked --out before either committed; the second commit then took the "replace" path and swapped the
  // first run's artifact out, although neither asked for --replace.
  fs::path d = fresh("no_replace");
  session::ArtifactStage first(d / "out", true, false), second(d / "out", true, false);
  stage_files(first, "first");
  stage_files(second, "second");
  EXPECT_EQ(first.commit(), d / "out");
  try {
    second.commit();
    FAIL() << "the second writer replaced the first's artifact";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), kExitUsage) << e.what();
    EXPECT_NE(std::string(e.what()).find("--replace"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_file(d / "out/who"), "first");
  EXPECT_EQ(entries_in(d), 1u);  // no staging directory left
}

TEST(ArtifactStage, ReplacingWritersSwapWholeAndLeaveNothingBehind) {
  fs::path d = fresh("replace");
  {
    session::ArtifactStage s(d / "out", true, false);
    stage_files(s, "old");
    s.commit();
  }
  session::ArtifactStage a(d / "out", true, true), b(d / "out", true, true);
  stage_files(a, "a");
  stage_files(b, "b");
  a.commit();
  EXPECT_EQ(read_file(d / "out/who"), "a");
  b.commit();
  EXPECT_EQ(read_file(d / "out/who"), "b");
  EXPECT_EQ(entries_in(d), 1u);  // neither the old artifacts nor a staging directory
  EXPECT_EQ(entries_in(d / "out"), 2u);
}

TEST(ArtifactStage, StagingDirectoriesOfDeadProcessesAreRemoved) {
  fs::path d = fresh("stale");
  pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ASSERT_GT(dead, 0);
  ::waitpid(dead, nullptr, 0);
  const fs::path stale = d / (".old-run.partial-" + std::to_string(dead) + "-1");
  const fs::path alive = d / (".other.partial-" + std::to_string(::getppid()) + "-1");
  const fs::path unmarked = d / (".mine.partial-" + std::to_string(dead) + "-2");
  for (const auto& p : {stale, alive}) write_file_atomic(p / session::kPartialMarker, "kprof: partial artifact\n");
  write_file_atomic(unmarked / "notes.txt", "not a kprof staging directory");
  {
    session::ArtifactStage s(d / "new", true, false);
    EXPECT_FALSE(fs::exists(stale));
    EXPECT_TRUE(fs::exists(alive));     // its process runs
    EXPECT_TRUE(fs::exists(unmarked));  // not marked: not kprof's
  }
}
