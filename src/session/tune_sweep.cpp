#include "session/tune_sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "session/kernels_binary.hpp"
#include "session/sweep_executor.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"

namespace kprof::session {

namespace fs = std::filesystem;

TuneSweep tune_sweep(const PackageSpec& spec, const std::string& bin, const plan::KernelPlan& kplan) {
  TuneSweep sweep;
  std::size_t configs = 0;
  for (const auto& st : kplan.stages) configs = std::max(configs, st.tile_space.size());
  if (configs == 0) return sweep;
  ProblemParams params;
  params.values = kplan.params;
  params.dtype = kplan.dtype;
  sweep.out = (fs::absolute(spec.run.output.out_root) / "tune" / kplan.package / params.dir_name() /
               utc_timestamp_dir()).string();
  // The cache every worker writes: the one kprof-kernels would use here, as an absolute path.
  std::string cache = spec.cache_dir;
  if (cache.empty()) cache = std::getenv("KPROF_AUTOTUNE_CACHE") ? std::getenv("KPROF_AUTOTUNE_CACHE") : ".cache/kernel-autotune";
  cache = fs::absolute(cache).string();
  for (std::size_t c = 0; c < configs; ++c) {
    plan::SweepTask t;
    t.id = plan::task_id(c);
    t.package = kplan.package;
    t.version = kplan.version;
    t.params = params;
    t.mode = plan::TaskMode::tune;
    t.tile_configs = {static_cast<int>(c)};
    t.argv = {bin, "run", kplan.package, kplan.version};
    for (auto& a : param_args(params)) t.argv.push_back(a);
    t.argv.insert(t.argv.end(), {"--runs", "0", spec.retune ? "--retune" : "--tune", "--no-check", "--configs",
                                 fmt::format("{}:{}", c, c + 1), "--cache-dir", cache, "--out", plan::kTaskOutToken});
    t.out_dir = (fs::path(sweep.out) / "tasks" / t.id).string();
    t.log = "kprof-kernels.log";
    t.device_failure_codes = {1};
    sweep.tasks.push_back(std::move(t));
  }
  return sweep;
}

int run_tune_sweep(const PackageSpec& spec, const TuneSweep& sweep) {
  if (sweep.tasks.empty()) return 0;
  ExecutorOptions eo;
  eo.kind = parse_executor(spec.executor);
  eo.spool = spool_dir(sweep.out);
  eo.no_wait = spec.run.no_wait;
  eo.chunk = spec.chunk;
  eo.sbatch_args = spec.sbatch_args;
  eo.log = spec.run.log;
  int failed = 0;
  auto say = [&](LogLevel l, const std::string& m) {
    if (spec.run.log) spec.run.log(l, m);
  };
  say(LogLevel::progress, fmt::format("tuning {} config(s) of {} {} on the {} executor ({})", sweep.tasks.size(),
                                      spec.package, spec.version, spec.executor, sweep.out));
  auto results = run_sweep(sweep.tasks, eo, [&](const plan::TaskResult& r) {
    say(LogLevel::progress, fmt::format("tune task {} (config {}): {} on {} {}", r.id, std::stoi(r.id), r.status,
                                        r.host, r.worker));
  });
  for (const auto& r : results) {
    if (r.status == "cancelled") throw Error("interrupted while tuning on the " + spec.executor + " executor",
                                             kExitInterrupted);
    if (r.status != "ok") {
      ++failed;
      say(LogLevel::notice, fmt::format("tune task {} {}: {} (log {}/kprof-kernels.log)", r.id, r.status, r.message,
                                        r.out_dir.empty() ? sweep.out : r.out_dir));
    }
  }
  return failed;
}

}  // namespace kprof::session
