// One function per kprof subcommand. app.cpp parses the command line into these option structs.
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "cli/commands/kernels_binary.hpp"
#include "model/params.hpp"
#include "model/profile.hpp"
#include "util/errors.hpp"

namespace kprof::cli {

struct CommonOptions {
  std::string devices_file;     // extra devices.json (user entries override shipped ones)
  std::string thresholds_file;  // thresholds.toml overriding the shipped thresholds
  bool json = false;            // print JSON instead of the Markdown contract
  bool quiet = false;
};

struct AnalyzeOptions {
  CommonOptions common;
  std::vector<std::string> inputs;  // ncu CSV files, or an artifact directory
  std::string kernel;               // default: the profiled process name
  std::string version = "-";
  std::string baseline;             // artifact directory or profile.json to compare with
  std::string out_root = "out/profiles";  // artifacts go to <out_root>/<mode>/<kernel>/<params>/<timestamp>/
  std::string out_dir;              // exact artifact directory (overrides out_root layout)
  ProblemParams params;
  bool devlog = false;              // also append a devlog entry
  std::string docs_dir = "docs/kernels";
  bool write = true;
};

struct CompareOptions {
  CommonOptions common;
  std::string baseline, current;
};

struct DevlogOptions {
  CommonOptions common;
  std::string artifact;
  std::string docs_dir = "docs/kernels";
};

struct DevicesOptions {
  CommonOptions common;
  std::string show;
};

int cmd_analyze(const AnalyzeOptions&);
int cmd_compare(const CompareOptions&);
int cmd_devlog(const DevlogOptions&);
int cmd_devices(const DevicesOptions&);

}  // namespace kprof::cli

namespace kprof::cli {

struct RunOptions {
  CommonOptions common;
  std::string prof_type = "annotation";  // annotation | event | ncu | nsys
  std::vector<std::string> command;      // after `--`
  std::string kernel;                    // default: program (or Python script) name
  std::string version = "-";
  ProblemParams params;
  std::string out_root = "out/profiles";
  std::string out_dir;
  std::string baseline;
  bool devlog = false;
  std::string docs_dir = "docs/kernels";
  // ncu filters and settings
  std::string kernel_regex;
  std::string nvtx_include;
  int launch_skip = 0;
  int launch_count = 0;
  bool all_launches = false;             // annotation: counters for every launch, not once per kernel
  std::string timing = "trace";          // annotation: durations from the tracer ("trace") or the counter run ("counters"/"ncu")
  std::string counters;                  // annotation: counters from Nsight Compute ("ncu") or in-process CUPTI
                                         // ("cupti"); "" = $KPROF_COUNTERS, else ncu
  std::string clock_control = "none";
  std::string ncu = "ncu";
  bool no_wait = false;                  // fail instead of waiting for the per-GPU lock
  bool dry_run = false;                  // print the commands, run nothing
  std::string counters_from;             // event mode: FLOPs/bytes per kernel from an earlier artifact
  bool lock_clocks = false;              // lock SM clocks for the run, restore on every exit path
  bool yes = false;                      // consent to change clocks (or KPROF_ALLOW_CLOCK_CHANGE=1)
  // Work a kernel plan declares per stage (keyed by stage name = NVTX range), applied before analysis.
  std::map<std::string, DeclaredWork> declared_stages;
};

int cmd_run(const RunOptions&);
// Sets each stage's DeclaredWork from `declared` (by stage name); warns about declared stages that did not run.
void apply_declared_stages(ProfileRun& run, const std::map<std::string, DeclaredWork>& declared);

// kprof <package> [<version>] --m=.. --prof_type=<mode>: a bundled kernel package (kprof-kernels) profiled
// through cmd_run, with each stage's FLOPs and minimum bytes declared from the package's plan.
struct PackageOptions {
  CommonOptions common;
  std::string package;
  std::string version;                   // "" = latest
  ProblemParams params;
  std::string prof_type = "annotation";
  int bench_runs = 20;                   // timed runs of the plan (kprof-kernels run --runs)
  bool retune = false;
  std::string cache_dir;                 // autotune cache root ("" = kprof-kernels' default)
  std::string out_root = "out/profiles";
  std::string out_dir;
  std::string baseline;
  bool devlog = false;
  std::string docs_dir = "docs/kernels";
  std::string ncu = "ncu";
  std::string counters;                  // annotation: "ncu" or "cupti" ("" = $KPROF_COUNTERS, else ncu)
  bool no_wait = false;
  bool dry_run = false;
  std::string kernels;                   // kprof-kernels binary ("" = $KPROF_KERNELS, next to kprof, PATH)
};
int cmd_package(const PackageOptions&);

// What profile_package did: the version and parameters it resolved (defaults filled in), the artifact directory
// it wrote, and the exit code of the profiled run (kExitOk, kExitProgramFailed, kExitInterrupted).
struct PackageRun {
  int exit_code = kExitOk;
  std::string package, version;
  ProblemParams params;
  std::filesystem::path artifact_dir;
};
// cmd_package's work without the command line's printing of unknown names: resolve the package, version and
// parameters through kprof-kernels, check and tune, then profile through cmd_run. Throws UnknownPackageError for
// a package kprof-kernels does not have, Error(kExitUsage) for an unknown version or parameter, Error for a
// failed check/tune (kExitProgramFailed; "wrong result" when the reference check failed) or a missing tool.
PackageRun profile_package(const PackageOptions&);

// kprof bench (bench/bench_all, bench/bench_<package>): every version of the chosen packages at every point of
// the sweep (bench/sweeps.toml), timed by kprof-kernels, in one table with a rank-test verdict per version.
struct BenchOptions {
  CommonOptions common;
  std::vector<std::string> packages;  // empty = every package kprof-kernels lists
  std::vector<std::string> versions;  // empty = every version
  std::vector<std::string> points;    // "m=1024,n=512": replaces the sweep's points (one package only)
  std::string sweep_file;             // "" = bench/sweeps.toml beside the data directory
  int runs = 0;                       // timed runs per version and point; 0 = the sweep file's
  std::string out_dir;                // "" = out/bench/<timestamp>
  std::string kernels;                // kprof-kernels binary ("" = $KPROF_KERNELS, next to kprof, PATH)
  std::string cache_dir;              // autotune cache root ("" = kprof-kernels' default)
  std::string device;                 // devices.json id for the roof ("" = the GPU the runs report)
  bool retune = false;
  bool dry_run = false;               // print the kprof-kernels commands, run nothing
  bool no_wait = false;               // fail (exit 8) instead of waiting when another kprof run holds the GPU
  bool verbose = false;               // pass kprof-kernels' progress (stderr) through
};
// Exit: 0 every version timed; 7 some version wrong or failed (the table is still written); 130 interrupted.
int cmd_bench(const BenchOptions&);

struct ListOptions {
  CommonOptions common;
};
int cmd_list(const ListOptions&);

struct ClockOptions {
  std::string action;  // status | lock | reset
  int gpu = 0;
  bool yes = false;
  int sm_mhz = 0;
};
int cmd_clock(const ClockOptions&);

struct PeaksOptions {
  CommonOptions common;
  bool measure = false;
  std::string import_file;   // a kprof-peaks JSON to merge instead of measuring
  std::string device = "";   // device id to attach measured peaks to (default: matched from the JSON)
  std::string write_devices; // devices.json to update (default: data/devices.json next to the binary's data)
  std::string docs_dir = "docs/devices";
};
int cmd_peaks(const PeaksOptions&);

}  // namespace kprof::cli
