// Whole-run figures for the devlog: total time and the throughputs over it.
#pragma once
#include <optional>
#include "model/profile.hpp"

namespace kprof::render {

struct RunTotals {
  std::optional<double> duration_ns;     // one pass: Σ median × (count / smallest count) over kernel groups
  std::optional<double> tflops;          // total FLOPs / total time; only when every kernel has FLOPs
  std::optional<double> dram_gbps;       // total DRAM bytes / total time; only when every kernel has bytes
  std::optional<double> occupancy_pct;   // duration-weighted mean over kernels that have it
  std::optional<double> tc_util_pct;     // duration-weighted mean over kernels that have it
};

// FLOPs per launch: counted FLOPs, else the plan's declared FLOPs. Bytes likewise (DRAM bytes, else declared).
RunTotals compute_run_totals(const ProfileRun& run);

}  // namespace kprof::render
