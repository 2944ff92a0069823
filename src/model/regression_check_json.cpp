// to_json and from_json of the types regression_check.hpp declares with KPROF_JSON_DECLARE, compiled once here rather than
// in every file that includes the header (their fields, in order: a key per field, missing keys read back as the
// default).
#include "model/regression_check.hpp"

namespace kprof {
KPROF_JSON_DEFINE(RegressionRow, stage, previous_us, current_us, change_pct, p_value, status)
KPROF_JSON_DEFINE(RegressionCheck, baseline_label, current_label, threshold_pct, alpha, rows)
}  // namespace kprof
