// The one place that reads CUPTI activity structs: each record becomes a compact kprof trace_format POD.
// Struct versions are the ones CUDA 13's cupti_activity.h delivers (CUpti_ActivityKernel10, Memcpy6, Memset4,
// Synchronization2, API, Marker2, GraphTrace2, Overhead3).
#pragma once
#include <cupti.h>
#include "collect/trace/trace_writer.hpp"

namespace kprof::cupti {

// Names for runtime/driver callback ids, resolved once per (domain, cbid) and interned.
class CallbackNames {
 public:
  trace_format::StringRef name(TraceBuffer& buf, CUpti_ActivityKind kind, CUpti_CallbackId cbid);

 private:
  static constexpr std::size_t kMax = 4096;
  trace_format::StringRef runtime_[kMax] = {};
  trace_format::StringRef driver_[kMax] = {};
  bool runtime_known_[kMax] = {}, driver_known_[kMax] = {};
};

// Appends one record to `buf`. Returns false for kinds kprof does not keep.
bool append_record(TraceBuffer& buf, CallbackNames& names, const CUpti_Activity* record);

}  // namespace kprof::cupti
