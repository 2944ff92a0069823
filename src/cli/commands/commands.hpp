// One function per kprof subcommand. app.cpp parses the command line: the profiling commands straight into the
// session layer's specs (session/run_spec.hpp), the others into the option structs below. Commands print; the
// work is in the session layer and below.
#pragma once
#include <string>
#include <vector>

#include "model/params.hpp"
#include "session/publish.hpp"
#include "session/run_and_publish.hpp"
#include "session/run_spec.hpp"

namespace kprof::cli {

// --json and -q: how a command prints.
struct PrintOptions {
  bool json = false;   // print JSON instead of the Markdown contract
  bool quiet = false;  // print only errors
};

struct CommonOptions {
  session::DataFiles data;  // --devices, --thresholds
  PrintOptions print;
};

// Progress and notices to stderr as "kprof: ..."; progress is dropped when quiet.
session::Log stderr_log(bool quiet);

// What a published run prints, as the command line always has: the devlog file, the warnings and the artifact
// directory on stderr, the contract (Markdown, or JSON) on stdout; nothing when quiet.
void print_published(const session::Published& p, const PrintOptions& print);
// A profiling command's outcome: a dry run's lines, else print_published and the line for a failed or interrupted
// run. Returns its exit code.
int print_outcome(const session::RunOutcome& o, const PrintOptions& print);

struct AnalyzeOptions {
  CommonOptions common;
  std::vector<std::string> inputs;  // ncu CSV files, or an artifact directory
  std::string kernel;               // default: the profiled process name
  std::string version = "-";
  session::OutputSpec output;
  ProblemParams params;
  bool write = true;
  std::string ncu = "ncu";          // to export .ncu-rep inputs (ncu --import --csv)
};
int cmd_analyze(const AnalyzeOptions&);

struct CompareOptions {
  CommonOptions common;
  std::string baseline, current;
  std::string fail_on_regression;  // "5%": exit 10 when a stage is significantly slower than this (docs/ci.md)
  std::string junit;               // write the regression check as JUnit XML here
  bool github_annotations = false; // print ::error / ::warning workflow commands for GitHub Actions
};
int cmd_compare(const CompareOptions&);

struct DevlogOptions {
  CommonOptions common;
  std::string artifact;
  std::string docs_dir = session::OutputSpec{}.docs_dir;
};
int cmd_devlog(const DevlogOptions&);

struct DevicesOptions {
  CommonOptions common;
  std::string show;
};
int cmd_devices(const DevicesOptions&);

// kprof run --prof-type=<mode> -- <command>: profile(), publish(), print.
int cmd_run(const session::RunSpec&, const PrintOptions&);

// kprof <package> [<version>]: profile_package(), publish(), print; an unknown word gets the package list.
int cmd_package(const session::PackageSpec&, const PrintOptions&);

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
  std::string executor = "local";     // local | gpus | slurm (session/sweep_executor.hpp)
  int chunk = 1;                      // slurm: sweep tasks per array task
  std::vector<std::string> sbatch_args;  // slurm: more sbatch options
};
// Exit: 0 every version timed; 7 some version wrong or failed (the table is still written); 130 interrupted.
int cmd_bench(const BenchOptions&);

// kprof sweep-worker: runs the tasks of a sweep's spool folder for the gpus and slurm executors (they start it).
struct SweepWorkerOptions {
  std::string spool;
  std::string name;
  std::string executor = "gpus";
  int array_index = -1;  // slurm: this array task's chunk; -1: pull from the queue
  int chunk = 1;
  bool no_wait = false;
  bool quiet = false;
};
int cmd_sweep_worker(const SweepWorkerOptions&);

struct ListOptions {
  CommonOptions common;
};
int cmd_list(const ListOptions&);

struct ClockOptions {
  std::string action;  // status | lock | reset
  int gpu = 0;
  bool yes = false;
  int sm_mhz = 0;
  bool json = false;  // status: JSON
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
