// Cause detection: from one kernel group's counters (and, when a tracer ran, its launch timeline) to the causes
// an expert names after reading the full Nsight Compute report: uncoalesced or scattered global access, bank
// conflicts, atomic contention, divergence, local memory, tail waves, small grids, occupancy limiters, launch
// overhead, matrix math off the tensor cores, and the plain bounds (a pipe, DRAM, L2, L1, latency).
// Each rule is a row of analyze/rule_table.cpp (src/analyze/README.md: how to add one); the ranking policy is
// analyze/cause_ranking. Every rule, its signal and its estimate are documented in docs/analysis.md ("Causes");
// cut-offs are data (data/thresholds.toml [diagnosis]).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/cause_ids.hpp"
#include "analyze/thresholds.hpp"
#include "model/analysis.hpp"
#include "model/device_spec.hpp"
#include "model/profile.hpp"

namespace kprof::analyze {

// Whether `causes` (a KernelAnalysis's, best first) holds the cause `id`.
bool has_cause(const std::vector<Cause>& causes, CauseId id);

// What a cause rule may know besides the counters.
struct GroupFacts {
  std::string kernel;                   // function base name
  std::string signature;                // demangled signature
  std::size_t launches = 0;             // launches of the group (tracer count, or counter launches)
  std::optional<double> median_ns;      // median launch duration
  std::optional<double> span_ns;        // first start to last end of the group's launches (tracer)
  std::optional<double> gpu_idle_ns;    // GPU idle (no kernel of any group running) inside that span
  std::optional<double> alone_min_ns;   // shortest launch with no other kernel beside it (tracer)
  bool graph_nodes = false;             // most of its launches ran as nodes of a CUDA graph (tracer)
  // The profiled launch's duration as the counters measured it (the diagnosis's metrics may have set it aside as
  // implausible beside the traced durations).
  std::optional<double> replay_ns;
};

GroupFacts facts_of(const KernelGroup& g);

// Whether a launch that had the GPU to itself (`alone_ns`) ran so much longer than the profiler's replay of it
// (`replay_ns`) that the timed run paid what the replay did not (page_migration): at least
// diagnosis.replay_slowdown_min times and diagnosis.replay_slowdown_min_us longer. The page-migration rule names it;
// the plausibility check then does not call the durations' mismatch implausible.
bool slower_than_replay(double alone_ns, double replay_ns, double min_ratio, double min_extra_us);

// The trigger prefix of a host_link finding for a kernel reading host memory over the host link
// (rules_bounds.cpp): its unit is "host link" and its item "keep the data in device memory".
inline constexpr std::string_view kHostLinkTrigger = "host_link=";

// The causes that apply, best first: causes specific enough to name a fix (access pattern, conflicts, ...)
// before the plain bounds they explain, each group ordered by estimated gain. `headroom` (0..1) is the
// share of the kernel's time above its roofline floor; no cause may promise more.
std::vector<Cause> find_causes(const CanonicalMetrics& m, const GroupFacts& g, const DeclaredWork& declared,
                               const DeviceSpec* spec, const std::optional<RooflinePlacement>& roofline,
                               double headroom, const Thresholds& t);

}  // namespace kprof::analyze
