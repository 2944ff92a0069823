#include "render/contract_view.hpp"

#include <algorithm>
#include <fmt/format.h>

#include <string_view>
#include <fmt/ranges.h>

#include "render/number_format.hpp"

namespace kprof::render {

std::string bottleneck_kind_name(BottleneckKind k) { return json(k).get<std::string>(); }

std::string bottleneck_title(BottleneckKind k) {
  switch (k) {
    case BottleneckKind::memory: return "memory-bound";
    case BottleneckKind::compute: return "compute-bound";
    case BottleneckKind::latency: return "latency-bound";
    case BottleneckKind::balanced: return "balanced";
    case BottleneckKind::unknown: break;
  }
  return "unknown";
}

std::string device_line(const ProfileRun& run) {
  std::string name = run.device.name;
  int sms = run.device.sm_count;
  std::string cc = run.device.compute_capability;
  if (run.device_spec) {
    if (name.empty()) name = run.device_spec->name;
    if (sms == 0) sms = run.device_spec->sm_count;
    if (cc.empty()) cc = run.device_spec->compute_capability;
  }
  if (name.empty()) name = "unknown device";
  std::vector<std::string> parts;
  if (sms > 0) parts.push_back(fmt::format("{} SMs", sms));
  if (!cc.empty()) parts.push_back("CC " + cc);
  if (parts.empty()) return name;
  return fmt::format("{} ({})", name, fmt::join(parts, ", "));
}

std::string short_name(const std::string& name, std::size_t max) {
  // Widths in characters (UTF-8 code points: "…" is one), cuts in bytes on character boundaries.
  auto columns = [](std::string_view s) {
    std::size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
  };
  if (columns(name) <= max || max < 12) return name;
  // Cut on UTF-8 boundaries: never inside a multi-byte character.
  auto boundary = [&](std::size_t i) {
    while (i > 0 && i < name.size() && (static_cast<unsigned char>(name[i]) & 0xC0) == 0x80) --i;
    return i;
  };
  // A label that tells instantiations apart by their template arguments ("k<…,AbsFunctor<float>,…> [1x1x1]") keeps
  // them and shortens the name before them; anything else keeps its head and its end.
  if (const std::size_t lt = name.find('<'); lt != std::string::npos && lt > 0) {
    const std::size_t rest = columns(std::string_view(name).substr(lt));
    if (rest + 1 + 8 <= max) return name.substr(0, boundary(max - rest - 1)) + "…" + name.substr(lt);
  }
  std::size_t head = boundary(max * 2 / 3), tail_start = boundary(name.size() - (max - head - 1));
  return name.substr(0, head) + "…" + name.substr(tail_start);
}

std::string kernel_label(const KernelGroup& g) {
  if (!g.label.empty()) return g.label;
  if (!g.kernel.empty()) return g.kernel;
  return g.signature;
}

std::string stage_display(const Stage& s, const KernelGroup& g) {
  std::string label = kernel_label(g);
  if (s.name.empty()) return label;
  if (s.name == label || label.empty()) return s.name;
  // A stage named after its kernel (no NVTX range) shows the label alone: "k [66x1x1]", not "k · k [66x1x1]".
  if (s.name == g.kernel) return label;
  return s.name + " · " + label;
}

std::size_t kernel_count(const ProfileRun& run) {
  std::size_t n = 0;
  for (const auto& s : run.stages) n += s.kernels.size();
  return n;
}

namespace {

std::optional<double> group_median(const KernelGroup& g) {
  if (g.duration_ns.count > 0) return g.duration_ns.median;
  return g.metrics.duration_ns;
}
}  // namespace

const KernelGroup* dominant_kernel(const ProfileRun& run) {
  const KernelGroup* best = nullptr;
  for (const auto& s : run.stages)
    for (const auto& g : s.kernels)
      if (!best || g.gpu_time_or_profiled_ns() > best->gpu_time_or_profiled_ns()) best = &g;
  return best;
}

std::string trigger_text(const Opportunity& o) {
  if (!o.trigger.empty()) return o.trigger;
  if (!o.trigger_metric.empty())
    return o.trigger_metric + "=" + (o.trigger_value ? fmt_number(o.trigger_value) : std::string(kDash));
  return kDash;
}

// A kernel's grid-fill item that a range's item takes in (one grid fill for the kernels of a range sharing one launch
// shape: analyze/program_advice.hpp shape_advice; or its under-filled launches run side by side, trigger
// serial_grid_ns) is not listed beside it. Only that item: a range's launch-gap or host items name every kernel of the
// range and take none of their own items in.
bool taken_in_by_range_item(const ProfileRun& run, const Stage& s, const KernelGroup& g, const Opportunity& o) {
  if (o.remedy != "grid_fill" && o.kernel_remedy != "grid_fill") return false;
  const std::string key = stage_kernel_label(s, g);  // the name the analysis gave the kernel in the range's item
  return std::any_of(run.program_opportunities.begin(), run.program_opportunities.end(), [&](const Opportunity& p) {
    return (p.remedy == "grid_fill" || p.trigger_metric == "serial_grid_ns") && p.scope == "stage" &&
           std::find(p.kernels.begin(), p.kernels.end(), key) != p.kernels.end();
  });
}

std::vector<ContractOpportunity> top_opportunities(const ProfileRun& run, std::size_t limit) {
  bool multi = kernel_count(run) > 1;
  std::vector<ContractOpportunity> all;
  // Each item's rank: its run gain, or a later item's of its kernel where that is larger, so a kernel's items keep the
  // analysis's order (the figureless "fewer bytes" lever of a unit at its roof comes before that kernel's small
  // items, analyze/opportunities.cpp; ranked by its run gain of 0 it would fall behind them).
  std::vector<std::pair<std::size_t, std::size_t>> kernels;  // each kernel's items in `all`: [first, last)
  auto taken_in = [&](const Stage& s, const KernelGroup& g, const Opportunity& o) {
    return taken_in_by_range_item(run, s, g, o);
  };
  for (const auto& s : run.stages)
    for (const auto& g : s.kernels)
      if (g.analysis) {
        const std::size_t first = all.size();
        for (const auto& o : g.analysis->opportunities)
          if (!taken_in(s, g, o))
            all.push_back(ContractOpportunity{o.name, multi ? kernel_label(g) : std::string(), {kernel_label(g)},
                                              o.est_gain_pct, o.run_gain_pct, trigger_text(o), o.assumes, o.scope,
                                              o.estimated});
        kernels.emplace_back(first, all.size());
      }
  // Items across kernels (fuse stages, remove launch gaps) rank by the same whole-run gain.
  // A whole-program item of a one-kernel run reads like any item there: no label, its estimate of the run.
  // An item of one stage (host work in its range) or of where the program's launch gaps lie is labelled with the
  // stages, not a chain of their kernels ("stage · kernel" labels cut at the stage).
  for (const auto& o : run.program_opportunities) {
    std::string label = multi || o.scope != "program" ? fmt::format("{}", fmt::join(o.kernels, " → ")) : std::string();
    if ((o.scope == "stage" || (o.scope == "program" && multi)) && !o.kernels.empty()) {
      std::vector<std::string> stages;
      for (const auto& k : o.kernels)
        if (auto st = k.substr(0, k.find(" · ")); std::find(stages.begin(), stages.end(), st) == stages.end())
          stages.push_back(std::move(st));
      label = fmt::format("{}", fmt::join(stages, ", "));
    }
    all.push_back(ContractOpportunity{o.name, label, o.kernels, o.est_gain_pct, o.run_gain_pct, trigger_text(o),
                                      o.assumes, o.scope, o.estimated});
  }
  // A run analysed before run shares existed has none: rank by the kernel's own estimate then.
  bool shares = std::any_of(all.begin(), all.end(), [](const auto& o) { return o.run_gain_pct > 0; });
  std::vector<double> rank;
  for (const auto& o : all) rank.push_back(shares ? o.run_gain_pct : o.est_gain_pct);
  for (const auto& [first, last] : kernels)
    for (std::size_t i = last; i-- > first + 1;) rank[i - 1] = std::max(rank[i - 1], rank[i]);
  std::vector<std::size_t> order(all.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rank[a] > rank[b]; });
  std::vector<ContractOpportunity> sorted;
  sorted.reserve(all.size());
  for (std::size_t i : order) sorted.push_back(std::move(all[i]));
  all = std::move(sorted);
  // The same remedy for the same kernel shown once (a kernel can sit in several stages).
  std::vector<ContractOpportunity> out;
  for (const auto& o : all) {
    bool dup = std::any_of(out.begin(), out.end(),
                           [&](const auto& k) { return k.name == o.name && k.kernel_label == o.kernel_label; });
    if (!dup) out.push_back(o);
    if (out.size() == limit) break;
  }
  return out;
}

