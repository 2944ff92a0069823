// Baseline vs current: summary and per-kernel rows with a noise-aware verdict.
#pragma once
#include "analyze/thresholds.hpp"
#include "model/comparison.hpp"
#include "model/profile.hpp"

namespace kprof::analyze {

// Rows: duration, achieved TFLOP/s, DRAM GB/s, achieved occupancy, TC util, for the whole run and for each
// kernel matched by stage name + kernel label. Verdict "same" when within noise: a two-sided Mann-Whitney U
// test (compare.alpha) when both sides have >= compare.min_samples launch durations, else |change| <=
// compare.noise_pct. Notes name differing devices, params, and kernels present on one side only.
Comparison compare_runs(const ProfileRun& baseline, const ProfileRun& current, const Thresholds& t);
// Same, with the shipped thresholds (Thresholds::load()).
Comparison compare_runs(const ProfileRun& baseline, const ProfileRun& current);

// Groups that hold launches of more than one kernel ("label (N kernels)"): an artifact grouped by function name by
// an older kprof, before instantiations of one template were kept apart. Such groups cannot be matched one to one
// with today's; compare_runs notes them, load_artifact warns.
std::vector<std::string> merged_groups(const ProfileRun& run);

// The verdict rule on its own, for callers that have a single pair of values.
ComparisonRow compare_values(const std::string& metric, std::optional<double> previous, std::optional<double> current,
                             bool lower_is_better, const std::vector<double>& previous_samples,
                             const std::vector<double>& current_samples, const Thresholds& t);

}  // namespace kprof::analyze
