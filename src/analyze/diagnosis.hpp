// Cause detection: from one kernel group's counters (and, when a tracer ran, its launch timeline) to the causes
// an expert names after reading the full Nsight Compute report: uncoalesced or scattered global access, bank
// conflicts, atomic contention, divergence, local memory, tail waves, small grids, occupancy limiters, launch
// overhead, matrix math off the tensor cores, and the plain bounds (a pipe, DRAM, L2, L1, latency).
// Every rule, its signal and its estimate are documented in docs/analysis.md ("Causes"); cut-offs are data
// (data/thresholds.toml [diagnosis]).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "analyze/thresholds.hpp"
#include "model/analysis.hpp"
#include "model/device_spec.hpp"
#include "model/profile.hpp"

namespace kprof::analyze {

// What a cause rule may know besides the counters.
struct GroupFacts {
  std::string kernel;                   // function base name
  std::string signature;                // demangled signature
  std::size_t launches = 0;             // launches of the group (tracer count, or counter launches)
  std::optional<double> median_ns;      // median launch duration
  std::optional<double> span_ns;        // first start to last end of the group's launches (tracer)
  std::optional<double> gpu_idle_ns;    // GPU idle (no kernel of any group running) inside that span
};

GroupFacts facts_of(const KernelGroup& g);

// Blocks per SM each resource allows, computed from the launch's registers, shared memory and block size with
// the device's SM limits (Nsight Compute's launch__occupancy_limit_* where the profile lacks them). Fields stay
// empty when an input is missing.
void fill_occupancy_limits(CanonicalMetrics& m, const SmLimits& limits);

// The causes that apply, best first: causes specific enough to name a fix (access pattern, conflicts, ...)
// before the plain bounds they explain, each group ordered by estimated gain. `headroom` (0..1) is the
// share of the kernel's time above its roofline floor; no cause may promise more.
std::vector<Cause> find_causes(const CanonicalMetrics& m, const GroupFacts& g, const DeclaredWork& declared,
                               const DeviceSpec* spec, const std::optional<RooflinePlacement>& roofline,
                               double headroom, const Thresholds& t);

// Time floor of the kernel (seconds), from the roofline at every level known: the longest of FLOPs at the
// precision's peak and bytes at each level's bandwidth. nullopt without peaks or inputs.
std::optional<double> time_floor_s(const CanonicalMetrics& m, const DeclaredWork& declared, const DeviceSpec& spec);

// Remedies that change the roof itself (tensor cores) or save time outside the kernels (launch gaps): the
// kernel's current roofline floor does not bound their estimates.
bool unbounded_by_floor(const std::string& remedy);
// Plain bounds that name one saturating unit (DRAM or a pipe; bounds() adds them only at/above their thresholds).
bool throughput_bound(const std::string& cause);

// True when the kernel's name says it multiplies matrices (data/thresholds.toml diagnosis.matmul_names) or the
// plan declares low-precision matrix work for it.
bool is_matmul(const GroupFacts& g, const DeclaredWork& declared, const Thresholds& t);

}  // namespace kprof::analyze
