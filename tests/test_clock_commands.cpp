// The C++ clock protocol against the fake nvidia-smi: query, lock/reset commands, and ClockGuard on each exit path.
#include <gtest/gtest.h>

#include <csignal>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

#include "clock_test_env.hpp"
#include "collect/clock/clock_commands.hpp"
#include "collect/clock/clock_guard.hpp"
#include "collect/clock/clock_saved_state.hpp"
#include "collect/clock/nvidia_smi.hpp"
#include "util/errors.hpp"

using namespace kprof;

TEST(ClockCommands, QueryThroughFakeNvidiaSmi) {
  clocktest::FakeSmiEnv env;
  auto s = query_clocks(4);
  EXPECT_EQ(s.gpu, 4);
  EXPECT_EQ(s.max_sm_mhz, 1980);
  clocktest::FakeSmiEnv::set("FAKE_SMI_OLD_DRIVER", "1");
  EXPECT_EQ(query_clocks(0).max_mem_mhz, 3201);
  EXPECT_THROW(query_clocks(9), Error);  // "No devices were found"
  clocktest::FakeSmiEnv::set("NVIDIA_SMI", "/nonexistent/nvidia-smi");
  try {
    query_clocks(0);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), kExitNoTool);
  }
}

// Issue 25: without nvidia-smi (a machine without the driver), the dry run still prints what it would run, exit 0;
// with --yes it is the missing tool (exit 5).
TEST(ClockCommands, LockDryRunWithoutNvidiaSmiPrintsItsCommands) {
  clocktest::FakeSmiEnv env;
  clocktest::FakeSmiEnv::set("NVIDIA_SMI", "/nonexistent/nvidia-smi");
  std::ostringstream out, err;
  EXPECT_EQ(clock_lock({.gpu = 0}, out, err), kExitOk);
  EXPECT_NE(out.str().find("-i 0 -lgc '<SM>,<SM>'"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("clocks.default_applications.graphics"), std::string::npos) << out.str();
  std::ostringstream out2;
  EXPECT_EQ(clock_lock({.gpu = 0, .sm_mhz = 1500}, out2, err), kExitOk);
  EXPECT_NE(out2.str().find("-i 0 -lgc 1500,1500"), std::string::npos) << out2.str();
  try {
    std::ostringstream out3;
    clock_lock({.gpu = 0, .yes = true}, out3, err);
    ADD_FAILURE() << "locked without nvidia-smi";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), kExitNoTool);
  }
  EXPECT_EQ(env.changes(), "");
}

TEST(ClockCommands, LockIsADryRunUnlessAllowed) {
  clocktest::FakeSmiEnv env;
  std::ostringstream out, err;
  EXPECT_EQ(clock_lock({.gpu = 1}, out, err), kExitOk);
  EXPECT_NE(out.str().find(std::string(KPROF_FIXTURES) + "/fake-nvidia-smi/nvidia-smi -i 1 -lgc 1980,1980"),
            std::string::npos)
      << out.str();
  EXPECT_EQ(env.changes(), "");
  EXPECT_FALSE(load_clock_state(1));
}

TEST(ClockCommands, LockStatusResetRoundTrip) {
  clocktest::FakeSmiEnv env;
  std::ostringstream out, err;
  ASSERT_EQ(clock_lock({.gpu = 0, .yes = true}, out, err), kExitOk) << err.str();
  EXPECT_EQ(env.changes(), "-i 0 -lgc 1980,1980\n");
  ASSERT_TRUE(load_clock_state(0));
  std::ostringstream status;
  EXPECT_EQ(clock_status({.gpu = 0}, status), kExitOk);
  EXPECT_NE(status.str().find("gpu_idle"), std::string::npos) << status.str();
  EXPECT_NE(status.str().find("locked          SM 1980 MHz by kprof"), std::string::npos) << status.str();
  ASSERT_EQ(clock_reset({.gpu = 0, .yes = true}, out, err), kExitOk);
  EXPECT_EQ(env.changes(), "-i 0 -lgc 1980,1980\n-i 0 -rgc\n");
  EXPECT_FALSE(load_clock_state(0));
}

TEST(ClockCommands, PermissionFailureIsReported) {
  clocktest::FakeSmiEnv env;
  clocktest::FakeSmiEnv::set("FAKE_SMI_DENY", "1");
  std::ostringstream out, err;
  EXPECT_EQ(clock_lock({.gpu = 0, .yes = true}, out, err), kExitNoPermission);
}

TEST(ClockGuard, DoesNothingWhenNotLocking) {
  clocktest::FakeSmiEnv env;
  {
    ClockGuard g(0, false);
    EXPECT_FALSE(g.record().locked);
    EXPECT_EQ(g.record().sm_mhz_before, 345);
    auto rec = g.finish();
    EXPECT_EQ(rec.throttle_reasons, std::vector<std::string>{"gpu_idle"});
  }
  EXPECT_EQ(env.changes(), "");
}

TEST(ClockGuard, RestoresOnScopeExitAndException) {
  clocktest::FakeSmiEnv env;
  try {
    ClockGuard g(0, true);
    EXPECT_TRUE(g.record().locked);
    EXPECT_TRUE(load_clock_state(0));
    throw std::runtime_error("profiled program failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(env.changes(), "-i 0 -lgc 1980,1980\n-i 0 -rgc\n");
  EXPECT_FALSE(load_clock_state(0));
}

TEST(ClockGuard, RefusesWhenAnUnrestoredLockIsRecorded) {
  clocktest::FakeSmiEnv env;
  SavedClockState stale;
  stale.gpu = 0;
  stale.locked_by = "kprof (pid 1)";
  save_clock_state(stale);
  try {
    ClockGuard g(0, true);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), kExitBusy);
  }
  EXPECT_EQ(env.changes(), "");
}

namespace {
// Forks; the child locks through a ClockGuard and then leaves via `how`. Returns the child's wait status.
template <typename F>
int in_child(F how) {
  pid_t pid = ::fork();
  if (pid == 0) {
    auto* g = new ClockGuard(0, true);  // never deleted: only the handlers may restore
    (void)g;
    how();
    ::_exit(99);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}
}  // namespace

TEST(ClockGuard, RestoresOnSigterm) {
  clocktest::FakeSmiEnv env;
  int status = in_child([] { ::raise(SIGTERM); });
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGTERM);  // the signal still ends the process after the restore
  EXPECT_EQ(env.changes(), "-i 0 -lgc 1980,1980\n-i 0 -rgc\n");
  EXPECT_FALSE(load_clock_state(0));
}

TEST(ClockGuard, RestoresOnSigint) {
  clocktest::FakeSmiEnv env;
  int status = in_child([] { ::raise(SIGINT); });
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGINT);
  EXPECT_EQ(env.changes(), "-i 0 -lgc 1980,1980\n-i 0 -rgc\n");
}

TEST(ClockGuard, RestoresOnExit) {
  clocktest::FakeSmiEnv env;
  int status = in_child([] { std::exit(3); });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);
  EXPECT_EQ(env.changes(), "-i 0 -lgc 1980,1980\n-i 0 -rgc\n");
}

TEST(ClockGuard, FailedLockUndoesAndThrows) {
  clocktest::FakeSmiEnv env;
  clocktest::FakeSmiEnv::set("FAKE_SMI_DENY", "1");
  EXPECT_THROW(ClockGuard(0, true), Error);
  EXPECT_EQ(env.changes(), "-i 0 -lgc 1980,1980\n-i 0 -rgc\n");
}
