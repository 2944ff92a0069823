// The whole of a profiling command, for every front end: profile (or run a package), publish, and say how it
// ended. Nothing is printed here: the command line prints the outcome (cli/commands/print.cpp), the C++ API returns
// it, the C API turns it into JSON.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "session/package.hpp"
#include "session/publish.hpp"
#include "session/run_spec.hpp"

namespace kprof::session {

struct RunOutcome {
  int exit_code = 0;                       // kExitOk, kExitProgramFailed (partial results), 130/143 interrupted
  bool dry_run = false;
  std::vector<std::string> dry_run_lines;  // a dry run: what would run and be written (nothing ran)
  std::optional<Published> published;      // the contract, warnings, artifact and devlog (none for a dry run or a
                                           // package whose check/tune run was interrupted)
  std::string ending;                      // one line for a failed or interrupted run; "" when it ended well
  std::filesystem::path dir() const { return published ? published->dir : std::filesystem::path(); }
};

// `kprof run`: profile(spec), then publish() into its artifact.
RunOutcome run_and_publish(const RunSpec& spec);

struct PackageOutcome {
  RunOutcome outcome;
  std::string package, version;            // resolved (the version defaults to the latest)
  ProblemParams params;                    // resolved: the package's defaults filled in
  std::filesystem::path artifact_dir;      // where the artifact went (where it was to go, for a dry run)
};

// `kprof <package>`: profile_package(spec) (check, tune, profile), then publish(). A dry run's lines start with
// the check/tune command. Throws what profile_package throws.
PackageOutcome package_and_publish(const PackageSpec& spec);

}  // namespace kprof::session
