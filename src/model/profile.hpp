// The one data model every collector fills and every renderer reads:
// ProfileRun → Stage → KernelGroup → KernelLaunch.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>
#include "model/analysis.hpp"
#include "model/canonical_metrics.hpp"
#include "model/clock.hpp"
#include "model/device_spec.hpp"
#include "model/json_support.hpp"
#include "model/metric.hpp"
#include "model/mode.hpp"
#include "model/params.hpp"
#include "model/warning.hpp"

namespace kprof {

struct LaunchConfig {
  std::array<int, 3> grid{0, 0, 0};
  std::array<int, 3> block{0, 0, 0};
  int registers_per_thread = 0;
  std::int64_t shared_mem_static_bytes = 0;
  std::int64_t shared_mem_dynamic_bytes = 0;
  std::string str() const;  // "grid (1056,1,1) block (256,1,1)"
};
KPROF_JSON_DECLARE(LaunchConfig)

// A metric as a details-page section shows it ("GPU Speed Of Light Throughput" / "Duration").
struct SectionMetric {
  std::string section;
  std::string name;
  std::string unit;  // base unit after conversion
  std::optional<double> value;
  std::string text;  // as printed, for non-numeric values
};
KPROF_JSON_DECLARE(SectionMetric)

// One result of an NCU rule (the guided-analysis text).
struct RuleResult {
  std::string section;       // "SpeedOfLight", "Occupancy", ...
  std::string name;          // "SOLBottleneck", "AchievedOccupancy", ...
  std::string type;          // "OPT", "INF", "WRN"
  std::string description;
  std::string speedup_type;  // "global", "local" or ""
  std::optional<double> speedup_pct;
};
KPROF_JSON_DECLARE(RuleResult)

// One kernel launch as a collector saw it.
struct KernelLaunch {
  int id = -1;                   // profiler's launch ID (ncu "ID"), or the order seen
  std::string name;              // demangled signature as printed: "fma_loop(float *, int)"
  std::string function;          // base name: "fma_loop"
  std::string mangled;           // when known
  std::string nvtx_range;        // innermost push/pop range ("stage_fma"), "" when none
  std::vector<std::string> nvtx_stack;  // outermost first
  std::int64_t stream = -1;
  std::int64_t context = -1;
  int device = 0;
  LaunchConfig launch;
  std::optional<double> duration_ns;
  std::optional<double> start_ns;  // trace timestamps, when a tracer saw it
  std::uint32_t graph_id = 0;      // the CUDA graph it ran as a node of (tracer), 0 when launched on its own
  MetricMap metrics;               // raw metrics, base units
  std::vector<SectionMetric> sections;
  std::vector<RuleResult> rules;
};
KPROF_JSON_DECLARE(KernelLaunch)

// Order statistics of repeated measurements.
struct SampleStats {
  std::size_t count = 0;
  double median = 0, min = 0, max = 0, mean = 0, p10 = 0, p90 = 0, stdev = 0;
  double cv() const { return mean != 0 ? stdev / mean : 0; }
  static SampleStats of(std::vector<double> samples);
};
KPROF_JSON_DECLARE(SampleStats)

// Work the plan declares for a stage (no counters needed).
struct DeclaredWork {
  std::optional<double> flops;
  std::optional<double> min_bytes;
  std::string precision;  // "bf16", "fp32" ...
};
KPROF_JSON_DECLARE(DeclaredWork)

// What joining a counter pass's launches to the traced groups found for one group: what decides behaviour (the
// minimum-share summary, the analysis), while counters_note says it to a reader.
enum class CountersStatus {
  NotJoined,           // no counter pass was joined to a trace (event, nsys, an import): the group is as read
  Attached,            // the counters of a launch of this name and shape
  NotProfiled,         // the counter pass did not profile it
  BelowMinShare,       // left out of the counter pass for its small share of GPU time
  NoValues,            // profiled, but the profiler reported no values (a faulted launch)
  OtherInstantiation,  // the launch of this name and shape belongs to another instantiation of the template
  OtherShape,          // only another launch shape of it was profiled
};
NLOHMANN_JSON_SERIALIZE_ENUM(CountersStatus, {{CountersStatus::NotJoined, "not-joined"},
                                              {CountersStatus::Attached, "attached"},
                                              {CountersStatus::NotProfiled, "not-profiled"},
                                              {CountersStatus::BelowMinShare, "below-min-share"},
                                              {CountersStatus::NoValues, "no-values"},
                                              {CountersStatus::OtherInstantiation, "other-instantiation"},
                                              {CountersStatus::OtherShape, "other-shape"}})

// One kernel (by function name and launch shape) within one stage; repeated launches are aggregated.
struct KernelGroup {
  std::string kernel;            // function base name
  std::string signature;         // full demangled name
  std::string label;             // what tables print: "fma_loop" or "fma_loop [66x1x1]" when shapes differ
  LaunchConfig launch;
  std::vector<KernelLaunch> launches;  // the first few launches and the representative (see samples_ns)
  SampleStats duration_ns;       // over all launches
  std::vector<double> samples_ns;  // every launch's duration, in launch order (launches may be trimmed)
  CanonicalMetrics metrics;      // from the representative (median-duration) launch
  int representative = -1;       // index into launches
  DeclaredWork declared;
  // Launch timeline of the group when a tracer saw it: first start to last end, and how long the GPU ran no
  // kernel at all inside that span (launch gaps).
  std::optional<double> span_ns;
  std::optional<double> gpu_idle_ns;
  // Its shortest launch that ran with no other kernel beside it (tracer): against the profiled launch's duration,
  // what the timed run paid that the profiler's replay did not (managed-memory page faults on first touch).
  std::optional<double> alone_min_ns;
  // Its launches that ran as nodes of a CUDA graph (tracer): the gaps between them are the host's between graph
  // launches, not each kernel's own launch cost.
  std::size_t graph_node_launches = 0;
  CountersStatus counters_status = CountersStatus::NotJoined;
  // Why the group has no counters, for a reader ("" when it has them): not profiled, another launch shape only, ...
  std::string counters_note;
  std::optional<KernelAnalysis> analysis;  // filled by the analysis layer
  // The GPU time of all its launches: median duration × launch count (0 without launches).
  double gpu_time_ns() const { return duration_ns.median * static_cast<double>(duration_ns.count); }
  // The same, or the profiled launch's duration for a group whose launches were not timed.
  double gpu_time_or_profiled_ns() const {
    return duration_ns.count > 0 ? gpu_time_ns() : metrics.duration_ns.value_or(0);
  }
  // Its launches: those timed, else those recorded.
  std::size_t launch_count() const { return duration_ns.count > 0 ? duration_ns.count : launches.size(); }
  // Most of its (traced) launches ran as nodes of a CUDA graph.
  bool graph_launched() const {
    const std::size_t n = launch_count();
    return n > 0 && 2 * graph_node_launches > n;
  }
};
KPROF_JSON_DECLARE(KernelGroup)

// A named stage's range instances as a tracer saw them: the typical instance (the one with the lower-median idle
// share; the first call of a range plans library calls or compiles) and what its GPU-idle time was spent on.
struct RangeTime {
  int instances = 0;           // range instances that hold launches
  // The typical instance's GPU span: from its own first kernel to its last, widened to the copies and memsets that
  // ran while the host was inside the range, plus the host's computing in the range before that (outside CUDA calls,
  // in stretches of opportunities.gap_host_work_max_ns or more with the GPU idle; counted in idle_ns and host_work_ns).
  double span_ns = 0;
  // ... with none of them on the GPU: host_work_ns + host_blocked_ns + launch_gaps_ns + graph_node_gaps_ns +
  // poll_wait_ns. Where the
  // trace records no
  // copies, time the host spent in a long copy or synchronisation call is left out (the GPU may have been copying).
  double idle_ns = 0;
  // ... the host working: computing outside any CUDA call (idle stretches of 1 ms or more), or in a long call that
  // waits for nothing (an allocation or a graph instantiation with the GPU idle all along)
  double host_work_ns = 0;
  double host_blocked_ns = 0;  // ... the host held in a CUDA call that waits for the GPU (a sync, a copy, a free)
  double launch_gaps_ns = 0;   // ... the rest: the GPU waiting for the host's next launch
  // ... of them, an instance whose many short kernels all ran after the host had issued them (queued behind earlier
  // work, so its GPU span shows no gaps): the time the host took to issue them beyond the GPU's span of them, the
  // gaps the call shows when it runs alone (added to span_ns, idle_ns and launch_gaps_ns).
  double paced_gaps_ns = 0;
  // Gaps between consecutive kernels (under 1 ms) during which the host began a wait for the GPU (a synchronisation,
  // a blocking read-back): the queue the wait drained.
  double wait_gaps_ns = 0;
  // Gaps between two nodes of one launch of a CUDA graph: the graph's own cost per node, left out of launch_gaps_ns
  // (idle_ns = host_work_ns + host_blocked_ns + launch_gaps_ns + graph_node_gaps_ns + poll_wait_ns).
  double graph_node_gaps_ns = 0;
  // The GPU idle from a finish to the host's next query of it, where the host polls with sleeps between queries
  // (cudaStreamQuery, cudaEventQuery): left out of host_work_ns and launch_gaps_ns.
  double poll_wait_ns = 0;
  int launches = 0;            // launches started in its GPU span (a graph's launch once, however many its nodes)
  int host_waits = 0;          // the host's waits for the GPU begun in it (synchronisations, blocking read-backs)
  // ... of them, waits the instance launches again after (a graph cannot span them; a final wait is not one)
  int waits_between = 0;
  // Its GPU span's time with a copy between host and device running and no kernel (the host link alone), and with a
  // device-to-device copy or a memset running and no kernel (DRAM moving bytes no kernel computes on); 0 where the
  // trace records no copies.
  double link_copy_ns = 0;
  double device_fill_ns = 0;
  // The host-device copies begun in its GPU span, and their bytes: many small ones pay each call's fixed cost.
  int link_copies = 0;
  double link_copy_bytes = 0;
};
KPROF_JSON_DECLARE(RangeTime)

struct Stage {
  std::string name;              // NVTX range, or the kernel name when the export has no ranges
  std::vector<KernelGroup> kernels;
  DeclaredWork declared;
  std::optional<RangeTime> range;  // from a trace with API calls; absent without one or with fewer than 2 instances
  // What bounds the stage outside its kernels (analysis layer): set where the GPU idles at least
  // diagnosis.launch_bound_idle_share of the typical range instance, cause launch_overhead (the host's launches,
  // waits or work), whatever its kernels' own causes.
  std::optional<Bottleneck> bound;
  // What most of the stage's GPU time runs under, where its kernels differ and that is not its longest kernel's cause
  // (analysis layer): an unfused chain of DRAM-bound kernels beside the GEMM they follow. The range as a whole is
  // bound by it; the longest kernel stays its own row's.
  std::optional<Bottleneck> time_bound;
  double total_duration_ns() const;  // sum over kernels of count × median
  // The work a kernel group of this stage declares: its own declaration, completed by the stage's when the stage
  // holds that single kernel (a stage's work cannot be split among several kernels without more information).
  DeclaredWork declared_for(const KernelGroup& g) const;
};
KPROF_JSON_DECLARE(Stage)

// How items across kernels name a kernel group (Opportunity::kernels), so that every layer finds the same kernel by
// it: its stage's name; "stage · kernel" when the stage runs several kernels (an unfused pipeline inside one range);
// the kernel itself when the stage is unnamed or named after it.
std::string stage_kernel_label(const Stage& s, const KernelGroup& g);

struct ProfileRun {
  std::string schema = "kprof.profile/1";
  Mode mode = Mode::Analyze;     // the profiling mode, or import/analyze for exports read from files
  std::string kernel;            // package / kernel name ("mla"), or the process name
  std::string version = "-";
  ProblemParams params;
  DeviceInfo device;
  std::optional<DeviceSpec> device_spec;  // the spec used for peaks (copied, so the run is self-contained)
  std::string timestamp;         // ISO 8601 UTC, when collected or imported
  std::string command;           // profiled command line, when known
  std::string nvtx_include;      // the NVTX range the run was restricted to (--nvtx-include), "" for none
  std::vector<std::string> sources;  // input files
  std::string clock_control;     // "none", "base", ... as profiled
  std::optional<ClockRecord> clocks;  // GPU clocks read before and after the run (kprof run)
  std::vector<Stage> stages;
  std::vector<Warning> warnings;  // what the reader of the numbers must know, each with what it concerns
  std::optional<Bottleneck> overall;  // whole-run bottleneck (the stage that dominates time)
  // Advice across kernels (fuse stages that pass an intermediate through DRAM, overlap serial stages, remove
  // launch gaps), each with its whole-run gain; ranked with the kernels' own items in the top 3.
  std::vector<Opportunity> program_opportunities;
};
KPROF_JSON_DECLARE(ProfileRun)

}  // namespace kprof
