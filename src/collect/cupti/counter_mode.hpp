// In-process hardware counters for annotation mode: the CUPTI Range Profiler (auto range, kernel replay) run
// inside the profiled program from libkprof_inject.so, so annotation mode needs no Nsight Compute start-up.
//
// Selected launches (by default the first launch of each kernel name, like `ncu --kernel-id ::regex:.*:1`) are
// profiled: the launch callback starts the range profiler on API entry and stops it on exit, CUPTI replays the
// kernel (saving and restoring the memory it writes) until every metric is collected, and the values are
// evaluated at once. The launch configuration and the theoretical occupancy come from the driver (function
// attributes, occupancy calculator), the NVTX push/pop stack from NVTX callbacks. Everything is written
// after every profiled launch and again at exit or on SIGINT/SIGTERM, as JSON (collect/counters/counters_format.hpp,
// read by collect/counters/counters_import.hpp). Only the first CUDA context gets counters; launches into a
// capturing stream are counted, not profiled; a launch whose range cannot be told apart (a failed launch, another
// thread's launch inside the window, dropped ranges) is recorded with an error and no values.
//
// The pieces, one concern each: counter_options.cpp (the environment), counter_callbacks.cpp (CUPTI subscription,
// launch and NVTX callbacks), launch_selection.* (which launches are profiled; no CUPTI), launch_params.cpp (a
// launch's shape and stream from the callback's parameters), function_attributes.cpp (registers, shared memory,
// occupancy from the driver), range_profiler.* (the CUPTI range profiler), counters_json.* (the file),
// counter_collector.* (the collector that ties them together); this header is what injection.cpp calls.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "collect/counters/counters_format.hpp"

namespace kprof::cupti {

struct CounterOptions {
  std::string output;                // KPROF_COUNTERS_FILE: set = counter mode (no activity tracing)
  std::vector<std::string> metrics;  // KPROF_COUNTERS_METRICS: comma-separated metric names
  std::string kernel_regex;          // KPROF_COUNTERS_KERNEL: ECMAScript regex searched in the function base name
  std::string nvtx_range;            // KPROF_COUNTERS_NVTX: "a" or "a/b" (b pushed directly inside a), on the
                                     // calling thread's push/pop stack (all domains on one stack)
  bool all_launches = false;         // KPROF_COUNTERS_ALL=1: every selected launch, not the first of each name
  std::uint64_t skip = 0;            // KPROF_COUNTERS_SKIP: selected launches to pass over first
  std::uint64_t count = 0;           // KPROF_COUNTERS_COUNT: stop after this many profiled launches (0 = no limit)
  std::size_t max_kernels = 512;     // KPROF_COUNTERS_MAX: launches profiled at most (1..100000)
  std::size_t image_ranges = counters_format::kDefaultImageRanges;  // KPROF_COUNTERS_IMAGE (1..512; RangeProfiler)
  static CounterOptions from_env();  // empty output when KPROF_COUNTERS_FILE is unset
};

// Subscribes the launch and NVTX callbacks. Returns false (and prints why) when CUPTI refuses the subscription.
bool start_counter_collection(const CounterOptions& options);
// Writes the JSON file (atomic rename); safe to call more than once, each call rewrites the whole file.
void write_counters(bool interrupted);

}  // namespace kprof::cupti
