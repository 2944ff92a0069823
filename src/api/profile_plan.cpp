#include "api/profile_plan.hpp"

#include "cli/commands/artifact.hpp"
#include "cli/commands/commands.hpp"
#include "cli/commands/kernels_binary.hpp"
#include "plan/plan_json.hpp"
#include "util/errors.hpp"

namespace kprof::api {

namespace fs = std::filesystem;

ProfilePlanResult profile_plan(const std::string& mode, const plan::KernelPlan& plan, const fs::path& out_dir,
                               const std::string& version, int bench_runs, const ProfilePlanSettings& s) {
  if (plan.package.empty()) throw Error("the plan names no package (KernelPlan::package is empty)", kExitUsage);
  cli::PackageOptions o;
  o.package = plan.package;
  o.version = version.empty() ? plan.version : version;
  o.params.values = plan.params;
  o.params.dtype = plan.dtype;
  o.prof_type = mode;
  o.bench_runs = bench_runs;
  o.out_root = out_dir.string();
  o.out_dir = s.exact_dir;
  o.kernels = s.kernels;
  o.cache_dir = s.cache_dir;
  o.retune = s.retune;
  o.baseline = s.baseline;
  o.devlog = s.devlog;
  o.docs_dir = s.docs_dir;
  o.ncu = s.ncu;
  o.counters = s.counters;
  o.no_wait = s.no_wait;
  o.dry_run = s.dry_run;
  o.common.devices_file = s.devices_file;
  o.common.thresholds_file = s.thresholds_file;
  o.common.quiet = s.quiet;
  o.common.json = s.json;

  auto done = cli::profile_package(o);
  ProfilePlanResult r;
  r.exit_code = done.exit_code;
  r.mode = mode;
  r.package = done.package;
  r.version = done.version;
  r.params = done.params;
  r.artifact_dir = done.artifact_dir;
  if (!s.dry_run && fs::exists(r.artifact_dir / "profile.json")) r.run = cli::load_artifact(r.artifact_dir);
  return r;
}

ProfilePlanResult annotation_profile_plan(const plan::KernelPlan& plan, const fs::path& out_dir,
                                          const std::string& version, int bench_runs, const ProfilePlanSettings& s) {
  return profile_plan("annotation", plan, out_dir, version, bench_runs, s);
}
ProfilePlanResult event_profile_plan(const plan::KernelPlan& plan, const fs::path& out_dir, const std::string& version,
                                     int bench_runs, const ProfilePlanSettings& s) {
  return profile_plan("event", plan, out_dir, version, bench_runs, s);
}
ProfilePlanResult ncu_profile_plan(const plan::KernelPlan& plan, const fs::path& out_dir, const std::string& version,
                                   int bench_runs, const ProfilePlanSettings& s) {
  return profile_plan("ncu", plan, out_dir, version, bench_runs, s);
}
ProfilePlanResult nsys_profile_plan(const plan::KernelPlan& plan, const fs::path& out_dir, const std::string& version,
                                    int bench_runs, const ProfilePlanSettings& s) {
  return profile_plan("nsys", plan, out_dir, version, bench_runs, s);
}

plan::KernelPlan describe_plan(const std::string& package, const std::string& version,
                               const std::map<std::string, std::int64_t>& params, const std::string& kernels) {
  const std::string bin = cli::find_kernels_binary(kernels);
  auto pkgs = cli::list_packages(bin);
  const plan::PackageInfo& pkg = cli::require_package(pkgs, package);
  const plan::VersionInfo& ver = cli::require_version(pkg, version);
  ProblemParams given;
  given.values = params;
  ProblemParams resolved;
  try {
    resolved = plan::resolve_params(pkg, given);
  } catch (const plan::PlanError& e) {
    throw Error(e.what(), kExitUsage);
  }
  return cli::describe_plan(bin, pkg.name, ver.name, resolved);
}

}  // namespace kprof::api
