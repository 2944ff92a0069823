#include "render/bench_markdown.hpp"

#include <fmt/format.h>

#include <cmath>

#include "render/markdown_table.hpp"
#include "render/number_format.hpp"

namespace kprof::render {

namespace {

std::string verdict_cell(const BenchRow& r) {
  if (r.status == "wrong") return "**wrong result**: " + r.message;
  if (r.status != "ok") return "**failed**: " + r.message;
  if (r.verdict.empty()) return kDash;
  if (r.verdict == "not compared") return "not compared (other GPU model)";
  if (r.p_value) return fmt::format("{} (p={:.2g})", r.verdict, *r.p_value);
  return r.verdict + " (relative change, few runs)";
}

std::string speedup_cell(const std::optional<double>& s) {
  if (!s || !std::isfinite(*s)) return kDash;
  return fmt::format("{:.2f}×", *s);
}

}  // namespace

std::string fmt_ms(const std::optional<double>& ms) {
  if (!ms || !std::isfinite(*ms)) return kDash;
  return fmt::format("{:.4g}", *ms);
}

std::string render_bench_markdown(const BenchTable& t) {
  std::string out = "# Kernel package benchmark\n\n";
  out += "Device: " + (t.device.empty() ? std::string("not matched to a devices.json entry") : t.device) + "\n";
  if (!t.peaks.empty()) {
    out += "\nPeaks behind % of roof:\n";
    for (const auto& p : t.peaks) out += "- " + p + "\n";
  }
  out += "\nTime: GPU time of the whole plan per run (CUDA events, L2 flushed before each run): median and "
         "p10–p90 over the runs. TFLOP/s and GB/s: the plan's declared FLOPs and minimum bytes over the median. "
         "% of roof: the roofline lower bound of the plan's time over the median. ";
  out += fmt::format("Verdict against the previous version at the same point: two-sided Mann-Whitney U over the "
                     "per-run times, \"same\" when p >= {:g} (with fewer than {} runs a side: \"same\" when the "
                     "medians differ by at most {:g}%).\n",
                     t.alpha, t.min_samples, t.noise_pct);

  std::string package;
  std::vector<std::vector<std::string>> rows;
  auto flush = [&] {
    if (package.empty()) return;
    out += "\n## " + package + "\n\n";
    out += markdown_table({"params", "version", "time (ms)", "p10–p90 (ms)", "runs", "TFLOP/s", "GB/s", "% of roof",
                           "bound", "vs", "speedup", "verdict"},
                          rows);
    rows.clear();
  };
  for (const auto& r : t.rows) {
    if (r.package != package) {
      flush();
      package = r.package;
    }
    const bool timed = r.status == "ok" && r.time_ms;
    std::string spread = timed ? fmt_ms(r.time_ms->p10) + "–" + fmt_ms(r.time_ms->p90) : kDash;
    rows.push_back({r.point, r.version, timed ? fmt_ms(r.time_ms->median) : kDash, spread,
                    timed ? std::to_string(r.runs) : kDash, fmt_number(r.tflops), fmt_number(r.gbps),
                    fmt_pct(r.pct_of_roof), r.bound_by.empty() ? kDash : r.bound_by, r.vs.empty() ? kDash : r.vs,
                    speedup_cell(r.speedup), verdict_cell(r)});
  }
  flush();
  if (!t.notes.empty()) {
    out += "\nNotes:\n";
    for (const auto& n : t.notes) out += "- " + n + "\n";
  }
  return out;
}

std::string render_bench_json(const BenchTable& table) { return json(table).dump(2) + "\n"; }

}  // namespace kprof::render
