// The analysis pass over a whole run: device peaks, per-kernel analysis, and the run's overall bottleneck.
#pragma once
#include "analyze/device_db.hpp"
#include "analyze/thresholds.hpp"
#include <optional>

#include "analyze/program_advice.hpp"
#include "model/profile.hpp"
#include "model/trace.hpp"
#include "model/trace_analysis.hpp"

namespace kprof::analyze {

// Matches run.device against `db` (copies the spec into run.device_spec and sets device.matched_spec; a
// warning in run.warnings when nothing matches, and then no roofline), fills KernelGroup::analysis for every
// group, and sets run.overall to the bottleneck of the group with the largest total time (count x median).
// A spec already in run.device_spec (an imported, self-contained run) is kept when nothing matches.
void analyze_run(ProfileRun& run, const DeviceDb& db, const Thresholds& t);

// Completes a group's canonical metrics with what the device spec knows: occupancy limits computed from the
// launch's resources (when the profile lacks Nsight Compute's) and DRAM throughput against the measured copy
// bandwidth (dram_measured_pct).
void complete_metrics(CanonicalMetrics& m, const DeviceSpec* spec);
// The analysis entry point of a profiled run: analyze_run above, plus, when the run was traced, the trace's event
// statistics (every tracing mode) and, with `timeline`, its timeline (nsys mode). Nothing for a null trace.
std::optional<TraceAnalysis> analyze_run(ProfileRun& run, const DeviceDb& db, const Thresholds& t, const Trace* trace,
                                         bool timeline);

// What bounds a named stage outside its kernels, from its typical range instance: where the GPU idles at least
// diagnosis.launch_bound_idle_share of it, or at least diagnosis.range_bound_min_idle_share and more than its
// kernels' first items save of the range, launch overhead (latency-bound, unit "host"), the key issue saying what
// the idle time went to (host work, host waits or launch gaps). Nothing otherwise.
std::optional<Bottleneck> range_bound(const Stage& stage, const RangeTime& r, const Thresholds& t);
// The cause most of a stage's kernel time runs under, where its kernel groups differ and that is not its longest
// group's cause: that cause's longest group's bottleneck, its key issue and root cause saying so (an unfused chain
// whose DRAM-bound kernels together outlast the GEMM they follow: set 41's bias and GELU after a cuBLAS GEMM, set 46's
// five-kernel Canny chain; every blind label named the range DRAM-bound). None for a single kernel group.
// A library call's own layout conversions (`conversions`, program_advice's layout_conversions) that outlast every
// other kernel of the stage bind it as memory traffic, whatever their counters read one by one (set 34's NCHW
// convolution: cuDNN's two transposes 60% of the range, one reading memory latency and one DRAM bandwidth).
std::optional<Bottleneck> time_bound(const Stage& stage, const LayoutConversions* conversions = nullptr);
// A stage whose leading item fuses two or more of its kernels (a pipeline fuse_stages item of `program` worth more
// of the run than any of its kernels' first items), each bound on the memory side: the chain's traffic binds the
// range, DRAM's (the cause of its longest kernel at the roof) where most of the chain's bytes move at the DRAM roof,
// memory_bound where none do. None where the chain's kernels' own causes stand: some bytes at the roof but not most,
// or a kernel bound elsewhere, or the result is the longest kernel's cause anyway. Ahead of time_bound.
std::optional<Bottleneck> chain_bound(const Stage& stage, const std::vector<Opportunity>& program);
// A stage whose leading item fills the GPU in two or more of its kernels (shape_advice's grid_fill item at stage scope,
// worth more of the run than any of its kernels' own first items) is bound by its grid (grid_too_small), where its
// longest kernel's cause differs. Empty otherwise.
std::optional<Bottleneck> shape_bound(const Stage& stage, const std::vector<Opportunity>& program);

// One group's analysis against its effective declaration; `spec` may be null (no roofline then).
KernelAnalysis analyze_group(const KernelGroup& g, const DeclaredWork& declared, const DeviceSpec* spec,
                             const Thresholds& t);

}  // namespace kprof::analyze
