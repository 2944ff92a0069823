// The counter collector of one process: takes a launch through selection, the range profiler and the driver's
// attributes into a KernelRecord, and rewrites the counters file after every profiled launch. One instance,
// never destroyed (the exit and signal paths use it); the CUPTI callbacks (counter_callbacks.cpp) call into it.
#pragma once
#include <atomic>
#include <cupti.h>

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "collect/cupti/counter_mode.hpp"
#include "collect/cupti/kernel_record.hpp"
#include "collect/cupti/launch_selection.hpp"
#include "collect/cupti/range_profiler.hpp"

namespace kprof::cupti {

class CounterCollector {
 public:
  static CounterCollector& instance();

  // Keeps the options; false (with the reason recorded) when the kernel filter is unusable.
  bool start(const CounterOptions& options);
  // The launch callback on API entry (`nvtx`: the calling thread's push/pop stack, outermost first, of which the
  // first `stage_entries` end at the range that names the stage: stage_range_index) and on exit.
  void on_launch_enter(const CUpti_CallbackData* cb, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                       const std::vector<std::string>& nvtx, std::size_t stage_entries);
  void on_launch_exit(const CUpti_CallbackData* cb, CUpti_CallbackDomain domain);
  // The exit and signal paths: waits a bounded time for a profiled launch in progress, then writes.
  void write(bool interrupted);
  // Stream captures opened and closed in the process (driver callbacks): nothing is profiled while one is open.
  void capture_began() { ++open_captures_; }
  // Before a capture begins: the range profiler is disabled until the next profiled launch after it.
  void before_capture();
  void capture_ended() {
    if (open_captures_ > 0) --open_captures_;
  }
  // An error outside any launch (the subscription).
  void note(const std::string& e);

 private:
  CounterCollector() = default;
  bool setup(CUcontext ctx);
  void error(const std::string& e);  // caller holds mu_
  void write_locked(bool interrupted);

  CounterOptions opt_;
  LaunchSelection selection_;
  std::timed_mutex mu_;  // records and session state; the exit/signal writer waits for it only so long
  std::map<std::string, std::uint64_t> invocations_;
  std::uint64_t launches_ = 0, profiled_ = 0, captured_ = 0;
  std::atomic<int> open_captures_{0};
  int in_flight_ = 0;  // profiled launches between their range's start and stop (mu_)
  std::deque<KernelRecord> records_;  // a deque: the pending record is referenced while other threads append
  std::vector<std::string> errors_;
  std::uint64_t error_count_ = 0;
  // Profiling session (the first context that launches a selected kernel).
  bool setup_done_ = false, setup_failed_ = false;
  CUcontext ctx_ = nullptr;
  RangeProfiler profiler_;
};

}  // namespace kprof::cupti
