// A CUPTI activity trace as typed records: what the `event` and `nsys` (timeline) modes analyse.
// Timestamps are ns relative to the first activity in the trace (TraceInfo::base_ns is that instant in CUPTI's
// clock), so doubles never lose precision. Strings (kernel, API and NVTX names) are interned in Trace::strings and
// referenced by id: a million kernel records share a few hundred names.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kprof {

using StringId = std::uint32_t;
inline constexpr StringId kNoName = 0;  // Trace::strings[0] is always ""

// Same numbering as CUpti_ActivityMemcpyKind.
enum class MemcpyKind : std::uint8_t { unknown = 0, htod = 1, dtoh = 2, htoa = 3, atoh = 4, atoa = 5, atod = 6,
                                       dtoa = 7, dtod = 8, htoh = 9, ptop = 10 };
std::string_view memcpy_kind_name(MemcpyKind k);  // "HtoD", "DtoH", ... ("unknown")

// Same numbering as CUpti_ActivitySynchronizationType.
enum class SyncType : std::uint8_t { unknown = 0, event_synchronize = 1, stream_wait_event = 2,
                                     stream_synchronize = 3, context_synchronize = 4 };
std::string_view sync_type_name(SyncType t);  // "cudaEventSynchronize", ...

enum class ApiDomain : std::uint8_t { runtime = 0, driver = 1 };

// Where and when a piece of GPU work ran: what kernels, copies, memsets and graph launches share.
struct TraceSpan {
  std::int64_t start_ns = 0, end_ns = 0;
  std::uint32_t device = 0, context = 0, stream = 0;
  std::uint32_t correlation = 0;  // 0 when unknown
  std::int64_t duration_ns() const { return end_ns - start_ns; }
};

struct TraceKernel : TraceSpan {
  StringId name = kNoName;      // demangled: "init_f(float*, unsigned long, float)"
  StringId mangled = kNoName;   // as CUPTI reported it: "_Z6init_fPfmf"
  StringId function = kNoName;  // base name: "init_f"
  std::array<int, 3> grid{0, 0, 0}, block{0, 0, 0};
  int registers = 0;
  std::int64_t smem_static = 0, smem_dynamic = 0;
  std::uint32_t graph_id = 0;     // non-zero when launched as a CUDA graph node
  std::uint64_t graph_node_id = 0;
  // Index into Trace::nvtx of the innermost push/pop range enclosing the kernel's launch API call on the same
  // thread (via correlation id); without API records, the innermost one enclosing the kernel start on any
  // thread. -1 when none.
  int nvtx_range = -1;
  // Index into Trace::nvtx of a default-domain push/pop range of another thread of the process, open when the
  // kernel was launched from a thread with no default-domain range of its own (PyTorch's autograd worker launches
  // the backward kernels of `loss.backward()` while the thread that opened the range waits in it): the kernel's
  // stack is this range's, then its own. -1 when none.
  int nvtx_adopted = -1;
};

struct TraceMemcpy : TraceSpan {
  MemcpyKind kind = MemcpyKind::unknown;
  bool async = false;
  bool pageable = false;  // from or to pageable host memory (the driver stages it through a pinned buffer)
  std::uint64_t bytes = 0;
  std::uint32_t graph_id = 0;
};

struct TraceMemset : TraceSpan {
  std::uint64_t bytes = 0;
  std::uint32_t value = 0;
  std::uint32_t graph_id = 0;
};

// Host-side wait (cudaStreamSynchronize, cudaEventSynchronize, ...).
struct TraceSync {
  SyncType type = SyncType::unknown;
  std::int64_t start_ns = 0, end_ns = 0;
  std::uint32_t context = 0;
  std::int64_t stream = -1;  // -1: not stream-specific
  std::uint32_t correlation = 0;
};

// One runtime or driver API call on a host thread.
struct TraceApiCall {
  ApiDomain domain = ApiDomain::runtime;
  std::uint32_t cbid = 0;
  StringId name = kNoName;  // "cudaLaunchKernel"; "" when the tracer could not name the cbid
  std::int64_t start_ns = 0, end_ns = 0;
  std::uint32_t process = 0, thread = 0, correlation = 0;
  std::int32_t return_value = 0;
};

