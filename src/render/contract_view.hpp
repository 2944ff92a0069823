// The output contract as data: what the Markdown contract prints and the JSON "contract" object holds.
// Built once here so the two renderings can never disagree.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>
#include "model/comparison.hpp"
#include "model/profile.hpp"

namespace kprof::render {

struct ContractStageRow {
  std::string stage;            // stage name
  std::string kernel_label;     // KernelGroup::label (or kernel name)
  std::string display;          // "stage_copy · copy_f4", or just the stage when the names match
  std::size_t launches = 0;
  std::optional<double> duration_ns;   // median over launches
  std::optional<double> tc_pct;
  std::optional<double> dram_pct;
  std::optional<double> occupancy_pct;
  std::string bottleneck;       // "memory", "compute", ...; empty when not analysed
  std::string key_issue;
  // "kernel", or "range": the row of a stage bound outside its kernels (Stage::bound), before its kernels' rows;
  // its duration is the typical range instance's GPU span, its launches the range's instances, no kernel label.
  std::string scope = "kernel";
};

struct ContractOpportunity {
  std::string name;
  std::string kernel_label;     // set only when the run has more than one kernel: the group's full label (the
                                // stages' "kernel"), or the kernels an item across kernels joins, "a → b"
  std::vector<std::string> kernels;  // the groups an item concerns (one for a kernel's item), full labels
  double est_gain_pct = 0;      // of that kernel's time
  double run_gain_pct = 0;      // of the run's time: what ranks the top 3
  std::string trigger;          // "achieved_occupancy=57.5%"
  std::string assumes;          // what the estimate assumes
  std::string scope = "kernel"; // "kernel", or "pipeline"/"program" for an item across kernels, "stage" for one
                                // stage's range (host work between its launches)
  bool estimated = true;        // false: no figure (Opportunity::estimated); the gains are 0 and print as "—"
};

struct ContractView {
  std::string kernel, version, mode;
  std::vector<std::pair<std::string, std::string>> configuration;  // Param → Value, in order (one row of columns)
  std::vector<std::pair<std::string, std::string>> params;         // the problem's parameters and dtype only
  std::vector<ContractStageRow> stages;
  std::string bottleneck_kind;   // "memory", "compute", "latency", "balanced", "unknown"
  std::string bottleneck_title;  // "memory-bound", ... "unknown"
  std::string root_cause;        // at most two sentences; empty when not analysed
  std::vector<ContractOpportunity> top;   // at most 3
  std::vector<std::string> warnings;      // implausible values, one line each ("kernel: message")
  std::vector<ComparisonRow> vs_baseline; // empty without a comparison
  std::vector<std::string> baseline_notes;
  bool has_baseline = false;
};

ContractView build_contract_view(const ProfileRun& run, const Comparison* vs_baseline);

// Shared pieces other renderers reuse.
std::string bottleneck_kind_name(BottleneckKind k);   // "memory"
std::string bottleneck_title(BottleneckKind k);       // "memory-bound", "balanced", "unknown"
std::string device_line(const ProfileRun& run);       // "NVIDIA H200 (132 SMs, CC 9.0)"
std::string kernel_label(const KernelGroup& g);       // label, else kernel, else signature
std::string stage_display(const Stage& s, const KernelGroup& g);  // "stage_copy · copy_f4"
// A name shortened for a table cell: long demangled names keep their head and tail ("at::native::vectoriz…<4, …>").
std::string short_name(const std::string& name, std::size_t max = 60);
std::size_t kernel_count(const ProfileRun& run);      // kernel groups over all stages
// The group holding most time (count × median); nullptr for an empty run.
const KernelGroup* dominant_kernel(const ProfileRun& run);
// The top opportunities as the contract ranks them: by what each saves of the whole run (est. gain x the kernel's
// share of GPU time), one per kernel and remedy.
std::vector<ContractOpportunity> top_opportunities(const ProfileRun& run, std::size_t limit);
// Whether a range's item takes in this kernel item (the same idle SMs reached another way), so that the top list
// names it once: a kernel's grid-fill item where a range item fills the GPU for its launch shape, or runs its
// under-filled launches side by side.
bool taken_in_by_range_item(const ProfileRun& run, const Stage& s, const KernelGroup& g, const Opportunity& o);
// Opportunity trigger as printed: its `trigger`, else "metric=value", else "—".
std::string trigger_text(const Opportunity& o);

}  // namespace kprof::render
