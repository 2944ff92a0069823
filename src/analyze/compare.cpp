#include "analyze/compare.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>

#include "analyze/statistics.hpp"

namespace kprof::analyze {

namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

std::string direction(double prev, double cur, bool lower_is_better) {
  if (cur == prev) return "same";
  return (cur < prev) == lower_is_better ? "better" : "worse";
}

// Time-weighted totals over a set of kernel groups.
struct Totals {
  double time_ns = 0;
  std::optional<double> flops, dram_bytes, occupancy_weighted, tc_weighted;
  double occupancy_time = 0, tc_time = 0;
};

void add_group(Totals& tot, const KernelGroup& g) {
  const double count = static_cast<double>(std::max<std::size_t>(g.duration_ns.count, 1));
  const double time = g.duration_ns.count ? g.duration_ns.median * count : g.metrics.duration_ns.value_or(0);
  tot.time_ns += time;
  auto flops = g.metrics.total_flops();
  if (!flops || *flops <= 0) flops = g.declared.flops;
  if (flops) tot.flops = tot.flops.value_or(0) + *flops * count;
  if (g.metrics.dram_bytes) tot.dram_bytes = tot.dram_bytes.value_or(0) + *g.metrics.dram_bytes * count;
  if (g.metrics.achieved_occupancy_pct) {
    tot.occupancy_weighted = tot.occupancy_weighted.value_or(0) + *g.metrics.achieved_occupancy_pct * time;
    tot.occupancy_time += time;
  }
  if (g.metrics.tensor_pipe_pct) {
    tot.tc_weighted = tot.tc_weighted.value_or(0) + *g.metrics.tensor_pipe_pct * time;
    tot.tc_time += time;
  }
}

struct Figures {
  std::optional<double> duration_us, tflops, gbps, occupancy, tc;
};

Figures figures(const Totals& t) {
  Figures f;
  if (t.time_ns <= 0) return f;
  f.duration_us = t.time_ns / 1e3;
  if (t.flops) f.tflops = *t.flops / (t.time_ns * 1e-9) / 1e12;
  if (t.dram_bytes) f.gbps = *t.dram_bytes / (t.time_ns * 1e-9) / 1e9;
  if (t.occupancy_weighted && t.occupancy_time > 0) f.occupancy = *t.occupancy_weighted / t.occupancy_time;
  if (t.tc_weighted && t.tc_time > 0) f.tc = *t.tc_weighted / t.tc_time;
  return f;
}

std::vector<double> launch_durations(const KernelGroup* g) {
  std::vector<double> v;
  if (!g) return v;
  if (!g->samples_ns.empty()) {
    for (double ns : g->samples_ns) v.push_back(ns / 1e3);
    return v;
  }
  for (const auto& l : g->launches)
    if (l.duration_ns) v.push_back(*l.duration_ns / 1e3);
  return v;
}

std::vector<ComparisonRow> rows_for(const Figures& a, const Figures& b, const std::vector<double>& a_samples,
                                    const std::vector<double>& b_samples, const Thresholds& t) {
  return {compare_values("Duration (us)", a.duration_us, b.duration_us, true, a_samples, b_samples, t),
          compare_values("Achieved TFLOP/s", a.tflops, b.tflops, false, {}, {}, t),
          compare_values("DRAM GB/s", a.gbps, b.gbps, false, {}, {}, t),
          compare_values("Achieved occupancy (%)", a.occupancy, b.occupancy, false, {}, {}, t),
          compare_values("TC util (%)", a.tc, b.tc, false, {}, {}, t)};
}

std::string run_label(const ProfileRun& r) {
  return fmt::format("{} {} ({})", r.kernel.empty() ? "run" : r.kernel, r.version, r.timestamp);
}

const KernelGroup* only_group(const ProfileRun& r) {
  const KernelGroup* g = nullptr;
  for (const auto& s : r.stages)
    for (const auto& k : s.kernels) {
      if (g) return nullptr;
      g = &k;
    }
  return g;
}

}  // namespace

