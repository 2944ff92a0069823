#include "collect/cupti/counter_collector.hpp"

#include <cuda.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <cxxabi.h>
#include <nvtx3/nvToolsExt.h>
#include <generated_nvtx_meta.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "collect/kernel_name.hpp"

namespace kprof::cupti {

namespace {

using nlohmann::json;

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

std::string result_string(CUptiResult r) {
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  return s ? s : "CUPTI error " + std::to_string(static_cast<int>(r));
}

// What one profiled launch looked like and what the counters said.
struct KernelRecord {
  std::string mangled;
  std::uint64_t invocation = 0;  // 1-based, per mangled name (all launches counted, profiled or not)
  std::uint64_t order = 0;       // 0-based position among all kernel launches of the process
  std::uint32_t context_uid = 0;
  std::uint64_t stream = 0;
  bool has_stream = false;
  int device = 0;
  unsigned grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  std::uint64_t smem_dynamic = 0;
  CUfunction function = nullptr;  // from a driver-level callback; attributes are read after the launch
  bool has_function = false;
  std::string api;                // the launch call that was intercepted (outermost first)
  bool capturing = false;         // launched into a stream being captured into a CUDA graph
  int registers = 0, smem_static = 0, local_bytes = 0, max_blocks_per_sm = 0;
  double theoretical_occupancy_pct = 0, waves_per_sm = 0;
  std::vector<std::string> nvtx;
  std::map<std::string, double> values;
  std::size_t ranges = 0, dropped = 0;
  double wall_ms = 0;  // host time spent in the profiled launch (replay included)
  std::chrono::steady_clock::time_point t0;
  std::vector<std::string> non_finite;  // metrics CUPTI evaluated to NaN or infinity (left out of values)
  std::string error;
};

thread_local std::vector<std::string> t_nvtx;  // this thread's push/pop stack
thread_local int t_depth = 0;                  // nesting of launch callbacks (runtime → driver)
thread_local KernelRecord* t_pending = nullptr;

class Collector {
 public:
  static Collector& instance() {
    static Collector* c = new Collector();  // never destroyed: exit and signal paths use it
    return *c;
  }

  bool start(const CounterOptions& o);
  void on_launch_enter(const CUpti_CallbackData* cb, CUpti_CallbackDomain domain, CUpti_CallbackId cbid);
  void on_launch_exit(const CUpti_CallbackData* cb, CUpti_CallbackDomain domain);
  void write(bool interrupted);

 private:
  bool selected(const std::string& mangled, std::uint64_t invocation, const std::vector<std::string>& nvtx);
  bool setup(CUcontext ctx);
  void fill_from_params(KernelRecord& r, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* params);
  void fill_function(KernelRecord& r, CUfunction f);
  void error(const std::string& e) {
    ++error_count_;
    if (errors_.size() < 32 && std::find(errors_.begin(), errors_.end(), e) == errors_.end()) errors_.push_back(e);
  }
  void write_locked(bool interrupted);

 public:
  void note(const std::string& e) {  // errors before any launch (subscription)
    std::lock_guard<std::timed_mutex> lock(mu_);
    error(e);
  }

 private:

