#include "api/profile_plan.hpp"

#include "plan/plan_json.hpp"
#include "session/artifact.hpp"
#include "session/kernels_binary.hpp"
#include "session/run_and_publish.hpp"
#include "session/sweep_executor.hpp"
#include "util/errors.hpp"

namespace kprof::api {

namespace fs = std::filesystem;

namespace {

// The API's settings are what `kprof <package>` takes as flags: they fill the same session::PackageSpec.
session::PackageSpec package_spec(Mode mode, const plan::KernelPlan& plan, const fs::path& out_dir,
                                  const std::string& version, int bench_runs, const ProfilePlanSettings& s) {
  session::PackageSpec spec;
  spec.package = plan.package;
  spec.version = version.empty() ? plan.version : version;
  spec.params.values = plan.params;
  spec.params.dtype = plan.dtype;
  spec.bench_runs = bench_runs;
  spec.kernels = s.kernels;
  spec.cache_dir = s.cache_dir;
  spec.retune = s.retune;
  spec.autotune_only = s.autotune_only;
  spec.executor = std::string(session::executor_name(session::parse_executor(s.executor, "settings.executor")));
  if (s.chunk < 1) throw Error("settings.chunk must be at least 1", kExitUsage);
  spec.chunk = s.chunk;
  spec.sbatch_args = s.sbatch_args;
  session::RunSpec& run = spec.run;
  run.mode = mode;
  run.output = {out_dir.string(), s.exact_dir, s.baseline, s.devlog, s.docs_dir, s.replace};
  run.data = {s.devices_file, s.thresholds_file};
  run.ncu = s.ncu;
  if (!s.counters.empty()) run.counters = session::parse_counter_source(s.counters, "settings.counters");
  run.no_wait = s.no_wait;
  run.dry_run = s.dry_run;
  run.log = s.log;
  return spec;
}

ProfilePlanResult profile_in(Mode m, const plan::KernelPlan& plan, const fs::path& out_dir,
                             const std::string& version, int bench_runs, const ProfilePlanSettings& s) {
  if (plan.package.empty()) throw Error("the plan names no package (KernelPlan::package is empty)", kExitUsage);
  auto done = session::package_and_publish(package_spec(m, plan, out_dir, version, bench_runs, s));
  ProfilePlanResult r;
  r.exit_code = done.outcome.exit_code;
  r.mode = m;
  r.package = done.package;
  r.version = done.version;
  r.params = done.params;
  r.artifact_dir = done.artifact_dir;
  r.dry_run_lines = done.outcome.dry_run_lines;
  r.ending = done.outcome.ending;
  if (const auto& p = done.outcome.published) {
    r.contract_markdown = p->contract_markdown;
    r.contract_json = p->contract_json;
    r.warnings = p->warnings;
    r.devlog_file = p->devlog_file;
  }
  if (!done.outcome.dry_run && fs::exists(r.artifact_dir / "profile.json")) r.run = session::load_artifact(r.artifact_dir);
  return r;
}

}  // namespace

ProfilePlanResult profile_plan(const std::string& mode, const plan::KernelPlan& plan, const fs::path& out_dir,
                               const std::string& version, int bench_runs, const ProfilePlanSettings& s) {
  return profile_in(session::parse_mode(mode), plan, out_dir, version, bench_runs, s);
}

ProfilePlanResult annotation_profile_plan(const plan::KernelPlan& plan, const fs::path& out_dir,
                                          const std::string& version, int bench_runs, const ProfilePlanSettings& s) {
  return profile_in(Mode::Annotation, plan, out_dir, version, bench_runs, s);
}
ProfilePlanResult event_profile_plan(const plan::KernelPlan& plan, const fs::path& out_dir, const std::string& version,
                                     int bench_runs, const ProfilePlanSettings& s) {
  return profile_in(Mode::Event, plan, out_dir, version, bench_runs, s);
}
ProfilePlanResult ncu_profile_plan(const plan::KernelPlan& plan, const fs::path& out_dir, const std::string& version,
                                   int bench_runs, const ProfilePlanSettings& s) {
  return profile_in(Mode::Ncu, plan, out_dir, version, bench_runs, s);
}
ProfilePlanResult nsys_profile_plan(const plan::KernelPlan& plan, const fs::path& out_dir, const std::string& version,
                                    int bench_runs, const ProfilePlanSettings& s) {
  return profile_in(Mode::Nsys, plan, out_dir, version, bench_runs, s);
}

plan::KernelPlan describe_plan(const std::string& package, const std::string& version,
                               const std::map<std::string, std::int64_t>& params, const std::string& kernels) {
  const std::string bin = session::find_kernels_binary(kernels);
  auto pkgs = session::list_packages(bin);
  const plan::PackageInfo& pkg = session::require_package(pkgs, package);
  const plan::VersionInfo& ver = session::require_version(pkg, version);
  ProblemParams given;
  given.values = params;
  ProblemParams resolved;
  try {
    resolved = plan::resolve_params(pkg, given);
  } catch (const plan::PlanError& e) {
    throw Error(e.what(), kExitUsage);
  }
  return session::describe_plan(bin, pkg.name, ver.name, resolved);
}

}  // namespace kprof::api
