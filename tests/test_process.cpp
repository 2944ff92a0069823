#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

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

TEST(Process, ALinkAtAnOutputFileIsRefusedNotFollowed) {
  // The program's output files were opened with O_CREAT|O_TRUNC: a link at that name (a predictable one in a shared
  // folder, such as the kprof-kernels reply in /tmp) had its target truncated and written by the program (issue 24).
  auto dir = std::filesystem::temp_directory_path() / ("kprof_test_process_link_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  write_file_atomic(dir / "victim", "precious");
  std::filesystem::create_symlink(dir / "victim", dir / "o.txt");
  for (bool as_stderr : {false, true}) {
    ProcessSpec s;
    s.argv = {"/bin/sh", "-c", "echo overwritten; echo overwritten >&2"};
    (as_stderr ? s.stderr_file : s.stdout_file) = (dir / "o.txt").string();
    try {
      run_process(s);
      ADD_FAILURE() << "expected an error (" << (as_stderr ? "stderr" : "stdout") << ")";
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), kExitCannotWrite);
      EXPECT_NE(std::string(e.what()).find("o.txt"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("symbolic link"), std::string::npos) << e.what();
    }
    EXPECT_EQ(read_file(dir / "victim"), "precious");
    EXPECT_TRUE(std::filesystem::is_symlink(dir / "o.txt"));
  }
  std::filesystem::remove_all(dir);
}
