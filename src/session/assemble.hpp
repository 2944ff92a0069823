// From raw outputs to a ProfileRun: the seam between running the collectors (collector.hpp, which write
// trace.kptrace, counters.json, ncu/*.csv into the artifact directory) and everything after. assemble() reads
// only those files, the spec, the plan and the recorded facts (Collected: exit statuses, clock readings, the
// tools' messages); no process, no GPU, no clock. A live run and a replay of raw outputs captured on a GPU
// machine (tests/test_session_assemble.cpp replays examples/h200/) go through this same function.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/profile.hpp"
#include "model/source_view.hpp"
#include "model/trace.hpp"
#include "session/collector.hpp"
#include "session/mode_table.hpp"
#include "session/run_spec.hpp"

namespace kprof::session {

struct Assembled {
  ProfileRun run;
  std::optional<Trace> trace;  // the tracer pass's trace, for the mode's trace outputs
  SourceView source;           // ncu's source page (ncu mode), for source/
  std::vector<std::string> cost_notes;  // where a pass's time went, from its raw files (kprof run says them)
};

// Stages come from the tracer's launches when the tracer ran (counters joined to them), else from the counter
// run's. Throws what the readers throw for a malformed trace or ncu export (ParseError, exit 3) and for ncu's
// counter-permission errors; an unreadable counters.json is a warning (the tracer's durations stand).
Assembled assemble(const RunSpec& spec, const ModePlan& plan, const Collected& collected);

// Counters of one launch per kernel, joined to the traced launches (or standing alone without a trace): what the
// counter collectors' readers do with the launches they read.
void use_counter_launches(Assembled& a, std::vector<KernelLaunch> launches);

// Sets each stage's DeclaredWork from `declared` (by stage name); warns about declared stages that did not run.
void apply_declared_stages(ProfileRun& run, const std::map<std::string, DeclaredWork>& declared);

}  // namespace kprof::session

namespace kprof::session {

// An artifact rebuilt from the raw files its collectors left in it (trace.kptrace, counters.json, ncu/*.csv)
// with what its profile.json recorded besides them (mode, names, command, parameters, clocks, the GPU's name,
// each stage's declared work), through the same assemble() as a live run: the stages, groups and canonical
// metrics are what the current kprof makes of the measurements, not what the kprof that ran them did.
struct Reassembled {
  RunSpec spec;
  ModePlan plan;
  Assembled assembled;
};
// nullopt when the directory holds no raw collector output (an artifact of `kprof analyze` of CSV files, or one
// written before raw files were kept), or lacks the trace its timings came from: only its profile.json can be
// re-read then (rederive_metrics).
std::optional<Reassembled> reassemble_artifact(const std::filesystem::path& dir);

// A run read back from profile.json, its canonical metrics derived again from the raw metrics each group's
// representative launch kept (rates divided by that launch's own duration), so that a re-analysis sees what the
// current kprof derives; groups, launches and timings stay as recorded.
void rederive_metrics(ProfileRun& run);

}  // namespace kprof::session
