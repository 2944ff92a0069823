#include "analyze/compare.hpp"

#include <set>
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
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

// `weight`: how many launches of the group to count (the baseline's launch count for a matched pair, so that two
// runs that launched a kernel a different number of times compare per launch).
// `declared`: the work the plan declared for the group (its own, or its stage's when it is the stage's one kernel):
// the FLOPs a run without FLOP counters (event mode) is measured against, as the devlog does.
void add_group(Totals& tot, const KernelGroup& g, const DeclaredWork& declared, std::optional<double> weight = std::nullopt) {
  const double count = weight ? *weight : static_cast<double>(std::max<std::size_t>(g.duration_ns.count, 1));
  const double time = g.duration_ns.count ? g.duration_ns.median * count : g.metrics.duration_ns.value_or(0) * count;
  tot.time_ns += time;
  auto flops = g.metrics.total_flops();
  if (!flops || *flops <= 0) flops = declared.flops;
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
  std::optional<double> duration_us, tflops, gbps, occupancy, tc, flops, dram_bytes;
};

Figures figures(const Totals& t) {
  Figures f;
  if (t.time_ns <= 0) return f;
  f.duration_us = t.time_ns / 1e3;
  if (t.flops) f.tflops = *t.flops / (t.time_ns * 1e-9) / 1e12;
  if (t.dram_bytes) f.gbps = *t.dram_bytes / (t.time_ns * 1e-9) / 1e9;
  if (t.occupancy_weighted && t.occupancy_time > 0) f.occupancy = *t.occupancy_weighted / t.occupancy_time;
  if (t.tc_weighted && t.tc_time > 0) f.tc = *t.tc_weighted / t.tc_time;
  f.flops = t.flops;
  f.dram_bytes = t.dram_bytes;
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

// A figure whose "better" depends on the rest: shown with its change, judged by no verdict of its own.
ComparisonRow informational(const std::string& metric, std::optional<double> a, std::optional<double> b,
                            const std::string& why) {
  ComparisonRow r;
  r.metric = metric;
  r.previous = a;
  r.current = b;
  if (a && b && *a != 0) r.change_pct = (*b - *a) / std::abs(*a) * 100.0;
  r.verdict = a && b ? "info" : "";
  r.note = why;
  return r;
}

std::vector<ComparisonRow> rows_for(const Figures& a, const Figures& b, const std::vector<double>& a_samples,
                                    const std::vector<double>& b_samples, const Thresholds& t) {
  std::vector<ComparisonRow> rows;
  rows.push_back(compare_values("Duration (us)", a.duration_us, b.duration_us, true, a_samples, b_samples, t));
  const ComparisonRow& time = rows.front();
  // Throughput is better only for the same work: with equal FLOPs it moves exactly as the time does.
  const double same_work = t.param("compare.same_work_pct");
  bool equal_flops = a.flops && b.flops && *a.flops > 0 && std::abs(*b.flops / *a.flops - 1.0) * 100.0 <= same_work;
  if (equal_flops) {
    ComparisonRow tf = compare_values("Achieved TFLOP/s", a.tflops, b.tflops, false, {}, {}, t);
    if (!time.verdict.empty()) tf.verdict = time.verdict;
    tf.note = "same FLOPs: follows the duration";
    rows.push_back(tf);
  } else {
    rows.push_back(informational("Achieved TFLOP/s", a.tflops, b.tflops, "different FLOPs: not comparable as a rate"));
  }
  rows.push_back(compare_values("DRAM bytes", a.dram_bytes, b.dram_bytes, true, {}, {}, t));
  rows.push_back(informational("DRAM GB/s", a.gbps, b.gbps, "more bandwidth is better only with fewer or equal bytes"));
  rows.push_back(informational("Achieved occupancy (%)", a.occupancy, b.occupancy, "a means, not an end"));
  rows.push_back(informational("TC util (%)", a.tc, b.tc, "a means, not an end"));
  return rows;
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

  // Kernels matched by stage: a stage (NVTX range, e.g. a plan stage) holding one kernel in each run is the
  // same step even when a version renamed or reshaped its kernel; otherwise by "stage / label".
  auto single = [](const ProfileRun& r) {
    std::map<std::string, int> n;
    for (const auto& s : r.stages) n[s.name] += static_cast<int>(s.kernels.size());
    return n;
  };
  auto na = single(baseline), nb = single(current);
  auto key_of = [&](const Stage& s, const KernelGroup& g) {
    if (na[s.name] == 1 && nb[s.name] == 1) return s.name;
    return s.name + " / " + (g.label.empty() ? g.kernel : g.label);
  };
  std::vector<std::string> order;
  std::map<std::string, std::pair<const KernelGroup*, const KernelGroup*>> pairs;
  std::map<const KernelGroup*, DeclaredWork> declared;  // each group's declared work (Stage::declared_for)
  for (const auto& s : baseline.stages)
    for (const auto& g : s.kernels) {
      auto k = key_of(s, g);
      if (!pairs.count(k)) order.push_back(k);
      pairs[k].first = &g;
      declared[&g] = s.declared_for(g);
    }
  for (const auto& s : current.stages)
    for (const auto& g : s.kernels) {
      auto k = key_of(s, g);
      if (!pairs.count(k)) order.push_back(k);
      pairs[k].second = &g;
      declared[&g] = s.declared_for(g);
    }
  // The whole run adds the same launches on both sides: each matched kernel weighted by the baseline's launch
  // count, so the run row is the stage rows' sum and a run that launched more iterations is not "slower".
  Totals ta, tb;
  for (const auto& k : order) {
    auto [a, b] = pairs[k];
    std::optional<double> w;
    if (a && b) w = static_cast<double>(std::max<std::size_t>(a->duration_ns.count, 1));
    if (a) add_group(ta, *a, declared[a], w);
    if (b) add_group(tb, *b, declared[b], w);
  }
  // Per-launch samples exist for the whole run only when it is one kernel group.
  auto ga = only_group(baseline), gb = only_group(current);
  c.summary = rows_for(figures(ta), figures(tb), ga && gb ? launch_durations(ga) : std::vector<double>{},
                       ga && gb ? launch_durations(gb) : std::vector<double>{}, t);

  for (const auto& k : order) {
    auto [a, b] = pairs[k];
    Totals x, y;
    if (a) add_group(x, *a, declared[a], 1.0);
    if (b) add_group(y, *b, declared[b], 1.0);
    c.stages.push_back(StageComparison{k, rows_for(figures(x), figures(y), launch_durations(a), launch_durations(b), t)});
    if (!a) c.notes.push_back("only in current: " + k);
    if (!b) c.notes.push_back("only in baseline: " + k);
    if (a && b && (a->label.empty() ? a->kernel : a->label) != (b->label.empty() ? b->kernel : b->label))
      c.notes.push_back(fmt::format("{}: kernel changed from {} to {} (matched by stage)", k,
                                    a->label.empty() ? a->kernel : a->label, b->label.empty() ? b->kernel : b->label));
    if (a && b && a->duration_ns.count != b->duration_ns.count)
      c.notes.push_back(fmt::format("{}: {} launches vs {}; compared per launch", k, a->duration_ns.count,
                                    b->duration_ns.count));
  }

  if (baseline.device.name != current.device.name || baseline.device.matched_spec != current.device.matched_spec)
    c.notes.push_back(fmt::format("different devices: \"{}\" vs \"{}\"", baseline.device.name, current.device.name));
  if (baseline.params.values != current.params.values || baseline.params.dtype != current.params.dtype)
    c.notes.push_back(fmt::format("different params: {} vs {}", baseline.params.dir_name(), current.params.dir_name()));
  if (baseline.mode != current.mode)
    c.notes.push_back(fmt::format("different modes: {} vs {} (timings from different collectors)",
                                  mode_name(baseline.mode), mode_name(current.mode)));
  if (baseline.clock_control != current.clock_control)
    c.notes.push_back(fmt::format("different clock control: \"{}\" vs \"{}\"", baseline.clock_control,
                                  current.clock_control));
  for (const auto& [side, run] : {std::pair<const char*, const ProfileRun*>{"baseline", &baseline}, {"current", &current}})
    if (auto merged = merged_groups(*run); !merged.empty())
      c.notes.push_back(fmt::format("the {} was grouped by an older kprof, which merged instantiations of one template "
                                    "into one group ({}): those stages cannot be matched one to one; re-analyse or "
                                    "profile it again",
                                    side, fmt::join(merged, ", ")));
  return c;
}

std::vector<std::string> merged_groups(const ProfileRun& run) {
  std::vector<std::string> merged;
  for (const auto& s : run.stages)
    for (const auto& g : s.kernels) {
      // A group's launches may come from several collectors that spell one kernel differently (the trace's mangled
      // name, ncu's printed one): the mangled names decide where any launch has one, else the printed names.
      std::set<std::string> kernels, printed;
      for (const auto& l : g.launches) (l.mangled.empty() ? printed : kernels).insert(l.mangled.empty() ? l.name : l.mangled);
      if (kernels.empty()) kernels = std::move(printed);
      if (kernels.size() > 1)
        merged.push_back(fmt::format("{} ({} kernels)", g.label.empty() ? g.kernel : g.label, kernels.size()));
    }
  return merged;
}

Comparison compare_runs(const ProfileRun& baseline, const ProfileRun& current) {
  return compare_runs(baseline, current, Thresholds::load());
}

}  // namespace kprof::analyze
