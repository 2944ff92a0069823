// Which kernel launches the counter collector profiles: the first launch of each kernel and launch shape (or every one with
// KPROF_COUNTERS_ALL=1) whose base name matches KPROF_COUNTERS_KERNEL and that runs inside the NVTX path of
// KPROF_COUNTERS_NVTX, after KPROF_COUNTERS_SKIP such launches, up to KPROF_COUNTERS_COUNT and
// KPROF_COUNTERS_MAX. No CUPTI: also built into kprof_collect for the tests.
#pragma once
#include <cstdint>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "collect/cupti/counter_mode.hpp"

namespace kprof::cupti {

class LaunchSelection {
 public:
  // "" when the options are usable; else why nothing will be selected (the kernel filter is not a valid regex:
  // profiling nothing beats profiling everything).
  std::string configure(const CounterOptions& options);
  // Decides for one launch: `invocation` is 1-based per mangled name and launch shape (grid, block), `nvtx` the launching thread's push/pop
  // stack (outermost first), `profiled` how many launches were profiled so far. Counts the launch towards the
  // skip. When a limit stops profiling, `limit_error` says so (the caller records it).
  bool select(const std::string& mangled, std::uint64_t invocation, const std::vector<std::string>& nvtx,
              std::uint64_t profiled, std::string* limit_error);
  std::uint64_t selected() const { return selected_; }

 private:
  CounterOptions opt_;
  std::unique_ptr<std::regex> filter_;
  bool select_nothing_ = false;
  std::vector<std::string> nvtx_path_;  // KPROF_COUNTERS_NVTX split on '/': a contiguous run of the stack
  std::uint64_t selected_ = 0;
};

}  // namespace kprof::cupti
