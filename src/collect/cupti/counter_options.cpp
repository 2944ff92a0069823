// CounterOptions from the environment (collect/counters/counters_format.hpp names the variables). No CUPTI: also
// built into kprof_collect, so the tests read the same parser.
#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "collect/counters/counters_format.hpp"
#include "collect/cupti/counter_mode.hpp"

namespace kprof::cupti {

namespace {

std::string env_str(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

std::uint64_t env_u64(const char* name, std::uint64_t fallback) {
  std::string v = env_str(name);
  if (v.empty()) return fallback;
  char* end = nullptr;
  unsigned long long x = std::strtoull(v.c_str(), &end, 10);
  return end && *end == '\0' ? x : fallback;
}

}  // namespace

CounterOptions CounterOptions::from_env() {
  namespace cf = counters_format;
  CounterOptions o;
  o.output = env_str(cf::kEnvFile);
  std::stringstream list(env_str(cf::kEnvMetrics));
  for (std::string m; std::getline(list, m, ',');)
    if (!m.empty()) o.metrics.push_back(m);
  o.kernel_regex = env_str(cf::kEnvKernel);
  o.nvtx_range = env_str(cf::kEnvNvtx);
  o.all_launches = env_str(cf::kEnvAll) == "1";
  o.skip = env_u64(cf::kEnvSkip, 0);
  o.count = env_u64(cf::kEnvCount, 0);
  o.max_kernels = static_cast<std::size_t>(env_u64(cf::kEnvMax, cf::kDefaultMaxKernels));
  o.max_kernels = std::clamp<std::size_t>(o.max_kernels, 1, cf::kMaxKernelsLimit);
  o.image_ranges = std::clamp<std::size_t>(static_cast<std::size_t>(env_u64(cf::kEnvImage, cf::kDefaultImageRanges)), 1,
                                           cf::kMaxImageRanges);
  return o;
}

}  // namespace kprof::cupti
