#include <gtest/gtest.h>

#include "collect/clock/clock_plan.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"

using namespace kprof;

namespace {
using Cmd = std::vector<std::string>;
ClockState h200() { return parse_clock_query(read_file(KPROF_FIXTURES + "/nvidia-smi/h200-idle.csv"), 0); }
}  // namespace

TEST(ClockPlan, LocksSmToDefaultApplicationClockAndLeavesHbmAlone) {
  auto p = plan_lock(h200());
  ASSERT_EQ(p.commands.size(), 1u);
  EXPECT_EQ(p.commands[0], (Cmd{"nvidia-smi", "-i", "0", "-lgc", "1980,1980"}));
  EXPECT_EQ(p.sm_mhz, 1980);
  EXPECT_FALSE(p.mem_mhz);
}

TEST(ClockPlan, LocksMemoryWhenTheBoardHasSeveralMemoryClocks) {
  auto s = h200();
  s.gpu = 2;
  s.default_app_sm_mhz = 1410;
  s.default_app_mem_mhz = 1593;
  auto p = plan_lock(s, std::nullopt, "/opt/smi");
  ASSERT_EQ(p.commands.size(), 2u);
  EXPECT_EQ(p.commands[0], (Cmd{"/opt/smi", "-i", "2", "-lgc", "1410,1410"}));
  EXPECT_EQ(p.commands[1], (Cmd{"/opt/smi", "-i", "2", "-lmc", "1593,1593"}));
}

TEST(ClockPlan, ExplicitClockIsCheckedAgainstTheMaximum) {
  EXPECT_EQ(plan_lock(h200(), 1500).commands[0][4], "1500,1500");
  try {
    plan_lock(h200(), 2500);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), kExitUsage);
  }
  auto s = h200();
  s.default_app_sm_mhz.reset();
  EXPECT_THROW(plan_lock(s), Error);
}

TEST(ClockPlan, ResetUndoesWhatWasRecorded) {
  SavedClockState saved;
  saved.gpu = 1;
  saved.locked_sm_mhz = 1980;
  auto p = plan_reset(1, saved);
  ASSERT_EQ(p.commands.size(), 1u);
  EXPECT_EQ(p.commands[0], (Cmd{"nvidia-smi", "-i", "1", "-rgc"}));
  saved.locked_mem_mhz = 1593;
  EXPECT_EQ(plan_reset(1, saved).commands.size(), 2u);
}

TEST(ClockPlan, ResetWithoutRecordResetsBoth) {
  auto p = plan_reset(0, std::nullopt);
  ASSERT_EQ(p.commands.size(), 2u);
  EXPECT_EQ(p.commands[0], (Cmd{"nvidia-smi", "-i", "0", "-rgc"}));
  EXPECT_EQ(p.commands[1], (Cmd{"nvidia-smi", "-i", "0", "-rmc"}));
}

TEST(ClockPlan, ShellCommandQuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(shell_command({"nvidia-smi", "-i", "0", "-lgc", "1980,1980"}), "nvidia-smi -i 0 -lgc 1980,1980");
  EXPECT_EQ(shell_command({"/a b/smi", "it's"}), "'/a b/smi' 'it'\\''s'");
}
