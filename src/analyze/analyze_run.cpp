#include "analyze/analyze_run.hpp"

#include "analyze/classify.hpp"
#include "analyze/event_stats.hpp"
#include "analyze/interpret.hpp"
#include "analyze/opportunities.hpp"
#include "analyze/roofline.hpp"
#include "analyze/timeline.hpp"

namespace kprof::analyze {

namespace {

// The group's own declaration wins; a stage-level one applies when the stage holds that single kernel
// (a stage's work cannot be split among several kernels without more information).
DeclaredWork effective_declaration(const KernelGroup& g, const DeclaredWork& stage_declared, std::size_t kernels_in_stage) {
  DeclaredWork d = g.declared;
  if (kernels_in_stage == 1) {
    if (!d.flops) d.flops = stage_declared.flops;
    if (!d.min_bytes) d.min_bytes = stage_declared.min_bytes;
    if (d.precision.empty()) d.precision = stage_declared.precision;
  }
  return d;
}

double group_time(const KernelGroup& g) {
  if (g.duration_ns.count) return g.duration_ns.median * static_cast<double>(g.duration_ns.count);
  return g.metrics.duration_ns.value_or(0);
}

}  // namespace

KernelAnalysis analyze_group(const KernelGroup& g, const DeclaredWork& declared, const DeviceSpec* spec,
                             const Thresholds& t) {
  KernelAnalysis a;
  const CanonicalMetrics& m = g.metrics;
  a.verdicts = interpret(m, t);

  if (spec) {
    a.roofline = place(m, declared, *spec, "dram");
    if (!a.roofline) a.notes.push_back(roofline_gap(m, declared, *spec, "dram") + ": roofline skipped");
    else if (a.roofline->flops_source == "declared") a.notes.push_back("FLOPs from the declaration (no FLOP counters)");
    for (const char* level : {"l2", "l1"})
      if (auto p = place(m, declared, *spec, level)) a.hierarchical.push_back(*p);
  } else {
    a.notes.push_back("no device peaks: roofline skipped");
  }

  a.bottleneck = classify(m, t, a.roofline, declared);

  std::vector<RuleResult> rules;
  if (g.representative >= 0 && static_cast<std::size_t>(g.representative) < g.launches.size())
    rules = g.launches[static_cast<std::size_t>(g.representative)].rules;
  else if (g.launches.size() == 1)
    rules = g.launches.front().rules;
  a.opportunities = find_opportunities(m, a.bottleneck, a.roofline, rules, t, declared);

  for (const auto& field : m.unavailable) a.notes.push_back(field + " unavailable in this export");
  return a;
}

void analyze_run(ProfileRun& run, const DeviceDb& db, const Thresholds& t) {
  std::string reason;
  if (const DeviceSpec* spec = db.match(run.device, &reason)) {
    run.device_spec = *spec;
    run.device.matched_spec = spec->id;
  } else if (!run.device_spec) {
    run.warnings.push_back("device peaks unknown: " + reason + "; roofline and bandwidth headroom skipped");
  }
  const DeviceSpec* spec = run.device_spec ? &*run.device_spec : nullptr;

  const KernelGroup* dominant = nullptr;
  for (auto& stage : run.stages) {
    for (auto& g : stage.kernels) {
      g.analysis = analyze_group(g, effective_declaration(g, stage.declared, stage.kernels.size()), spec, t);
      if (!dominant || group_time(g) > group_time(*dominant)) dominant = &g;
    }
  }
  if (dominant) {
    Bottleneck overall = dominant->analysis->bottleneck;
    overall.rule = "dominant kernel " + (dominant->label.empty() ? dominant->kernel : dominant->label) + ": " + overall.rule;
    run.overall = overall;
  }
}

std::optional<TraceAnalysis> analyze_run(ProfileRun& run, const DeviceDb& db, const Thresholds& t, const Trace* trace,
                                         bool timeline) {
  analyze_run(run, db, t);
  if (!trace) return std::nullopt;
  TraceAnalysis a;
  a.stats = compute_event_stats(*trace);
  if (timeline) a.timeline = analyze_timeline(*trace);
  return a;
}

}  // namespace kprof::analyze
