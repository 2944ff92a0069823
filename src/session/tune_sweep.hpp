// `kprof <package> --executor=gpus|slurm`: the autotuning of a package spread over an executor's GPUs before the
// usual check, tune and profile. One sweep task per config index: `kprof-kernels run ... --runs 0 --tune
// --configs C:C+1 --no-check` records that config's try for every tuned stage into the shared autotune cache
// (plan/autotune_cache.hpp: one file per try, safe for writers on many hosts); the check-and-tune step that
// follows finds every config cached and only picks the best, as after a local tuning.
#pragma once
#include <string>
#include <vector>

#include "plan/plan_types.hpp"
#include "plan/sweep_task.hpp"
#include "session/run_spec.hpp"

namespace kprof::session {

struct TuneSweep {
  std::vector<plan::SweepTask> tasks;
  std::string out;                    // <out_root>/tune/<package>/<params>/<timestamp>: the tasks' folders, spool
};

// The tasks for `plan` (none when no stage has a tile space). `cache_dir` is made absolute: the workers may run in
// another folder or on another host.
TuneSweep tune_sweep(const PackageSpec& spec, const std::string& kernels_bin, const plan::KernelPlan& plan);

// Runs them on spec.executor; returns the number of tasks that failed (their configs are tuned again locally by the
// check-and-tune step, or reported by it). Throws what run_sweep throws.
int run_tune_sweep(const PackageSpec& spec, const TuneSweep& sweep);

}  // namespace kprof::session