ContractView build_contract_view(const ProfileRun& run, const Comparison* vs_baseline) {
  ContractView v;
  v.kernel = run.kernel;
  v.version = run.version;
  v.mode = std::string(mode_name(run.mode));

  for (const auto& [k, val] : run.params.values) v.params.emplace_back(k, std::to_string(val));
  if (!run.params.dtype.empty()) v.params.emplace_back("dtype", run.params.dtype);
  v.configuration = v.params;
  if (v.params.empty()) v.configuration.emplace_back("params", "(none)");
  v.configuration.emplace_back("device", device_line(run));
  v.configuration.emplace_back("mode", v.mode);

  for (const auto& s : run.stages) {
    if ((s.bound || s.time_bound) && s.range) {
      const Bottleneck& b = s.bound ? *s.bound : *s.time_bound;
      ContractStageRow r;
      r.stage = s.name;
      r.display = short_name(s.name) + " (range)";
      r.launches = static_cast<std::size_t>(std::max(0, s.range->instances));
      r.duration_ns = s.range->span_ns;
      r.bottleneck = bottleneck_kind_name(b.kind);
      r.key_issue = b.key_issue;
      r.scope = "range";
      v.stages.push_back(std::move(r));
    }
    for (const auto& g : s.kernels) {
      ContractStageRow r;
      r.stage = s.name;
      r.kernel_label = kernel_label(g);
      r.display = short_name(stage_display(s, g));
      r.launches = g.duration_ns.count > 0 ? g.duration_ns.count : g.launches.size();
      r.duration_ns = group_median(g);
      r.tc_pct = g.metrics.tensor_pipe_pct;
      r.dram_pct = g.metrics.dram_throughput_pct;
      r.occupancy_pct = g.metrics.achieved_occupancy_pct;
      if (g.analysis) {
        r.bottleneck = bottleneck_kind_name(g.analysis->bottleneck.kind);
        r.key_issue = g.analysis->bottleneck.key_issue;
        for (const auto& m : g.analysis->implausible) v.warnings.push_back(r.display + ": " + m);
        if (!g.analysis->implausible.empty()) r.key_issue += " (implausible values, see warnings)";
      }
      if (!g.counters_note.empty()) r.key_issue = "no counters: " + g.counters_note;
      v.stages.push_back(std::move(r));
    }
  }

  // Whole-run bottleneck: run.overall; without it, the dominant kernel's own.
  std::optional<Bottleneck> overall = run.overall;
  if (!overall) {
    const KernelGroup* dom = dominant_kernel(run);
    if (dom && dom->analysis) overall = dom->analysis->bottleneck;
  }
  BottleneckKind kind = overall ? overall->kind : BottleneckKind::unknown;
  v.bottleneck_kind = bottleneck_kind_name(kind);
  v.bottleneck_title = bottleneck_title(kind);
  if (overall) v.root_cause = first_sentences(overall->root_cause, 2);

  v.top = top_opportunities(run, 3);

  if (vs_baseline) {
    v.has_baseline = true;
    v.vs_baseline = vs_baseline->summary;
    v.baseline_notes = vs_baseline->notes;
  }
  return v;
}

}  // namespace kprof::render
