// Running nvidia-smi (or the fake named by $NVIDIA_SMI) and reading the clock state through it.
#pragma once
#include <string>
#include <vector>

#include "collect/clock/clock_state.hpp"

namespace kprof {

// $NVIDIA_SMI when set (tests point it at a fake), else "nvidia-smi" looked up on PATH.
std::string nvidia_smi_program();

struct CommandResult {
  int exit_code = -1;   // -1 when the program could not be started; 128+N when killed by signal N
  std::string out;      // stdout
  std::string err;      // stderr
};

// Runs argv (argv[0] looked up on PATH) without a shell, capturing stdout and stderr.
CommandResult run_command(const std::vector<std::string>& argv);

// Queries one GPU's clocks. Falls back to the pre-535 field name clocks_throttle_reasons.active when the driver
// rejects clocks_event_reasons.active. Throws Error(kExitNoGpu) when nvidia-smi is missing or fails.
ClockState query_clocks(int gpu);

}  // namespace kprof
