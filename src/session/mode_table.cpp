#include "session/mode_table.hpp"

#include <algorithm>

#include "collect/trace/tracer_env.hpp"
#include "session/collector.hpp"

namespace kprof::session {

namespace {

// What durations and stages need: kernels, the NVTX ranges, and the launch calls that tie each kernel to the
// range it was launched in. The cheapest set that keeps stages right (no copies, memsets, synchronisation).
constexpr TracerRecords kTimingRecords{.runtime_api = true, .nvtx = true};
// The first passes (annotation, ncu): the same plus copies and memsets, so that program advice sees the GPU's copies
// (a wait in a copy call is the GPU copying, not idle; copies that never overlap the kernels). Programs copy far less
// often than they launch; what the copy records add to the first pass's cost was not measured (docs/cli.md).
constexpr TracerRecords kFirstPassRecords{.runtime_api = true, .copies = true, .nvtx = true};
// The whole timeline: copies, memsets and host synchronisation as well.
constexpr TracerRecords kTimelineRecords{.runtime_api = true, .copies = true, .sync = true, .nvtx = true};

using enum CollectorKind;

const ModeEntry kTable[] = {
    {Mode::Annotation, "counters of each distinct kernel, roofline, bottleneck, ranked opportunities",
     {Clocks, Tracer, CuptiCounters, NcuMetrics}, kFirstPassRecords, {}},
    {Mode::Event, "precise durations of every launch (median, p10/p90, CV) at the tracer's lowest overhead",
     {Clocks, Tracer}, kTimingRecords, {.timing_report = true}},
    // A tracer pass too: ncu replays one launch per kernel group, the tracer times them all (launch gaps, stages).
    {Mode::Ncu, "Nsight Compute --set full: every section, NCU rules, annotated source, SASS",
     {Clocks, Tracer, NcuFull, CompiledCode}, kFirstPassRecords, {.source_pages = true}},
    {Mode::Nsys, "the full timeline: streams, copies, synchronisation, overlap, launch overhead, Perfetto trace",
     {Clocks, Tracer}, kTimelineRecords, {.timeline = true, .chrome_trace = true}},
};

}  // namespace

std::map<std::string, std::string> TracerRecords::env() const {
  auto flag = [](bool b) { return std::string(b ? "1" : "0"); };
  return {{tracer_env::kApi, flag(runtime_api)}, {tracer_env::kDriver, flag(driver_api)},
          {tracer_env::kCopies, flag(copies)},   {tracer_env::kSync, flag(sync)},
          {tracer_env::kNvtx, flag(nvtx)},       {tracer_env::kGraph, flag(graph_trace)},
          {tracer_env::kOverhead, flag(overhead)}};
}

std::string TracerRecords::describe() const {
  std::string s = "kernels";
  auto add = [&](bool on, const char* what) {
    if (on) s += std::string(", ") + what;
  };
  add(nvtx, "NVTX ranges");
  add(runtime_api, "runtime API");
  add(driver_api, "driver API");
  add(copies, "memcpy/memset");
  add(sync, "synchronisation");
  add(graph_trace, "graph launches");
  add(overhead, "CUPTI overhead");
  return s;
}

const ModeEntry& mode_entry(Mode mode) {
  for (const auto& e : kTable)
    if (e.mode == mode) return e;
  return kTable[0];
}

bool ModePlan::has(CollectorKind kind) const {
  return std::find(collectors.begin(), collectors.end(), kind) != collectors.end();
}

ModePlan plan_run(const RunSpec& spec) {
  const ModeEntry& e = mode_entry(spec.mode);
  ModePlan p;
  p.mode = spec.mode;
  p.counter_source = counter_source(spec);
  p.outputs = e.outputs;
  p.records = e.records;
  // Python kernels (Triton, PyTorch) are often launched through the driver API: record it there.
  if (is_python(spec)) p.records.driver_api = true;
  for (CollectorKind k : e.collectors)
    if (collector_row(k).planned(e, spec)) p.collectors.push_back(k);
  p.clock_control = p.runs_ncu()                        ? spec.clock_control
                    : p.has(CollectorKind::CuptiCounters) ? "none (CUPTI range profiler; clocks left as found)"
                                                          : "not applicable (CUPTI timestamps; clocks left as found)";
  return p;
}

}  // namespace kprof::session
