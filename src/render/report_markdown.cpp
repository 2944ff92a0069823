#include "render/report_markdown.hpp"

#include "render/roofline_chart.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "render/contract_markdown.hpp"
#include "render/contract_view.hpp"
#include "render/markdown_table.hpp"
#include "render/number_format.hpp"

namespace kprof::render {

namespace {
using Rows = std::vector<std::vector<std::string>>;

std::string or_dash(const std::string& s) { return s.empty() ? std::string(kDash) : s; }

std::string params_text(const ProblemParams& p) {
  if (p.empty()) return "(none)";
  std::vector<std::string> parts;
  for (const auto& [k, v] : p.values) parts.push_back(fmt::format("{}={}", k, v));
  if (!p.dtype.empty()) parts.push_back("dtype=" + p.dtype);
  return fmt::format("{}", fmt::join(parts, ", "));
}

// "SM 1980 → 1980 MHz, memory 3201 → 3201 MHz, not locked by kprof; throttle: sw_power_cap".
std::string clocks_text(const ProfileRun& run) {
  if (!run.clocks) return kDash;
  const auto& c = *run.clocks;
  std::string s = fmt::format("SM {:.0f} → {:.0f} MHz, memory {:.0f} → {:.0f} MHz (before → after), {}", c.sm_mhz_before,
                              c.sm_mhz_after, c.mem_mhz_before, c.mem_mhz_after,
                              c.locked ? "locked by kprof" : "not locked by kprof");
  if (!c.throttle_reasons.empty()) s += fmt::format("; clock event reasons after the run: {}", fmt::join(c.throttle_reasons, ", "));
  return s;
}

std::string header(const ProfileRun& run) {
  std::string device = device_line(run);
  if (!run.device.matched_spec.empty()) device += " — spec " + run.device.matched_spec;
  std::string out = fmt::format("# kprof report: {} {}\n\n", md_text(or_dash(run.kernel)), md_text(run.version));
  out += markdown_table({"Field", "Value"},
                        {{"Kernel", or_dash(run.kernel)},
                         {"Version", or_dash(run.version)},
                         {"Mode", std::string(mode_name(run.mode))},
                         {"Device", device},
                         {"Params", params_text(run.params)},
                         {"Timestamp", or_dash(run.timestamp)},
                         {"Command", run.command.empty() ? std::string(kDash) : md_code(run.command)},
                         {"Clock control", or_dash(run.clock_control)},
                         {"Clocks", clocks_text(run)},
                         {"Sources", run.sources.empty() ? std::string(kDash)
                                                         : fmt::format("{}", fmt::join(run.sources, ", "))}});
  out += "\n**Warnings**:";
  if (run.warnings.empty()) return out + " none\n";
  out += "\n";
  for (const auto& w : run.warnings) out += "- " + md_line(w.text) + "\n";
  return out;
}

std::string launch_section(const KernelGroup& g) {
  const auto& l = g.launch;
  std::string smem = fmt::format("{} static + {} dynamic", fmt_bytes(static_cast<double>(l.shared_mem_static_bytes)),
                                 fmt_bytes(static_cast<double>(l.shared_mem_dynamic_bytes)));
  std::string out = "### Launch\n";
  out += markdown_table({"Grid", "Block", "Registers/thread", "Shared memory/block"},
                        {{fmt::format("({},{},{})", l.grid[0], l.grid[1], l.grid[2]),
                          fmt::format("({},{},{})", l.block[0], l.block[1], l.block[2]),
                          l.registers_per_thread > 0 ? std::to_string(l.registers_per_thread) : kDash, smem}});
  return out;
}

std::string duration_section(const KernelGroup& g) {
  const auto& s = g.duration_ns;
  std::string out = "\n### Duration\n";
  if (s.count == 0)
    return out + markdown_table({"Launches", "Duration (us)"}, {{"0", fmt_us(g.metrics.duration_ns)}});
  std::string cv = s.count > 1 ? fmt_fixed(s.cv() * 100.0, 1) + "%" : std::string(kDash);
  return out + markdown_table({"Launches", "Median (us)", "Min (us)", "Max (us)", "CV"},
                              {{std::to_string(s.count), fmt_us(s.median), fmt_us(s.min), fmt_us(s.max), cv}});
}

std::string verdict_mark(Verdict v) {
  switch (v) {
    case Verdict::ok: return "✓";
    case Verdict::warn: return "✗";
    case Verdict::not_applicable: return "n/a";
    case Verdict::unavailable: break;
  }
  return kDash;
}

std::string metrics_section(const KernelAnalysis& a) {
  std::string out = "\n### Metrics\n";
  if (a.verdicts.empty()) return out + "No metric verdicts.\n";
  Rows rows;
  for (const auto& v : a.verdicts)
    // The meaning explains an unhealthy value; next to a healthy one it would say the opposite of the verdict.
    rows.push_back({v.label.empty() ? v.metric : v.label, fmt_quantity(v.value, v.unit), or_dash(v.healthy),
                    verdict_mark(v.verdict),
                    v.verdict == Verdict::warn || v.verdict == Verdict::not_applicable ? or_dash(v.meaning)
                                                                                        : std::string(kDash)});
  return out + markdown_table({"Metric", "Value", "Healthy", "Verdict", "Meaning"}, rows);
}

std::vector<std::string> roofline_row(const RooflinePlacement& r) {
  return {or_dash(r.memory_level),
          or_dash(r.precision),
          fmt_number(r.arithmetic_intensity),
          fmt_number(r.achieved_tflops),
          fmt_number(r.roof_tflops),
          fmt_fixed(r.pct_of_roof, 1) + "%",
          or_dash(r.bound_by),
          fmt::format("{} TFLOP/s, {} GB/s, ridge {} FLOP/B", fmt_number(r.peak_tflops), fmt_number(r.peak_gbps),
                      fmt_number(r.ridge_flop_per_byte)),
          or_dash(r.peak_source),
          or_dash(r.flops_source)};
}

std::string roofline_section(const KernelAnalysis& a) {
  std::string out = "\n### Roofline\n";
  if (!a.roofline && a.hierarchical.empty()) return out + "No roofline placement (see notes).\n";
  Rows rows;
  if (a.roofline) rows.push_back(roofline_row(*a.roofline));
  for (const auto& h : a.hierarchical) rows.push_back(roofline_row(h));
  out += markdown_table({"Level", "Precision", "AI (FLOP/B)", "Achieved TFLOP/s", "Roof TFLOP/s", "% of roof", "Bound",
                         "Peaks", "Peak source", "FLOPs from"},
                        rows);
  // With several memory levels placed, the binding one is the lowest roof at the kernel's intensities.
  std::vector<const RooflinePlacement*> all;
  if (a.roofline) all.push_back(&*a.roofline);
  for (const auto& h : a.hierarchical)
    if (!a.roofline || h.memory_level != a.roofline->memory_level) all.push_back(&h);
  if (all.size() >= 2) {
    const RooflinePlacement* bind = all.front();
    for (const auto* p : all)
      if (p->roof_tflops < bind->roof_tflops) bind = p;
    out += fmt::format("\nBinding level: **{}** (lowest roof, {} TFLOP/s at {} FLOP/B; {} bound there, {}% of it reached).\n",
                       bind->memory_level, fmt_number(bind->roof_tflops), fmt_number(bind->arithmetic_intensity),
                       bind->bound_by, fmt_pct(bind->pct_of_roof));
  }
  return out;
}

std::string causes_section(const KernelAnalysis& a) {
  if (a.causes.empty()) return "";
  Rows rows;
  // A cause with no remedy has no gain to estimate: its figure is the unit's headroom, which caps other causes' gains,
  // and printed beside "none" it read as a gain nothing delivers.
  // A bound a specific cause explains has no remedy of its own either: the specific cause's is the way to its roof.
  for (const auto& c : a.causes) {
    const bool explained = c.evidence.find("; explained by ") != std::string::npos;
    rows.push_back({c.label, c.evidence,
                    c.remedy != "none" ? c.remedy
                    : explained        ? std::string("none (the explaining cause's)")
                                       : std::string("none (at its roof)"),
                    c.remedy == "none" ? std::string("—") : fmt_fixed(c.gain_pct, 0) + "%"});
  }
  return "\n### Causes\n" + markdown_table({"Cause", "Evidence", "Remedy", "Est. gain"}, rows);
}

std::string implausible_section(const KernelAnalysis& a) {
  if (a.implausible.empty()) return "";
  std::string out = "\n### Implausible values\n";
  for (const auto& m : a.implausible) out += "- " + m + "\n";
  return out;
}

std::string opportunities_section(const KernelAnalysis& a) {
  std::string out = "\n### Opportunities\n";
  if (a.opportunities.empty()) return out + "None identified.\n";
  for (std::size_t i = 0; i < a.opportunities.size(); ++i) {
    const auto& o = a.opportunities[i];
    std::string run = o.run_share_pct > 0 && o.estimated ? fmt::format(" ({} of the run)", fmt_gain(o.run_gain_pct)) : "";
    out += fmt::format("{}. **{}** — est. {} of this kernel's time{} — trigger: {} — source: {}\n", i + 1, o.name,
                       fmt_gain(o.est_gain_pct, o.estimated), run, trigger_text(o), or_dash(o.source));
    if (!o.rationale.empty()) out += "   " + o.rationale + "\n";
    if (!o.assumes.empty()) out += (o.estimated ? "   The estimate assumes " : "   Not estimated: ") + o.assumes + ".\n";
  }
  return out;
}

std::string analysis_sections(const KernelGroup& g) {
  if (!g.analysis) return "\n### Analysis\nNot analysed.\n";
  const auto& a = *g.analysis;
  std::string out;
  const auto& b = a.bottleneck;
  out += fmt::format("\n### Bottleneck: {}{}\n", bottleneck_title(b.kind), b.unit.empty() ? "" : " (" + b.unit + ")");
  if (!b.root_cause.empty()) out += b.root_cause + "\n";
  if (b.locality_issue) out += "\nL2 locality issue: hit rate below its threshold.\n";
  if (!b.rule.empty()) out += "\nRule: " + b.rule + "\n";
  out += implausible_section(a);
  out += causes_section(a);
  out += metrics_section(a);
  out += roofline_section(a);
  out += opportunities_section(a);
  if (!a.notes.empty()) {
    out += "\n### Notes\n";
    for (const auto& n : a.notes) out += "- " + n + "\n";
  }
  return out;
}

// OPT and WRN first, then by estimated speedup (largest first); equal keys keep the profiler's order.
std::vector<RuleResult> ranked_rules(std::vector<RuleResult> rules) {
  auto actionable = [](const RuleResult& r) { return r.type == "OPT" || r.type == "WRN"; };
  std::stable_sort(rules.begin(), rules.end(), [&](const RuleResult& a, const RuleResult& b) {
    if (actionable(a) != actionable(b)) return actionable(a);
    return a.speedup_pct.value_or(-1) > b.speedup_pct.value_or(-1);
  });
  return rules;
}

std::string speedup_text(const RuleResult& r) {
  if (!r.speedup_pct) return kDash;
  std::string s = fmt_fixed(r.speedup_pct, 1) + "%";
  return r.speedup_type.empty() ? s : s + " " + r.speedup_type;
}

const KernelLaunch* representative(const KernelGroup& g) {
  if (g.representative >= 0 && static_cast<std::size_t>(g.representative) < g.launches.size())
    return &g.launches[g.representative];
  return g.launches.empty() ? nullptr : &g.launches.front();
}

std::string rules_section(const KernelGroup& g) {
  const KernelLaunch* l = representative(g);
  if (!l || l->rules.empty()) return "";
  Rows rows;
  for (const auto& r : ranked_rules(l->rules))
    rows.push_back({r.type, r.name, r.section, speedup_text(r), first_sentences(r.description, 1)});
  return fmt::format("\n### NCU rules (launch {})\n", l->id) +
         markdown_table({"Type", "Rule", "Section", "Est. speedup", "Recommendation"}, rows);
}

std::string verbose_sections(const KernelGroup& g) {
  std::string out;
  for (const auto& l : g.launches) {
    if (!l.sections.empty()) {
      out += fmt::format("\n### All section metrics (launch {})\n", l.id);
      std::vector<std::string> order;  // sections in first-seen order
      for (const auto& m : l.sections)
        if (std::find(order.begin(), order.end(), m.section) == order.end()) order.push_back(m.section);
      for (const auto& sec : order) {
        Rows rows;
        for (const auto& m : l.sections)
          if (m.section == sec)
            // Verbose shows values as measured: shortest exact form, not rounded.
            rows.push_back({m.name, m.value ? fmt::format("{}", *m.value) : (m.text.empty() ? kDash : m.text),
                            or_dash(m.unit)});
        out += "\n#### " + md_text(or_dash(sec)) + "\n" + markdown_table({"Metric", "Value", "Unit"}, rows);
      }
    }
    if (!l.rules.empty()) {
      out += fmt::format("\n### All NCU rules (launch {})\n", l.id);
      for (const auto& r : ranked_rules(l.rules))
        out += fmt::format("- **{} {}** ({}, est. speedup {}): {}\n", md_text(r.type), md_text(r.name),
                           md_text(r.section), speedup_text(r), r.description.empty() ? kDash : md_line(r.description));
    }
  }
  return out;
}

// One line per distinct set of missing metrics (most kernels of a run miss the same ones), not a wall of rows.
std::string unavailable_section(const ProfileRun& run) {
  std::string out = "\n## Unavailable metrics\n";
  std::vector<std::pair<std::string, std::vector<std::string>>> sets;  // missing list → kernels
  for (const auto& s : run.stages)
    for (const auto& g : s.kernels) {
      if (g.metrics.unavailable.empty()) continue;
      std::string key = fmt::format("{}", fmt::join(g.metrics.unavailable, ", "));
      auto it = std::find_if(sets.begin(), sets.end(), [&](const auto& e) { return e.first == key; });
      if (it == sets.end()) sets.push_back({key, {md_text(stage_display(s, g))}});
      else it->second.push_back(md_text(stage_display(s, g)));
    }
  if (sets.empty()) return out + "None.\n";
  for (const auto& [missing, kernels] : sets)
    out += fmt::format("- {} ({}): not in this profile's export or counter list\n", missing,
                       kernels.size() > 3 ? fmt::format("{} kernels", kernels.size()) : fmt::format("{}", fmt::join(kernels, ", ")));
  return out;
}

std::string render(const ProfileRun& run, const Comparison* vs_baseline, bool verbose) {
  std::string out = header(run);
  out += "\n" + render_contract(run, vs_baseline);
  // The picture itself is roofline.svg next to this file (written from the same model by roofline_chart_for).
  if (!roofline_chart_for(run).points.empty())
    out += "\n### Roofline\n\n![Roofline: achieved TFLOP/s against arithmetic intensity](roofline.svg)\n";
  for (const auto& s : run.stages) {
    // A stage bound outside its kernels: what its range instances spent their time on, before its kernels.
    if ((s.bound || s.time_bound) && s.range)
      out += "\n## Range: " + md_text(s.name) + "\n\n" + md_line((s.bound ? s.bound : s.time_bound)->root_cause) + "\n";
    for (const auto& g : s.kernels) {
      out += "\n## Kernel: " + md_text(stage_display(s, g)) + "\n";
      if (!g.signature.empty()) out += md_code(g.signature) + "\n";
      out += "\n" + launch_section(g) + duration_section(g) + analysis_sections(g) + rules_section(g);
      if (verbose) out += verbose_sections(g);
    }
  }
  out += unavailable_section(run);
  return out;
}
}  // namespace

std::string render_report(const ProfileRun& run, const Comparison* vs_baseline) {
  return render(run, vs_baseline, false);
}

std::string render_report_verbose(const ProfileRun& run, const Comparison* vs_baseline) {
  return render(run, vs_baseline, true);
}

}  // namespace kprof::render