ComparisonRow compare_values(const std::string& metric, std::optional<double> previous, std::optional<double> current,
                             bool lower_is_better, const std::vector<double>& previous_samples,
                             const std::vector<double>& current_samples, const Thresholds& t) {
  ComparisonRow row;
  row.metric = metric;
  row.previous = previous;
  row.current = current;
  row.lower_is_better = lower_is_better;
  if (!previous || !current) return row;
  if (*previous != 0) row.change_pct = (*current - *previous) / std::abs(*previous) * 100.0;

  const auto min_samples = static_cast<std::size_t>(t.param("compare.min_samples"));
  if (previous_samples.size() >= min_samples && current_samples.size() >= min_samples) {
    auto test = mann_whitney_u(previous_samples, current_samples);
    row.p_value = test.p_value;
    row.verdict = test.p_value >= t.param("compare.alpha")
                      ? "same"
                      : direction(median_of(previous_samples), median_of(current_samples), lower_is_better);
    return row;
  }
  if (row.change_pct && std::abs(*row.change_pct) <= t.param("compare.noise_pct")) row.verdict = "same";
  else if (!row.change_pct && *current == 0) row.verdict = "same";
  else row.verdict = direction(*previous, *current, lower_is_better);
  return row;
}

Comparison compare_runs(const ProfileRun& baseline, const ProfileRun& current, const Thresholds& t) {
  Comparison c;
  c.baseline_label = run_label(baseline);
  c.current_label = run_label(current);

  Totals ta, tb;
  for (const auto& s : baseline.stages)
    for (const auto& g : s.kernels) add_group(ta, g);
  for (const auto& s : current.stages)
    for (const auto& g : s.kernels) add_group(tb, g);
  // Per-launch samples exist for the whole run only when it is one kernel group.
  auto ga = only_group(baseline), gb = only_group(current);
  c.summary = rows_for(figures(ta), figures(tb), ga && gb ? launch_durations(ga) : std::vector<double>{},
                       ga && gb ? launch_durations(gb) : std::vector<double>{}, t);

  // Kernels keyed by "stage / label", in baseline order then current-only ones.
  std::vector<std::string> order;
  std::map<std::string, std::pair<const KernelGroup*, const KernelGroup*>> pairs;
  auto key_of = [](const Stage& s, const KernelGroup& g) {
    return s.name + " / " + (g.label.empty() ? g.kernel : g.label);
  };
  for (const auto& s : baseline.stages)
    for (const auto& g : s.kernels) {
      auto k = key_of(s, g);
      if (!pairs.count(k)) order.push_back(k);
      pairs[k].first = &g;
    }
  for (const auto& s : current.stages)
    for (const auto& g : s.kernels) {
      auto k = key_of(s, g);
      if (!pairs.count(k)) order.push_back(k);
      pairs[k].second = &g;
    }
  for (const auto& k : order) {
    auto [a, b] = pairs[k];
    Totals x, y;
    if (a) add_group(x, *a);
    if (b) add_group(y, *b);
    c.stages.push_back(StageComparison{k, rows_for(figures(x), figures(y), launch_durations(a), launch_durations(b), t)});
    if (!a) c.notes.push_back("only in current: " + k);
    if (!b) c.notes.push_back("only in baseline: " + k);
  }

  if (baseline.device.name != current.device.name || baseline.device.matched_spec != current.device.matched_spec)
    c.notes.push_back(fmt::format("different devices: \"{}\" vs \"{}\"", baseline.device.name, current.device.name));
  if (baseline.params.values != current.params.values || baseline.params.dtype != current.params.dtype)
    c.notes.push_back(fmt::format("different params: {} vs {}", baseline.params.dir_name(), current.params.dir_name()));
  if (baseline.clock_control != current.clock_control)
    c.notes.push_back(fmt::format("different clock control: \"{}\" vs \"{}\"", baseline.clock_control,
                                  current.clock_control));
  return c;
}

Comparison compare_runs(const ProfileRun& baseline, const ProfileRun& current) {
  return compare_runs(baseline, current, Thresholds::load());
}

}  // namespace kprof::analyze
