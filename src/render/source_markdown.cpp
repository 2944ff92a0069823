#include "render/source_markdown.hpp"

#include <algorithm>
#include <set>
#include <fmt/format.h>

#include "render/csv_cell.hpp"
#include "render/markdown_table.hpp"
#include "render/number_format.hpp"

namespace kprof::render {

namespace {
constexpr const char* kExecuted = "Instructions Executed";

double samples_of(const SourceKernel& k, const SourceCounters& c) {
  return k.value(c, kStallSamplesColumn).value_or(0);
}

std::string count(std::optional<double> v) { return v ? fmt::format("{:.0f}", *v) : std::string(kDash); }

}  // namespace

std::string render_annotated_source(const SourceKernel& k, std::size_t top) {
  std::string out = fmt::format("# Annotated source: {}\n\n{}\n\n", md_text(k.function), md_code(k.name));
  struct Hot { const SourceFile* file; const SourceLine* line; double samples; };
  std::vector<Hot> hot;
  double total = 0;
  for (const auto& f : k.files)
    for (const auto& l : f.lines) {
      double s = samples_of(k, l.counters);
      total += s;
      if (s > 0) hot.push_back({&f, &l, s});
    }
  if (hot.empty() && !k.sass.empty()) {
    std::vector<const SassInstruction*> ins;
    for (const auto& i : k.sass) {
      total += samples_of(k, i.counters);
      ins.push_back(&i);
    }
    std::stable_sort(ins.begin(), ins.end(), [&](auto* a, auto* b) {
      return samples_of(k, a->counters) > samples_of(k, b->counters);
    });
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i = 0; i < ins.size() && i < top; ++i) {
      double s = samples_of(k, ins[i]->counters);
      rows.push_back({ins[i]->address, "`" + ins[i]->sass + "`", count(s),
                      total > 0 ? fmt_pct(100.0 * s / total) + "%" : kDash, count(k.value(ins[i]->counters, kExecuted))});
    }
    out += "Hottest SASS instructions by warp-stall samples (SASS-only view).\n\n";
    out += markdown_table({"Address", "SASS", "Stall samples", "Share", "Executed"}, rows);
    return out;
  }
  std::stable_sort(hot.begin(), hot.end(), [](const Hot& a, const Hot& b) { return a.samples > b.samples; });
  out += fmt::format("{} warp-stall samples in all; the {} hottest CUDA lines, each with the SASS compiled from it.\n\n",
                     count(total), std::min(top, hot.size()));
  for (std::size_t i = 0; i < hot.size() && i < top; ++i) {
    const auto& h = hot[i];
    out += fmt::format("## {}:{} — {} samples ({}%)\n\n```cuda\n{}\n```\n\n", md_text(h.file->path), h.line->line,
                       count(h.samples), total > 0 ? fmt_pct(100.0 * h.samples / total) : kDash, h.line->source);
    if (h.line->sass.empty()) continue;
    std::vector<std::vector<std::string>> rows;
    std::set<std::string> seen;  // the source page can list a line's SASS once per inlined context: show it once
    for (const auto& ins : h.line->sass) {
      if (!seen.insert(ins.address).second) continue;
      rows.push_back({ins.address, "`" + ins.sass + "`", count(samples_of(k, ins.counters)),
                      count(k.value(ins.counters, kExecuted))});
    }
    out += markdown_table({"Address", "SASS", "Stall samples", "Executed"}, rows) + "\n";
  }
  return out;
}

std::string render_sass_csv(const SourceKernel& k) {
  std::string out = "file,line,address,sass";
  for (const auto& c : k.columns) out += "," + csv_cell(c);
  out += "\n";
  auto row = [&](const std::string& file, int line, const SassInstruction& ins) {
    out += csv_cell(file) + "," + (line > 0 ? std::to_string(line) : std::string()) + "," + csv_cell(ins.address) +
           "," + csv_cell(ins.sass);
    for (std::size_t i = 0; i < k.columns.size(); ++i) {
      out += ",";
      if (i < ins.counters.values.size() && ins.counters.values[i]) out += fmt::format("{}", *ins.counters.values[i]);
      else if (auto it = ins.counters.text.find(k.columns[i]); it != ins.counters.text.end()) out += csv_cell(it->second);
    }
    out += "\n";
  };
  for (const auto& f : k.files)
    for (const auto& l : f.lines)
      for (const auto& ins : l.sass) row(f.path, l.line, ins);
  for (const auto& ins : k.sass) row("", 0, ins);
  return out;
}

}  // namespace kprof::render
