// kprof's C++ API for kernel packages, mirroring the seed's Python functions: profile a kernel plan in one mode.
//
//   #include "api/profile_plan.hpp"
//   kprof::plan::KernelPlan plan = kprof::api::describe_plan("mla", "v2", {{"b", 32}, {"s", 16}, {"t", 4096}});
//   auto r = kprof::api::event_profile_plan(plan, "out/profiles");           // the plan's own version
//   auto v3 = kprof::api::event_profile_plan(plan, "out/profiles", "v3", 50); // v3 of mla, same parameters
//   if (v3.ok()) std::cout << v3.contract_markdown << v3.artifact_dir << "\n";  // profile.json, report.md, ...
//
// Each call is `kprof <package> <version> --<param>=<value> ... --prof-type=<mode> --bench-runs N`: the same code
// (session::package_and_publish), so the version is checked against its reference and
// autotuned (with the cache) before the profiled run, and the artifacts are the command line's. Link `kprof_api`
// (CMake target; it brings the session layer and everything below); the program needs kprof-kernels
// (ProfilePlanSettings::kernels, $KPROF_KERNELS, next to the program or on PATH) and, for the event/nsys/annotation
// modes, the CUPTI tracer ($KPROF_INJECT_LIB or next to the program), as `kprof` does.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "model/params.hpp"
#include "model/profile.hpp"
#include "plan/plan_types.hpp"
#include "session/run_spec.hpp"

namespace kprof::api {

// What `kprof <package>` takes besides the plan, version and runs; the defaults are the command line's (the
// session layer's specs, session/run_spec.hpp, which the command line fills too). Nothing is printed: the result
// holds the contract, the warnings and a dry run's lines, and `log` gets the progress lines kprof prints on stderr.
struct ProfilePlanSettings {
  std::string exact_dir;           // write the artifact here instead of <out_dir>/<mode>/<package>/<params>/<time>/
  bool replace = false;            // an artifact already at exact_dir is replaced (else refused, exit 2)
  std::string kernels;             // kprof-kernels binary ("" = $KPROF_KERNELS, next to the program, PATH)
  std::string cache_dir;           // autotune cache root ("" = .cache/kernel-autotune)
  bool retune = false;             // search every tile config again
  std::string baseline;            // artifact directory or profile.json to compare with
  bool devlog = false;             // append an entry to <docs_dir>/<package>.md
  std::string docs_dir = session::OutputSpec{}.docs_dir;
  std::string ncu = session::RunSpec{}.ncu;  // Nsight Compute executable (annotation, ncu modes)
  std::string counters;            // annotation: "ncu" or "cupti" (in-process range profiler); "" = $KPROF_COUNTERS, else cupti
  std::string devices_file;        // extra devices.json
  std::string thresholds_file;     // thresholds.toml overrides
  bool no_wait = false;            // fail instead of waiting for the per-GPU lock
  bool dry_run = false;            // say what would run, run nothing (resolution and errors still happen)
  bool autotune_only = false;      // check and autotune (fill the cache), profile nothing (kprof <package> --autotune)
  std::string executor = "local";  // where the autotuning runs: local, gpus (a worker per GPU), slurm (docs/scale.md)
  int chunk = 1;                   // slurm: tuning tasks per array task
  std::vector<std::string> sbatch_args;  // slurm: more sbatch options
  session::Log log;                // progress and notices (empty: none)
};

struct ProfilePlanResult {
  int exit_code = 0;               // 0 ok; 7 the profiled plan run failed (partial artifact); 130 interrupted
  Mode mode = Mode::Annotation;
  std::string package, version;  // version: the one profiled (the override, or the plan's, or the latest)
  ProblemParams params;            // resolved: the plan's parameters with the package's defaults filled in
  std::filesystem::path artifact_dir;
  std::optional<ProfileRun> run;   // profile.json read back when the run wrote it
  std::string contract_markdown;   // the output contract, as `kprof <package>` prints it, and as JSON
  std::string contract_json;
  std::vector<Warning> warnings;    // each with what it concerns (model/warning.hpp)
  std::filesystem::path devlog_file;       // with settings.devlog: the devlog the entry went to
  std::vector<std::string> dry_run_lines;  // a dry run: the check/tune command, the collectors, the outputs
  std::string ending;              // one line for a failed or interrupted run ("" when it ended well)
  bool ok() const { return exit_code == 0; }
};

// Profile `plan` (package, version and parameters) in one mode, with `bench_runs` timed runs of the plan.
// `out_dir` is the root of the artifact tree (as kprof's --out-root). A non-empty `version` overrides the plan's:
// that version of the plan's package is profiled with the same parameters. Throws kprof::Error for what the
// caller must fix: unknown package (session::UnknownPackageError), version or parameter (exit_code() 2), a version
// that fails its reference check (7, "wrong result"), a missing tool such as kprof-kernels (5).
ProfilePlanResult annotation_profile_plan(const plan::KernelPlan& plan, const std::filesystem::path& out_dir,
                                          const std::string& version = "", int bench_runs = 20,
                                          const ProfilePlanSettings& settings = {});
ProfilePlanResult event_profile_plan(const plan::KernelPlan& plan, const std::filesystem::path& out_dir,
                                     const std::string& version = "", int bench_runs = 20,
                                     const ProfilePlanSettings& settings = {});
ProfilePlanResult ncu_profile_plan(const plan::KernelPlan& plan, const std::filesystem::path& out_dir,
                                   const std::string& version = "", int bench_runs = 20,
                                   const ProfilePlanSettings& settings = {});
ProfilePlanResult nsys_profile_plan(const plan::KernelPlan& plan, const std::filesystem::path& out_dir,
                                    const std::string& version = "", int bench_runs = 20,
                                    const ProfilePlanSettings& settings = {});

// The four above with the mode as an argument ("annotation", "event", "ncu", "nsys").
ProfilePlanResult profile_plan(const std::string& mode, const plan::KernelPlan& plan,
                               const std::filesystem::path& out_dir, const std::string& version = "",
                               int bench_runs = 20, const ProfilePlanSettings& settings = {});

// The plan of `version` ("" = latest) of `package` for `params` (defaults filled in): kprof-kernels describe,
// host only. Throws kprof::Error as above.
plan::KernelPlan describe_plan(const std::string& package, const std::string& version,
                               const std::map<std::string, std::int64_t>& params = {},
                               const std::string& kernels = "");

}  // namespace kprof::api
