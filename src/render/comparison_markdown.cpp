#include "render/comparison_markdown.hpp"

#include <fmt/format.h>

#include "render/markdown_table.hpp"
#include "render/number_format.hpp"

namespace kprof::render {

namespace {
std::string rows_table(const std::vector<ComparisonRow>& rows) {
  std::vector<std::vector<std::string>> cells;
  for (const auto& r : rows)
    cells.push_back({r.metric, fmt_number(r.previous), fmt_number(r.current), fmt_change(r.change_pct, r.verdict),
                     r.verdict == "info" ? std::string("—") : r.lower_is_better ? "lower" : "higher",
                     r.p_value ? fmt::format("{:.2g}", *r.p_value) : std::string("—"),
                     r.note.empty() ? std::string("—") : r.note});
  return markdown_table({"Metric", "Baseline", "Current", "Change", "Better when", "U-test p", "Note"}, cells);
}

std::string or_unnamed(const std::string& s) { return s.empty() ? std::string("(unnamed)") : s; }
}  // namespace

std::string render_comparison(const Comparison& cmp) {
  const std::string base = md_text(or_unnamed(cmp.baseline_label)), cur = md_text(or_unnamed(cmp.current_label));
  std::string out = fmt::format("# Comparison: {} → {}\n\n", base, cur);
  out += fmt::format("Baseline: {}  \nCurrent: {}\n", base, cur);
  if (!cmp.notes.empty()) {
    out += "\n## Notes\n";
    for (const auto& n : cmp.notes) out += "- " + md_line(n) + "\n";
  }
  out += "\n## Whole run\n";
  out += cmp.summary.empty() ? std::string("No comparable figures.\n") : rows_table(cmp.summary);
  if (!cmp.stages.empty()) {
    out += "\n## Stages\n";
    for (const auto& s : cmp.stages) {
      out += "\n### " + md_text(or_unnamed(s.stage)) + "\n";  // a stage name is the program's: one line, no markup
      out += s.rows.empty() ? std::string("No comparable figures.\n") : rows_table(s.rows);
    }
  }
  return out;
}

}  // namespace kprof::render
