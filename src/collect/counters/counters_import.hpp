// Reads what libkprof_inject.so's range-profiler counter collection wrote (schema kprof.counters/1) into
// kernel launches with raw metrics under Nsight Compute's names, so that derive_canonical, stage grouping and
// the counters/trace join treat them exactly like an ncu raw page. The launch__* values ncu computes itself are
// filled from the driver's figures the collector recorded (grid, block, registers, shared memory, the
// occupancy calculator), and sm__maximum_warps_per_active_cycle_pct from the theoretical occupancy.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "model/profile.hpp"

namespace kprof::counters {

struct CounterSession {
  std::string chip;                   // "GH100"
  DeviceInfo device;                  // name, compute capability, SMs (from the driver; empty in older files)
  std::size_t passes = 0;             // replay passes per kernel
  double setup_ms = 0;                // host time to build the configuration (once per process)
  std::vector<std::string> metrics;   // collected
  std::vector<std::string> unsupported;
  std::uint64_t launches_seen = 0, launches_profiled = 0, launches_captured = 0;
  bool interrupted = false;
  std::vector<KernelLaunch> launches;  // profiled launches, in launch order
  std::vector<std::string> warnings;   // collector errors, unsupported metrics, per-kernel failures
};

// Throws ParseError (file and reason) on a file that is not kprof.counters/1 JSON.
CounterSession import_counters(const std::filesystem::path& file);
CounterSession parse_counters(const std::string& text, const std::string& where);

}  // namespace kprof::counters
