#include "collect/cupti/counter_collector.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "collect/cupti/counters_json.hpp"

namespace kprof::cupti {

namespace {
thread_local int t_depth = 0;                  // nesting of launch callbacks (runtime → driver)
thread_local KernelRecord* t_pending = nullptr;
}  // namespace

CounterCollector& CounterCollector::instance() {
  static CounterCollector* c = new CounterCollector();  // never destroyed: exit and signal paths use it
  return *c;
}

bool CounterCollector::start(const CounterOptions& o) {
  opt_ = o;
  std::string problem = selection_.configure(o);
  if (problem.empty()) return true;
  note(problem);
  return false;
}

void CounterCollector::note(const std::string& e) {
  std::lock_guard<std::timed_mutex> lock(mu_);
  error(e);
}

void CounterCollector::error(const std::string& e) {
  ++error_count_;
  if (errors_.size() < 32 && std::find(errors_.begin(), errors_.end(), e) == errors_.end()) errors_.push_back(e);
}

// Host object, config image and range profiler for the context of the first profiled launch.
bool CounterCollector::setup(CUcontext ctx) {
  if (setup_done_) {
    if (ctx != ctx_) {
      error("a launch in a second CUDA context was not profiled (counters follow the first context only)");
      return false;
    }
    return !setup_failed_;
  }
  setup_done_ = true;
  ctx_ = ctx;
  std::string problem = profiler_.setup(ctx, opt_.metrics, opt_.max_kernels, opt_.image_ranges);
  setup_failed_ = !problem.empty();
  if (setup_failed_) error(problem);
  return !setup_failed_;
}

void CounterCollector::before_capture() {
  std::lock_guard<std::timed_mutex> lock(mu_);
  if (!setup_done_ || setup_failed_) return;
  // A profiled launch of another thread is replaying: disabling under it would lose its counters and the capture
  // begins beside a replay anyway; its range is left to finish (the next launches see the open capture).
  if (in_flight_ > 0) return;
  if (std::string e = profiler_.suspend(); !e.empty()) error(e);
}

void CounterCollector::on_launch_enter(const CUpti_CallbackData* cb, CUpti_CallbackDomain domain,
                                       CUpti_CallbackId cbid, const std::vector<std::string>& nvtx,
                                       std::size_t stage_entries) {
  int depth = t_depth++;
  if (depth > 0) {  // the driver call inside a runtime launch: it knows the CUfunction and the exact stream
    if (t_pending) {
      std::lock_guard<std::timed_mutex> lock(mu_);
      fill_from_params(*t_pending, domain, cbid, cb->functionParams);
      if (cb->functionName) t_pending->api += std::string(" > ") + cb->functionName;
    }
    return;
  }
  // Not serialised against other threads' launches (holding them at their entry could deadlock a program that
  // synchronises threads around launches): if one lands inside a profiled window, the range count below shows
  // it and that launch's counters are dropped with an error instead of being misattributed.
  std::string mangled = cb->symbolName ? cb->symbolName : "";
  std::lock_guard<std::timed_mutex> lock(mu_);
  const auto entered = std::chrono::steady_clock::now();
  std::uint64_t order = launches_++;
  // While a capture is open no CUDA call is made from here at all (not even a stream query): a global-mode
  // capture was invalidated on the H200 with the collector subscribed and no launch profiled.
  if (open_captures_ > 0) {
    ++captured_;
    return;
  }
  // A launch into a capturing stream only records a graph node: nothing runs, nothing can be profiled, and the
  // graph's later launches run its kernels without launch callbacks. Counted, not selected.
  KernelRecord probe;
  fill_from_params(probe, domain, cbid, cb->functionParams);
  if (probe.capturing || open_captures_ > 0) {  // a capture open elsewhere: no replay now (it would break it)
    ++captured_;
    return;
  }
  // The runtime's entry callback may come before it made a context current (a thread's first CUDA call).
  CUcontext ctx = cb->context;
  if (!ctx) cuCtxGetCurrent(&ctx);
  if (!ctx || mangled.empty()) return;  // not counted as an invocation: a later launch of it can be profiled
  // Invocations count per kernel and launch shape (a kernel group): the first launch of each shape is profiled,
  // so a kernel launched at two grid sizes gets counters for both.
  const std::string shape_key = mangled + "|" + std::to_string(probe.grid[0]) + "x" + std::to_string(probe.grid[1]) + "x" +
                                std::to_string(probe.grid[2]) + "|" + std::to_string(probe.block[0]) + "x" +
                                std::to_string(probe.block[1]) + "x" + std::to_string(probe.block[2]);
  std::uint64_t invocation = ++invocations_[shape_key];
  std::string limit;
  const bool chosen = selection_.select(mangled, invocation, nvtx, profiled_, &limit);
  if (!limit.empty()) error(limit);
  if (!chosen) return;
  if (!setup(ctx)) return;
  if (profiler_.suspended()) {  // disabled for a capture that has ended since
    if (std::string e = profiler_.resume(); !e.empty()) {
      error(e);
      return;
    }
  }
  records_.push_back(std::move(probe));
  KernelRecord& r = records_.back();
  r.mangled = mangled;
  r.invocation = invocation;
  r.order = order;
  r.context_uid = cb->contextUid;
  // The stack as far as the stage's range (counters.json's reader names the stage after its last entry): a
  // library's range inside the user's (CUB's, domain "CCCL") stays out.
  r.nvtx.assign(nvtx.begin(), nvtx.begin() + static_cast<std::ptrdiff_t>(std::min(stage_entries, nvtx.size())));
  r.api = cb->functionName ? cb->functionName : "";
  // Where a profiled launch's time goes before its replay (issue 27: ~25 ms a kernel fell outside the replay's
  // wall time on the H200): the selection (with the counter set-up on the first profiled launch, also in setup_ms,
  // and the resumption after a capture), then the range's start (and the image's renewal in it).
  const auto before_start = std::chrono::steady_clock::now();
  if (std::string e = profiler_.start(); !e.empty()) {
    r.error = e;
    return;
  }
  ++in_flight_;
  ++profiled_;
  r.t0 = std::chrono::steady_clock::now();
  r.phases_ms.emplace_back("select", std::chrono::duration<double, std::milli>(before_start - entered).count());
  r.phases_ms.emplace_back("start", std::chrono::duration<double, std::milli>(r.t0 - before_start).count());
  t_pending = &r;
}

void CounterCollector::on_launch_exit(const CUpti_CallbackData* cb, CUpti_CallbackDomain domain) {
  int depth = --t_depth;
  if (depth > 0 || !t_pending) return;
  std::lock_guard<std::timed_mutex> lock(mu_);
  KernelRecord& r = *t_pending;
  t_pending = nullptr;
  const auto f0 = std::chrono::steady_clock::now();
  fill_function(r, r.function);
  r.phases_ms.emplace_back("attributes",
                           std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - f0).count());
  // A launch that failed ran nothing: whatever the image holds belongs to an earlier kernel.
  int launch_result = 0;
  if (cb->functionReturnValue)
    launch_result = domain == CUPTI_CB_DOMAIN_DRIVER_API ? int(*static_cast<const CUresult*>(cb->functionReturnValue))
                                                         : int(*static_cast<const cudaError_t*>(cb->functionReturnValue));
  r.error = profiler_.stop_and_evaluate(launch_result, r);
  if (in_flight_ > 0) --in_flight_;
  // Rewritten after every profiled launch: a crash or a kill later keeps what was measured. The write's own time
  // is recorded in the next write.
  const auto w0 = std::chrono::steady_clock::now();
  write_locked(false);
  r.phases_ms.emplace_back("write", std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - w0).count());
}

