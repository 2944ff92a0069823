#include "analyze/interpret.hpp"

#include "analyze/metric_fields.hpp"

namespace kprof::analyze {

std::vector<MetricVerdict> interpret(const CanonicalMetrics& m, const Thresholds& t) {
  std::vector<MetricVerdict> out;
  out.reserve(t.metrics.size());
  for (const auto& th : t.metrics) {
    MetricVerdict v;
    v.metric = th.metric;
    v.label = th.label;
    v.unit = th.unit;
    v.healthy = th.healthy_text();
    v.meaning = th.meaning;
    v.value = metric_field(m, th.metric);
    // Local traffic is known from instruction counts even when bytes were not exported: zero instructions
    // means zero bytes, which is enough to judge "== 0".
    if (!v.value && th.metric == "local_memory_bytes" && m.local_memory_instructions &&
        *m.local_memory_instructions == 0)
      v.value = 0.0;
    // A hit rate a hair over 100% is rounding in the counters (Nsight Compute prints 100.1): shown as 100.
    if (v.value && th.metric.size() > 8 && th.metric.compare(th.metric.size() - 8, 8, "_hit_pct") == 0 &&
        *v.value > 100.0 && *v.value <= 100.0 + t.param("plausibility.pct_tolerance"))
      v.value = 100.0;
    if (v.value) v.verdict = th.healthy(*v.value) ? Verdict::ok : Verdict::warn;
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace kprof::analyze
