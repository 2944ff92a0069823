// CUPTI's side of the counter collector: the subscription to the launch callbacks (runtime and driver) and to
// NVTX, whose push/pop calls keep each thread's range stack, and the entry points injection.cpp calls.
#include <nvtx3/nvToolsExt.h>
#include <generated_nvtx_meta.h>

#include <cstdio>
#include <string>
#include <vector>

#include "collect/nvtx_path.hpp"
#include "collect/cupti/counter_collector.hpp"
#include "collect/cupti/counter_mode.hpp"
#include "collect/cupti/cupti_check.hpp"
#include "collect/cupti/kernel_record.hpp"
#include "collect/cupti/range_profiler.hpp"

namespace kprof::cupti {

namespace {

thread_local std::vector<std::string> t_nvtx;  // this thread's push/pop stack
thread_local std::vector<bool> t_nvtx_default;  // parallel: pushed in the default NVTX domain

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
      t_nvtx_default.push_back(true);
      break;
    }
    case CUPTI_CBID_NVTX_nvtxRangePushW:
      t_nvtx.push_back("<wide string>");
      t_nvtx_default.push_back(true);
      break;
    case CUPTI_CBID_NVTX_nvtxRangePushEx: {
      auto* p = static_cast<const nvtxRangePushEx_params*>(d->functionParams);
      t_nvtx.push_back(nvtx_message(p ? p->eventAttrib : nullptr));
      t_nvtx_default.push_back(true);
      break;
    }
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx: {
      auto* p = static_cast<const nvtxDomainRangePushEx_params*>(d->functionParams);
      t_nvtx.push_back(nvtx_message(p ? p->core.eventAttrib : nullptr));
      t_nvtx_default.push_back(!p || p->domain == nullptr);  // a library's own domain (CUB: "CCCL") is not
      break;
    }
    case CUPTI_CBID_NVTX_nvtxRangePop:
    case CUPTI_CBID_NVTX_nvtxDomainRangePop:
      if (!t_nvtx.empty()) t_nvtx.pop_back();
      if (!t_nvtx_default.empty()) t_nvtx_default.pop_back();
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
  auto* cb = static_cast<const CUpti_CallbackData*>(data);
  // Stream captures open in the process: kernel replay (it synchronises) inside a global-mode capture would
  // invalidate it, so nothing is profiled while any capture is open (seen on the H200: cudaStreamEndCapture
  // failed "due to a previous error during capture" when a launch on another stream was replayed).
  const bool begin_capture =
      domain == CUPTI_CB_DOMAIN_DRIVER_API &&
      (cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture || cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz ||
       cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2 ||
       cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz);
  // While the range profiler is enabled on the context, a global-mode capture was invalidated even with no launch
  // profiled during it (H200, streams_nvtx_graph): it is disabled before any capture begins.
  if (begin_capture && cb->callbackSite == CUPTI_API_ENTER) {
    CounterCollector::instance().before_capture();
    return;
  }
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cb->callbackSite == CUPTI_API_EXIT && cb->functionReturnValue &&
      *static_cast<const CUresult*>(cb->functionReturnValue) == CUDA_SUCCESS) {
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture || cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz ||
        cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2 ||
        cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz) {
      CounterCollector::instance().capture_began();
      return;
    }
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture || cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz) {
      CounterCollector::instance().capture_ended();
      return;
    }
  }
  if (!is_launch(domain, cbid)) return;
  try {
    if (cb->callbackSite == CUPTI_API_ENTER)
      CounterCollector::instance().on_launch_enter(cb, domain, cbid, t_nvtx,
                                                   static_cast<std::size_t>(stage_range_index(t_nvtx_default) + 1));
    else CounterCollector::instance().on_launch_exit(cb, domain);
  } catch (const std::exception& e) {  // an exception must not cross into the driver (it would terminate)
    std::fprintf(stderr, "kprof counters: %s\n", e.what());
  }
}

}  // namespace

bool start_counter_collection(const CounterOptions& options) {
  auto& c = CounterCollector::instance();
  bool ok = c.start(options);
  CUpti_SubscriberHandle sub = nullptr;
  const CUptiResult r = cuptiSubscribe(&sub, on_callback, nullptr);
  if (auto e = cupti_failure(r, "cuptiSubscribe"); !e.empty()) {
    // Another CUPTI client (a profiler already attached) holds the only subscription.
    c.note(e + " (no counters)");
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
  const CUpti_CallbackId capture[] = {
      CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture, CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz};
  auto enable = [&](CUpti_CallbackDomain domain, const char* domain_name, CUpti_CallbackId id) {
    const std::string what = "cuptiEnableCallback(" + std::string(domain_name) + " " + std::to_string(id) + ")";
    if (auto e = cupti_failure(cuptiEnableCallback(1, sub, domain, id), what); !e.empty()) c.note(e);
  };
  for (auto id : capture) enable(CUPTI_CB_DOMAIN_DRIVER_API, "driver", id);
  for (auto id : driver) enable(CUPTI_CB_DOMAIN_DRIVER_API, "driver", id);
  for (auto id : runtime) enable(CUPTI_CB_DOMAIN_RUNTIME_API, "runtime", id);
  if (auto e = cupti_failure(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_NVTX), "cuptiEnableDomain(NVTX)"); !e.empty())
    c.note(e + " (launches carry no NVTX ranges)");
  return ok;
}

void write_counters(bool interrupted) { CounterCollector::instance().write(interrupted); }

}  // namespace kprof::cupti