// An NVTX range, rebuilt from CUPTI's start/end marker pair.
struct TraceNvtxRange {
  StringId name = kNoName, domain = kNoName;
  std::int64_t start_ns = 0, end_ns = 0;
  std::uint32_t process = 0, thread = 0, id = 0;
  // true when the range nests properly on one thread (nvtxRangePush/Pop); false for start/end ranges that cross
  // threads or overlap siblings (nvtxRangeStart/End): those get no depth and never become a kernel's stage.
  bool push_pop = true;
  int depth = 0;       // 0 = outermost push/pop range on its thread
  int parent = -1;     // index into Trace::nvtx of the enclosing push/pop range, -1 when none
};

// A whole CUDA graph execution (only with KPROF_TRACE_GRAPH=1, which replaces per-node kernel records).
struct TraceGraphLaunch : TraceSpan {
  std::uint32_t graph_id = 0;
};

// Time CUPTI or the driver spent on its own bookkeeping (buffer flushes, lazy module loading, ...).
struct TraceOverhead {
  std::uint32_t kind = 0;  // CUpti_ActivityOverheadKind
  std::int64_t start_ns = 0, end_ns = 0;
  std::uint32_t thread = 0;
};
std::string_view overhead_kind_name(std::uint32_t kind);

struct TraceInfo {
  std::string format;          // "kprof-trace/1" or "cupti-jsonl"
  std::string source;          // file it was read from
  std::uint64_t base_ns = 0;   // CUPTI timestamp of relative time 0 (the earliest record)
  std::int64_t end_ns = 0;     // latest end, relative
  std::uint64_t dropped_records = 0;  // CUPTI buffers overflowed: the trace is incomplete
  std::vector<std::string> errors;    // CUPTI errors the tracer saw (also a sign of an incomplete trace)
  std::vector<std::string> warnings;  // reader notes (unknown record kinds, unmatched NVTX markers, ...)
  // How many kernels were placed in another thread's NVTX range (TraceKernel::nvtx_adopted), as a sentence; also
  // in `warnings`. "" for none.
  std::string nvtx_adoption;
  std::uint32_t pid = 0;
  std::string process_name;
  bool api_traced = false;     // runtime/driver API records present: launch overhead and correlation usable
  bool nvtx_traced = false;
  bool interrupted = false;    // written from a SIGINT/SIGTERM handler
};

struct Trace {
  TraceInfo info;
  std::vector<std::string> strings{std::string()};  // StringId → text; [0] = ""
  std::vector<TraceKernel> kernels;     // sorted by start
  std::vector<TraceMemcpy> memcpys;     // sorted by start
  std::vector<TraceMemset> memsets;     // sorted by start
  std::vector<TraceSync> syncs;
  std::vector<TraceApiCall> api_calls;  // sorted by start
  std::vector<TraceNvtxRange> nvtx;     // sorted by start
  std::vector<TraceGraphLaunch> graph_launches;
  std::vector<TraceOverhead> overheads;

  const std::string& str(StringId id) const { return strings[id < strings.size() ? id : 0]; }
  std::size_t gpu_activity_count() const { return kernels.size() + memcpys.size() + memsets.size(); }
};

// Whether a range is in NVTX's default domain (CUPTI gives that domain no name).
inline bool in_default_domain(const Trace& t, int range) {
  return range >= 0 && range < static_cast<int>(t.nvtx.size()) && t.str(t.nvtx[range].domain).empty();
}

// A kernel's ranges from the outermost to its innermost, as indices into t.nvtx: the chain of the range it adopted
// from another thread (TraceKernel::nvtx_adopted), then its own.
inline std::vector<int> nvtx_chain(const Trace& t, const TraceKernel& k) {
  std::vector<int> out;
  const int n = static_cast<int>(t.nvtx.size());
  for (int r = k.nvtx_range; r >= 0 && r < n; r = t.nvtx[r].parent) out.push_back(r);
  for (int r = k.nvtx_adopted; r >= 0 && r < n; r = t.nvtx[r].parent) out.push_back(r);
  return {out.rbegin(), out.rend()};
}

// The API call behind each correlation id: the runtime call when both a runtime call and the driver call inside it
// were recorded, so the launch's host time and thread are the program's own call.
inline std::unordered_map<std::uint32_t, std::uint32_t> api_calls_by_correlation(const Trace& t) {
  std::unordered_map<std::uint32_t, std::uint32_t> m;
  m.reserve(t.api_calls.size());
  for (int pass = 0; pass < 2; ++pass)
    for (std::uint32_t i = 0; i < t.api_calls.size(); ++i) {
      const auto& a = t.api_calls[i];
      if (a.correlation && (a.domain == ApiDomain::runtime) == (pass == 0)) m.emplace(a.correlation, i);
    }
  return m;
}

}  // namespace kprof
