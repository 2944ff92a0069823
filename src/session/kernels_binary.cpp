#include "session/kernels_binary.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "plan/plan_json.hpp"
#include "util/errors.hpp"
#include "util/atomic_file.hpp"
#include "util/fs.hpp"
#include "util/process.hpp"

namespace kprof::session {

namespace fs = std::filesystem;

namespace {

fs::path self_dir() { return executable_dir().value_or(fs::current_path()); }

}  // namespace

std::string find_kernels_binary(const std::string& explicit_path) {
  if (!explicit_path.empty()) {
    if (auto p = find_executable(explicit_path)) return *p;
    throw Error("kprof-kernels '" + explicit_path + "' does not exist or is not executable", kExitNoTool);
  }
  if (const char* e = std::getenv("KPROF_KERNELS"); e && *e) return e;
  for (auto p : {self_dir() / "kprof-kernels", self_dir() / "../libexec/kprof-kernels"})
    if (fs::exists(p)) return p.string();
  if (auto p = find_executable("kprof-kernels")) return *p;
  throw Error("kernel packages are unavailable: kprof-kernels was not found next to " + self_dir().string() +
                  ", in ../libexec or on PATH (it is built when the CUDA toolkit is present; set KPROF_KERNELS to "
                  "its path)",
              kExitNoTool);
}

std::string kernels_output(const std::string& bin, const std::vector<std::string>& args, int usage_exit_code) {
  // The reply goes to a file only this call can have made: created first (O_EXCL, at an unpredictable name), then
  // handed to the child as its stdout. A predictable /tmp name let another user plant a link there.
  fs::path tmp;
  const int fd = open_temporary_beside(fs::temp_directory_path() / "kprof_kernels.json", tmp);
  if (fd < 0)
    throw Error("kprof-kernels: cannot create a temporary file in " + fs::temp_directory_path().string() + ": " +
                    std::strerror(errno),
                kExitCannotWrite);
  ::close(fd);
  ProcessSpec spec;
  spec.argv = {bin};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.stdout_file = tmp.string();
  auto r = run_process(spec);
  std::string out = fs::exists(tmp) ? read_file(tmp) : "";
  std::error_code ec;
  fs::remove(tmp, ec);
  if (r.signaled || r.exit_code != 0)
    throw Error("kprof-kernels " + (args.empty() ? std::string() : args[0]) + " " + r.describe(),
                r.exit_code == kKernelsUsageExit ? usage_exit_code : kExitFailure);
  return out;
}

std::vector<plan::PackageInfo> list_packages(const std::string& bin) {
  try {
    return plan::packages_from_json(kernels_output(bin, {"list"}, kExitFailure));
  } catch (const plan::PlanError& e) {
    throw Error(std::string("kprof-kernels list: ") + e.what(), kExitFailure);
  }
}

plan::KernelPlan describe_plan(const std::string& bin, const std::string& package, const std::string& version,
                               const ProblemParams& params) {
  std::vector<std::string> args{"describe", package, version};
  for (auto& a : param_args(params)) args.push_back(a);
  try {
    return plan::plan_from_json(kernels_output(bin, args, kExitUsage));
  } catch (const plan::PlanError& e) {
    throw Error(std::string("kprof-kernels describe: ") + e.what(), kExitFailure);
  }
}

const plan::PackageInfo& require_package(const std::vector<plan::PackageInfo>& pkgs, const std::string& name) {
  const plan::PackageInfo* p = plan::find_package(pkgs, name);
  if (!p) throw UnknownPackageError(name, plan::render_package_list(pkgs));
  return *p;
}

const plan::VersionInfo& require_version(const plan::PackageInfo& pkg, const std::string& name) {
  const plan::VersionInfo* v = plan::find_version(pkg, name);
  if (!v) {
    std::string msg = pkg.name + " has no version '" + name + "'. Versions:";
    for (const auto& x : pkg.versions) msg += "\n  " + x.name + ": " + x.description;
    throw Error(msg, kExitUsage);
  }
  return *v;
}

std::vector<std::string> param_args(const ProblemParams& p) {
  std::vector<std::string> a;
  for (const auto& [k, v] : p.values) a.push_back(fmt::format("--{}={}", k, v));
  return a;
}

}  // namespace kprof::session
