// A collector is one way of measuring the profiled program: a pass that runs it under a tool and leaves raw files
// in the artifact directory (tracer → trace.kptrace, CUPTI counters → counters.json, ncu → ncu/*.csv, compiled
// code → compiled/), or a recorder around the passes (clocks). What a collector learns that is not a file (exit
// statuses, clock readings, the tool's messages) goes into Collected; assemble() turns both into a ProfileRun.
// Each collector is one file, session/collectors/<name>.cpp, and one row of the registry (CollectorRow, in
// collectors.cpp): how it runs, how its raw files are read back and found again, what it feeds.
#pragma once
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/clock.hpp"
#include "model/profile.hpp"
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

struct Assembled;  // assemble.hpp

// What a collector's reader is given: the spec, the recorded facts (the artifact directory, whether this is a
// re-analysis) and its own pass.
struct PassReading {
  const RunSpec& spec;
  const Collected& collected;
  const PassRecord& pass;
};

// One collector, every part of it. plan_run(), make_collectors(), assemble(), reassemble_artifact() and the C API's
// in-process windows read these rows and name no collector themselves.
struct CollectorRow {
  CollectorKind kind;
  std::string_view name;  // "tracer": the dry run's lines, messages, the C API's reply
  // Whether a plan runs it for `spec`, `mode` listing it (mode_table.cpp): what the spec chose (the counter
  // source, the timing source).
  bool (*planned)(const ModeEntry& mode, const RunSpec& spec) = nullptr;
  std::unique_ptr<Collector> (*make)() = nullptr;
  bool runs_program = false;  // its pass is a run of the program itself (an ncu pass's process is ncu)
  WarningCode warnings = WarningCode::Other;  // what the messages its pass reports concern (model/warning.hpp)
  // The raw files it leaves for its reader, relative to the artifact directory (none for clocks and compiled code,
  // whose compiled/ files are for the user).
  std::vector<std::string_view> raw_files;
  // Reads its raw files back into the assembled run; null when it leaves none to read (clocks, compiled code).
  void (*read)(Assembled& assembled, const PassReading& pass) = nullptr;
  // Whether an artifact directory holds its raw files (what a re-analysis rebuilds from); null when `read` is.
  bool (*probe)(const std::filesystem::path& dir) = nullptr;
  // A re-analysis replays its pass without its files too: its reader then says the tool wrote nothing, as the
  // live run did. Otherwise a pass whose files are absent did not run (no trace: the counters timed the run).
  bool replay_when_absent = false;
  // What finding its files, or not, says about the spec the run was made with (its counter or timing source).
  void (*recorded_choice)(RunSpec& spec, bool found) = nullptr;
  // Whether a run without its files lost what only they held (the tracer's timing of every launch): a
  // re-analysis then re-reads profile.json instead of rebuilding the run.
  bool (*lost_without)(const ProfileRun& recorded) = nullptr;
  std::vector<OutputInput> feeds;  // the mode outputs' inputs it gives (outputs.hpp)
  // In-process profiling (capi/, one collector per process): the library's environment for it, set in the
  // profiling process before the library loads; null when it cannot run there.
  std::map<std::string, std::string> (*in_process_env)(const CollectorContext& ctx) = nullptr;
  std::string_view in_process_warning;  // what each in-process window of it says ("" nothing)
  bool one_window_per_process = false;  // the library profiles one window of it per process
};
// Every collector, one row each, in CollectorKind order.
const std::vector<CollectorRow>& collector_rows();
const CollectorRow& collector_row(CollectorKind kind);

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