  CounterOptions opt_;
  std::unique_ptr<std::regex> filter_;
  bool select_nothing_ = false;  // the kernel filter did not compile: profile nothing rather than everything
  std::vector<std::string> nvtx_path_;  // KPROF_COUNTERS_NVTX split on '/': a contiguous run of the stack
  std::timed_mutex mu_;  // records and session state; the exit/signal writer waits for it only so long
  std::size_t ranges_ = 0;  // ranges in the counter image after the last evaluation
  std::map<std::string, std::uint64_t> invocations_;
  std::uint64_t launches_ = 0, selected_ = 0, profiled_ = 0, captured_ = 0;
  std::deque<KernelRecord> records_;  // a deque: t_pending points into it while other threads append
  std::vector<std::string> errors_;
  std::uint64_t error_count_ = 0;
  // Profiling session (one context).
  bool setup_done_ = false, setup_failed_ = false;
  CUcontext ctx_ = nullptr;
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
};

bool Collector::start(const CounterOptions& o) {
  opt_ = o;
  std::stringstream path(o.nvtx_range);
  for (std::string part; std::getline(path, part, '/');)
    if (!part.empty()) nvtx_path_.push_back(part);
  if (!o.kernel_regex.empty()) {
    try {
      filter_ = std::make_unique<std::regex>(o.kernel_regex, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& e) {
      error("KPROF_COUNTERS_KERNEL is not a valid regular expression (nothing profiled): " + std::string(e.what()));
      select_nothing_ = true;
      return false;
    }
  }
  return true;
}

std::string demangled(const std::string& mangled) {
  int status = 0;
  char* d = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  std::string out = status == 0 && d ? d : mangled;
  std::free(d);
  return out;
}

bool Collector::selected(const std::string& mangled, std::uint64_t invocation, const std::vector<std::string>& nvtx) {
  if (select_nothing_) return false;
  if (!opt_.all_launches && invocation != 1) return false;
  // Like `ncu -k regex:`: the pattern is searched in the function's base name.
  if (filter_ && !std::regex_search(function_base_name(demangled(mangled)), *filter_)) return false;
  if (!nvtx_path_.empty()) {  // "a/b": range b pushed directly inside a, anywhere on the stack
    bool inside = false;
    for (std::size_t i = 0; !inside && i + nvtx_path_.size() <= nvtx.size(); ++i)
      inside = std::equal(nvtx_path_.begin(), nvtx_path_.end(), nvtx.begin() + static_cast<std::ptrdiff_t>(i));
    if (!inside) return false;
  }
  if (selected_++ < opt_.skip) return false;
  if (opt_.count > 0 && profiled_ >= opt_.count) return false;
  if (profiled_ >= opt_.max_kernels) {
    error("more selected launches than KPROF_COUNTERS_MAX (" + std::to_string(opt_.max_kernels) +
          "); later ones not profiled");
    return false;
  }
  return true;
}

// Host object, config image and range profiler for the context of the first profiled launch.
bool Collector::setup(CUcontext ctx) {
  if (setup_done_) {
    if (ctx != ctx_) {
      error("a launch in a second CUDA context was not profiled (counters follow the first context only)");
      return false;
    }
    return !setup_failed_;
  }
  setup_done_ = true;
  setup_failed_ = true;
  ctx_ = ctx;
  auto t0 = std::chrono::steady_clock::now();
  auto fail = [&](const char* what, CUptiResult r) {
    error(std::string(what) + ": " + result_string(r));
    return false;
  };
  CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  if (auto r = cuptiProfilerInitialize(&init); r != CUPTI_SUCCESS) return fail("cuptiProfilerInitialize", r);
  CUdevice dev = 0;
  if (cuCtxGetDevice(&dev) != CUDA_SUCCESS) dev = 0;
  CUpti_Device_GetChipName_Params chip{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  chip.deviceIndex = static_cast<size_t>(dev);
  if (auto r = cuptiDeviceGetChipName(&chip); r != CUPTI_SUCCESS) return fail("cuptiDeviceGetChipName", r);
  chip_ = chip.pChipName ? chip.pChipName : "";
  char name[256] = {};
  if (cuDeviceGetName(name, sizeof(name) - 1, dev) == CUDA_SUCCESS) device_name_ = name;
  int major = 0, minor = 0;
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  cuDeviceGetAttribute(&sm_count_, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
  if (major > 0) compute_capability_ = std::to_string(major) + "." + std::to_string(minor);

  CUpti_Profiler_GetCounterAvailability_Params avail{CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
  avail.ctx = ctx;
  std::vector<std::uint8_t> avail_image;
  if (auto r = cuptiProfilerGetCounterAvailability(&avail); r != CUPTI_SUCCESS) {
    // No permission for counters shows here first.
    return fail("cuptiProfilerGetCounterAvailability", r);
  }
  avail_image.resize(avail.counterAvailabilityImageSize);
  avail.pCounterAvailabilityImage = avail_image.data();
  if (auto r = cuptiProfilerGetCounterAvailability(&avail); r != CUPTI_SUCCESS)
    return fail("cuptiProfilerGetCounterAvailability", r);

  CUpti_Profiler_Host_Initialize_Params hi{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
  hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  hi.pChipName = chip_.c_str();
  hi.pCounterAvailabilityImage = avail_image.data();
  if (auto r = cuptiProfilerHostInitialize(&hi); r != CUPTI_SUCCESS) return fail("cuptiProfilerHostInitialize", r);
  host_ = hi.pHostObject;

  // Each metric is checked on its own, so that one the chip lacks (or that only Nsight Compute derives, like
  // launch__*) is reported instead of failing the whole list; the valid ones are then added in ONE call: the
  // host scheduler packs counters into replay passes only within a call (the annotation list takes 12 passes on
  // GH100 added at once, 33 added one by one).
  for (const auto& m : opt_.metrics) {
    CUpti_Profiler_Host_GetMetricProperties_Params props{CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE};
    props.pHostObject = host_;
    props.pMetricName = m.c_str();
    if (cuptiProfilerHostGetMetricProperties(&props) != CUPTI_SUCCESS) {
      unsupported_.push_back(m);
      continue;
    }
    metrics_.push_back(m);
    units_[m] = props.pDimUnit ? props.pDimUnit : "";
  }
  for (const auto& m : metrics_) metric_ptrs_.push_back(m.c_str());
  if (!metrics_.empty()) {
    CUpti_Profiler_Host_ConfigAddMetrics_Params add{CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    add.pHostObject = host_;
    add.ppMetricNames = metric_ptrs_.data();
    add.numMetrics = metric_ptrs_.size();
    if (auto r = cuptiProfilerHostConfigAddMetrics(&add); r != CUPTI_SUCCESS)
      return fail("cuptiProfilerHostConfigAddMetrics", r);
  }
  if (metrics_.empty()) {
    error("none of the requested metrics is supported on chip " + chip_);
    return false;
  }

  CUpti_Profiler_Host_GetConfigImageSize_Params cs{CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
  cs.pHostObject = host_;
  if (auto r = cuptiProfilerHostGetConfigImageSize(&cs); r != CUPTI_SUCCESS)
    return fail("cuptiProfilerHostGetConfigImageSize", r);
  config_.resize(cs.configImageSize);
  CUpti_Profiler_Host_GetConfigImage_Params ci{CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
  ci.pHostObject = host_;
  ci.configImageSize = config_.size();
  ci.pConfigImage = config_.data();
  if (auto r = cuptiProfilerHostGetConfigImage(&ci); r != CUPTI_SUCCESS) return fail("cuptiProfilerHostGetConfigImage", r);
  CUpti_Profiler_Host_GetNumOfPasses_Params np{CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
  np.configImageSize = config_.size();
  np.pConfigImage = config_.data();
  if (cuptiProfilerHostGetNumOfPasses(&np) == CUPTI_SUCCESS) passes_ = np.numOfPasses;

  CUpti_RangeProfiler_Enable_Params en{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
  en.ctx = ctx;
  if (auto r = cuptiRangeProfilerEnable(&en); r != CUPTI_SUCCESS) return fail("cuptiRangeProfilerEnable", r);
  rp_ = en.pRangeProfilerObject;

  CUpti_RangeProfiler_GetCounterDataSize_Params ds{CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
  ds.pRangeProfilerObject = rp_;
  ds.pMetricNames = metric_ptrs_.data();
  ds.numMetrics = metric_ptrs_.size();
  ds.maxNumOfRanges = opt_.max_kernels;
  ds.maxNumRangeTreeNodes = static_cast<std::uint32_t>(std::min<std::size_t>(opt_.max_kernels, 1u << 20));
  if (auto r = cuptiRangeProfilerGetCounterDataSize(&ds); r != CUPTI_SUCCESS)
    return fail("cuptiRangeProfilerGetCounterDataSize", r);
  counter_data_.resize(ds.counterDataSize);
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params di{
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  di.pRangeProfilerObject = rp_;
  di.counterDataSize = counter_data_.size();
  di.pCounterData = counter_data_.data();
  if (auto r = cuptiRangeProfilerCounterDataImageInitialize(&di); r != CUPTI_SUCCESS)
    return fail("cuptiRangeProfilerCounterDataImageInitialize", r);

  CUpti_RangeProfiler_SetConfig_Params sc{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
  sc.pRangeProfilerObject = rp_;
  sc.configSize = config_.size();
  sc.pConfig = config_.data();
  sc.counterDataImageSize = counter_data_.size();
  sc.pCounterDataImage = counter_data_.data();
  sc.range = CUPTI_AutoRange;
  sc.replayMode = CUPTI_KernelReplay;
  sc.maxRangesPerPass = opt_.max_kernels;
  sc.numNestingLevels = 1;
  sc.minNestingLevel = 1;
  sc.passIndex = 0;
  sc.targetNestingLevel = 1;
  if (auto r = cuptiRangeProfilerSetConfig(&sc); r != CUPTI_SUCCESS) return fail("cuptiRangeProfilerSetConfig", r);
  setup_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  setup_failed_ = false;
  return true;
}

// After the launch (the function is loaded by then, even with lazy module loading).
void Collector::fill_function(KernelRecord& r, CUfunction f) {
  if (!f || r.has_function) return;
  r.has_function = true;
  // The runtime launches through library kernels: the handle in cuLaunchKernel's parameters is then a CUkernel
  // (accepted where a CUfunction is), which cuFuncGetAttribute rejects. Resolve it in the current context.
  int probe = 0;
  if (cuFuncGetAttribute(&probe, CU_FUNC_ATTRIBUTE_NUM_REGS, f) == CUDA_ERROR_INVALID_HANDLE) {
    CUfunction resolved = nullptr;
    if (cuKernelGetFunction(&resolved, reinterpret_cast<CUkernel>(f)) == CUDA_SUCCESS && resolved) f = resolved;
  }
  if (CUresult e = cuFuncGetAttribute(&r.registers, CU_FUNC_ATTRIBUTE_NUM_REGS, f); e != CUDA_SUCCESS) {
    const char* s = nullptr;
    cuGetErrorName(e, &s);
    r.error = std::string("cuFuncGetAttribute: ") + (s ? s : "error");
  }
  cuFuncGetAttribute(&r.smem_static, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f);
  cuFuncGetAttribute(&r.local_bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f);
  int threads = static_cast<int>(r.block[0] * r.block[1] * r.block[2]);
  CUdevice dev = 0;
  int sms = 0, max_threads_sm = 0;
  if (cuCtxGetDevice(&dev) == CUDA_SUCCESS) {
    cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    cuDeviceGetAttribute(&max_threads_sm, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, dev);
    r.device = static_cast<int>(dev);
  }
  int blocks = 0;
  if (threads > 0 &&
      cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, threads, static_cast<size_t>(r.smem_dynamic)) ==
          CUDA_SUCCESS) {
    r.max_blocks_per_sm = blocks;
    int warps_per_block = (threads + 31) / 32;
    if (max_threads_sm > 0) r.theoretical_occupancy_pct = 100.0 * blocks * warps_per_block / (max_threads_sm / 32.0);
    double grid = double(r.grid[0]) * r.grid[1] * r.grid[2];
    if (blocks > 0 && sms > 0) r.waves_per_sm = grid / (double(blocks) * sms);
  }
}

void Collector::fill_from_params(KernelRecord& r, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                 const void* params) {
  if (!params) return;
  const bool ptsz = cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
                    cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz ||
                    cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz ||
                    cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000 ||
                    cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060 ||
                    cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000;
  auto set_shape = [&](unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, std::uint64_t smem,
                       CUstream s) {
    r.grid[0] = gx, r.grid[1] = gy, r.grid[2] = gz;
    r.block[0] = bx, r.block[1] = by, r.block[2] = bz;
    r.smem_dynamic = smem;
    // The _ptsz entry points mean the per-thread default stream when given stream 0.
    if (!s && ptsz) s = CU_STREAM_PER_THREAD;
    unsigned long long id = 0;
    if (cuStreamGetId(s, &id) == CUDA_SUCCESS) r.stream = id, r.has_stream = true;
    CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
    if (cuStreamIsCapturing(s, &capture) == CUDA_SUCCESS && capture != CU_STREAM_CAPTURE_STATUS_NONE) r.capturing = true;
  };
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    switch (cbid) {
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
        auto* p = static_cast<const cuLaunchKernel_params*>(params);
        set_shape(p->gridDimX, p->gridDimY, p->gridDimZ, p->blockDimX, p->blockDimY, p->blockDimZ, p->sharedMemBytes,
                  p->hStream);
        r.function = p->f;
        break;
      }
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
        auto* p = static_cast<const cuLaunchCooperativeKernel_params*>(params);
        set_shape(p->gridDimX, p->gridDimY, p->gridDimZ, p->blockDimX, p->blockDimY, p->blockDimZ, p->sharedMemBytes,
                  p->hStream);
        r.function = p->f;
        break;
      }
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
        auto* p = static_cast<const cuLaunchKernelEx_params*>(params);
        if (p->config)
          set_shape(p->config->gridDimX, p->config->gridDimY, p->config->gridDimZ, p->config->blockDimX,
                    p->config->blockDimY, p->config->blockDimZ, p->config->sharedMemBytes, p->config->hStream);
        r.function = p->f;
        break;
      }
      default:
        break;
    }
    return;
  }
  if (r.grid[0] != 0) return;  // the driver-level callback already filled it
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000: {
      auto* p = static_cast<const cudaLaunchKernel_v7000_params*>(params);
      set_shape(p->gridDim.x, p->gridDim.y, p->gridDim.z, p->blockDim.x, p->blockDim.y, p->blockDim.z, p->sharedMem,
                reinterpret_cast<CUstream>(p->stream));
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060: {
      auto* p = static_cast<const cudaLaunchKernelExC_v11060_params*>(params);
      if (p->config)
        set_shape(p->config->gridDim.x, p->config->gridDim.y, p->config->gridDim.z, p->config->blockDim.x,
                  p->config->blockDim.y, p->config->blockDim.z, p->config->dynamicSmemBytes,
                  reinterpret_cast<CUstream>(p->config->stream));
      break;
    }
    default:
      break;
  }
}

void Collector::on_launch_enter(const CUpti_CallbackData* cb, CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
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
  std::uint64_t order = launches_++;
  // A launch into a capturing stream only records a graph node: nothing runs, nothing can be profiled, and the
  // graph's later launches run its kernels without launch callbacks. Counted, not selected.
  KernelRecord probe;
  fill_from_params(probe, domain, cbid, cb->functionParams);
  if (probe.capturing) {
    ++captured_;
    return;
  }
  // The runtime's entry callback may come before it made a context current (a thread's first CUDA call).
  CUcontext ctx = cb->context;
  if (!ctx) cuCtxGetCurrent(&ctx);
  if (!ctx || mangled.empty()) return;  // not counted as an invocation: a later launch of it can be profiled
  std::uint64_t invocation = ++invocations_[mangled];
  if (!selected(mangled, invocation, t_nvtx)) return;
  if (!setup(ctx)) return;
  records_.push_back(std::move(probe));
  KernelRecord& r = records_.back();
  r.mangled = mangled;
  r.invocation = invocation;
  r.order = order;
  r.context_uid = cb->contextUid;
  r.nvtx = t_nvtx;
  r.api = cb->functionName ? cb->functionName : "";
  CUpti_RangeProfiler_Start_Params st{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
  st.pRangeProfilerObject = rp_;
  if (auto res = cuptiRangeProfilerStart(&st); res != CUPTI_SUCCESS) {
    r.error = "cuptiRangeProfilerStart: " + result_string(res);
    return;
  }
  ++profiled_;
  r.t0 = std::chrono::steady_clock::now();
  t_pending = &r;
}

void Collector::on_launch_exit(const CUpti_CallbackData* cb, CUpti_CallbackDomain domain) {
  int depth = --t_depth;
  if (depth > 0 || !t_pending) return;
  std::lock_guard<std::timed_mutex> lock(mu_);
  KernelRecord& r = *t_pending;
  t_pending = nullptr;
  fill_function(r, r.function);
  auto evaluate = [&]() -> std::string {  // "" when the values were stored
    CUpti_RangeProfiler_Stop_Params sp{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    sp.pRangeProfilerObject = rp_;
    if (auto res = cuptiRangeProfilerStop(&sp); res != CUPTI_SUCCESS) return "cuptiRangeProfilerStop: " + result_string(res);
    // A launch that failed ran nothing: whatever the image holds belongs to an earlier kernel.
    int launch_result = 0;
    if (cb->functionReturnValue)
      launch_result = domain == CUPTI_CB_DOMAIN_DRIVER_API ? int(*static_cast<const CUresult*>(cb->functionReturnValue))
                                                           : int(*static_cast<const cudaError_t*>(cb->functionReturnValue));
    CUpti_RangeProfiler_DecodeData_Params dd{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    dd.pRangeProfilerObject = rp_;
    if (auto res = cuptiRangeProfilerDecodeData(&dd); res != CUPTI_SUCCESS)
      return "cuptiRangeProfilerDecodeData: " + result_string(res);
    r.dropped = dd.numOfRangeDropped;
    r.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - r.t0).count();
    CUpti_RangeProfiler_GetCounterDataInfo_Params info{CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    info.pCounterDataImage = counter_data_.data();
    info.counterDataImageSize = counter_data_.size();
    if (auto res = cuptiRangeProfilerGetCounterDataInfo(&info); res != CUPTI_SUCCESS)
      return "cuptiRangeProfilerGetCounterDataInfo: " + result_string(res);
    r.ranges = info.numTotalRanges;
    std::size_t before = ranges_;
    ranges_ = info.numTotalRanges;
    if (launch_result != 0) return "the launch failed (error " + std::to_string(launch_result) + "): no counters";
    if (!sp.isAllPassSubmitted) return "not every replay pass was submitted: no counters";
    if (dd.numOfRangeDropped > 0) return std::to_string(dd.numOfRangeDropped) + " ranges dropped: no counters";
    // Exactly one new range, or the values would belong to another launch.
    if (info.numTotalRanges != before + 1)
      return "expected one new range in the counter image, found " + std::to_string(info.numTotalRanges - before) +
             ": no counters";
    std::vector<double> values(metric_ptrs_.size(), 0.0);
    CUpti_Profiler_Host_EvaluateToGpuValues_Params ev{CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
    ev.pHostObject = host_;
    ev.pCounterDataImage = counter_data_.data();
    ev.counterDataImageSize = counter_data_.size();
    ev.rangeIndex = info.numTotalRanges - 1;
    ev.ppMetricNames = metric_ptrs_.data();
    ev.numMetrics = metric_ptrs_.size();
    ev.pMetricValues = values.data();
    if (auto res = cuptiProfilerHostEvaluateToGpuValues(&ev); res != CUPTI_SUCCESS)
      return "cuptiProfilerHostEvaluateToGpuValues: " + result_string(res);
    for (std::size_t i = 0; i < metrics_.size(); ++i) {
      if (std::isfinite(values[i])) r.values[metrics_[i]] = values[i];
      else r.non_finite.push_back(metrics_[i]);
    }
    return "";
  };
  r.error = evaluate();
  // Rewritten after every profiled launch: a crash or a kill later keeps what was measured.
  write_locked(false);
}

void Collector::write(bool interrupted) {
  // The exit and signal paths: if a profiled launch holds the lock (replaying), the file written after the
  // previous launch stands.
  std::unique_lock<std::timed_mutex> lock(mu_, std::defer_lock);
  if (!lock.try_lock_for(std::chrono::seconds(3))) {
    std::fprintf(stderr, "kprof counters: busy profiling; %s holds the launches profiled before\n", opt_.output.c_str());
    return;
  }
  write_locked(interrupted);
}

void Collector::write_locked(bool interrupted) {
  try {
    json kernels = json::array();
    for (const auto& r : records_) {
      json k{{"mangled", r.mangled}, {"invocation", r.invocation}, {"order", r.order}, {"context", r.context_uid},
             {"device", r.device}, {"grid", {r.grid[0], r.grid[1], r.grid[2]}},
             {"block", {r.block[0], r.block[1], r.block[2]}}, {"shared_mem_dynamic", r.smem_dynamic},
             {"nvtx", r.nvtx}, {"values", r.values}, {"ranges_in_image", r.ranges}, {"ranges_dropped", r.dropped},
             {"replay_wall_ms", r.wall_ms}, {"api", r.api}};
      if (r.has_stream) k["stream"] = r.stream;
      if (r.has_function) {
        k["registers"] = r.registers;
        k["shared_mem_static"] = r.smem_static;
        k["local_bytes_per_thread"] = r.local_bytes;
        k["max_blocks_per_sm"] = r.max_blocks_per_sm;
        k["theoretical_occupancy_pct"] = r.theoretical_occupancy_pct;
        k["waves_per_sm"] = r.waves_per_sm;
      }
      if (!r.non_finite.empty()) k["non_finite"] = r.non_finite;
      if (!r.error.empty()) k["error"] = r.error;
      kernels.push_back(std::move(k));
    }
    std::string process;
    if (std::ifstream comm("/proc/self/comm"); comm) std::getline(comm, process);
    std::uint32_t version = 0;
    cuptiGetVersion(&version);
    json doc{{"schema", "kprof.counters/1"},
             {"pid", ::getpid()},
             {"process", process},
             {"cupti_api_version", version},
             {"chip", chip_},
             {"device", {{"name", device_name_}, {"compute_capability", compute_capability_}, {"sm_count", sm_count_}}},
             {"replay", "kernel"},
             {"passes", passes_},
             {"setup_ms", setup_ms_},
             {"metrics", metrics_},
             {"units", units_},
             {"unsupported", unsupported_},
             {"launches_seen", launches_},
             {"launches_profiled", profiled_},
             {"launches_captured", captured_},
             {"interrupted", interrupted},
             {"errors", errors_},
             {"error_count", error_count_},
             {"kernels", std::move(kernels)}};
    std::string tmp = opt_.output + ".tmp." + std::to_string(::getpid());
    {
      std::ofstream out(tmp, std::ios::trunc);
      // NVTX messages and the process name are arbitrary bytes: invalid UTF-8 is replaced, not thrown.
      out << doc.dump(1, ' ', false, json::error_handler_t::replace) << "\n";
      if (!out) {
        std::fprintf(stderr, "kprof counters: cannot write %s\n", tmp.c_str());
        return;
      }
    }
    if (std::rename(tmp.c_str(), opt_.output.c_str()) != 0)
      std::fprintf(stderr, "kprof counters: cannot rename %s\n", tmp.c_str());
  } catch (const std::exception& e) {  // never let the profiled program die of the collector
    std::fprintf(stderr, "kprof counters: cannot write %s: %s\n", opt_.output.c_str(), e.what());
  }
}

bool is_launch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API)
    return cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel || cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx || cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
    return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000;
  return false;
}

std::string nvtx_message(const nvtxEventAttributes_t* a) {
  if (!a) return "";
  if (a->messageType == NVTX_MESSAGE_TYPE_ASCII && a->message.ascii) return a->message.ascii;
  if (a->messageType == NVTX_MESSAGE_TYPE_REGISTERED) return "<registered string>";
  return "";
}

void on_nvtx(CUpti_CallbackId cbid, const CUpti_NvtxData* d) {
  switch (cbid) {
    case CUPTI_CBID_NVTX_nvtxRangePushA: {
      auto* p = static_cast<const nvtxRangePushA_params*>(d->functionParams);
      t_nvtx.push_back(p && p->message ? p->message : "");
      break;
    }
    case CUPTI_CBID_NVTX_nvtxRangePushW:
      t_nvtx.push_back("<wide string>");
      break;
    case CUPTI_CBID_NVTX_nvtxRangePushEx: {
      auto* p = static_cast<const nvtxRangePushEx_params*>(d->functionParams);
      t_nvtx.push_back(nvtx_message(p ? p->eventAttrib : nullptr));
      break;
    }
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx: {
      auto* p = static_cast<const nvtxDomainRangePushEx_params*>(d->functionParams);
      t_nvtx.push_back(nvtx_message(p ? p->core.eventAttrib : nullptr));
      break;
    }
    case CUPTI_CBID_NVTX_nvtxRangePop:
    case CUPTI_CBID_NVTX_nvtxDomainRangePop:
      if (!t_nvtx.empty()) t_nvtx.pop_back();
      break;
    default:
      break;
  }
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (domain == CUPTI_CB_DOMAIN_NVTX) {
    on_nvtx(cbid, static_cast<const CUpti_NvtxData*>(data));
    return;
  }
  if (!is_launch(domain, cbid)) return;
  auto* cb = static_cast<const CUpti_CallbackData*>(data);
  try {
    if (cb->callbackSite == CUPTI_API_ENTER) Collector::instance().on_launch_enter(cb, domain, cbid);
    else Collector::instance().on_launch_exit(cb, domain);
  } catch (const std::exception& e) {  // an exception must not cross into the driver (it would terminate)
    std::fprintf(stderr, "kprof counters: %s\n", e.what());
  }
}

}  // namespace

CounterOptions CounterOptions::from_env() {
  CounterOptions o;
  o.output = env_str("KPROF_COUNTERS_FILE");
  std::stringstream list(env_str("KPROF_COUNTERS_METRICS"));
  for (std::string m; std::getline(list, m, ',');)
    if (!m.empty()) o.metrics.push_back(m);
  o.kernel_regex = env_str("KPROF_COUNTERS_KERNEL");
  o.nvtx_range = env_str("KPROF_COUNTERS_NVTX");
  o.all_launches = env_str("KPROF_COUNTERS_ALL") == "1";
  o.skip = env_u64("KPROF_COUNTERS_SKIP", 0);
  o.count = env_u64("KPROF_COUNTERS_COUNT", 0);
  o.max_kernels = static_cast<std::size_t>(env_u64("KPROF_COUNTERS_MAX", 512));
  o.max_kernels = std::clamp<std::size_t>(o.max_kernels, 1, 100000);
  return o;
}

bool start_counter_collection(const CounterOptions& options) {
  auto& c = Collector::instance();
  bool ok = c.start(options);
  CUpti_SubscriberHandle sub = nullptr;
  CUptiResult r = cuptiSubscribe(&sub, on_callback, nullptr);
  if (r != CUPTI_SUCCESS) {
    // Another CUPTI client (a profiler already attached) holds the only subscription.
    c.note("cuptiSubscribe: " + result_string(r) + " (no counters)");
    std::fprintf(stderr, "kprof counters: cuptiSubscribe failed: %s\n", result_string(r).c_str());
    return false;
  }
  const CUpti_CallbackId driver[] = {
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz};
  const CUpti_CallbackId runtime[] = {
      CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
      CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
      CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
      CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
      CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000};
  for (auto id : driver)
    if (auto e = cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, id); e != CUPTI_SUCCESS)
      c.note("cuptiEnableCallback(driver " + std::to_string(id) + "): " + result_string(e));
  for (auto id : runtime)
    if (auto e = cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, id); e != CUPTI_SUCCESS)
      c.note("cuptiEnableCallback(runtime " + std::to_string(id) + "): " + result_string(e));
  if (auto e = cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_NVTX); e != CUPTI_SUCCESS)
    c.note("cuptiEnableDomain(NVTX): " + result_string(e) + " (launches carry no NVTX ranges)");
  return ok;
}

void write_counters(bool interrupted) { Collector::instance().write(interrupted); }

}  // namespace kprof::cupti
