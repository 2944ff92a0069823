#include "session/package.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "collect/gpu_presence.hpp"
#include "plan/plan_json.hpp"
#include "session/artifact.hpp"
#include "session/kernels_binary.hpp"
#include "session/tune_sweep.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"
#include "util/interrupt.hpp"
#include "util/process.hpp"

namespace kprof::session {

namespace {

std::string plan_summary(const std::string& package, const std::string& version, const plan::KernelPlan& kplan,
                         const ProblemParams& params) {
  std::string s = fmt::format("{} {} ({} plan, {}): ", package, version, plan::plan_kind_name(kplan.kind),
                              params.dir_name());
  for (std::size_t i = 0; i < kplan.stages.size(); ++i) {
    const auto& st = kplan.stages[i];
    s += fmt::format("{}{} {:.4g} GFLOP {:.4g} MB min {}{}", i ? "; " : "", st.name, st.flops * 1e-9,
                     st.min_bytes * 1e-6, st.precision,
                     st.tile_space.empty() ? "" : fmt::format(" ({} configs to tune)", st.tile_space.size()));
  }
  return s;
}

}  // namespace

PackageResult profile_package(const PackageSpec& spec) {
  if (spec.bench_runs < 1) throw Error("--bench-runs must be at least 1", kExitUsage);
  std::string bin = find_kernels_binary(spec.kernels);
  auto pkgs = list_packages(bin);
  const plan::PackageInfo& pkg = require_package(pkgs, spec.package);
  const plan::VersionInfo& ver = require_version(pkg, spec.version);
  PackageResult result;
  result.package = pkg.name;
  result.version = ver.name;
  try {
    result.params = plan::resolve_params(pkg, spec.params);
  } catch (const plan::PlanError& e) {
    throw Error(e.what(), kExitUsage);
  }
  result.plan = describe_plan(bin, pkg.name, ver.name, result.params);

  RunSpec run = spec.run;
  run.kernel = pkg.name;
  run.version = ver.name;
  run.params = result.params;
  for (const auto& st : result.plan.stages) run.declared_stages[st.name] = DeclaredWork{st.flops, st.min_bytes, st.precision};
  // The artifact directory is fixed here so that kprof-kernels can write tiling/, compiled/ and timings.json
  // into it; profile() then adds its own files next to them.
  // They go to the staging directory (artifact.hpp), renamed into place when the artifact is complete.
  const bool exact = !run.output.out_dir.empty();
  run.output.out_dir = artifact_dir_for(run, utc_timestamp()).string();
  result.artifact_dir = run.output.out_dir;
  std::shared_ptr<ArtifactStage> stage;
  if (!run.dry_run) {
    require_gpu("kprof " + pkg.name);
    stage = std::make_shared<ArtifactStage>(result.artifact_dir, exact, run.output.replace);
  }

  std::vector<std::string> common{pkg.name, ver.name};
  for (auto& a : param_args(result.params)) common.push_back(a);
  common.insert(common.end(), {"--out", stage ? stage->dir().string() : run.output.out_dir});
  if (!spec.cache_dir.empty()) common.insert(common.end(), {"--cache-dir", spec.cache_dir});
  result.check_and_tune = {bin, "run"};
  result.check_and_tune.insert(result.check_and_tune.end(), common.begin(), common.end());
  result.check_and_tune.insert(result.check_and_tune.end(), {"--runs", "0", spec.retune ? "--retune" : "--tune"});
  run.command = {bin, "run"};
  run.command.insert(run.command.end(), common.begin(), common.end());
  run.command.insert(run.command.end(), {"--no-check", "--no-tune", "--runs", std::to_string(spec.bench_runs)});

  auto log = [&](LogLevel level, const std::string& m) {
    if (run.log) run.log(level, m);
  };
  log(run.dry_run ? LogLevel::notice : LogLevel::progress,
      plan_summary(pkg.name, ver.name, result.plan, result.params));
  // --executor gpus|slurm: every config tried on the executor's GPUs first, into the shared cache.
  const TuneSweep spread = spec.executor == "local" ? TuneSweep{} : tune_sweep(spec, bin, result.plan);
  if (!spread.tasks.empty()) {
    if (!result.check_and_tune.empty() && spec.retune) std::replace(result.check_and_tune.begin(),
                                                                    result.check_and_tune.end(),
                                                                    std::string("--retune"), std::string("--tune"));
    if (run.dry_run) {
      log(LogLevel::notice, fmt::format("tuning: {} task(s) on the {} executor, e.g. {}", spread.tasks.size(),
                                        spec.executor, command_line(plan::task_argv(spread.tasks[0], spread.out + "/tasks/0000"))));
    } else if (int failed = run_tune_sweep(spec, spread); failed > 0) {
      log(LogLevel::notice, fmt::format("{} of {} tuning task(s) failed; the check-and-tune step tries their configs "
                                        "here", failed, spread.tasks.size()));
    }
  }
  if (!run.dry_run) {
    ProcessSpec check;
    check.argv = result.check_and_tune;
    log(LogLevel::progress, "checking and tuning " + pkg.name + " " + ver.name);
    InterruptScope interrupts;
    auto r = run_process(check);
    if (r.interrupted) {  // nothing was profiled yet: the staging directory goes
      result.exit_code = interrupt_exit_code() ? interrupt_exit_code() : static_cast<int>(kExitInterrupted);
      return result;
    }
    if (r.signaled || r.exit_code != 0)
      throw Error(fmt::format("{} {}: kprof-kernels check/tune {}{}; nothing was profiled", pkg.name, ver.name,
                              r.describe(), r.exit_code == kKernelsWrongResultExit ? " (wrong result)" : ""),
                  r.exit_code == kKernelsUsageExit ? kExitUsage : kExitProgramFailed);
  }
  if (spec.autotune_only) {  // --autotune: the cache is filled; the staging directory goes, nothing is profiled
    if (run.dry_run)
      log(LogLevel::notice, "check and tune: " + command_line(result.check_and_tune) + " (--autotune: nothing profiled)");
    else
      log(LogLevel::notice, fmt::format("{} {}: checked and tuned{}; nothing profiled (--autotune)", pkg.name, ver.name,
                                        spec.cache_dir.empty() ? std::string() : " into " + spec.cache_dir));
    result.exit_code = kExitOk;
    result.artifact_dir.clear();
    return result;
  }
  result.profiled = profile(run, stage);
  result.exit_code = result.profiled->exit_code;
  return result;
}

}  // namespace kprof::session
