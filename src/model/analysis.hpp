// Results of the analysis layer, stored next to the measurements they were computed from.
#pragma once
#include <optional>
#include <string>
#include <vector>
#include "model/json_support.hpp"

namespace kprof {

// not_applicable: the metric says nothing about this kind of kernel (a tensor-pipe verdict where there is no
// matrix math, a DRAM verdict on a kernel bound elsewhere); `meaning` says why.
enum class Verdict { ok, warn, unavailable, not_applicable };
NLOHMANN_JSON_SERIALIZE_ENUM(Verdict, {{Verdict::ok, "ok"}, {Verdict::warn, "warn"}, {Verdict::unavailable, "unavailable"},
                                       {Verdict::not_applicable, "not_applicable"}})

// One row of the metric interpretation table: value against its healthy threshold.
struct MetricVerdict {
  std::string metric;     // canonical field name ("tensor_pipe_pct")
  std::string label;      // "TC util"
  std::optional<double> value;
  std::string unit;       // "%", "B", ""
  std::string healthy;    // "> 60%"
  Verdict verdict = Verdict::unavailable;
  std::string meaning;    // what a bad value means, from the thresholds file
};
KPROF_JSON_DECLARE(MetricVerdict)

enum class BottleneckKind { memory, compute, latency, balanced, unknown };
NLOHMANN_JSON_SERIALIZE_ENUM(BottleneckKind, {{BottleneckKind::memory, "memory"}, {BottleneckKind::compute, "compute"},
                                              {BottleneckKind::latency, "latency"}, {BottleneckKind::balanced, "balanced"},
                                              {BottleneckKind::unknown, "unknown"}})

// One cause the diagnosis found, with the remedy it points to (analyze/diagnosis.hpp, docs/analysis.md "Causes").
struct Cause {
  std::string id;          // "uncoalesced_global", "dram_bandwidth", ... (stable: tests and agents match on it)
  std::string label;       // "uncoalesced global loads": what tables print as the Key Issue
  std::string evidence;    // the numbers behind it, one sentence
  std::string trigger;     // the same numbers as metric=value pairs ("sectors_per_load_request=32.0, l2_hit=37%")
  std::string remedy;      // remedy id ("coalesce"); "none" when nothing is left to gain (at the roof)
  double gain_pct = 0;     // share of the kernel's time the remedy could save, bounded by the roofline headroom
  bool specific = false;   // a specific cause (access pattern, conflicts, ...) rather than a plain bound
};
KPROF_JSON_DECLARE(Cause)

struct Bottleneck {
  BottleneckKind kind = BottleneckKind::unknown;
  std::string cause;            // id of the primary Cause ("" when none was found)
  bool locality_issue = false;  // L2 hit rate under its threshold
  std::string unit;             // what binds: "DRAM", "tensor pipe", "FP32 pipe (SM)", "grid too small", ...
  std::string root_cause;       // at most two sentences
  std::string key_issue;        // one short phrase for tables
  std::string rule;             // which classification rule fired, for the reader
};
KPROF_JSON_DECLARE(Bottleneck)

// Placement of one kernel against one roof.
struct RooflinePlacement {
  std::string precision;          // peak used: "bf16", "fp32", ...
  std::string memory_level = "dram";
  double peak_tflops = 0;
  double peak_gbps = 0;
  std::string peak_source;        // "datasheet" / "measured", with the figure's source
  double ridge_flop_per_byte = 0; // peak_tflops*1e12 / (peak_gbps*1e9)
  double arithmetic_intensity = 0;
  double achieved_tflops = 0;
  double roof_tflops = 0;         // min(peak, AI * bandwidth)
  double pct_of_roof = 0;         // achieved / roof * 100
  std::string bound_by;           // "memory" (left of ridge) or "compute"
  std::string flops_source;       // "counters" or "declared"
};
KPROF_JSON_DECLARE(RooflinePlacement)

struct Opportunity {
  std::string name;             // "Raise occupancy"
  std::string remedy;           // remedy id ("occupancy", "coalesce", ...): one id per remedy across sources
  // Estimated share of this kernel group's time the remedy saves, % (< 100), bounded by the roofline headroom
  // at the binding level (docs/analysis.md "Estimated gain").
  double est_gain_pct = 0;
  double run_share_pct = 0;     // the group's share of the run's GPU time, % (set by analyze_run)
  double run_gain_pct = 0;      // est_gain_pct x run_share_pct / 100: what the run saves; the top 3 rank by it
  std::string trigger_metric;   // "achieved_occupancy_pct"
  std::optional<double> trigger_value;
  std::string trigger;          // "achieved_occupancy=12.5%" as printed
  std::string rationale;        // one sentence
  std::string source;           // "kprof" or "ncu:<RuleName>"
  // What the estimate assumes, one sentence ("the consumer's work hides under the producer's", "every SM gets
  // work at the active SMs' rate"): the reader checks it against what the change will really do.
  std::string assumes;
  // What it changes: "kernel" (one kernel group), "pipeline" (several stages: fusion, overlap), "stage" (the host's
  // work inside one stage's range) or "program" (launch gaps, synchronisation): the last three are whole-run items
  // of ProfileRun::program_opportunities.
  std::string scope = "kernel";
  std::vector<std::string> kernels;  // pipeline/program items: the stages or kernels concerned, in launch order
  // For a library's or framework's kernel, whose code the caller cannot change: the remedy its own code would need
  // ("coalesce"), which `remedy` ("library_tuning") reaches through the call; "" otherwise.
  std::string kernel_remedy;
  // false where kprof cannot put a figure on the gain (a kernel at the DRAM roof with no declared minimum of bytes:
  // what moving fewer bytes saves is the share removed, which the counters cannot tell). est_gain_pct and
  // run_gain_pct are 0 then, the item ranks after every estimated one, and renderers print no figure.
  bool estimated = true;
};
KPROF_JSON_DECLARE(Opportunity)

struct KernelAnalysis {
  std::vector<MetricVerdict> verdicts;
  Bottleneck bottleneck;
  std::vector<Cause> causes;                     // every cause found, best first (the first is the bottleneck's)
  std::optional<RooflinePlacement> roofline;
  std::vector<RooflinePlacement> hierarchical;   // per memory level when bytes per level are known
  std::vector<Opportunity> opportunities;        // ranked, best first (top 3 shown in the contract)
  std::vector<std::string> notes;                // e.g. "FLOPs unavailable: roofline skipped"
  // Physically implausible values (a roof exceeded, a hit rate over 100%, fewer bytes than the work needs):
  // shown on the kernel and in the contract, never as healthy.
  std::vector<std::string> implausible;
};
KPROF_JSON_DECLARE(KernelAnalysis)

}  // namespace kprof
