#include "render/contract_markdown.hpp"

#include <cmath>
#include <fmt/format.h>

#include "render/contract_view.hpp"
#include "render/markdown_table.hpp"
#include "render/number_format.hpp"

namespace kprof::render {

namespace {
std::string or_dash(const std::string& s) { return s.empty() ? std::string(kDash) : s; }

std::string duration_cell(const ContractStageRow& r) {
  std::string d = fmt_us(r.duration_ns);
  if (r.launches > 1) d += fmt::format(" ×{}", r.launches);
  return d;
}
}  // namespace

std::string render_contract(const ProfileRun& run, const Comparison* vs_baseline) {
  ContractView v = build_contract_view(run, vs_baseline);
  std::string out = fmt::format("## Profile: {} {}\n\n", md_text(or_dash(v.kernel)), md_text(v.version));

  out += "### Configuration\n";
  std::vector<std::vector<std::string>> config;
  for (const auto& [k, val] : v.configuration) config.push_back({k, val});
  out += markdown_table({"Param", "Value"}, config);

  out += "\n### Stages\n";
  std::vector<std::vector<std::string>> stages;
  for (const auto& r : v.stages)
    stages.push_back({r.display, duration_cell(r), fmt_pct(r.tc_pct), fmt_pct(r.dram_pct), fmt_pct(r.occupancy_pct),
                      or_dash(r.bottleneck), or_dash(r.key_issue)});
  out += markdown_table({"Stage", "Duration (us)", "TC%", "DRAM%", "Occ%", "Bottleneck", "Key Issue"}, stages);

  out += fmt::format("\n### Bottleneck: {}\n", v.bottleneck_title);
  out += (v.root_cause.empty() ? std::string("Not analysed.") : v.root_cause) + "\n";

  out += "\n### Top 3 Opportunities\n";
  if (v.top.empty()) out += "None identified.\n";
  for (std::size_t i = 0; i < v.top.size(); ++i) {
    const auto& o = v.top[i];
    std::string name = o.kernel_label.empty() ? o.name : fmt::format("{} ({})", o.name, md_text(o.kernel_label));
    if (o.scope != "kernel" && o.kernel_label.empty())  // a one-kernel run: the seed's line, the run's estimate
      out += fmt::format("{}. {} — est. {} gain — trigger: {}\n", i + 1, md_text(o.name), fmt_gain(o.run_gain_pct),
                         o.trigger);
    else if (o.scope != "kernel")  // stages or the whole program: its estimate is of the run
      out += fmt::format("{}. {} ({}) — est. {} of the run — trigger: {}\n", i + 1, md_text(o.name),
                         md_text(o.kernel_label), fmt_gain(o.run_gain_pct), o.trigger);
    else if (o.kernel_label.empty() || o.run_gain_pct <= 0)  // one kernel, or a run analysed without run shares
      out += fmt::format("{}. {} — est. {} gain — trigger: {}\n", i + 1, name, fmt_gain(o.est_gain_pct), o.trigger);
    else
      out += fmt::format("{}. {} — est. {} of that kernel, {} of the run — trigger: {}\n", i + 1, name,
                         fmt_gain(o.est_gain_pct), fmt_gain(o.run_gain_pct), o.trigger);
  }
  if (!v.warnings.empty()) {
    out += "\n### Warnings\n";
    for (const auto& w : v.warnings) out += "- " + md_line(w) + "\n";
  }

  if (v.has_baseline) {
    out += "\n### vs Baseline\n";
    std::vector<std::vector<std::string>> rows;
    for (const auto& r : v.vs_baseline)
      rows.push_back({r.metric, fmt_number(r.previous), fmt_number(r.current), fmt_change(r.change_pct, r.verdict)});
    out += markdown_table({"Metric", "Previous", "Current", "Change"}, rows);
    if (!v.baseline_notes.empty()) out += "\n";  // a line right after a table would join it
    for (const auto& n : v.baseline_notes) out += "Note: " + n + "\n";
  }
  return out;
}

}  // namespace kprof::render
