// Timeline analysis of a trace (the `nsys` mode; result types in
// model/trace_analysis.hpp): how busy the GPU and each stream were, how much work ran
// concurrently, gaps between kernels, and how long the host took to get each launch onto the GPU.
// One sweep over sorted interval endpoints, O(n log n) time and O(n) memory: 1M records in well under a second.
// GPU activity = kernels, memcpys and memsets. All devices share one timeline (multi-GPU traces count work on
// different devices as concurrent); per-stream figures are exact either way.
#pragma once
#include <cstddef>
#include "model/trace.hpp"
#include "model/trace_analysis.hpp"

namespace kprof::analyze {

struct TimelineOptions {
  std::size_t max_steps = 200000;  // keep overlap.csv readable for huge traces
  bool keep_launch_order = true;
};

TimelineSummary analyze_timeline(const Trace& trace, const TimelineOptions& options = {});

}  // namespace kprof::analyze
