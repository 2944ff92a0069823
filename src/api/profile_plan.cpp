#include "api/profile_plan.hpp"

#include <iostream>

#include "plan/plan_json.hpp"
#include "session/artifact.hpp"
#include "session/kernels_binary.hpp"
#include "session/package.hpp"
#include "session/publish.hpp"
#include "util/errors.hpp"

namespace kprof::api {

namespace fs = std::filesystem;

namespace {

// The API's settings are what `kprof <package>` takes as flags: they fill the same session::PackageSpec.
session::PackageSpec package_spec(session::Mode mode, const plan::KernelPlan& plan, const fs::path& out_dir,
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
  session::RunSpec& run = spec.run;
  run.mode = mode;
  run.output = {out_dir.string(), s.exact_dir, s.baseline, s.devlog, s.docs_dir, s.replace};
  run.data = {s.devices_file, s.thresholds_file};
  run.ncu = s.ncu;
  if (!s.counters.empty()) run.counters = session::parse_counter_source(s.counters, "settings.counters");
  run.no_wait = s.no_wait;
  run.dry_run = s.dry_run;
  const bool quiet = s.quiet;
  run.log = [quiet](session::LogLevel level, const std::string& m) {
    if (quiet && level == session::LogLevel::progress) return;
    std::cerr << "kprof: " << m << "\n";
  };
  return spec;
}

ProfilePlanResult profile_in(session::Mode m, const plan::KernelPlan& plan, const fs::path& out_dir,
                             const std::string& version, int bench_runs, const ProfilePlanSettings& s) {
  if (plan.package.empty()) throw Error("the plan names no package (KernelPlan::package is empty)", kExitUsage);
  auto spec = package_spec(m, plan, out_dir, version, bench_runs, s);
  auto done = session::profile_package(spec);
  ProfilePlanResult r;
  r.exit_code = done.exit_code;
  r.mode = std::string(session::mode_name(m));
  r.package = done.package;
  r.version = done.version;
  r.params = done.params;
  r.artifact_dir = done.artifact_dir;
  if (!done.profiled) return r;  // the check/tune run was interrupted
  if (done.profiled->dry_run) {  // what `kprof <package> --dry-run` prints
    std::string line;
    for (const auto& a : done.check_and_tune) line += (line.empty() ? "" : " ") + a;
    std::cout << "check and tune: " << line << "\n";
    for (const auto& l : done.profiled->dry_run_lines) std::cout << l << "\n";
    return r;
  }
  auto published = session::publish(*done.profiled, spec.run.output);
  session::print_published(published, s.json, s.quiet, std::cout, std::cerr);
  if (auto o = done.profiled->outcome(); !o.empty()) std::cerr << o << "\n";
  if (!published.dir.empty()) r.artifact_dir = published.dir;  // where the staged artifact went
  if (fs::exists(r.artifact_dir / "profile.json")) r.run = session::load_artifact(r.artifact_dir);
  return r;
}

}  // namespace

ProfilePlanResult profile_plan(const std::string& mode, const plan::KernelPlan& plan, const fs::path& out_dir,
                               const std::string& version, int bench_runs, const ProfilePlanSettings& s) {
  return profile_in(session::parse_mode(mode), plan, out_dir, version, bench_runs, s);
}

ProfilePlanResult annotation_profile_plan(const plan::KernelPlan& plan, const fs::path& out_dir,
                                          const std::string& version, int bench_runs, const ProfilePlanSettings& s) {
  return profile_in(session::Mode::Annotation, plan, out_dir, version, bench_runs, s);
}
ProfilePlanResult event_profile_plan(const plan::KernelPlan& plan, const fs::path& out_dir, const std::string& version,
                                     int bench_runs, const ProfilePlanSettings& s) {
  return profile_in(session::Mode::Event, plan, out_dir, version, bench_runs, s);
}
ProfilePlanResult ncu_profile_plan(const plan::KernelPlan& plan, const fs::path& out_dir, const std::string& version,
                                   int bench_runs, const ProfilePlanSettings& s) {
  return profile_in(session::Mode::Ncu, plan, out_dir, version, bench_runs, s);
}
ProfilePlanResult nsys_profile_plan(const plan::KernelPlan& plan, const fs::path& out_dir, const std::string& version,
                                    int bench_runs, const ProfilePlanSettings& s) {
  return profile_in(session::Mode::Nsys, plan, out_dir, version, bench_runs, s);
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
