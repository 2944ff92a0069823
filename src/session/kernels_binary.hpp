// kprof-kernels as kprof's commands use it: where the binary is, and its host-only answers (list, describe).
#pragma once
#include <string>
#include <vector>

#include "model/params.hpp"
#include "plan/plan_types.hpp"
#include "util/errors.hpp"

namespace kprof::session {

// kprof-kernels' exit codes: 0 ok, 1 CUDA or internal failure, 2 usage, 3 wrong result (kernels/README.md).
constexpr int kKernelsUsageExit = 2;
constexpr int kKernelsWrongResultExit = 3;

// `explicit_path` when given, else $KPROF_KERNELS, else next to the running executable (the build tree puts it
// there), else ../libexec, else PATH. Throws Error(kExitNoTool) saying where it looked.
std::string find_kernels_binary(const std::string& explicit_path = "");

// Runs kprof-kernels with its stdout captured (stderr goes to the terminal). A non-zero exit throws Error: with
// `usage_exit_code` when kprof-kernels exited 2 (bad package, version or parameter), else kExitFailure.
std::string kernels_output(const std::string& bin, const std::vector<std::string>& args, int usage_exit_code);

// `kprof-kernels list` parsed (Error kExitFailure when it fails or prints something malformed).
std::vector<plan::PackageInfo> list_packages(const std::string& bin);

// `kprof-kernels describe <package> <version> --name=value ...` parsed and validated. Exit 2 → Error(kExitUsage).
plan::KernelPlan describe_plan(const std::string& bin, const std::string& package, const std::string& version,
                               const ProblemParams& params);

// A package name kprof-kernels does not know; packages() is the `kprof list` table of what it has.
class UnknownPackageError : public Error {
 public:
  UnknownPackageError(std::string package, std::string packages)
      : Error("unknown package '" + package + "'. Packages:\n" + packages, kExitUsage),
        package_(std::move(package)), packages_(std::move(packages)) {}
  const std::string& package() const { return package_; }
  const std::string& packages() const { return packages_; }

 private:
  std::string package_, packages_;
};

// The named package; UnknownPackageError when kprof-kernels does not have it.
const plan::PackageInfo& require_package(const std::vector<plan::PackageInfo>& pkgs, const std::string& name);
// The named version ("" = the latest); Error(kExitUsage) listing the package's versions when it has no such one.
const plan::VersionInfo& require_version(const plan::PackageInfo& pkg, const std::string& name);

// "--k=4096", "--m=512", ...: the parameters as kprof-kernels takes them (canonical name order).
std::vector<std::string> param_args(const ProblemParams& p);

}  // namespace kprof::session
