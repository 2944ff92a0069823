#include "collect/cupti/cupti_tracer.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>
#include <unistd.h>

#include "collect/cupti/cupti_check.hpp"
#include "collect/trace/tracer_env.hpp"

namespace kprof::cupti {

namespace {
std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : std::string(fallback);
}
bool env_flag(const char* name, bool fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  return !(std::strcmp(v, "0") == 0 || std::strcmp(v, "false") == 0 || std::strcmp(v, "off") == 0);
}
}  // namespace

TracerOptions TracerOptions::from_env() {
  TracerOptions o;
  o.output = env_or(tracer_env::kFile, "");
  if (o.output.empty()) o.output = "kprof_trace." + std::to_string(::getpid()) + ".kptrace";
  o.api = env_flag(tracer_env::kApi, true);
  o.graph_trace = env_flag(tracer_env::kGraph, false);
  o.overhead = env_flag(tracer_env::kOverhead, false);
  o.driver = env_flag(tracer_env::kDriver, false);
  o.copies = env_flag(tracer_env::kCopies, true);
  o.sync = env_flag(tracer_env::kSync, true);
  o.nvtx = env_flag(tracer_env::kNvtx, true);
  long mb = std::strtol(env_or(tracer_env::kBufferMb, "8").c_str(), nullptr, 10);
  if (mb >= 1 && mb <= 1024) o.buffer_bytes = static_cast<std::size_t>(mb) << 20;
  o.zeroed_buffers = env_flag(tracer_env::kZeroed, false);
  o.discard = env_flag(tracer_env::kDiscard, false);
  if (const char* p = std::getenv(tracer_env::kPinned); p && *p) o.host_pinned = env_flag(tracer_env::kPinned, false);
  o.device_buffer_mb = std::strtoul(env_or(tracer_env::kDeviceBufferMb, "0").c_str(), nullptr, 10);
  o.device_buffers = std::strtoul(env_or(tracer_env::kPreallocate, "0").c_str(), nullptr, 10);
  o.serial_kernels = env_flag(tracer_env::kSerialKernels, false);
  o.hw_trace = env_flag(tracer_env::kHwTrace, false);
  return o;
}

Tracer& Tracer::instance() {
  static Tracer* t = new Tracer();  // never destroyed: atexit and signal paths may still use it
  return *t;
}

void Tracer::note_error(std::string error) {
  ++error_count_;
  if (errors_.size() < 16) errors_.push_back(std::move(error));
}

bool Tracer::enable(CUpti_ActivityKind kind, const char* name, bool essential) {
  std::string e = cupti_failure(cuptiActivityEnable(kind), std::string("cuptiActivityEnable(") + name + ")");
  if (e.empty()) return true;
  std::lock_guard<std::mutex> lock(mu_);
  note_error(std::move(e));
  std::fprintf(stderr, "kprof tracer: cannot enable %s%s\n", name, essential ? "" : " (continuing without it)");
  return false;
}

