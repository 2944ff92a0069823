// `kprof analyze` for every front end: an artifact directory re-analysed (rebuilt from its raw collector files
// when it has them, else its profile.json re-read), or ncu CSV exports or .ncu-rep reports (exported with
// `ncu --import --csv` when ncu is on PATH) imported, then published like a live run.
// The command line and the C API (capi/) call this; it prints nothing.
#pragma once
#include <string>
#include <vector>

#include "model/params.hpp"
#include "model/profile.hpp"
#include "session/publish.hpp"
#include "session/run_spec.hpp"

namespace kprof::session {

struct AnalyzeSpec {
  std::vector<std::string> inputs;  // ncu CSV files, a directory of them, or one artifact directory
  std::string kernel;               // "" = the recorded or profiled process name
  std::string version = "-";
  ProblemParams params;
  OutputSpec output;
  DataFiles data;
  bool write = true;                // write an artifact directory (output.out_dir, else the layout under out_root)
  std::string ncu = "ncu";          // Nsight Compute, to export an .ncu-rep input's CSV pages (ncu --import)
};

struct Analyzed {
  ProfileRun run;        // analysed: stages with metrics, bottlenecks and opportunities
  Published published;   // contract (Markdown, JSON), artifact directory, warnings
};

// Throws Error(kExitNoTool) for an .ncu-rep without ncu on PATH, Error(kExitBadInput) for a missing input or a
// directory with neither profile.json nor CSV files, Error(kExitUsage) for a mix of directories and files, and what
// the readers throw for malformed input.
Analyzed analyze_inputs(const AnalyzeSpec& spec);

}  // namespace kprof::session
