// `kprof-kernels run`: check a version against its reference, autotune stages with a tile space (with the cache),
// then time the plan with every stage inside an NVTX range named after it, and write the results.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <utility>
#include <string>

#include "core/package.hpp"
#include "model/params.hpp"

namespace kprof::kernels {

struct RunSettings {
  std::string package, version;  // version "" = latest
  ProblemParams params;          // as given (defaults are filled in from the package)
  int runs = 20;                 // timed runs of the whole plan; 0 = check and tune only
  bool tune = true;              // measure configs not in the cache (false: cached best or the default config)
  bool retune = false;           // ignore the cache and measure every config again
  // --configs A:B: tune only the configs with index in [A, B) of each tuned stage's tile space (a sweep spreads
  // one tuning over many GPUs this way, session/tune_sweep.hpp); with retune, only those are measured again and the
  // cache's other tries stay. A stage with no usable config in the range runs its default one.
  std::optional<std::pair<int, int>> configs;
  bool check = true;             // false only when this exact binary already checked these configs (kprof does)
  int tune_samples = 10;         // timed launches per config
  std::uint64_t seed = 20261130;
  std::filesystem::path cache_dir = ".cache/kernel-autotune";
  std::filesystem::path out_dir;  // "" = write nothing
};

// Exit codes: 0 ok, 1 CUDA or internal failure, 2 usage, 3 wrong result.
constexpr int kKernelsWrongResult = 3;
int run_version(const RunSettings& s);

// The plan for a version and problem (host only; no GPU). Throws plan::PlanError on unknown names or params.
plan::KernelPlan describe(const std::string& package, const std::string& version, const ProblemParams& given);

}  // namespace kprof::kernels
