// The CUPTI Range Profiler for one CUDA context, as the counter collector drives it: set up once (host object,
// metric configuration packed into as few replay passes as the host scheduler allows, counter data image), then
// start before a selected launch and stop and evaluate after it (auto range, kernel replay).
#pragma once
#include <cuda.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_range_profiler.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "collect/counters/counters_format.hpp"
#include "collect/cupti/kernel_record.hpp"

namespace kprof::cupti {

class RangeProfiler {
 public:
  // Ranges one counter image holds before it is renewed (KPROF_COUNTERS_IMAGE overrides it). On the H200 an image
  // costs ~1 ms a range to enable, and renewing a full one ~180 ms (disable, enable, and the first range's start on
  // the new configuration, ~150 ms; bench/RESULTS.md §1a⁶): 32 leaves a program of up to 32 profiled kernels with
  // none (8 renewed the many-kernel program's image twice) and costs ~25 ms more to enable than 8.
  static constexpr std::size_t kImageRanges = counters_format::kDefaultImageRanges;
  // "" when the profiler is ready for `ctx`; else what failed ("cuptiProfilerInitialize: ..."). Metrics the chip
  // lacks are left out (unsupported()); none supported is a failure. The device facts (name, compute capability,
  // SMs) are read once CUPTI is initialised, even when a later step fails.
  std::string setup(CUcontext ctx, const std::vector<std::string>& metrics, std::size_t max_ranges,
                    std::size_t image_ranges = kImageRanges);
  // Stream capture: the range profiler is disabled on the context before a capture begins (while it is enabled,
  // a global-mode capture elsewhere in the process was invalidated on the H200) and enabled again, with a fresh
  // counter image, for the next profiled launch once no capture is open. "" on success.
  std::string suspend();
  std::string resume();
  bool suspended() const { return !rp_ && ctx_; }
  // "" when the range started.
  std::string start();
  // Stops the range, decodes it and, when it is exactly one new range of a launch that succeeded
  // (`launch_result` 0) with every pass submitted, evaluates the metrics into r.values (non-finite ones into
  // r.non_finite). Sets r.ranges, r.dropped and r.wall_ms (from r.t0). "" when the values were stored, else why not.
  std::string stop_and_evaluate(int launch_result, KernelRecord& r);

  const std::string& chip() const { return chip_; }
  const std::string& device_name() const { return device_name_; }
  const std::string& compute_capability() const { return compute_capability_; }
  int sm_count() const { return sm_count_; }
  const std::vector<std::string>& metrics() const { return metrics_; }
  const std::vector<std::string>& unsupported() const { return unsupported_; }
  const std::map<std::string, std::string>& units() const { return units_; }
  std::size_t passes() const { return passes_; }
  double setup_ms() const { return setup_ms_; }
  // setup()'s steps in order with their wall time (ms): where the once-per-process cost goes.
  const std::vector<std::pair<std::string, double>>& setup_steps() const { return setup_steps_; }

 private:
  std::string enable();
  std::string enable_steps();
  CUcontext ctx_ = nullptr;
  std::size_t max_ranges_ = 0;
  std::string chip_;
  std::string device_name_, compute_capability_;
  int sm_count_ = 0;
  CUpti_Profiler_Host_Object* host_ = nullptr;
  CUpti_RangeProfiler_Object* rp_ = nullptr;
  std::vector<std::string> metrics_, unsupported_;
  std::map<std::string, std::string> units_;
  std::vector<const char*> metric_ptrs_;
  std::vector<std::uint8_t> config_, counter_data_;
  std::size_t passes_ = 0;
  double setup_ms_ = 0;
  std::vector<std::pair<std::string, double>> setup_steps_;
  std::size_t ranges_ = 0;  // ranges in the counter image after the last evaluation
};

}  // namespace kprof::cupti
