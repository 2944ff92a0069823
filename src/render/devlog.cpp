#include "render/devlog.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sstream>
#include <vector>

#include "render/contract_view.hpp"
#include "render/markdown_table.hpp"
#include "render/number_format.hpp"
#include "render/run_totals.hpp"

namespace kprof::render {

namespace {
constexpr const char* kSep = " — ";
constexpr std::size_t kMaxIssues = 5;

std::string relative_change(const std::optional<double>& prev, const std::optional<double>& cur) {
  if (!prev || !cur || *prev == 0) return kDash;
  return fmt_signed_pct((*cur - *prev) / *prev * 100.0);
}

std::string point_change(const std::optional<double>& prev, const std::optional<double>& cur) {
  if (!prev || !cur) return kDash;
  double d = *cur - *prev;
  if (std::abs(d) < 0.05) d = 0;
  return fmt::format("{:+.1f} pp", d);
}

std::string issues_line(const ProfileRun& run) {
  bool multi = kernel_count(run) > 1;
  bool analysed = false;
  std::vector<std::string> issues;
  for (const auto& s : run.stages)
    for (const auto& g : s.kernels) {
      if (!g.analysis) continue;
      analysed = true;
      for (const auto& v : g.analysis->verdicts) {
        if (v.verdict != Verdict::warn) continue;
        std::string label = v.label.empty() ? v.metric : v.label;
        std::vector<std::string> notes;
        if (!v.healthy.empty()) notes.push_back("healthy " + v.healthy);
        if (multi) notes.push_back(md_text(kernel_label(g)));  // the program's name: one line, no markup
        std::string paren = notes.empty() ? std::string() : fmt::format(" ({})", fmt::join(notes, ", "));
        issues.push_back(label + " " + fmt_quantity(v.value, v.unit) + paren);
      }
    }
  if (!analysed) return "not analysed";
  if (issues.empty()) return "none";
  if (issues.size() > kMaxIssues) issues.resize(kMaxIssues);
  return fmt::format("{}", fmt::join(issues, "; "));
}

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Cells of a "| a | b |" line, honouring "\|" escapes.
std::vector<std::string> split_row(const std::string& line) {
  std::vector<std::string> cells;
  std::string cur;
  std::string t = trim(line);
  if (t.empty() || t[0] != '|') return cells;
  for (std::size_t i = 1; i < t.size(); ++i) {
    if (t[i] == '\\' && i + 1 < t.size() && t[i + 1] == '|') {
      cur += '|';
      ++i;
    } else if (t[i] == '|') {
      cells.push_back(trim(cur));
      cur.clear();
    } else {
      cur += t[i];
    }
  }
  if (!trim(cur).empty()) cells.push_back(trim(cur));
  return cells;
}

// "536.7 us" → 536.7; "1.2 ms" → 1200 when scaling to µs; "—", "-", "" or text → nullopt.
std::optional<double> parse_value(const std::string& cell, bool is_duration) {
  std::string s = trim(cell);
  if (s.empty()) return std::nullopt;
  s.erase(std::remove(s.begin(), s.end(), ','), s.end());
  const char* begin = s.c_str();
  char* end = nullptr;
  double v = std::strtod(begin, &end);
  if (end == begin) return std::nullopt;
  std::string unit = lower(trim(std::string(end)));
  if (is_duration) {
    if (unit.rfind("ms", 0) == 0) v *= 1000.0;
    else if (unit.rfind("ns", 0) == 0) v /= 1000.0;
    else if (unit == "s") v *= 1e6;
  }
  return v;
}

// "## <version> — <timestamp> — <mode>" (also accepts " - " for hand-edited files).
std::optional<DevlogEntry> parse_heading(const std::string& line) {
  std::string t = trim(line);
  if (t.rfind("## ", 0) != 0) return std::nullopt;
  std::string rest = t.substr(3);
  std::vector<std::string> parts;
  for (const std::string& sep : {std::string(kSep), std::string(" - ")}) {
    parts.clear();
    std::size_t pos = 0, next;
    while ((next = rest.find(sep, pos)) != std::string::npos) {
      parts.push_back(trim(rest.substr(pos, next - pos)));
      pos = next + sep.size();
    }
    parts.push_back(trim(rest.substr(pos)));
    if (parts.size() == 3) break;
  }
  if (parts.size() != 3) return std::nullopt;
  DevlogEntry e;
  e.version = parts[0];
  e.timestamp = parts[1];
  e.mode = parts[2];
  return e;
}
}  // namespace

std::string devlog_header(const std::string& kernel) {
  return fmt::format(
      "# Devlog: {}\n\n"
      "One entry per profiling run, newest last, written by kprof. \"vs Previous\" compares with the last entry of\n"
      "the same mode and parameters for another version (each entry names it): relative change for duration and\n"
      "throughputs, percentage points (pp) for occupancy and TC util.\n\n",
      kernel.empty() ? std::string("kernel") : md_text(kernel));
}

DevlogEntry devlog_values(const ProfileRun& run) {
  RunTotals t = compute_run_totals(run);
  DevlogEntry e;
  e.version = run.version;
  e.timestamp = run.timestamp;
  e.mode = std::string(mode_name(run.mode));
  if (t.duration_ns) e.duration_us = *t.duration_ns / 1000.0;
  e.tflops = t.tflops;
  e.dram_gbps = t.dram_gbps;
  e.occupancy_pct = t.occupancy_pct;
  e.tc_util_pct = t.tc_util_pct;
  return e;
}

std::string render_devlog_entry(const ProfileRun& run, const std::optional<DevlogEntry>& previous) {
  DevlogEntry cur = devlog_values(run);
  auto vs = [&](auto member, bool points) -> std::string {
    if (!previous) return "first entry";
    return points ? point_change((*previous).*member, cur.*member) : relative_change((*previous).*member, cur.*member);
  };
  auto with_unit = [](const std::optional<double>& v, const char* unit) {
    return v ? fmt_fixed(v, 1) + unit : std::string(kDash);
  };
  std::string device = run.device.name.empty() && run.device_spec ? run.device_spec->name : run.device.name;

  // Everything read from the artifact is one line without markup: a timestamp with a line break in a hand-made
  // profile.json started a heading of its own (the mode is an enum, its name plain text).
  std::string out = fmt::format("## {}{}{}{}{}\n\n", md_text(run.version), kSep,
                                run.timestamp.empty() ? kDash : md_text(run.timestamp), kSep, mode_name(run.mode));
  // The seed's line: device, clock state, dtype and parameters.
  const bool locked = run.clocks && run.clocks->locked;
  const std::string clocks = locked ? "locked clocks"
                             : !run.clock_control.empty() && run.clock_control != "none"
                                 ? fmt::format("clocks set by ncu ({})", run.clock_control)
                                 : "clocks not locked";
  out += fmt::format("**Performance** ({}, {}, {}):\n\n", device.empty() ? "unknown device" : md_text(device),
                     md_text(clocks), md_text(devlog_params(run)));
  out += markdown_table({"Metric", "Value", "vs Previous"},
                        {{"Duration", with_unit(cur.duration_us, " us"), vs(&DevlogEntry::duration_us, false)},
                         {"Achieved TFLOP/s", fmt_number(cur.tflops), vs(&DevlogEntry::tflops, false)},
                         {"Achieved GB/s", fmt_fixed(cur.dram_gbps, 1), vs(&DevlogEntry::dram_gbps, false)},
                         {"Occupancy", with_unit(cur.occupancy_pct, "%"), vs(&DevlogEntry::occupancy_pct, true)},
                         {"TC Util", with_unit(cur.tc_util_pct, "%"), vs(&DevlogEntry::tc_util_pct, true)}});
  out += previous ? fmt::format("\nvs Previous: the {} entry of {} (same mode and parameters).\n",
                                md_text(previous->version), md_text(previous->timestamp))
                  : "\nvs Previous: none (no earlier entry of this mode and these parameters).\n";

  ContractView view = build_contract_view(run, nullptr);
  out += "\n**Bottleneck**: " + md_line(view.bottleneck_title);
  if (!view.root_cause.empty()) out += kSep + md_line(view.root_cause);
  // Blank lines between the three: consecutive lines would render as one paragraph.
  out += "\n\n**Issues**: " + issues_line(run) + "\n";
  // Calibration: the previous entry's first insight is the change this entry presumably documents; its estimate
  // against the duration change realised since (bench/RESULTS.md keeps the table over every version step).
  if (previous && previous->first_insight_est_pct && previous->duration_us && cur.duration_us &&
      *previous->duration_us > 0) {
    const double realised = (1.0 - *cur.duration_us / *previous->duration_us) * 100.0;
    out += fmt::format("\n**Estimate vs realised**: {} — est. {}% → realised {:.1f}% (duration vs the entry above; "
                       "assumes this entry made that change)\n",
                       previous->first_insight, std::lround(*previous->first_insight_est_pct), realised);
  }
  auto top = top_opportunities(run, 3);
  if (top.empty()) {
    out += "\n**Insights**: none\n";
  } else {
    out += "\n**Insights**:\n";
    for (const auto& o : top) {
      std::string name =
          o.kernel_label.empty() ? md_line(o.name) : fmt::format("{} ({})", md_line(o.name), md_text(short_name(o.kernel_label, 48)));
      // An item of one kernel among several (or across kernels) also says what it is worth to the run: that is
      // what the next entry's duration realises.
      const bool of_run = (!o.kernel_label.empty() || o.scope != "kernel") && o.run_gain_pct > 0;
      out += fmt::format("- {} — est. {} gain{} — trigger: {}\n", name,
                         o.estimated ? fmt::format("{}%", std::lround(o.est_gain_pct)) : std::string(kDash),
                         of_run ? fmt::format(" ({}% of the run)", std::lround(o.run_gain_pct)) : std::string(),
                         md_line(o.trigger));
    }
  }
  return out + "\n";
}

std::string devlog_params(const ProfileRun& run) {
  std::vector<std::string> parts;
  if (!run.params.dtype.empty()) parts.push_back(run.params.dtype);
  for (const auto& [k, v] : run.params.values) parts.push_back(fmt::format("{}={}", k, v));
  return parts.empty() ? "no parameters" : fmt::format("{}", fmt::join(parts, ", "));
}

namespace {
// The entry's body (the lines after its heading, up to the next) read into `entry`.
void parse_body(const std::vector<std::string>& lines, std::size_t start, std::size_t end, DevlogEntry* entry) {
  bool insights = false;
  for (std::size_t i = start; i < end; ++i) {
    const std::string t = trim(lines[i]);
    // "**Performance** (device, clocks, bf16, b=32, s=16):" — or "(device, b32_s16)" in older entries.
    if (t.rfind("**Performance**", 0) == 0 && entry->params.empty()) {
      const std::size_t open = t.find('('), close = t.rfind(')');
      if (open != std::string::npos && close != std::string::npos && close > open) {
        std::vector<std::string> parts;
        std::string inner = t.substr(open + 1, close - open - 1);
        for (std::size_t pos = 0;;) {
          const std::size_t comma = inner.find(", ", pos);
          parts.push_back(inner.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
          if (comma == std::string::npos) break;
          pos = comma + 2;
        }
        std::size_t first = 1;  // after the device
        if (parts.size() > 1 && parts[1].find("clocks") != std::string::npos) first = 2;
        std::vector<std::string> rest(parts.begin() + static_cast<std::ptrdiff_t>(std::min(first, parts.size())),
                                      parts.end());
        entry->params = fmt::format("{}", fmt::join(rest, ", "));
      }
    }
    if (t.rfind("**Insights**", 0) == 0) insights = true;
    // "- <name> — est. 22% gain — trigger: ...": the first one only.
    if (insights && entry->first_insight.empty() && t.rfind("- ", 0) == 0) {
      const std::string est = std::string(kSep) + "est. ";
      if (auto at = t.find(est); at != std::string::npos) {
        entry->first_insight = trim(t.substr(2, at - 2));
        entry->first_insight_est_pct = parse_value(t.substr(at + est.size()), false);
        // "(Y% of the run)": the run's share, which the next entry's duration change is compared with.
        const std::string of_run = "% of the run)";
        if (auto end = t.find(of_run, at); end != std::string::npos)
          if (auto open = t.rfind('(', end); open != std::string::npos && open > at)
            entry->first_insight_est_pct = parse_value(t.substr(open + 1, end - open - 1), false);
      }
    }
    auto cells = split_row(lines[i]);
    if (cells.size() < 2) continue;
    std::string metric = lower(cells[0]);
    bool dur = metric.find("duration") != std::string::npos;
    auto v = parse_value(cells[1], dur);
    if (dur) entry->duration_us = v;
    else if (metric.find("tflop") != std::string::npos) entry->tflops = v;
    else if (metric.find("gb/s") != std::string::npos) entry->dram_gbps = v;
    else if (metric.find("occupancy") != std::string::npos) entry->occupancy_pct = v;
    else if (metric.find("tc") == 0 || metric.find("tensor") != std::string::npos) entry->tc_util_pct = v;
  }
}
}  // namespace

std::vector<DevlogEntry> parse_devlog_entries(const std::string& devlog_markdown) {
  std::vector<std::string> lines;
  std::istringstream in(devlog_markdown);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::vector<std::pair<DevlogEntry, std::size_t>> headings;  // each entry and the line after its heading
  bool in_fence = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (trim(lines[i]).rfind("```", 0) == 0) in_fence = !in_fence;
    if (in_fence) continue;
    if (auto h = parse_heading(lines[i])) headings.emplace_back(std::move(*h), i + 1);
  }
  std::vector<DevlogEntry> out;
  for (std::size_t k = 0; k < headings.size(); ++k) {
    DevlogEntry e = std::move(headings[k].first);
    const std::size_t end = k + 1 < headings.size() ? headings[k + 1].second - 1 : lines.size();
    parse_body(lines, headings[k].second, end, &e);
    out.push_back(std::move(e));
  }
  return out;
}

std::optional<DevlogEntry> parse_last_devlog_entry(const std::string& devlog_markdown) {
  auto all = parse_devlog_entries(devlog_markdown);
  if (all.empty()) return std::nullopt;
  return std::move(all.back());
}

std::optional<DevlogEntry> previous_devlog_entry(const std::string& devlog_markdown, const ProfileRun& run) {
  const std::string mode(mode_name(run.mode)), params = devlog_params(run), dir = run.params.dir_name();
  const std::vector<DevlogEntry> all = parse_devlog_entries(devlog_markdown);
  const DevlogEntry* same_version = nullptr;
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    if (it->mode != mode || (it->params != params && it->params != dir)) continue;
    if (it->version != run.version) return *it;
    if (!same_version) same_version = &*it;
  }
  if (same_version) return *same_version;
  return std::nullopt;
}

}  // namespace kprof::render
