// to_json and from_json of the types comparison.hpp declares with KPROF_JSON_DECLARE, compiled once here rather than
// in every file that includes the header (their fields, in order: a key per field, missing keys read back as the
// default).
#include "model/comparison.hpp"

namespace kprof {
KPROF_JSON_DEFINE(ComparisonRow, metric, previous, current, change_pct, lower_is_better, verdict, p_value, note)
KPROF_JSON_DEFINE(StageComparison, stage, rows)
KPROF_JSON_DEFINE(Comparison, baseline_label, current_label, summary, stages, notes)
}  // namespace kprof
