// Per-kernel-name duration statistics and per-NVTX-range spans from a trace (the `event` mode's numbers).
#pragma once
#include <string>
#include <vector>
#include "model/profile.hpp"
#include "model/trace.hpp"

namespace kprof {

struct KernelNameStats {
  std::string name;       // demangled signature
  std::string function;   // base name
  double total_ns = 0;    // sum of durations
  SampleStats duration_ns;  // count, median, min, p10, p90, cv() ...
};

// One NVTX range name (all its instances).
struct NvtxRangeStats {
  std::string name;
  std::string path;          // "run/phase_graph": names of the enclosing push/pop ranges
  SampleStats host_span_ns;  // push → pop on the host
  // End-to-end GPU span of each instance: first start → last end of the kernels attributed to it or to a range
  // nested in it; instances without kernels are left out (gpu_span_ns.count may be < host_span_ns.count).
  SampleStats gpu_span_ns;
  std::size_t kernels = 0;   // kernels attributed to the range or one nested in it
  double kernel_time_ns = 0; // their summed duration
};

struct EventStats {
  std::vector<KernelNameStats> kernels;  // by total time, largest first
  std::vector<NvtxRangeStats> ranges;    // in order of first appearance
};

EventStats compute_event_stats(const Trace& trace);

}  // namespace kprof
