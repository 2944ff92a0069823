// From raw outputs to a ProfileRun: the seam between running the collectors (collector.hpp, which write
// trace.kptrace, counters.json, ncu/*.csv into the artifact directory) and everything after. assemble() reads
// only those files, the spec, the plan and the recorded facts (Collected: exit statuses, clock readings, the
// tools' messages); no process, no GPU, no clock. A live run and a replay of raw outputs captured on a GPU
// machine (tests/test_session_assemble.cpp replays examples/h200/) go through this same function.
#pragma once
#include <map>
#include <optional>
#include <string>

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
};

// Stages come from the tracer's launches when the tracer ran (counters joined to them), else from the counter
// run's. Throws what the readers throw for a malformed trace or ncu export (ParseError, exit 3) and for ncu's
// counter-permission errors; an unreadable counters.json is a warning (the tracer's durations stand).
Assembled assemble(const RunSpec& spec, const ModePlan& plan, const Collected& collected);

// Sets each stage's DeclaredWork from `declared` (by stage name); warns about declared stages that did not run.
void apply_declared_stages(ProfileRun& run, const std::map<std::string, DeclaredWork>& declared);

}  // namespace kprof::session
