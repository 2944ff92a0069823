#include <gtest/gtest.h>

#include <filesystem>

#include "util/errors.hpp"
#include "util/fs.hpp"
#include "util/process.hpp"

using namespace kprof;

TEST(Process, CapturesOutputAndExitCode) {
  auto dir = std::filesystem::temp_directory_path() / "kprof_test_process";
  ProcessSpec s;
  s.argv = {"/bin/sh", "-c", "echo out; echo err >&2; exit 3"};
  s.stdout_file = (dir / "o.txt").string();
  s.stderr_file = (dir / "e.txt").string();
  auto r = run_process(s);
  EXPECT_FALSE(r.signaled);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(read_file(dir / "o.txt"), "out\n");
  EXPECT_EQ(read_file(dir / "e.txt"), "err\n");
  EXPECT_EQ(r.describe(), "exited with code 3");
}

TEST(Process, ReportsSignalAndEnvironment) {
  ProcessSpec s;
  s.argv = {"/bin/sh", "-c", "test \"$KPROF_X\" = 42 && kill -SEGV $$"};
  s.env_set["KPROF_X"] = "42";
  auto r = run_process(s);
  EXPECT_TRUE(r.signaled);
  EXPECT_EQ(r.signal, SIGSEGV);
}

TEST(Process, MissingProgramIsNoToolError) {
  ProcessSpec s;
  s.argv = {"kprof-no-such-program-xyz"};
  try {
    run_process(s);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), kExitNoTool);
  }
}
