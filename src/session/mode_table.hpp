// The mode table: for each mode, which collectors run and which outputs are written. Everything that differs
// between modes is decided here, once, from the RunSpec; the collectors, the assembly and publish() read the plan.
//
//   mode        collectors (in run order)                                   outputs beside the report
//   annotation  clocks, tracer (timing records; not with --timing counters),  —
//               counters (ncu metric list once per kernel, or CUPTI)
//   event       clocks, tracer (timing records)                              timing.md
//   nsys        clocks, tracer (timeline records)                            timeline.md, kernels.csv, memcpy.csv,
//                                                                           api.csv, overlap.csv, trace.json
//   ncu         clocks, ncu --set full with source, compiled code            source/, compiled/
//
// Timing records: kernels, NVTX ranges and runtime API calls (the launch's correlation id is what puts an
// asynchronous launch into the NVTX range it was made in), driver API calls for Python programs. Timeline records
// add memcpy/memset and synchronisation. Every record-kind variable is set explicitly (tracer_env.hpp).
#pragma once
#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "session/mode.hpp"
#include "session/run_spec.hpp"

namespace kprof::session {

enum class CollectorKind { Clocks, Tracer, CuptiCounters, NcuMetrics, NcuFull, CompiledCode };
// "clocks", "tracer", "cupti-counters", "ncu-metrics", "ncu-full", "compiled-code"
std::string_view collector_name(CollectorKind kind);

// The CUPTI activity kinds a tracer pass records (kernels always).
struct TracerRecords {
  bool runtime_api = false;
  bool driver_api = false;
  bool copies = false;       // MEMCPY and MEMSET
  bool sync = false;         // SYNCHRONIZATION
  bool nvtx = false;         // MARKER
  bool graph_trace = false;  // one record per graph launch instead of per node kernel
  bool overhead = false;
  // Every record-kind variable (KPROF_TRACE_API, _DRIVER, _COPIES, _SYNC, _NVTX, _GRAPH, _OVERHEAD) as "0"/"1".
  std::map<std::string, std::string> env() const;
  // "kernels, NVTX ranges, runtime API"
  std::string describe() const;
};

// Files a mode writes beside the standard artifact (params, profile, contract, report, roofline): the switches
// of the output table's mode outputs (outputs.hpp).
struct ModeOutputs {
  bool timing_report = false;  // timing.md: kernel duration statistics and NVTX ranges
  bool timeline = false;       // timeline.md and kernels.csv, memcpy.csv, api.csv, overlap.csv
  bool chrome_trace = false;   // trace.json (Perfetto / chrome://tracing)
  bool source_pages = false;   // source/<kernel>.md and _sass.csv from ncu's source page
  std::vector<std::string> names() const;  // for the dry run (outputs.cpp: the output table's names)
};

// What an output is rendered from: the assembled run alone (written again from profile.json by every re-analysis),
// or what a collector feeds besides it (collector.hpp: CollectorRow::feeds).
enum class OutputInput { run, trace, source_page };

// One row of the table.
struct ModeEntry {
  Mode mode;
  std::string_view purpose;  // what the mode is for, one line
  // The collectors it may run, in run order; each collector's row decides for the spec (annotation lists both
  // counter collectors, and --counters picks one; --timing counters drops its tracer).
  std::vector<CollectorKind> collectors;
  TracerRecords records;     // what a tracer pass records (before the Python driver-API switch)
  ModeOutputs outputs;
  bool lists(CollectorKind kind) const {
    return std::find(collectors.begin(), collectors.end(), kind) != collectors.end();
  }
};
const ModeEntry& mode_entry(Mode mode);

// The table row resolved for one RunSpec: the collectors in run order and what they do.
struct ModePlan {
  Mode mode = Mode::Annotation;
  std::vector<CollectorKind> collectors;
  TracerRecords records;                  // when a tracer pass runs
  CounterSource counter_source = CounterSource::Ncu;
  ModeOutputs outputs;
  std::string clock_control;              // what ProfileRun::clock_control says
  bool has(CollectorKind kind) const;
  bool runs_ncu() const { return has(CollectorKind::NcuMetrics) || has(CollectorKind::NcuFull); }
};
ModePlan plan_run(const RunSpec& spec);

}  // namespace kprof::session
