#include "analyze/diagnosis.hpp"

#include <algorithm>
#include <string>

#include "analyze/cause_ranking.hpp"
#include "analyze/rule_table.hpp"

namespace kprof::analyze {

bool has_cause(const std::vector<Cause>& causes, CauseId id) {
  return std::any_of(causes.begin(), causes.end(), [&](const Cause& c) { return c.id == name(id); });
}

bool slower_than_replay(double alone_ns, double replay_ns, double min_ratio, double min_extra_us) {
  return replay_ns > 0 && alone_ns >= min_ratio * replay_ns && alone_ns - replay_ns >= min_extra_us * 1e3;
}

GroupFacts facts_of(const KernelGroup& g) {
  GroupFacts f;
  f.kernel = g.kernel;
  f.signature = g.signature;
  f.launches = g.launch_count();
  if (g.duration_ns.count > 0) f.median_ns = g.duration_ns.median;
  else f.median_ns = g.metrics.duration_ns;
  f.span_ns = g.span_ns;
  f.gpu_idle_ns = g.gpu_idle_ns;
  f.alone_min_ns = g.alone_min_ns;
  f.graph_nodes = g.graph_launched();
  f.replay_ns = g.metrics.duration_ns;
  return f;
}

std::vector<Cause> find_causes(const CanonicalMetrics& m, const GroupFacts& g, const DeclaredWork& declared,
                               const DeviceSpec* spec, const std::optional<RooflinePlacement>& roofline,
                               double headroom, const Thresholds& t) {
  RuleContext r{m, g, declared, spec, roofline, std::clamp(headroom, 0.0, 1.0), t};
  for (const Rule& rule : diagnosis_rules()) {
    r.rule = &rule;
    rule.detect(r);
  }
  rank_causes(r.out, r.headroom, t);
  std::vector<Cause> causes;
  for (auto& f : r.out)
    causes.push_back({std::string(name(f.id)), std::move(f.label), std::move(f.evidence), std::move(f.trigger),
                      std::string(name(f.remedy)), f.gain_pct, f.specific});
  return causes;
}

}  // namespace kprof::analyze
