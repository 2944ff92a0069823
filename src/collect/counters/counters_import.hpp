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

// Where the counter run's time went, from the collector's own timings (issue 27): set-up once, then per profiled
// launch its replay (every pass), the range's start (a renewal of the counter image in it) and the file's rewrite.
struct CounterCost {
  double setup_ms = 0;
  std::size_t replayed = 0;  // launches with a replay time
  double replay_ms = 0, replay_median_ms = 0;
  double start_ms = 0, write_ms = 0;
  bool has_phases = false;   // files before 2026-12-03 have no start phase
};

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
  CounterCost cost;
};

// One line for a reader of the run's progress: "set-up 0.36 s; 22 launches replayed (15 passes) 5.17 s, ...".
std::string describe_cost(const CounterSession& s, double process_seconds);

// Throws ParseError (file and reason) on a file that is not kprof.counters/1 JSON.
CounterSession import_counters(const std::filesystem::path& file);
CounterSession parse_counters(const std::string& text, const std::string& where);

}  // namespace kprof::counters
