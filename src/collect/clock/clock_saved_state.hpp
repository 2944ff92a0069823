// The record a clock lock leaves behind so that a later reset (same process or not) can undo it.
// Shared with scripts/lock-gpu-clock.sh and scripts/reset-gpu-clock.sh: same path, same JSON keys.
#pragma once
#include <filesystem>
#include <optional>
#include <string>

#include "model/json_support.hpp"

namespace kprof {

struct SavedClockState {
  std::string schema = "kprof.clock-state/1";
  int gpu = 0;
  std::string name;
  std::string timestamp;              // when the lock was taken (UTC)
  std::string locked_by;              // "kprof (pid 1234)" or "lock-gpu-clock.sh"
  std::optional<int> sm_mhz_before;   // clocks as found
  std::optional<int> mem_mhz_before;
  std::optional<int> app_sm_mhz_before;
  std::optional<int> app_mem_mhz_before;
  std::optional<int> locked_sm_mhz;   // what was locked
  std::optional<int> locked_mem_mhz;  // empty when the memory clock was left alone
};
KPROF_JSON_DECLARE(SavedClockState)

// ${XDG_STATE_HOME:-$HOME/.local/state}/kprof/clock-gpu<N>.json
std::filesystem::path clock_state_path(int gpu);

std::optional<SavedClockState> load_clock_state(int gpu);  // nullopt when absent; throws ParseError when malformed
void save_clock_state(const SavedClockState& s);           // atomic write
void remove_clock_state(int gpu);                          // no error when absent

}  // namespace kprof
