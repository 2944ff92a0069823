// The CI gate of `kprof compare --fail-on-regression=P%`: a stage regresses when its duration grew by more than P%
// and the comparison's two-sided Mann-Whitney U test (compare.alpha, both sides with >= compare.min_samples
// launches) says the change is significant. A slowdown the test could not be run on (too few launches: an ncu or
// annotation artifact) is reported as "untested" and does not fail the check.
#pragma once
#include <string>

#include "analyze/thresholds.hpp"
#include "model/comparison.hpp"
#include "model/regression_check.hpp"

namespace kprof::analyze {

RegressionCheck check_regressions(const Comparison& cmp, double threshold_pct, const Thresholds& t);

// "5%", "5", "2.5 %" → 5, 5, 2.5. Throws Error(kExitUsage) for anything else or a negative value.
double parse_threshold_pct(const std::string& text);

}  // namespace kprof::analyze
