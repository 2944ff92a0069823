#include "render/contract_markdown.hpp"

#include <algorithm>
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

  // The seed's shape: one row of columns, the problem's parameters first (| b | s | t | dtype |), then the device
  // and the mode.
  out += "### Configuration\n";
  std::vector<std::string> header, row;
  for (const auto& [k, val] : v.configuration) {
    header.push_back(k);
    row.push_back(val);
  }
  out += markdown_table(header, {row});

  out += "\n### Stages\n";
  std::vector<std::vector<std::string>> stages;
  for (const auto& r : v.stages)
    stages.push_back({r.display, duration_cell(r), fmt_pct(r.tc_pct), fmt_pct(r.dram_pct), fmt_pct(r.occupancy_pct),
                      or_dash(r.bottleneck), or_dash(r.key_issue)});
  out += markdown_table({"Stage", "Duration (us)", "TC%", "DRAM%", "Occ%", "Bottleneck", "Key Issue"}, stages);

  out += fmt::format("\n### Bottleneck: {}\n", v.bottleneck_title);
  out += "Root cause: " + (v.root_cause.empty() ? std::string("not analysed.") : v.root_cause) + "\n";

  // The seed's line for every item: "name — est. X% gain — trigger: metric=value". X is of the whole run's time
  // wherever the run has shares (said once, under the heading); a kernel's own share goes beside its name.
  out += "\n### Top 3 Opportunities (ranked by estimated impact)\n";
  const bool shares = std::any_of(v.top.begin(), v.top.end(), [](const auto& o) { return o.run_gain_pct > 0; });
  if (v.top.empty()) {
    out += "None identified.\n";
  } else {
    out += shares ? "Each gain is of the whole run's time.\n\n"
                  : "Each gain is of that kernel's time (this run has no share of the whole).\n\n";
  }
  for (std::size_t i = 0; i < v.top.size(); ++i) {
    const auto& o = v.top[i];
    std::string name = md_text(o.name);
    if (!o.kernel_label.empty()) {
      const std::string where = md_text(short_name(o.kernel_label, o.scope == "kernel" ? 48 : 72));
      name += shares && o.scope == "kernel" && o.kernels.size() == 1
                  ? fmt::format(" ({}: {} of its time)", where, fmt_gain(o.est_gain_pct, o.estimated))
                  : fmt::format(" ({})", where);
    }
    out += fmt::format("{}. {} — est. {} gain — trigger: {}\n", i + 1, name,
                       fmt_gain(shares ? o.run_gain_pct : o.est_gain_pct, o.estimated), o.trigger);
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
