// `kprof clock status|lock|reset`: the bodies the CLI calls. Each returns a process exit code.
// Clocks change only when allowed (--yes or KPROF_ALLOW_CLOCK_CHANGE=1); otherwise the commands are printed.
#pragma once
#include <optional>
#include <ostream>

namespace kprof {

struct ClockCommandOptions {
  int gpu = 0;
  bool yes = false;             // --yes
  std::optional<int> sm_mhz;    // lock: override the default application clock
};

// --yes, or KPROF_ALLOW_CLOCK_CHANGE=1 in the environment.
bool clock_change_allowed(bool yes);

// Prints current, maximum and application clocks, active event reasons and any recorded lock.
int clock_status(const ClockCommandOptions& o, std::ostream& out);
// The same as JSON (schema kprof.clock-status/1): {"gpu", "name", "sm_mhz", "mem_mhz", "max_sm_mhz", "max_mem_mhz",
// "app_sm_mhz", "app_mem_mhz", "default_app_sm_mhz", "default_app_mem_mhz", "event_reasons": [...] or null,
// "locked_by_kprof": {"sm_mhz", "by", "at", "record"} or null}; unknown clocks are null.
int clock_status_json(const ClockCommandOptions& o, std::ostream& out);
// Dry run (exit 0) unless allowed; then records the state and runs the plan.
int clock_lock(const ClockCommandOptions& o, std::ostream& out, std::ostream& err);
// Restores the recorded state (or resets both clocks when none); dry run unless allowed.
int clock_reset(const ClockCommandOptions& o, std::ostream& out, std::ostream& err);

}  // namespace kprof
