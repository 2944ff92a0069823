// What to profile and how: the one options family every front end fills (the command line binds its flags to
// these fields, the C++ API sets them, the Python module will), and the session layer reads.
//   RunSpec      any program: `kprof run --prof-type=<mode> -- <command>`
//   PackageSpec  a bundled kernel package: `kprof <package> [<version>]` (a RunSpec whose command, names,
//                parameters and declared work come from kprof-kernels)
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/json_support.hpp"  // integer reads range-checked (not nlohmann/json.hpp directly)

#include "model/params.hpp"
#include "model/profile.hpp"
#include "session/mode.hpp"

namespace kprof::session {

// Progress goes to a callback, never to stdout: `progress` lines are what a quiet front end drops, `notice` lines
// what it shows anyway (a wait for the GPU lock, a dry run's plan).
enum class LogLevel { progress, notice };
using Log = std::function<void(LogLevel, const std::string&)>;

// Where results go and what they are compared with (the same on analyze, run and package commands).
struct OutputSpec {
  std::string out_root = "out/profiles";  // artifacts go to <out_root>/<mode>/<kernel>/<params>/<timestamp>/
  std::string out_dir;                    // exact artifact directory (overrides the layout)
  std::string baseline;                   // artifact directory or profile.json to compare with
  bool devlog = false;                    // append a devlog entry to <docs_dir>/<kernel>.md
  std::string docs_dir = "docs/kernels";
  bool replace = false;                   // --out into an existing artifact replaces it (else refused, exit 2)
};

// The user's data files (--devices, --thresholds); empty = the shipped ones.
struct DataFiles {
  std::string devices_file;     // extra devices.json (its entries override shipped ones)
  std::string thresholds_file;  // thresholds.toml overriding the shipped thresholds
};

// Which launches the counter collectors look at (ncu's filters; --counters cupti passes the same ones on).
struct LaunchFilters {
  std::string kernel_regex;   // ncu -k regex:..., or the CUPTI collector's regex on the base name
  std::string nvtx_include;   // ncu --nvtx-include ("stage_gemm/")
  int launch_skip = 0;
  int launch_count = 0;       // 0 = no limit
  bool all_launches = false;  // annotation: counters for every launch, not once per kernel
};

struct RunSpec {
  Mode mode = Mode::Annotation;
  std::vector<std::string> command;  // the program and its arguments
  std::string kernel;                // name for the artifacts; "" = the program (or Python script) name
  std::string version = "-";         // version label
  ProblemParams params;
  LaunchFilters filters;
  std::optional<CounterSource> counters;  // annotation; unset = $KPROF_COUNTERS, else CUPTI
  TimingSource timing = TimingSource::Trace;  // annotation
  // Annotation after a tracer pass: counters only for kernels that take at least this share of the traced GPU
  // time (0 = every kernel). The user's --kernel-regex and --all-launches override it.
  double counters_min_share_pct = 1.0;
  std::string clock_control = "none";  // ncu --clock-control
  std::string ncu = "ncu";             // Nsight Compute executable
  std::string counters_from;           // event: FLOPs/bytes per kernel from an earlier artifact
  bool lock_clocks = false;            // lock SM clocks for the run, restore on every exit path
  bool yes = false;                    // consent to change clocks (or KPROF_ALLOW_CLOCK_CHANGE=1)
  bool no_wait = false;                // fail instead of waiting for the per-GPU lock
  bool dry_run = false;                // say what would run, run nothing
  OutputSpec output;
  DataFiles data;
  // Work a kernel plan declares per stage (keyed by stage name = NVTX range), applied before analysis.
  std::map<std::string, DeclaredWork> declared_stages;
  Log log;                             // empty: silent
};

// Declared work per stage from JSON ({"stage": {"flops": 1e9, "min_bytes": 4e6, "precision": "fp32"}}): the C API's
// request field and `kprof run --declared FILE`. Throws ParseError (exit 3) naming `where` on a value that is not a
// finite number >= 0 or a field of the wrong type.
std::map<std::string, DeclaredWork> declared_stages_from_json(const nlohmann::json& j, const std::string& where);
std::map<std::string, DeclaredWork> declared_stages_from_file(const std::string& path);

// `kprof <package> [<version>]`: check and tune through kprof-kernels, then profile its plan run.
struct PackageSpec {
  RunSpec run;            // how to profile (mode, outputs, counters, ...); command, kernel, version, params and
                          // declared stages are filled from the package
  std::string package;
  std::string version;    // "" = the latest
  ProblemParams params;   // as given; the package's defaults are filled in
  int bench_runs = 20;    // timed runs of the plan (kprof-kernels run --runs)
  bool retune = false;
  std::string cache_dir;  // autotune cache root ("" = kprof-kernels' default)
  std::string kernels;    // kprof-kernels binary ("" = $KPROF_KERNELS, next to kprof, PATH)
  bool autotune_only = false;   // --autotune: check and tune (fill the cache), profile nothing
  std::string executor = "local";  // where the tuning runs: local | gpus | slurm (session/tune_sweep.hpp)
  int chunk = 1;                   // slurm: tuning tasks per array task
  std::vector<std::string> sbatch_args;  // slurm: more sbatch options
};

// The artifacts' kernel name: spec.kernel, else the program's name, else the Python script's.
std::string kernel_name(const RunSpec& spec);
// The command as one line (arguments with spaces quoted).
std::string command_line(const std::vector<std::string>& command);
// spec.counters, else $KPROF_COUNTERS, else CUPTI. Error(kExitUsage) for a bad KPROF_COUNTERS.
CounterSource counter_source(const RunSpec& spec);
// Whether the profiled program is a Python interpreter (its kernels are often launched through the driver API).
bool is_python(const RunSpec& spec);

}  // namespace kprof::session
