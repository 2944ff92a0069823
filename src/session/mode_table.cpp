#include "session/mode_table.hpp"

#include <algorithm>

#include "collect/trace/tracer_env.hpp"

namespace kprof::session {

namespace {

// What durations and stages need: kernels, the NVTX ranges, and the launch calls that tie each kernel to the
// range it was launched in. The cheapest set that keeps stages right (no copies, memsets, synchronisation).
constexpr TracerRecords kTimingRecords{.runtime_api = true, .nvtx = true};
// The whole timeline: copies, memsets and host synchronisation as well.
constexpr TracerRecords kTimelineRecords{.runtime_api = true, .copies = true, .sync = true, .nvtx = true};

const ModeEntry kTable[] = {
    {Mode::Annotation, "counters of each distinct kernel, roofline, bottleneck, ranked opportunities",
     /*tracer=*/true, kTimingRecords, /*counters=*/true, /*ncu_full=*/false, /*compiled_code=*/false, {}},
    {Mode::Event, "precise durations of every launch (median, p10/p90, CV) at the tracer's lowest overhead",
     /*tracer=*/true, kTimingRecords, false, false, false, {.timing_report = true}},
    // A tracer pass too: ncu replays one launch per kernel group, the tracer times them all (launch gaps, stages).
    {Mode::Ncu, "Nsight Compute --set full: every section, NCU rules, annotated source, SASS", /*tracer=*/true,
     kTimingRecords, false, /*ncu_full=*/true, /*compiled_code=*/true, {.source_pages = true}},
    {Mode::Nsys, "the full timeline: streams, copies, synchronisation, overlap, launch overhead, Perfetto trace",
     /*tracer=*/true, kTimelineRecords, false, false, false, {.timeline = true, .chrome_trace = true}},
};

}  // namespace

std::string_view collector_name(CollectorKind kind) {
  switch (kind) {
    case CollectorKind::Clocks: return "clocks";
    case CollectorKind::Tracer: return "tracer";
    case CollectorKind::CuptiCounters: return "cupti-counters";
    case CollectorKind::NcuMetrics: return "ncu-metrics";
    case CollectorKind::NcuFull: return "ncu-full";
    case CollectorKind::CompiledCode: return "compiled-code";
  }
  return "?";
}

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

std::vector<std::string> ModeOutputs::names() const {
  std::vector<std::string> n{"params.json", "profile.json", "contract.md", "contract.json", "report.md",
                             "roofline.svg (when kernels can be placed)"};
  if (timing_report) n.push_back("timing.md");
  if (timeline) n.insert(n.end(), {"timeline.md", "kernels.csv", "memcpy.csv", "api.csv", "overlap.csv"});
  if (chrome_trace) n.push_back("trace.json");
  if (source_pages) n.insert(n.end(), {"report-verbose.md", "source/"});
  return n;
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
  p.collectors.push_back(CollectorKind::Clocks);
  const bool cupti = e.counters && p.counter_source == CounterSource::Cupti;
  // Annotation with --timing counters takes the durations of the counter run: no tracer pass.
  if (e.tracer && !(e.counters && spec.timing == TimingSource::Counters)) p.collectors.push_back(CollectorKind::Tracer);
  if (e.counters) p.collectors.push_back(cupti ? CollectorKind::CuptiCounters : CollectorKind::NcuMetrics);
  if (e.ncu_full) p.collectors.push_back(CollectorKind::NcuFull);
  if (e.compiled_code) p.collectors.push_back(CollectorKind::CompiledCode);
  p.clock_control = p.runs_ncu() ? spec.clock_control
                    : cupti      ? "none (CUPTI range profiler; clocks left as found)"
                                 : "not applicable (CUPTI timestamps; clocks left as found)";
  return p;
}

}  // namespace kprof::session
