// The metric interpretation table: each thresholded metric, its value and whether it is healthy.
#pragma once
#include <vector>

#include "analyze/thresholds.hpp"
#include "model/analysis.hpp"
#include "model/canonical_metrics.hpp"

namespace kprof::analyze {

// One verdict per threshold, in the thresholds file's order. A metric the profile lacks is "unavailable"
// (never "ok": missing data must not read as healthy).
std::vector<MetricVerdict> interpret(const CanonicalMetrics& m, const Thresholds& t);

}  // namespace kprof::analyze
