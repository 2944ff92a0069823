// The benchmark table of bench/bench_all: every version of a package at every sweep point, timed by kprof-kernels,
// with throughput, distance from the roofline bound and a rank-test verdict against the previous version.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "model/json_support.hpp"
#include "model/params.hpp"
#include "model/profile.hpp"

namespace kprof {

// One stage as the plan declares it (kprof-kernels describe): the inputs of the roofline bound.
struct BenchStage {
  std::string name;
  DeclaredWork work;  // FLOPs, minimum bytes, precision per execution of the stage
  int stream = 0;     // concurrent plans: the stream the stage runs on
};
KPROF_JSON_DECLARE(BenchStage)

// What one `kprof-kernels run <package> <version>` at one sweep point produced: the input of the table.
struct BenchRun {
  std::string package, version;
  std::string point;            // the sweep point as written ("b=32 s=16 t=4096"), "defaults" when empty
  ProblemParams params;         // resolved (defaults filled in)
  std::string plan_kind;        // "single", "pipeline", "concurrent"
  std::vector<BenchStage> stages;
  std::string status = "ok";    // ok | wrong (failed its reference check, not timed) | failed (did not run)
  std::string message;          // why it is wrong or failed
  std::vector<double> samples_ms;  // GPU time of the whole plan, one per timed run (CUDA events)
  std::string artifacts;        // kprof-kernels --out directory (timings.json, tiling/, compiled/, log)
  std::string device;           // the GPU the run reports ("NVIDIA H200 sm9.0"), "" when unknown
  std::string host;             // where it ran (the executor's record, params.json)
};
KPROF_JSON_DECLARE(BenchRun)

struct BenchRow {
  std::string package, version, point;
  ProblemParams params;
  std::string plan_kind;
  std::string status = "ok";               // ok | wrong | failed
  std::string message;
  std::size_t runs = 0;
  std::optional<SampleStats> time_ms;      // over samples_ms
  std::optional<double> tflops;            // declared FLOPs / median time
  std::optional<double> gbps;              // declared minimum bytes / median time
  std::optional<double> bound_ms;          // roofline lower bound of the plan's time from the device peaks
  std::optional<double> pct_of_roof;       // bound_ms / median * 100
  std::string bound_by;                    // "compute", "memory" or "mixed" (stages on different sides)
  std::string vs;                          // previous timed version at this point ("" for the first)
  std::optional<double> speedup;           // previous median / this median
  std::string verdict;                     // faster | slower | same (within noise); "" when nothing to compare;
                                           // "not compared" when the two ran on different GPU models
  std::optional<double> p_value;           // two-sided Mann-Whitney U over the per-run samples
  std::string test;                        // "Mann-Whitney U" or "relative change (too few runs)"
  std::vector<double> samples_ms;
  std::string artifacts;
  std::string device;                      // the GPU the run reports
  std::string host;
};
KPROF_JSON_DECLARE(BenchRow)

struct BenchTable {
  std::string schema = "kprof.bench/1";
  std::string device;                      // devices.json entry the roof comes from ("" when none matched)
  std::vector<std::string> peaks;          // "bf16_tflops 796 (measured: ...)": every peak the bounds used
  double alpha = 0.05;                     // significance level of the rank test
  std::size_t min_samples = 5;             // runs per side the rank test needs
  double noise_pct = 2.0;                  // relative change treated as noise without the rank test
  std::vector<BenchRow> rows;              // per package, per point (sweep order), versions oldest first
  std::vector<std::string> notes;
  std::string timestamp;
};
KPROF_JSON_DECLARE(BenchTable)

}  // namespace kprof