bool Tracer::start(const TracerOptions& options) {
  options_ = options;
  cuptiGetTimestamp(&start_ns_);
  if (std::ifstream comm("/proc/self/comm"); comm) std::getline(comm, process_name_);
  auto set_attr = [&](CUpti_ActivityAttribute a, auto value, const char* name) {
    std::size_t size = sizeof(value);
    if (auto e = cupti_failure(cuptiActivitySetAttribute(a, &size, &value), name); !e.empty()) {
      std::lock_guard<std::mutex> lock(mu_);
      note_error(std::move(e));
    }
  };
  if (options_.zeroed_buffers)
    set_attr(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, std::uint8_t{1}, "CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER");
  if (options_.host_pinned >= 0)
    set_attr(CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED, static_cast<std::uint8_t>(options_.host_pinned),
             "CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED");
  if (options_.device_buffer_mb > 0)
    set_attr(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, options_.device_buffer_mb << 20, "CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE");
  if (options_.device_buffers > 0)
    set_attr(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_PRE_ALLOCATE_VALUE, options_.device_buffers,
             "CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_PRE_ALLOCATE_VALUE");
  if (auto e = CUPTI_FAILURE(cuptiActivityRegisterCallbacks, &Tracer::request_buffer, &Tracer::buffer_completed);
      !e.empty()) {
    std::lock_guard<std::mutex> lock(mu_);
    note_error(std::move(e));
    return false;
  }
  if (options_.hw_trace) {
    // Kernel timestamps from the hardware event system instead of per-launch instrumentation; CUPTI 13 documents
    // it for Blackwell only and wants the driver initialised, so it is asked for when the first context exists.
    // The answer (accepted or the error) is recorded in the trace header; tracing goes on as usual either way.
    CUpti_SubscriberHandle sub = nullptr;
    auto on_context = [](void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {
      static std::atomic<bool> asked{false};
      if (asked.exchange(true)) return;
      Tracer& t = instance();
      std::string e = CUPTI_FAILURE(cuptiActivityEnableHWTrace, 1);
      std::lock_guard<std::mutex> lock(t.mu_);
      if (e.empty()) t.errors_.push_back("cuptiActivityEnableHWTrace: accepted (note, not an error)");
      else t.note_error(std::move(e));
    };
    if (cuptiSubscribe(&sub, on_context, nullptr) == CUPTI_SUCCESS)
      cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
  }
  bool ok = options_.serial_kernels ? enable(CUPTI_ACTIVITY_KIND_KERNEL, "KERNEL", true)
                                    : enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL", true);
  if (options_.copies) {
    enable(CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY", false);
    enable(CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET", false);
  }
  if (options_.sync) enable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION", false);
  if (options_.api) {
    bool rt = enable(CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME", false);
    // Driver records duplicate what the runtime records show for CUDA C++ and cost a record per call:
    // opt-in (KPROF_TRACE_DRIVER=1) for programs that call the driver API directly (Triton's launcher does).
    bool drv = options_.driver && enable(CUPTI_ACTIVITY_KIND_DRIVER, "DRIVER", false);
    // Without them, only the driver's launch calls: a library that launches through the driver API (cuBLASLt's
    // nvjet kernels, Triton) leaves kernels with no host call to place them in their NVTX range, and placing
    // them by GPU start time put 20 of 21 launches of a cuBLASLt stage outside it (mla v4 on the H200).
    if (!drv) {
      for (CUpti_CallbackId id : {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
                                  CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
                                  CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
                                  CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz}) {
        if (auto e = CUPTI_FAILURE(cuptiActivityEnableDriverApi, id, 1); !e.empty()) {
          std::lock_guard<std::mutex> lock(mu_);
          note_error(std::move(e));
        } else {
          drv = true;
        }
      }
    }
    if (rt || drv) flags_ |= trace_format::kFlagApiTraced;
  }
  // NVTX ranges arrive only when NVTX_INJECTION64_PATH points at libcupti.
  if (options_.nvtx && enable(CUPTI_ACTIVITY_KIND_MARKER, "MARKER", false)) flags_ |= trace_format::kFlagNvtxTraced;
  if (options_.graph_trace && enable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE, "GRAPH_TRACE", false))
    flags_ |= trace_format::kFlagGraphTrace;
  if (options_.overhead) enable(CUPTI_ACTIVITY_KIND_OVERHEAD, "OVERHEAD", false);
  return ok;
}

void Tracer::request_buffer(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  Tracer& t = instance();
  std::uint8_t* b = nullptr;
  {
    std::lock_guard<std::mutex> lock(t.pool_mu_);
    if (!t.pool_.empty()) {
      b = t.pool_.back();
      t.pool_.pop_back();
    }
  }
  if (!b) {
    b = static_cast<std::uint8_t*>(std::aligned_alloc(8, t.options_.buffer_bytes));
    if (b && t.options_.zeroed_buffers) std::memset(b, 0, t.options_.buffer_bytes);
  }
  *buffer = b;
  *size = b ? t.options_.buffer_bytes : 0;
  *max_records = 0;  // as many as fit
}

void Tracer::buffer_completed(CUcontext ctx, std::uint32_t stream, std::uint8_t* buffer, std::size_t,
                              std::size_t valid) {
  Tracer& t = instance();
  if (!t.options_.discard) {
    std::lock_guard<std::mutex> lock(t.mu_);
    CUpti_Activity* record = nullptr;
    for (;;) {
      CUptiResult r = cuptiActivityGetNextRecord(buffer, valid, &record);
      if (r == CUPTI_SUCCESS) {
        append_record(t.buffer_, t.names_, record);
      } else {
        if (r != CUPTI_ERROR_MAX_LIMIT_REACHED) t.note_error(cupti_failure(r, "cuptiActivityGetNextRecord"));
        break;
      }
    }
    std::size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS) t.dropped_ += dropped;
  }
  if (buffer) {
    // Zeroed here, on CUPTI's worker thread, so that the request on the program's thread costs nothing.
    if (t.options_.zeroed_buffers) std::memset(buffer, 0, t.options_.buffer_bytes);
    std::lock_guard<std::mutex> lock(t.pool_mu_);
    t.pool_.push_back(buffer);
  }
}

TraceFileInfo Tracer::file_info(bool interrupted) {
  TraceFileInfo info;
  info.pid = static_cast<std::uint32_t>(::getpid());
  info.process_name = process_name_;
  info.dropped_records = dropped_;
  info.tracer_start_ns = start_ns_;
  cuptiGetTimestamp(&info.tracer_end_ns);
  info.errors = errors_;
  info.error_count = error_count_;
  info.flags = flags_ | (interrupted ? trace_format::kFlagInterrupted : 0u);
  cuptiGetVersion(&info.cupti_api_version);
  return info;
}

bool Tracer::write_locked(const std::string& path, bool interrupted) {
  TraceFileInfo info = file_info(interrupted);
  std::string error;
  const bool ok = buffer_.write_file(path, info, &error);
  if (!ok) std::fprintf(stderr, "kprof tracer: %s\n", error.c_str());
  return ok;
}

void Tracer::write_snapshot(bool interrupted) {
  bool expected = false;
  if (!writing_.compare_exchange_strong(expected, true)) return;
  std::string flush_error = CUPTI_FAILURE(cuptiActivityFlushAll, CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!flush_error.empty()) note_error(std::move(flush_error));
    write_locked(options_.output, interrupted);
  }
  writing_.store(false);
}

bool Tracer::write_delivered(bool interrupted, int wait_ms) {
  bool expected = false;
  if (!writing_.compare_exchange_strong(expected, true)) return false;
  std::unique_lock<std::mutex> lock(mu_, std::defer_lock);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  while (!lock.try_lock()) {
    if (std::chrono::steady_clock::now() >= deadline) {
      writing_.store(false);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const bool ok = write_locked(options_.output, interrupted);
  lock.unlock();
  writing_.store(false);
  return ok;
}

bool Tracer::wait_idle(int wait_ms) const {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  while (writing_.load()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

bool Tracer::write_window(const std::string& path) {
  bool expected = false;
  if (!writing_.compare_exchange_strong(expected, true)) return false;
  std::string flush_error = CUPTI_FAILURE(cuptiActivityFlushAll, CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  bool ok = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!flush_error.empty()) note_error(std::move(flush_error));
    ok = write_locked(path, false);
    buffer_.clear_records();
    cuptiGetTimestamp(&start_ns_);
  }
  writing_.store(false);
  return ok;
}

}  // namespace kprof::cupti
