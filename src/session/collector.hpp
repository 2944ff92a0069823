// A collector is one way of measuring the profiled program: a pass that runs it under a tool and leaves raw files
// in the artifact directory (tracer → trace.kptrace, CUPTI counters → counters.json, ncu → ncu/*.csv, compiled
// code → compiled/), or a recorder around the passes (clocks). What a collector learns that is not a file (exit
// statuses, clock readings, the tool's messages) goes into Collected; assemble() turns both into a ProfileRun.
#pragma once
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/clock.hpp"
#include "session/mode_table.hpp"
#include "session/run_spec.hpp"
#include "util/process.hpp"

namespace kprof::session {

// One pass as it ran.
struct PassRecord {
  CollectorKind kind = CollectorKind::Tracer;
  std::optional<ProcessResult> process;  // the profiled program's run under this pass (none for compiled code)
  std::vector<std::string> warnings;     // what the pass reported while running
  std::string failure;                   // ncu: why it failed ("" when it did not)
};

// The facts of a run that are not in its files, in the order they arose.
struct Collected {
  std::filesystem::path dir;                  // the artifact directory: the passes' raw files are here
  std::string timestamp;                      // ISO 8601 UTC, when the run started
  std::string gpu_name;                       // nvidia-smi's name for the GPU ("" unknown)
  std::vector<std::string> warnings_before;   // before the first pass (clock lock, clock readings)
  std::vector<PassRecord> passes;             // in run order
  std::vector<std::string> warnings_after;    // after the last pass (clock readings)
  std::optional<ClockRecord> clocks;          // before and after the passes
  bool reanalysis = false;                    // raw files read back (kprof analyze DIR): one that cannot be read
                                              // is an error (exit 3), not a warning as in a live run
  bool interrupted() const;
  // The profiled program's own run: the first pass that ran it (its exit status is the run's).
  const ProcessResult* program() const;
};

struct CollectorContext {
  const RunSpec& spec;
  const ModePlan& plan;
  std::filesystem::path dir;
  int gpu = 0;
  void log(LogLevel level, const std::string& message) const {
    if (spec.log) spec.log(level, message);
  }
};

class Collector {
 public:
  virtual ~Collector() = default;
  virtual CollectorKind kind() const = 0;
  // What it would do, for --dry-run: "<kind>: <what>" lines, and the command it would run.
  virtual std::vector<std::string> describe(const CollectorContext& ctx) const = 0;
  // Before any pass (the clock recorder reads and locks here).
  virtual void begin(CollectorContext&, Collected&) {}
  // The pass. Not called once an earlier pass was interrupted.
  virtual void run(CollectorContext&, Collected&) {}
  // After the passes, in reverse order (the clock recorder reads again and restores).
  virtual void end(CollectorContext&, Collected&) {}
};

// The library's environment for a tracer pass (trace file in ctx.dir, the plan's record kinds) and for a CUPTI
// counter pass (counters file in ctx.dir, metrics, launch filters): what the passes give the program they start,
// and what the C API sets in its own process for in-process profiling (capi/).
std::map<std::string, std::string> tracer_pass_env(const CollectorContext& ctx);
std::map<std::string, std::string> counter_pass_env(const CollectorContext& ctx);

// The plan's collectors, in run order.
std::vector<std::unique_ptr<Collector>> make_collectors(const ModePlan& plan);

// The metric list annotation mode asks ncu for (data/ncu-annotation-metrics.txt), and the part the CUPTI range
// profiler can give (no thread-level instruction counts by opcode: those need ncu's SASS patching).
std::vector<std::string> annotation_metrics();
std::vector<std::string> cupti_metrics(const std::vector<std::string>& annotation);

}  // namespace kprof::session
