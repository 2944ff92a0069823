#include "analyze/bench_figures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "analyze/compare.hpp"
#include "analyze/roofline.hpp"

namespace kprof::analyze {

namespace {

std::string describe_peak(const DeviceSpec& d, const std::string& key) {
  auto p = d.peak(key);
  return fmt::format("{} {:g} ({}: {})", key, p->value, d.peak_kind(key), p->source);
}

// Seconds a stage needs at the roof, split into its compute and memory parts.
struct StageTimes {
  double compute_s = 0, memory_s = 0;
};

std::optional<StageTimes> stage_times(const BenchStage& st, const DeviceSpec& d, std::vector<std::string>& keys,
                                      std::string& gap) {
  const double flops = st.work.flops.value_or(0), bytes = st.work.min_bytes.value_or(0);
  const std::string fkey = st.work.precision + "_tflops", bkey = bandwidth_key("dram");
  StageTimes t;
  if (flops > 0 && bytes > 0) {
    // The roofline placement supplies the peaks; the duration is a stand-in (the bound does not depend on it).
    CanonicalMetrics m;
    m.duration_ns = 1e6;
    auto p = place(m, st.work, d, "dram");
    if (!p) {
      gap = st.name + ": " + roofline_gap(m, st.work, d, "dram");
      return std::nullopt;
    }
    t.compute_s = flops / (p->peak_tflops * 1e12);
    t.memory_s = bytes / (p->peak_gbps * 1e9);
    keys.push_back(fkey);
    keys.push_back(bkey);
    return t;
  }
  // A stage that declares only bytes (a combine or copy step) or only FLOPs is bound by that side alone.
  if (bytes > 0) {
    if (!d.peak(bkey)) {
      gap = st.name + ": no " + bkey + " peak for " + d.id;
      return std::nullopt;
    }
    t.memory_s = bytes / (d.peak(bkey)->value * 1e9);
    keys.push_back(bkey);
  }
  if (flops > 0) {
    if (!d.peak(fkey)) {
      gap = st.name + ": no " + fkey + " peak for " + d.id;
      return std::nullopt;
    }
    t.compute_s = flops / (d.peak(fkey)->value * 1e12);
    keys.push_back(fkey);
  }
  return t;
}

std::string verdict_word(const std::string& v) {
  if (v == "better") return "faster";
  if (v == "worse") return "slower";
  return v;
}

}  // namespace

std::optional<PlanBound> plan_bound(const std::string& plan_kind, const std::vector<BenchStage>& stages,
                                    const DeviceSpec& device, std::string* gap) {
  std::vector<std::string> keys;
  std::string why;
  std::vector<StageTimes> times;
  for (const auto& st : stages) {
    auto t = stage_times(st, device, keys, why);
    if (!t) {
      if (gap) *gap = why;
      return std::nullopt;
    }
    times.push_back(*t);
  }
  PlanBound b;
  if (plan_kind == "concurrent") {
    double compute = 0, memory = 0;
    for (const auto& t : times) compute += t.compute_s, memory += t.memory_s;
    b.ms = std::max(compute, memory) * 1e3;
    b.bound_by = compute >= memory ? "compute" : "memory";
  } else {
    bool any_compute = false, any_memory = false;
    double total = 0;
    for (const auto& t : times) {
      total += std::max(t.compute_s, t.memory_s);
      if (t.compute_s >= t.memory_s && t.compute_s > 0) any_compute = true;
      else if (t.memory_s > 0) any_memory = true;
    }
    b.ms = total * 1e3;
    b.bound_by = any_compute && any_memory ? "mixed" : any_compute ? "compute" : "memory";
  }
  if (b.ms <= 0) {
    if (gap) *gap = "the plan declares no FLOPs or bytes";
    return std::nullopt;
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  for (const auto& k : keys) b.peaks.push_back(describe_peak(device, k));
  return b;
}

BenchTable build_bench_table(const std::vector<BenchRun>& runs, const DeviceSpec* device, const Thresholds& t) {
  BenchTable table;
  table.alpha = t.param("compare.alpha");
  table.min_samples = static_cast<std::size_t>(t.param("compare.min_samples"));
  table.noise_pct = t.param("compare.noise_pct");
  if (device) table.device = device->name + " (" + device->id + ")";
  else table.notes.push_back("no devices.json entry for this GPU: TFLOP/s and GB/s are shown, % of roof is not");

  std::map<std::string, std::size_t> last_timed;  // package + params → index of the previous timed row
  std::vector<std::string> gaps;
  for (const auto& r : runs) {
    BenchRow row;
    row.package = r.package;
    row.version = r.version;
    row.point = r.point;
    row.params = r.params;
    row.plan_kind = r.plan_kind;
    row.status = r.status;
    row.message = r.message;
    row.artifacts = r.artifacts;
    row.device = r.device;
    row.host = r.host;
    if (r.status == "ok" && r.samples_ms.empty()) {
      row.status = "failed";
      row.message = "no timed runs in timings.json";
    }
    if (row.status != "ok") {
      table.rows.push_back(row);
      continue;
    }
    row.samples_ms = r.samples_ms;
    row.runs = r.samples_ms.size();
    row.time_ms = SampleStats::of(r.samples_ms);
    const double median_s = row.time_ms->median * 1e-3;
    double flops = 0, bytes = 0;
    for (const auto& st : r.stages) flops += st.work.flops.value_or(0), bytes += st.work.min_bytes.value_or(0);
    if (median_s > 0) {
      if (flops > 0) row.tflops = flops / median_s / 1e12;
      if (bytes > 0) row.gbps = bytes / median_s / 1e9;
    }
    if (device) {
      std::string gap;
      if (auto b = plan_bound(r.plan_kind, r.stages, *device, &gap)) {
        row.bound_ms = b->ms;
        row.bound_by = b->bound_by;
        if (median_s > 0) row.pct_of_roof = b->ms / row.time_ms->median * 100.0;
        for (const auto& p : b->peaks)
          if (std::find(table.peaks.begin(), table.peaks.end(), p) == table.peaks.end()) table.peaks.push_back(p);
      } else if (std::find(gaps.begin(), gaps.end(), gap) == gaps.end()) {
        gaps.push_back(gap);
        table.notes.push_back(fmt::format("{} {}: no roofline bound ({})", r.package, r.version, gap));
      }
    }

    const std::string key = r.package + "/" + r.params.dir_name();
    if (auto it = last_timed.find(key); it != last_timed.end()) {
      const BenchRow& prev = table.rows[it->second];
      if (!prev.device.empty() && !row.device.empty() && prev.device != row.device) {
        // Timings from two GPU models say nothing about the two versions: no speedup, no rank test.
        row.vs = prev.version;
        row.verdict = "not compared";
        row.test = fmt::format("refused: {} ran on {}, {} on {}", prev.version, prev.device, row.version, row.device);
        const std::string note = fmt::format("{} at {}: versions ran on different GPU models ({} and {}); they are not "
                                             "compared (run the sweep on one model)", r.package, r.point, prev.device,
                                             row.device);
        if (std::find(table.notes.begin(), table.notes.end(), note) == table.notes.end()) table.notes.push_back(note);
        last_timed[key] = table.rows.size();
        table.rows.push_back(row);
        continue;
      }
      auto c = compare_values("plan time (ms)", prev.time_ms->median, row.time_ms->median, true, prev.samples_ms,
                              row.samples_ms, t);
      row.vs = prev.version;
      if (row.time_ms->median > 0) row.speedup = prev.time_ms->median / row.time_ms->median;
      row.verdict = verdict_word(c.verdict);
      row.p_value = c.p_value;
      row.test = c.p_value ? "Mann-Whitney U"
                           : fmt::format("relative change, |change| <= {:g}% is same (fewer than {} runs a side)",
                                         table.noise_pct, table.min_samples);
    }
    last_timed[key] = table.rows.size();
    table.rows.push_back(row);
  }
  return table;
}

}  // namespace kprof::analyze
