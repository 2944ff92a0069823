#include "collect/clock/clock_plan.hpp"

#include <unistd.h>

#include "util/fs.hpp"

#include "util/errors.hpp"

namespace kprof {

ClockPlan plan_lock(const ClockState& state, std::optional<int> sm_mhz, const std::string& program) {
  ClockPlan p;
  p.gpu = state.gpu;
  const std::string gpu = std::to_string(state.gpu);
  if (sm_mhz) {
    p.notes.push_back("SM clock " + std::to_string(*sm_mhz) + " MHz as requested");
  } else if (state.default_app_sm_mhz) {
    sm_mhz = state.default_app_sm_mhz;
    p.notes.push_back("SM clock " + std::to_string(*sm_mhz) + " MHz: the default application clock");
  } else {
    throw Error("GPU " + gpu + " reports no default application clock: pass an SM clock in MHz explicitly",
                kExitUsage);
  }
  if (*sm_mhz <= 0) throw Error("SM clock must be positive, got " + std::to_string(*sm_mhz), kExitUsage);
  if (state.max_sm_mhz && *sm_mhz > *state.max_sm_mhz)
    throw Error("SM clock " + std::to_string(*sm_mhz) + " MHz exceeds GPU " + gpu + "'s maximum " +
                    std::to_string(*state.max_sm_mhz) + " MHz",
                kExitUsage);
  if (state.max_sm_mhz && *sm_mhz == *state.max_sm_mhz)
    p.notes.push_back("this is also the maximum SM clock: power or thermal capping can still lower it");
  p.sm_mhz = sm_mhz;
  const std::string sm = std::to_string(*sm_mhz);
  p.commands.push_back({program, "-i", gpu, "-lgc", sm + "," + sm});

  const auto mem = state.default_app_mem_mhz ? state.default_app_mem_mhz : state.max_mem_mhz;
  if (mem && state.max_mem_mhz && *mem != *state.max_mem_mhz) {
    p.mem_mhz = mem;
    const std::string m = std::to_string(*mem);
    p.commands.push_back({program, "-i", gpu, "-lmc", m + "," + m});
    p.notes.push_back("memory clock " + m + " MHz: the default application memory clock");
  } else if (mem) {
    p.notes.push_back("memory clock left alone: the board runs it at one clock (" + std::to_string(*mem) + " MHz)");
  } else {
    p.notes.push_back("memory clock left alone: not reported");
  }
  return p;
}

ClockPlan plan_reset(int gpu, const std::optional<SavedClockState>& saved, const std::string& program) {
  ClockPlan p;
  p.gpu = gpu;
  const std::string g = std::to_string(gpu);
  if (!saved) {
    p.notes.push_back("no recorded lock for GPU " + g + ": resetting SM and memory clocks to their defaults");
    p.commands.push_back({program, "-i", g, "-rgc"});
    p.commands.push_back({program, "-i", g, "-rmc"});
    return p;
  }
  p.notes.push_back("restoring the state recorded " + saved->timestamp + " by " + saved->locked_by);
  p.commands.push_back({program, "-i", g, "-rgc"});
  if (saved->locked_mem_mhz) p.commands.push_back({program, "-i", g, "-rmc"});
  return p;
}

std::string shell_command(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    if (!s.empty()) s += ' ';
    bool plain = !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                   "0123456789-_.,/=:+@%") == std::string::npos;
    if (plain) {
      s += a;
    } else {
      s += '\'';
      for (char c : a) s += (c == '\'') ? std::string("'\\''") : std::string(1, c);
      s += '\'';
    }
  }
  return s;
}

SavedClockState state_before_lock(const ClockState& s, const ClockPlan& plan) {
  SavedClockState saved;
  saved.gpu = s.gpu;
  saved.name = s.name;
  saved.timestamp = utc_timestamp();
  saved.locked_by = "kprof (pid " + std::to_string(::getpid()) + ")";
  saved.sm_mhz_before = s.sm_mhz;
  saved.mem_mhz_before = s.mem_mhz;
  saved.app_sm_mhz_before = s.app_sm_mhz;
  saved.app_mem_mhz_before = s.app_mem_mhz;
  saved.locked_sm_mhz = plan.sm_mhz;
  saved.locked_mem_mhz = plan.mem_mhz;
  return saved;
}

}  // namespace kprof
