// Which nvidia-smi commands lock or reset a GPU's clocks. Pure functions: nothing is run here.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "collect/clock/clock_saved_state.hpp"
#include "collect/clock/clock_state.hpp"

namespace kprof {

struct ClockPlan {
  int gpu = 0;
  std::vector<std::vector<std::string>> commands;  // argv lists, argv[0] = the nvidia-smi program
  std::optional<int> sm_mhz;                       // lock target (lock plans only)
  std::optional<int> mem_mhz;                      // memory lock target, when the memory clock is lockable
  std::vector<std::string> notes;                  // why these values, what was left alone
};

// Lock the SM clock to one value: `sm_mhz` when given, else the default application clock (the clock the board
// is specified to run applications at; on H100/H200 SXM it equals the maximum, so power-heavy kernels can still
// be capped: ClockRecord keeps the event reasons). The memory clock is locked only when the board has more than
// one (HBM parts report one fixed clock). Throws Error(kExitUsage) when no value can be chosen or `sm_mhz`
// exceeds the maximum.
ClockPlan plan_lock(const ClockState& state, std::optional<int> sm_mhz = std::nullopt,
                    const std::string& program = "nvidia-smi");

// Undo a lock: what the saved state says was locked, or both resets (-rgc, -rmc) when nothing was recorded.
ClockPlan plan_reset(int gpu, const std::optional<SavedClockState>& saved, const std::string& program = "nvidia-smi");

// "nvidia-smi -i 0 -lgc 1980,1980": argv joined for printing, quoting words with shell metacharacters.
std::string shell_command(const std::vector<std::string>& argv);

// The record a lock leaves behind: the clocks as found in `s` and what `plan` locks, stamped now by this process.
SavedClockState state_before_lock(const ClockState& s, const ClockPlan& plan);

}  // namespace kprof
