// Two runs side by side (baseline vs current): what `kprof compare`, "vs Baseline" and "vs Previous" show.
#pragma once
#include <optional>
#include <string>
#include <vector>
#include "model/json_support.hpp"

namespace kprof {

struct ComparisonRow {
  std::string metric;      // "Duration (us)", "Achieved TFLOP/s", ...
  std::optional<double> previous;
  std::optional<double> current;
  std::optional<double> change_pct;  // (current - previous) / previous * 100
  bool lower_is_better = false;
  // "better", "worse", "same" (within noise or threshold), "info" (a figure with no good direction of its own:
  // occupancy, bandwidth), "" when not comparable
  std::string verdict;
  std::optional<double> p_value;  // two-sided Mann-Whitney U p-value when both sides had enough samples
  std::string note;        // why an "info" row is not judged, or how a verdict was reached
};
KPROF_JSON_DECLARE(ComparisonRow)

struct StageComparison {
  std::string stage;       // stage / kernel label present in either run
  std::vector<ComparisonRow> rows;
};
KPROF_JSON_DECLARE(StageComparison)

struct Comparison {
  std::string baseline_label;  // "mla v1 (20261130-120000)"
  std::string current_label;
  std::vector<ComparisonRow> summary;     // whole run
  std::vector<StageComparison> stages;
  std::vector<std::string> notes;         // e.g. "different devices", "different params"
};
KPROF_JSON_DECLARE(Comparison)

}  // namespace kprof
