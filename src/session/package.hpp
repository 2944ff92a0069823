// `kprof <package> [<version>]` and the C++ API's *_profile_plan: a bundled kernel package, run by kprof-kernels.
//   1. `kprof-kernels list` / `describe` (no GPU): resolve package, version (default: latest) and parameters, and
//      read the plan: stages with their declared FLOPs, minimum bytes and precision.
//   2. `kprof-kernels run ... --runs 0` (not profiled): check against the reference and autotune (cache reused
//      unless retune); it writes tiling/ and compiled/ straight into the artifact directory.
//   3. `kprof-kernels run ... --no-check --no-tune --runs N` profiled through profile() in the chosen mode, so the
//      trace and ncu see only the plan's stages (each in its NVTX range), with the plan's declarations attached.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "model/params.hpp"
#include "plan/plan_types.hpp"
#include "session/profile.hpp"
#include "session/run_spec.hpp"

namespace kprof::session {

struct PackageResult {
  int exit_code = 0;                     // kExitOk, kExitProgramFailed, kExitInterrupted (of the check/tune run
                                         // when it was interrupted, else of the profiled run)
  std::string package, version;          // resolved (the version defaults to the latest)
  ProblemParams params;                  // resolved: the package's defaults filled in
  plan::KernelPlan plan;                 // kprof-kernels describe
  std::filesystem::path artifact_dir;
  std::vector<std::string> check_and_tune;  // the unprofiled check/tune command
  std::optional<ProfileResult> profiled;    // the profiled plan run (a dry run's plan too); none when the check/tune
                                            // run was interrupted
};

// Throws UnknownPackageError for a package kprof-kernels does not have, Error(kExitUsage) for an unknown version
// or parameter or bench_runs < 1, Error for a failed check/tune (kExitProgramFailed; "wrong result" when the
// reference check failed) or a missing tool.
PackageResult profile_package(const PackageSpec& spec);

}  // namespace kprof::session
