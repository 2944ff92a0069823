// profile(): the one place where "profile this program" happens, for every front end. It validates the spec,
// plans the mode's collectors (mode_table.hpp), takes the per-GPU lock, runs the collectors (collector.hpp) and
// assembles what they wrote into a ProfileRun (assemble.hpp). It prints nothing (progress goes to spec.log) and
// never exits; what it cannot do is thrown as kprof::Error with the documented exit code. publish() writes it.
#pragma once
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/profile.hpp"
#include "model/source_view.hpp"
#include "model/trace.hpp"
#include "session/analysis_context.hpp"
#include "session/mode_table.hpp"
#include "session/run_spec.hpp"

namespace kprof {
class InterruptScope;
}

namespace kprof::session {

class ArtifactStage;

struct ProfileResult {
  ModePlan plan;
  std::filesystem::path dir;          // the artifact directory: where publish() puts it (then where it went)
  std::shared_ptr<ArtifactStage> stage;         // the staging directory the raw files are in (artifact.hpp)
  std::shared_ptr<InterruptScope> interrupts;   // SIGINT/SIGTERM recorded until the result is published
  bool dry_run = false;
  std::vector<std::string> dry_run_lines;  // a dry run: the mode, each collector and command, the outputs
  ProfileRun run;                     // assembled; analysed by publish()
  std::optional<Trace> trace;
  SourceView source;
  AnalysisContext context;            // devices and thresholds, loaded before the program ran
  int exit_code = 0;                  // kExitOk, kExitProgramFailed (partial results), kExitInterrupted/Terminated
  std::string program_status;         // how the profiled program ended ("exited with code 1"), when it failed
  // The line a front end prints for a failed or interrupted run ("" when it ended well).
  std::string outcome() const;
};

// Throws Error(kExitUsage) for a bad spec (no command, a program that is not there, an unusable counter filter,
// --lock-clocks without consent), kExitNoTool for a missing tool, kExitBusy when the GPU is taken (no_wait), and
// what the readers throw for malformed raw output.
// A machine without a GPU fails first, before anything starts (kExitNoGpu, collect/gpu_presence.hpp). `stage`:
// the staging directory to write into when the caller made it (a package run's kprof-kernels writes there first).
ProfileResult profile(const RunSpec& spec, std::shared_ptr<ArtifactStage> stage = nullptr);

// The artifact directory `spec` will write: spec.output.out_dir, else
// <out_root>/<mode>/<kernel>/<params>/<timestamp>/ for the given ISO timestamp.
std::filesystem::path artifact_dir_for(const RunSpec& spec, const std::string& timestamp);

}  // namespace kprof::session
