// to_json and from_json of the types metric.hpp declares with KPROF_JSON_DECLARE, compiled once here rather than
// in every file that includes the header (their fields, in order: a key per field, missing keys read back as the
// default).
#include "model/metric.hpp"

namespace kprof {
KPROF_JSON_DEFINE(MetricValue, value, unit, text, numeric)
}  // namespace kprof
