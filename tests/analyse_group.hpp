// One kernel group of one launch carrying `m` and the given Nsight Compute rules, analysed against the H200's
// datasheet spec with the shipped thresholds: what the analysis tests feed their hand-made metrics through.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "analyze/analyze_run.hpp"
#include "datasheet_devices.hpp"
#include "shipped_thresholds.hpp"

inline kprof::KernelAnalysis analyse_on_h200(const kprof::CanonicalMetrics& m, std::vector<kprof::RuleResult> rules = {},
                                             std::string kernel = "k", kprof::DeclaredWork declared = {}) {
  kprof::KernelGroup g;
  g.kernel = kernel;
  g.signature = kernel + "()";
  g.metrics = m;
  kprof::KernelLaunch l;
  l.rules = std::move(rules);
  g.launches.push_back(l);
  g.representative = 0;
  auto spec = *datasheet_db().find("h200-sxm");
  return kprof::analyze::analyze_group(g, declared, &spec, shipped());
}
