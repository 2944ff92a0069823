#include "model/trace.hpp"

namespace kprof {

std::string_view memcpy_kind_name(MemcpyKind k) {
  switch (k) {
    case MemcpyKind::htod: return "HtoD";
    case MemcpyKind::dtoh: return "DtoH";
    case MemcpyKind::htoa: return "HtoA";
    case MemcpyKind::atoh: return "AtoH";
    case MemcpyKind::atoa: return "AtoA";
    case MemcpyKind::atod: return "AtoD";
    case MemcpyKind::dtoa: return "DtoA";
    case MemcpyKind::dtod: return "DtoD";
    case MemcpyKind::htoh: return "HtoH";
    case MemcpyKind::ptop: return "PtoP";
    case MemcpyKind::unknown: break;
  }
  return "unknown";
}

std::string_view sync_type_name(SyncType t) {
  switch (t) {
    case SyncType::event_synchronize: return "cudaEventSynchronize";
    case SyncType::stream_wait_event: return "cudaStreamWaitEvent";
    case SyncType::stream_synchronize: return "cudaStreamSynchronize";
    case SyncType::context_synchronize: return "cudaDeviceSynchronize";
    case SyncType::unknown: break;
  }
  return "synchronize";
}

std::string_view overhead_kind_name(std::uint32_t kind) {
  if (kind == 1) return "driver compiler";
  switch (kind >> 16) {  // the other CUpti_ActivityOverheadKind values are (n << 16)
    case 1: return "CUPTI buffer flush";
    case 2: return "CUPTI instrumentation";
    case 3: return "CUPTI resource";
    case 4: return "runtime module loading";
    case 5: return "lazy function loading";
    case 6: return "command buffer full";
    case 7: return "activity buffer request";
    case 8: return "UVM activity init";
    default: return "overhead";
  }
}

}  // namespace kprof