void CounterCollector::write(bool interrupted) {
  // The exit and signal paths: if a profiled launch holds the lock (replaying), the file written after the
  // previous launch stands.
  std::unique_lock<std::timed_mutex> lock(mu_, std::defer_lock);
  if (!lock.try_lock_for(std::chrono::seconds(3))) {
    std::fprintf(stderr, "kprof counters: busy profiling; %s holds the launches profiled before\n", opt_.output.c_str());
    return;
  }
  write_locked(interrupted);
}

void CounterCollector::write_locked(bool interrupted) {
  CounterFileSummary s;
  s.chip = profiler_.chip();
  s.device_name = profiler_.device_name();
  s.compute_capability = profiler_.compute_capability();
  s.sm_count = profiler_.sm_count();
  s.passes = profiler_.passes();
  s.setup_ms = profiler_.setup_ms();
  s.setup_steps = profiler_.setup_steps();
  s.metrics = profiler_.metrics();
  s.unsupported = profiler_.unsupported();
  s.units = profiler_.units();
  s.launches_seen = launches_;
  s.launches_profiled = profiled_;
  s.launches_captured = captured_;
  s.errors = errors_;
  s.error_count = error_count_;
  write_counters_file(opt_.output, s, records_, interrupted);
}

}  // namespace kprof::cupti
