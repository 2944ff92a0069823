// to_json and from_json of the types analysis.hpp declares with KPROF_JSON_DECLARE, compiled once here rather than
// in every file that includes the header (their fields, in order: a key per field, missing keys read back as the
// default).
#include "model/analysis.hpp"

namespace kprof {
KPROF_JSON_DEFINE(MetricVerdict, metric, label, value, unit, healthy, verdict, meaning)
KPROF_JSON_DEFINE(Cause, id, label, evidence, trigger, remedy, gain_pct, specific)
KPROF_JSON_DEFINE(Bottleneck, kind, cause, locality_issue, unit, root_cause, key_issue, rule)
KPROF_JSON_DEFINE(RooflinePlacement, precision, memory_level, peak_tflops, peak_gbps, peak_source, ridge_flop_per_byte,
           arithmetic_intensity, achieved_tflops, roof_tflops, pct_of_roof, bound_by, flops_source)
KPROF_JSON_DEFINE(Opportunity, name, remedy, est_gain_pct, run_share_pct, run_gain_pct, trigger_metric, trigger_value, trigger,
           rationale, source, assumes, scope, kernels, kernel_remedy, estimated)
KPROF_JSON_DEFINE(KernelAnalysis, verdicts, bottleneck, causes, roofline, hierarchical, opportunities, notes, implausible)
}  // namespace kprof
