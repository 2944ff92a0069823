// Access to CanonicalMetrics fields by name, so thresholds in a data file can name the field they judge.
#pragma once
#include <optional>
#include <string>

#include "model/canonical_metrics.hpp"

namespace kprof::analyze {

// Value of the numeric field `name` ("dram_throughput_pct"); nullopt when empty or not a known field.
std::optional<double> metric_field(const CanonicalMetrics& m, const std::string& name);
bool is_metric_field(const std::string& name);
// The field itself, to change or clear it; nullptr when `name` is not a numeric field.
std::optional<double>* metric_field_ptr(CanonicalMetrics& m, const std::string& name);

}  // namespace kprof::analyze
