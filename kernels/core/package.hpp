// The contract between a kernel package and kprof-kernels: a package is one folder with one registration
// function (KPROF_REGISTER_PACKAGE) that lists its versions; each version says what it runs for a problem
// (a KernelPlan, host-only, no GPU needed) and creates an Instance that owns the device buffers and can launch,
// describe, poison and check each stage. Compiled by nvcc (packages) and by the host compiler (runner), so C++17.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "plan/plan_types.hpp"

namespace kprof::kernels {

using plan::TileConfig;
using Params = std::map<std::string, std::int64_t>;  // resolved problem parameters (defaults filled in)

// Returned by launch()/attributes() for a config the build did not instantiate (recorded as compile-failed).
constexpr cudaError_t kNotInstantiated = cudaErrorNotSupported;

struct CheckResult {
  bool ok = false;
  double max_error = 0;   // worst normalised error over the checked outputs
  double bound = 0;       // what max_error must not exceed
  std::size_t checked = 0;
  std::string detail;     // where the worst output is, what it held, what the reference says
};

class Instance {
 public:
  virtual ~Instance() = default;
  // Allocates device buffers and fills every input with random non-zero data (seeded, so runs are comparable).
  virtual void setup(std::uint64_t seed) = 0;
  // Launches stage `stage` with `cfg` on `stream`, asynchronously; returns the launch error (cudaGetLastError).
  virtual cudaError_t launch(int stage, const TileConfig& cfg, cudaStream_t stream) = 0;
  // cudaFuncGetAttributes of the kernel that launch() would use for `cfg`.
  virtual cudaError_t attributes(int stage, const TileConfig& cfg, cudaFuncAttributes& out) = 0;
  // Fills the stage's outputs with NaN so that a kernel that writes nothing cannot pass the check.
  virtual void poison(int stage) = 0;
  // Compares the stage's outputs (after its launch completed) with the package's reference.
  virtual CheckResult check(int stage) = 0;
};

struct VersionEntry {
  plan::VersionInfo info;
  // Kind and stages for these params (package/version/params/dtype are filled in by the runner).
  std::function<plan::KernelPlan(const Params&)> plan;
  std::function<std::unique_ptr<Instance>(const Params&)> create;
};

struct PackageEntry {
  plan::PackageInfo info;             // info.versions is filled from `versions`
  std::vector<VersionEntry> versions; // oldest first; the last is the default
};

class Registry {
 public:
  static void add(PackageEntry p);
  static const std::vector<PackageEntry>& all();  // sorted by name
  static const PackageEntry* find(const std::string& name);
};

// Hash of the kernels' sources and compile options (set by kernels/CMakeLists.txt): the autotune cache key.
const char* build_hash();
const char* build_flags();

}  // namespace kprof::kernels

// In a package's .cu file, at namespace scope: KPROF_REGISTER_PACKAGE(gemm_package); where
// `kprof::kernels::PackageEntry gemm_package()` builds the entry. Adding a package touches only its own folder.
#define KPROF_REGISTER_PACKAGE(fn) \
  static const bool kprof_registered_##fn = (::kprof::kernels::Registry::add(fn()), true)
