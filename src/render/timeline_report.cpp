#include "render/timeline_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>

#include "render/csv_cell.hpp"
#include "render/markdown_table.hpp"

namespace kprof::render {

namespace {

std::string ms(double ns) { return fmt::format("{:.3f}", ns / 1e6); }
std::string us(double ns) { return fmt::format("{:.2f}", ns / 1e3); }

// One function per section; each appends Markdown to `out`.
using Out = std::back_insert_iterator<fmt::memory_buffer>;

void trace_section(Out out, const Trace& t, bool timeline) {
  fmt::format_to(out, "## Trace\n\n");
  fmt::format_to(out, "- Source: {} ({})\n", md_code(t.info.source), t.info.format);
  if (timeline)
    fmt::format_to(out, "- Records: {} kernels, {} memcpys, {} memsets, {} API calls, {} NVTX ranges\n",
                   t.kernels.size(), t.memcpys.size(), t.memsets.size(), t.api_calls.size(), t.nvtx.size());
  else
    fmt::format_to(out, "- Records: {} kernels, {} API calls, {} NVTX ranges\n", t.kernels.size(),
                   t.api_calls.size(), t.nvtx.size());
  if (t.info.dropped_records)
    fmt::format_to(out, "- **Warning:** CUPTI dropped {} records; the numbers below undercount.\n", t.info.dropped_records);
  for (const auto& e : t.info.errors) fmt::format_to(out, "- **CUPTI error:** {}\n", e);
  if (t.info.interrupted) fmt::format_to(out, "- The program was interrupted; the trace ends there.\n");
  for (const auto& w : t.info.warnings) fmt::format_to(out, "- Note: {}\n", w);
}

void utilisation_section(Out out, const TimelineSummary& tl) {
  const auto& o = tl.overlap;
  fmt::format_to(out, "\n## GPU utilisation and overlap\n\n| quantity | value |\n| --- | --- |\n");
  fmt::format_to(out, "| traced span (ms) | {} |\n| GPU busy (ms) | {} ({:.1f}%) |\n| GPU idle (ms) | {} ({:.1f}%) |\n",
                 ms(o.span_ns), ms(o.busy_ns), o.span_ns > 0 ? 100 * o.busy_ns / o.span_ns : 0, ms(o.idle_ns),
                 o.span_ns > 0 ? 100 * o.idle_ns / o.span_ns : 0);
  fmt::format_to(out, "| overlap, ≥ 2 activities (% of busy) | {:.1f}% |\n", o.overlap_pct);
  fmt::format_to(out, "| kernel–kernel overlap (% of busy) | {:.1f}% |\n", o.kernel_kernel_pct);
  fmt::format_to(out, "| copy–kernel overlap (% of busy) | {:.1f}% |\n", o.copy_kernel_pct);
  fmt::format_to(out, "| concurrency, max / mean while busy | {} / {:.2f} |\n", o.max_concurrency, o.mean_concurrency);
}

void streams_section(Out out, const TimelineSummary& tl) {
  fmt::format_to(out, "\n## Streams\n\n| device | stream | kernels | memcpys | memsets | busy (ms) | busy % | "
                      "median gap (µs) | p90 gap (µs) |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  for (const auto& s : tl.streams)
    fmt::format_to(out, "| {} | {} | {} | {} | {} | {} | {:.1f} | {} | {} |\n", s.device, s.stream, s.kernels, s.memcpys,
                   s.memsets, ms(s.busy_ns), s.busy_pct, s.kernel_gap_ns.count ? us(s.kernel_gap_ns.median) : "-",
                   s.kernel_gap_ns.count ? us(s.kernel_gap_ns.p90) : "-");
}

// `more_note` follows the count of names past the top ones ("more kernel names in kernels.csv.").
void kernels_section(Out out, const EventStats& st, std::size_t top, const char* more_note) {
  double kernel_total = 0;
  for (const auto& k : st.kernels) kernel_total += k.total_ns;
  fmt::format_to(out, "\n## Top kernels by total time\n\n| kernel | count | total (ms) | % of kernel time | "
                      "median (µs) | min (µs) | p10 (µs) | p90 (µs) | CV |\n"
                      "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  for (std::size_t i = 0; i < st.kernels.size() && i < top; ++i) {
    const auto& k = st.kernels[i];
    fmt::format_to(out, "| {} | {} | {} | {:.1f} | {} | {} | {} | {} | {:.3f} |\n", escape_cell(md_code(k.function)),
                   k.duration_ns.count, ms(k.total_ns), kernel_total > 0 ? 100 * k.total_ns / kernel_total : 0,
                   us(k.duration_ns.median), us(k.duration_ns.min), us(k.duration_ns.p10), us(k.duration_ns.p90),
                   k.duration_ns.cv());
  }
  if (st.kernels.size() > top) fmt::format_to(out, "\n{} {}\n", st.kernels.size() - top, more_note);
}

void copies_section(Out out, const Trace& t) {
  if (t.memcpys.empty() && t.memsets.empty()) return;
  struct Acc { std::size_t n = 0; double bytes = 0, ns = 0; };
  std::map<std::string, Acc> by_kind;
  for (const auto& m : t.memcpys) {
    auto& a = by_kind[std::string(memcpy_kind_name(m.kind))];
    ++a.n, a.bytes += static_cast<double>(m.bytes), a.ns += static_cast<double>(m.duration_ns());
  }
  for (const auto& m : t.memsets) {
    auto& a = by_kind["Memset"];
    ++a.n, a.bytes += static_cast<double>(m.bytes), a.ns += static_cast<double>(m.duration_ns());
  }
  fmt::format_to(out, "\n## Memory copies\n\n| kind | count | MB | total (ms) | GB/s |\n| --- | --- | --- | --- | --- |\n");
  for (const auto& [kind, a] : by_kind)
    fmt::format_to(out, "| {} | {} | {:.1f} | {} | {:.1f} |\n", kind, a.n, a.bytes / 1e6, ms(a.ns),
                   a.ns > 0 ? a.bytes / a.ns : 0);
}

void launch_section(Out out, const Trace& t, const TimelineSummary& tl) {
  fmt::format_to(out, "\n## Launch overhead\n\n");
  if (!t.info.api_traced) {
    fmt::format_to(out, "Not available: API tracing was off (KPROF_TRACE_API=0) or the trace format has no API records.\n");
    return;
  }
  const auto& l = tl.launch;
  fmt::format_to(out, "Host API call start → kernel start, over {} kernels matched by correlation id", l.matched);
  if (l.graph_kernels) fmt::format_to(out, " ({} CUDA graph kernels left out)", l.graph_kernels);
  fmt::format_to(out, ".\n\n| quantity | median (µs) | p90 (µs) |\n| --- | --- | --- |\n");
  fmt::format_to(out, "| API call → kernel start | {} | {} |\n", us(l.api_to_start_ns.median), us(l.api_to_start_ns.p90));
  fmt::format_to(out, "| launch call duration | {} | {} |\n", us(l.api_duration_ns.median), us(l.api_duration_ns.p90));
}

void gaps_section(Out out, const TimelineSummary& tl) {
  const auto& g = tl.kernel_gap_ns;
  fmt::format_to(out, "\n## Gaps between kernels\n\n");
  if (g.count == 0) {
    fmt::format_to(out, "No stream ran more than one kernel.\n");
    return;
  }
  fmt::format_to(out, "Idle time between consecutive kernels on the same stream, {} gaps: median {} µs, p90 {} µs, "
                      "max {} µs, total {} ms.\n", g.count, us(g.median), us(g.p90), us(g.max), ms(g.mean * g.count));
}

void nvtx_section(Out out, const Trace& t, const EventStats& st) {
  fmt::format_to(out, "\n## NVTX ranges\n\n");
  if (st.ranges.empty()) {
    fmt::format_to(out, "No NVTX ranges in the trace{}.\n",
                   t.info.nvtx_traced ? "" : " (set NVTX_INJECTION64_PATH to libcupti to record them)");
    return;
  }
  fmt::format_to(out, "| range | count | host span median (ms) | GPU span median (ms) | kernels | kernel time (ms) |\n"
                      "| --- | --- | --- | --- | --- | --- |\n");
  for (const auto& r : st.ranges)
    fmt::format_to(out, "| {} | {} | {} | {} | {} | {} |\n", escape_cell(r.path), r.host_span_ns.count,
                   ms(r.host_span_ns.median), r.gpu_span_ns.count ? ms(r.gpu_span_ns.median) : "-", r.kernels,
                   ms(r.kernel_time_ns));
}

}  // namespace

std::string render_timeline_report(const Trace& t, const TimelineSummary& tl, const EventStats& st,
                                   const TimelineReportOptions& options) {
  fmt::memory_buffer b;
  auto out = std::back_inserter(b);
  trace_section(out, t, true);
  utilisation_section(out, tl);
  streams_section(out, tl);
  kernels_section(out, st, options.top_kernels, "more kernel names in kernels.csv.");
  copies_section(out, t);
  launch_section(out, t, tl);
  gaps_section(out, tl);
  nvtx_section(out, t, st);
  return fmt::to_string(b);
}

std::string render_timeline_headline(const Trace& t, const TimelineSummary& tl, std::size_t order_shown) {
  fmt::memory_buffer b;
  auto out = std::back_inserter(b);
  const auto& o = tl.overlap;
  const double busy_pct = o.span_ns > 0 ? o.busy_ns / o.span_ns * 100.0 : 0.0;
  fmt::format_to(out, "\n### Timeline\n| Figure | Value |\n|---|---|\n");
  fmt::format_to(out, "| GPU busy | {:.1f}% of {} ms |\n", busy_pct, ms(o.span_ns));
  fmt::format_to(out, "| overlap (≥ 2 activities) | {:.1f}% of busy (kernel–kernel {:.1f}%, copy–kernel {:.1f}%) |\n",
                 o.overlap_pct, o.kernel_kernel_pct, o.copy_kernel_pct);
  fmt::format_to(out, "| concurrency | max {}, mean {:.2f} |\n", o.max_concurrency, o.mean_concurrency);
  fmt::format_to(out, "| streams | {} |\n", tl.streams.size());
  if (t.info.api_traced && tl.launch.matched > 0)
    fmt::format_to(out, "| launch call → kernel start | median {} µs, p90 {} µs |\n", us(tl.launch.api_to_start_ns.median),
                   us(tl.launch.api_to_start_ns.p90));
  if (tl.kernel_gap_ns.count > 0)
    fmt::format_to(out, "| gaps between kernels on a stream | median {} µs, total {} ms |\n", us(tl.kernel_gap_ns.median),
                   ms(tl.kernel_gap_ns.mean * static_cast<double>(tl.kernel_gap_ns.count)));
  if (!tl.launch_order.empty()) {
    std::string order;
    const std::size_t n = std::min(order_shown, tl.launch_order.size());
    for (std::size_t i = 0; i < n; ++i) {
      const auto& k = t.kernels[tl.launch_order[i]];
      std::string name = t.str(k.function).empty() ? std::string(t.str(k.name)) : std::string(t.str(k.function));
      if (name.size() > 40) name = name.substr(0, 37) + "...";
      order += fmt::format("{}{} (s{})", i ? " → " : "", escape_cell(md_code(name)), k.stream);
    }
    if (tl.launch_order.size() > n) order += fmt::format(" → … ({} kernels in all)", tl.launch_order.size());
    fmt::format_to(out, "| launch order (by GPU start) | {} |\n", order);
  }
  fmt::format_to(out, "\nEvery figure in `timeline.md`; the timeline in `trace.json` (ui.perfetto.dev).\n");
  return fmt::to_string(b);
}

std::string render_timing_report(const Trace& t, const EventStats& st, const TimelineReportOptions& options) {
  fmt::memory_buffer b;
  auto out = std::back_inserter(b);
  trace_section(out, t, false);
  kernels_section(out, st, options.top_kernels, "more kernel names; profile.json holds every launch's duration.");
  nvtx_section(out, t, st);
  return fmt::to_string(b);
}

std::string render_kernels_csv(const Trace& t) {
  fmt::memory_buffer b;
  fmt::format_to(std::back_inserter(b), "index,name,function,start_ns,end_ns,duration_ns,device,stream,correlation,"
                 "grid_x,grid_y,grid_z,block_x,block_y,block_z,registers,smem_static,smem_dynamic,graph_id,nvtx_range\n");
  for (std::size_t i = 0; i < t.kernels.size(); ++i) {
    const auto& k = t.kernels[i];
    fmt::format_to(std::back_inserter(b), "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", i,
                   csv_cell(t.str(k.name)), csv_cell(t.str(k.function)), k.start_ns, k.end_ns, k.duration_ns(),
                   k.device, k.stream, k.correlation, k.grid[0], k.grid[1], k.grid[2], k.block[0], k.block[1],
                   k.block[2], k.registers, k.smem_static, k.smem_dynamic, k.graph_id,
                   k.nvtx_range >= 0    ? csv_cell(t.str(t.nvtx[k.nvtx_range].name))
                   : k.nvtx_adopted >= 0 ? csv_cell(t.str(t.nvtx[k.nvtx_adopted].name))
                                         : "");
  }
  return fmt::to_string(b);
}

std::string render_memcpy_csv(const Trace& t) {
  fmt::memory_buffer b;
  auto out = std::back_inserter(b);
  fmt::format_to(out, "kind,bytes,start_ns,end_ns,duration_ns,gb_per_s,device,stream,correlation\n");
  auto row = [&](std::string_view kind, const auto& m) {
    auto d = m.duration_ns();
    fmt::format_to(out, "{},{},{},{},{},{:.3f},{},{},{}\n", kind, m.bytes, m.start_ns, m.end_ns, d,
                   d > 0 ? static_cast<double>(m.bytes) / static_cast<double>(d) : 0.0, m.device, m.stream,
                   m.correlation);
  };
  for (const auto& m : t.memcpys) row(memcpy_kind_name(m.kind), m);
  for (const auto& m : t.memsets) row("Memset", m);
  return fmt::to_string(b);
}

std::string render_api_csv(const Trace& t) {
  fmt::memory_buffer b;
  fmt::format_to(std::back_inserter(b), "domain,name,cbid,start_ns,end_ns,duration_ns,process,thread,correlation,return_value\n");
  for (const auto& a : t.api_calls)
    fmt::format_to(std::back_inserter(b), "{},{},{},{},{},{},{},{},{},{}\n",
                   a.domain == ApiDomain::driver ? "driver" : "runtime", csv_cell(t.str(a.name)), a.cbid, a.start_ns,
                   a.end_ns, a.end_ns - a.start_ns, a.process, a.thread, a.correlation, a.return_value);
  return fmt::to_string(b);
}

std::string render_overlap_csv(const TimelineSummary& tl) {
  fmt::memory_buffer b;
  fmt::format_to(std::back_inserter(b), "t_ns,kernels,copies,running\n");
  for (const auto& s : tl.steps)
    fmt::format_to(std::back_inserter(b), "{},{},{},{}\n", s.t_ns, s.kernels, s.copies, s.kernels + s.copies);
  return fmt::to_string(b);
}

}  // namespace kprof::render
