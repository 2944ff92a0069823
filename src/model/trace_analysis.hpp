// What the analysis layer makes of a CUPTI trace (analyze/event_stats, analyze/timeline) and the renderers print:
// per-kernel-name duration statistics and per-NVTX-range spans (every tracing mode), and the timeline of GPU
// activity (nsys mode: busy and idle time, overlap, streams, gaps, launch overhead).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/profile.hpp"

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

// Everything the analysis layer derives from one trace: event statistics always, the timeline when asked for.
struct TraceAnalysis {
  EventStats stats;
  std::optional<TimelineSummary> timeline;
};

}  // namespace kprof
