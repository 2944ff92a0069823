// What to try next for one kernel group: the remedies of the causes found (analyze/diagnosis.hpp) and the
// Nsight Compute rules that propose a change, merged into one ranking by remedy.
#pragma once
#include <optional>
#include <vector>

#include "analyze/thresholds.hpp"
#include "model/analysis.hpp"
#include "model/canonical_metrics.hpp"
#include "model/profile.hpp"

namespace kprof::analyze {

// One opportunity per remedy, best first:
//  - every cause whose remedy is not "none" (its estimate is the cause's gain);
//  - "Cut DRAM traffic to the declared minimum" for a DRAM-bound kernel that moves more than the plan declares;
//  - Nsight Compute OPT rules (`rules`, the representative launch's) mapped to remedies through
//    opportunities.ncu_categories; "information" rules are not ranked; a "local" estimate is weighed by
//    opportunities.local_speedup_weight;
// then the preconditions: no "fill the GPU" or occupancy change for a launch-bound or contention-bound kernel.
// Every estimate is bounded by `headroom` (0..1, the share of the kernel's time above its roofline floor) and
// by diagnosis.max_gain_pct; two sources of one remedy keep kprof's estimate where its own cause proposes the
// remedy, else the larger, and name the other. Candidates under opportunities.min_gain_pct are dropped. An Nsight
// Compute estimate kprof's own counters contradict is weighed down and ranks after the rest; where every item left
// is such an estimate, none is ranked and each is described in `set_aside` (the kernel's notes) instead.
std::vector<Opportunity> find_opportunities(const std::vector<Cause>& causes, const CanonicalMetrics& m,
                                            const std::vector<RuleResult>& rules, const Thresholds& t,
                                            const DeclaredWork& declared, double headroom,
                                            std::vector<std::string>* set_aside = nullptr);

// Whose kernel it is when the caller cannot edit it: "A library's" (diagnosis.library_kernel_names: cuBLAS, cuDNN,
// CUTLASS, flash attention, CUB, cuFFT), "PyTorch's" (diagnosis.framework_kernel_names: ATen), else "".
std::string kernel_owner(const std::string& kernel, const std::string& signature, const Thresholds& t);

// A kernel its caller cannot edit is changed through its call. Each item whose remedy is a change to the kernel's
// own code (coalescing, occupancy, spills, pipe throughput, ...) becomes a "library_tuning" item that keeps its
// estimate and says what in the call reaches the same end: a layout the kernel reads in order, a shape that fills
// the GPU, or another implementation of the op (arguments or a dtype that take another path, a backend flag, a
// generated kernel); `kernel_remedy` keeps the kernel-level remedy. Moving fewer bytes (dram_traffic) is reached
// through the call too (a narrower dtype, a size the library does in fewer passes, a fused op: set 40's cuFFT pass of
// a 4097-point transform at the DRAM roof), as an item of its own (often without a figure, it neither takes in nor is
// taken in by the other call item). Items that are the caller's already (tensor cores through a precision flag,
// launch overhead, fusion across kernels) stay. The first such item absorbs the
// rest (one "change the call" item, the others named in its rationale and described in `notes`).
void call_level_items(std::vector<Opportunity>& ops, const std::string& owner,
                      std::vector<std::string>* notes = nullptr);

// "AchievedOccupancy" → "Achieved occupancy": a readable short name from an NCU rule name.
std::string rule_short_name(const std::string& rule_name);

}  // namespace kprof::analyze
