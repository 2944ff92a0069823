// A profiler metric value, always stored in base units (ns, byte, %, count, byte/s, ...).
#pragma once
#include <map>
#include <string>
#include "model/json_support.hpp"

namespace kprof {

struct MetricValue {
  double value = 0;       // in `unit` (a base unit)
  std::string unit;       // base unit after conversion: "ns", "byte", "%", "byte/s", "" (count) ...
  std::string text;       // non-numeric values ("PolicySpread") or per-instance values ("1;2;3") as printed
  bool numeric = true;    // false when only `text` is meaningful
};
KPROF_JSON_DECLARE(MetricValue)

using MetricMap = std::map<std::string, MetricValue>;  // keyed by the full ncu metric name

}  // namespace kprof
