// kprof <package> [<version>] and kprof list: the bundled kernel packages, run by kprof-kernels.
//   1. `kprof-kernels list` / `describe` (no GPU): resolve package, version (default: latest) and parameters, and
//      read the plan: stages with their declared FLOPs, minimum bytes and precision.
//   2. `kprof-kernels run ... --runs 0` (not profiled): check against the reference and autotune (cache reused
//      unless --retune); it writes tiling/ and compiled/ straight into the artifact directory.
//   3. `kprof-kernels run ... --no-check --no-tune --runs N` profiled through cmd_run in the chosen mode, so the
//      trace and ncu see only the plan's stages (each in its NVTX range), with the plan's declarations attached.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "cli/commands/artifact.hpp"
#include "cli/commands/commands.hpp"
#include "cli/commands/kernels_binary.hpp"
#include "plan/plan_json.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"
#include "util/process.hpp"

namespace kprof::cli {

namespace fs = std::filesystem;

int cmd_list(const ListOptions& o) {
  auto pkgs = list_packages(find_kernels_binary());
  if (o.common.json) std::cout << plan::packages_to_json(pkgs);
  else std::cout << plan::render_package_list(pkgs);
  return kExitOk;
}

PackageRun profile_package(const PackageOptions& o) {
  static const std::vector<std::string> modes{"annotation", "event", "ncu", "nsys"};
  if (std::find(modes.begin(), modes.end(), o.prof_type) == modes.end())
    throw Error("--prof_type must be one of annotation, event, ncu, nsys (got '" + o.prof_type + "')", kExitUsage);
  if (o.bench_runs < 1) throw Error("--bench_runs must be at least 1", kExitUsage);
  std::string bin = find_kernels_binary(o.kernels);
  auto pkgs = list_packages(bin);
  const plan::PackageInfo* pkg = &require_package(pkgs, o.package);
  const plan::VersionInfo* ver = &require_version(*pkg, o.version);
  PackageRun result;
  result.package = pkg->name;
  result.version = ver->name;
  try {
    result.params = plan::resolve_params(*pkg, o.params);
  } catch (const plan::PlanError& e) {
    throw Error(e.what(), kExitUsage);
  }
  const ProblemParams& params = result.params;
  std::vector<std::string> pargs = param_args(params);
  plan::KernelPlan kplan = describe_plan(bin, pkg->name, ver->name, params);

  RunOptions ro;
  ro.common = o.common;
  ro.prof_type = o.prof_type;
  ro.kernel = pkg->name;
  ro.version = ver->name;
  ro.params = params;
  ro.out_root = o.out_root;
  ro.baseline = o.baseline;
  ro.devlog = o.devlog;
  ro.docs_dir = o.docs_dir;
  ro.ncu = o.ncu;
  ro.counters = o.counters;
  ro.no_wait = o.no_wait;
  ro.dry_run = o.dry_run;
  for (const auto& st : kplan.stages) ro.declared_stages[st.name] = DeclaredWork{st.flops, st.min_bytes, st.precision};
  // The artifact directory is fixed here so that kprof-kernels can write tiling/, compiled/ and timings.json
  // into it; cmd_run then adds its own files next to them.
  ProfileRun shape;
  shape.mode = o.prof_type;
  shape.kernel = ro.kernel;
  shape.params = params;
  shape.timestamp = utc_timestamp();
  ro.out_dir = artifact_dir(shape, o.out_root, o.out_dir).string();
  result.artifact_dir = ro.out_dir;

  std::vector<std::string> common_args{pkg->name, ver->name};
  common_args.insert(common_args.end(), pargs.begin(), pargs.end());
  common_args.insert(common_args.end(), {"--out", ro.out_dir});
  if (!o.cache_dir.empty()) common_args.insert(common_args.end(), {"--cache-dir", o.cache_dir});
  std::vector<std::string> prepare{bin, "run"};
  prepare.insert(prepare.end(), common_args.begin(), common_args.end());
  prepare.insert(prepare.end(), {"--runs", "0", o.retune ? "--retune" : "--tune"});
  ro.command = {bin, "run"};
  ro.command.insert(ro.command.end(), common_args.begin(), common_args.end());
  ro.command.insert(ro.command.end(), {"--no-check", "--no-tune", "--runs", std::to_string(o.bench_runs)});

  if (!o.common.quiet || o.dry_run) {
    std::cerr << fmt::format("kprof: {} {} ({} plan, {}): ", pkg->name, ver->name, plan::plan_kind_name(kplan.kind),
                             params.dir_name());
    for (std::size_t i = 0; i < kplan.stages.size(); ++i) {
      const auto& st = kplan.stages[i];
      std::cerr << fmt::format("{}{} {:.4g} GFLOP {:.4g} MB min {}{}", i ? "; " : "", st.name, st.flops * 1e-9,
                               st.min_bytes * 1e-6, st.precision,
                               st.tile_space.empty() ? "" : fmt::format(" ({} configs to tune)", st.tile_space.size()));
    }
    std::cerr << "\n";
  }
  if (o.dry_run) {
    std::string line;
    for (const auto& a : prepare) line += (line.empty() ? "" : " ") + a;
    std::cout << "check and tune: " << line << "\n";
    result.exit_code = cmd_run(ro);
    return result;
  }
  ProcessSpec spec;
  spec.argv = prepare;
  if (!o.common.quiet) std::cerr << "kprof: checking and tuning " << pkg->name << " " << ver->name << "\n";
  auto r = run_process(spec);
  if (r.interrupted) {
    result.exit_code = kExitInterrupted;
    return result;
  }
  if (r.signaled || r.exit_code != 0)
    throw Error(fmt::format("{} {}: kprof-kernels check/tune {}{}; nothing was profiled", pkg->name, ver->name,
                            r.describe(), r.exit_code == kKernelsWrongResultExit ? " (wrong result)" : ""),
                r.exit_code == kKernelsUsageExit ? kExitUsage : kExitProgramFailed);
  result.exit_code = cmd_run(ro);
  return result;
}

int cmd_package(const PackageOptions& o) {
  PackageOptions resolved = o;
  try {
    resolved.kernels = find_kernels_binary(o.kernels);
  } catch (const Error& e) {
    throw Error(std::string("not a kprof subcommand, and ") + e.what() +
                    ". Subcommands: analyze, run, compare, devlog, devices, clock, peaks, list, bench",
                e.exit_code());
  }
  try {
    return profile_package(resolved).exit_code;
  } catch (const UnknownPackageError& e) {
    std::cerr << "kprof: unknown subcommand or package '" << e.package() << "'. Packages:\n"
              << e.packages()
              << "Subcommands: analyze, run, compare, devlog, devices, clock, peaks, list, bench (kprof --help)\n";
    return kExitUsage;
  }
}

}  // namespace kprof::cli
