// Timeline analysis of a trace (the `nsys` mode): how busy the GPU and each stream were, how much work ran
// concurrently, gaps between kernels, and how long the host took to get each launch onto the GPU.
// One sweep over sorted interval endpoints, O(n log n) time and O(n) memory: 1M records in well under a second.
// GPU activity = kernels, memcpys and memsets. All devices share one timeline (multi-GPU traces count work on
// different devices as concurrent); per-stream figures are exact either way.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include "model/profile.hpp"
#include "model/trace.hpp"

namespace kprof {

struct StreamTimeline {
  std::uint32_t device = 0;
  std::uint32_t stream = 0;
  std::size_t kernels = 0, memcpys = 0, memsets = 0;
  double busy_ns = 0;            // union of this stream's activity intervals
  double busy_pct = 0;           // of the traced span
  SampleStats kernel_gap_ns;     // next kernel start − previous kernel end on this stream (clamped at 0)
};

struct OverlapSummary {
  double span_ns = 0;            // first GPU activity start → last end
  double busy_ns = 0;            // ≥ 1 GPU activity running
  double idle_ns = 0;            // span − busy
  double overlap_ns = 0;         // ≥ 2 activities running
  double kernel_kernel_ns = 0;   // ≥ 2 kernels running
  double copy_kernel_ns = 0;     // ≥ 1 kernel and ≥ 1 memcpy/memset running
  double overlap_pct = 0;        // overlap / busy × 100
  double kernel_kernel_pct = 0;  // of busy
  double copy_kernel_pct = 0;    // of busy
  int max_concurrency = 0;       // most activities running at once
  double mean_concurrency = 0;   // time-weighted over busy time
};

struct LaunchOverhead {
  std::size_t matched = 0;       // kernels whose launch API call was found by correlation id
  std::size_t graph_kernels = 0; // left out: graph nodes start long after the one cudaGraphLaunch call
  SampleStats api_to_start_ns;   // kernel start − API call start
  SampleStats api_duration_ns;   // launch call duration on the host
};

struct TimelineSummary {
  OverlapSummary overlap;
  std::vector<StreamTimeline> streams;   // by (device, stream)
  SampleStats kernel_gap_ns;             // all streams together
  LaunchOverhead launch;
  std::vector<std::uint32_t> launch_order;  // indices into Trace::kernels by start (stable); the stream is in the record
  // Time series for overlap.csv: one row per change of the running-activity counts (capped; see max_steps).
  struct Step {
    std::int64_t t_ns;
    int kernels, copies;
  };
  std::vector<Step> steps;
  bool steps_truncated = false;
};

struct TimelineOptions {
  std::size_t max_steps = 200000;  // keep overlap.csv readable for huge traces
  bool keep_launch_order = true;
};

TimelineSummary analyze_timeline(const Trace& trace, const TimelineOptions& options = {});

}  // namespace kprof
