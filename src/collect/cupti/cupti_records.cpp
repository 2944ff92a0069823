#include "collect/cupti/cupti_records.hpp"

namespace kprof::cupti {

using namespace trace_format;

namespace {
// The span fields of a CUPTI kernel, memcpy, memset or graph-trace record (the same names in each struct).
template <typename A>
Span cupti_span(const A* a) {
  return {a->start, a->end, a->deviceId, a->contextId, a->streamId, a->correlationId};
}
}  // namespace

StringRef CallbackNames::name(TraceBuffer& buf, CUpti_ActivityKind kind, CUpti_CallbackId cbid) {
  bool runtime = kind == CUPTI_ACTIVITY_KIND_RUNTIME;
  if (cbid >= kMax) return kNoString;
  StringRef* table = runtime ? runtime_ : driver_;
  bool* known = runtime ? runtime_known_ : driver_known_;
  if (!known[cbid]) {
    const char* n = nullptr;
    auto domain = runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
    table[cbid] = cuptiGetCallbackName(domain, cbid, &n) == CUPTI_SUCCESS ? buf.intern(n) : kNoString;
    known[cbid] = true;
  }
  return table[cbid];
}

bool append_record(TraceBuffer& buf, CallbackNames& names, const CUpti_Activity* record) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      auto* a = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      RawKernel& r = buf.kernels.push();
      r = RawKernel{};
      set_span(r, cupti_span(a));
      r.graph_node_id = a->graphNodeId;
      r.name = buf.intern(a->name);
      r.graph_id = a->graphId;
      r.grid[0] = a->gridX, r.grid[1] = a->gridY, r.grid[2] = a->gridZ;
      r.block[0] = a->blockX, r.block[1] = a->blockY, r.block[2] = a->blockZ;
      r.registers = a->registersPerThread;
      r.smem_static = a->staticSharedMemory;
      r.smem_dynamic = a->dynamicSharedMemory;
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      auto* a = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      RawMemcpy& r = buf.memcpys.push();
      r = RawMemcpy{};
      set_span(r, cupti_span(a));
      r.bytes = a->bytes;
      r.graph_id = a->graphId;
      r.copy_kind = a->copyKind;
      r.src_kind = a->srcKind;
      r.dst_kind = a->dstKind;
      r.flags = a->flags;
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      auto* a = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      RawMemset& r = buf.memsets.push();
      r = RawMemset{};
      set_span(r, cupti_span(a));
      r.bytes = a->bytes;
      r.graph_id = a->graphId;
      r.value = a->value;
      return true;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      auto* a = reinterpret_cast<const CUpti_ActivitySynchronization2*>(record);
      RawSync& r = buf.syncs.push();
      r = RawSync{};
      r.start = a->start;
      r.end = a->end;
      r.type = static_cast<std::uint32_t>(a->type);
      r.context = a->contextId;
      r.stream = a->streamId;  // CUPTI_SYNCHRONIZATION_INVALID_VALUE (= kNoStream) when not stream-specific
      r.correlation = a->correlationId;
      r.event = a->cudaEventId;
      return true;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
      RawApi& r = buf.api_calls.push();
      r = RawApi{};
      r.start = a->start;
      r.end = a->end;
      r.cbid = a->cbid;
      r.process = a->processId;
      r.thread = a->threadId;
      r.correlation = a->correlationId;
      r.name = names.name(buf, record->kind, a->cbid);
      r.return_value = static_cast<std::int32_t>(a->returnValue);
      r.domain = record->kind == CUPTI_ACTIVITY_KIND_DRIVER ? kApiDriver : kApiRuntime;
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MARKER: {
      auto* a = reinterpret_cast<const CUpti_ActivityMarker2*>(record);
      RawMarker& r = buf.markers.push();
      r = RawMarker{};
      r.timestamp = a->timestamp;
      r.id = a->id;
      r.flags = static_cast<std::uint32_t>(a->flags);
      r.object_kind = static_cast<std::uint32_t>(a->objectKind);
      if (a->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD || a->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS) {
        r.process = a->objectId.pt.processId;
        r.thread = a->objectId.pt.threadId;
      }
      r.name = buf.intern(a->name);
      r.domain = buf.intern(a->domain);
      return true;
    }
    case CUPTI_ACTIVITY_KIND_GRAPH_TRACE: {
      auto* a = reinterpret_cast<const CUpti_ActivityGraphTrace2*>(record);
      RawGraph& r = buf.graphs.push();
      r = RawGraph{};
      set_span(r, cupti_span(a));
      r.graph_id = a->graphId;
      return true;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
      auto* a = reinterpret_cast<const CUpti_ActivityOverhead3*>(record);
      RawOverhead& r = buf.overheads.push();
      r = RawOverhead{};
      r.start = a->start;
      r.end = a->end;
      r.kind = static_cast<std::uint32_t>(a->overheadKind);
      r.object_kind = static_cast<std::uint32_t>(a->objectKind);
      if (a->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD || a->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS) {
        r.process = a->objectId.pt.processId;
        r.thread = a->objectId.pt.threadId;
      }
      r.correlation = a->correlationId;
      return true;
    }
    default:
      return false;
  }
}

}  // namespace kprof::cupti
