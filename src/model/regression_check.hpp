// A CI gate over a comparison (`kprof compare --fail-on-regression`): every duration row checked against a
// threshold, with what the significance test said.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/json_support.hpp"

namespace kprof {

enum class RegressionStatus {
  ok,          // not slower by more than the threshold (or faster)
  regression,  // slower by more than the threshold and the rank test says significant: fails the check
  untested,    // slower by more than the threshold, too few launches for the rank test: reported, not failed
  noise,       // slower by more than the threshold, but the rank test says it is not significant
  missing      // on one side only
};
// "ok", "regression", "untested", "noise", "missing": the status as JSON and the reports write it.
std::string_view regression_status_name(RegressionStatus s);
void to_json(json& j, RegressionStatus s);
void from_json(const json& j, RegressionStatus& s);  // a name this kprof does not know throws json::out_of_range

struct RegressionRow {
  std::string stage;                 // stage / kernel label, or "(whole run)"
  std::optional<double> previous_us;
  std::optional<double> current_us;
  std::optional<double> change_pct;  // positive: slower
  std::optional<double> p_value;     // Mann-Whitney U, when both sides had enough launches
  RegressionStatus status = RegressionStatus::ok;
};
KPROF_JSON_DECLARE(RegressionRow)

struct RegressionCheck {
  std::string baseline_label, current_label;
  double threshold_pct = 0;
  double alpha = 0;                  // the rank test's significance level (thresholds.toml compare.alpha)
  std::vector<RegressionRow> rows;   // the whole run first, then each stage
  bool failed() const {
    for (const auto& r : rows)
      if (r.status == RegressionStatus::regression) return true;
    return false;
  }
};
KPROF_JSON_DECLARE(RegressionCheck)

}  // namespace kprof
