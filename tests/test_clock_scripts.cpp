// The shell scripts against the fake nvidia-smi: dry runs print the commands and change nothing; --yes runs them
// and records the state that reset-gpu-clock.sh restores.
#include <gtest/gtest.h>

#include "clock_test_env.hpp"
#include "collect/clock/clock_saved_state.hpp"
#include "collect/clock/nvidia_smi.hpp"

using namespace kprof;

namespace {
const std::string kScripts = KPROF_SOURCE_DIR + "/scripts/";
const std::string kSmi = KPROF_FIXTURES + "/fake-nvidia-smi/nvidia-smi";

CommandResult script(const std::string& name, std::vector<std::string> args) {
  args.insert(args.begin(), {"bash", kScripts + name});
  return run_command(args);
}
}  // namespace

TEST(ClockScripts, LockDryRunPrintsCommandsAndChangesNothing) {
  clocktest::FakeSmiEnv env;
  auto r = script("lock-gpu-clock.sh", {"--gpu", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("# dry run"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n" + kSmi + " -i 1 -lgc 1980,1980\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("-lmc"), std::string::npos) << "HBM memory clock must be left alone: " << r.out;
  EXPECT_EQ(env.changes(), "");
  EXPECT_NE(env.calls().find("--query-gpu="), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(clock_state_path(1)));
}

TEST(ClockScripts, ResetDryRunWithoutRecordPrintsBothResets) {
  clocktest::FakeSmiEnv env;
  auto r = script("reset-gpu-clock.sh", {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\n" + kSmi + " -i 0 -rgc\n" + kSmi + " -i 0 -rmc\n"), std::string::npos) << r.out;
  EXPECT_EQ(env.calls(), "");
}

TEST(ClockScripts, LockWithYesRecordsStateAndResetRestoresIt) {
  clocktest::FakeSmiEnv env;
  clocktest::FakeSmiEnv::set("FAKE_SMI_SET_clocks_default_applications_memory", "1593");
  auto r = script("lock-gpu-clock.sh", {"--gpu", "2", "--yes"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(env.changes(), "-i 2 -lgc 1980,1980\n-i 2 -lmc 1593,1593\n");
  auto saved = load_clock_state(2);  // the C++ side reads what the script wrote
  ASSERT_TRUE(saved);
  EXPECT_EQ(saved->locked_sm_mhz, 1980);
  EXPECT_EQ(saved->locked_mem_mhz, 1593);
  EXPECT_EQ(saved->sm_mhz_before, 345);
  EXPECT_EQ(saved->name, "NVIDIA H200");

  auto dry = script("reset-gpu-clock.sh", {"--gpu", "2"});
  EXPECT_NE(dry.out.find("-i 2 -rgc\n"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(clock_state_path(2)));

  clocktest::FakeSmiEnv::set("KPROF_ALLOW_CLOCK_CHANGE", "1");
  auto reset = script("reset-gpu-clock.sh", {"--gpu", "2"});
  ASSERT_EQ(reset.exit_code, 0) << reset.err;
  EXPECT_EQ(env.changes(), "-i 2 -lgc 1980,1980\n-i 2 -lmc 1593,1593\n-i 2 -rgc\n-i 2 -rmc\n");
  EXPECT_FALSE(std::filesystem::exists(clock_state_path(2)));
}

TEST(ClockScripts, FailedLockLeavesNoRecordAndFails) {
  clocktest::FakeSmiEnv env;
  clocktest::FakeSmiEnv::set("FAKE_SMI_DENY", "1");
  auto r = script("lock-gpu-clock.sh", {"--yes"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(clock_state_path(0)));
}

TEST(ClockScripts, OldDriverFieldNameAndBadArguments) {
  clocktest::FakeSmiEnv env;
  clocktest::FakeSmiEnv::set("FAKE_SMI_OLD_DRIVER", "1");
  auto r = script("lock-gpu-clock.sh", {});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(env.calls().find("clocks_throttle_reasons.active"), std::string::npos);
  EXPECT_EQ(script("lock-gpu-clock.sh", {"--gpu", "x"}).exit_code, 2);
  EXPECT_EQ(script("lock-gpu-clock.sh", {"--sm-mhz", "2500"}).exit_code, 2);
  EXPECT_EQ(script("reset-gpu-clock.sh", {"--bogus"}).exit_code, 2);
}
