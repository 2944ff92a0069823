// The kprof trace file ("kprof-trace/1"): what libkprof_inject.so writes and trace_reader reads.
//
// Why binary and not JSONL: the tracer appends fixed-size PODs to an arena while CUDA runs (no formatting on the
// hot path) and writes them at exit with a few large write() calls; the reader memcpys whole sections, so a
// million records load in well under a second. Layout, little-endian, every struct naturally aligned:
//
//   FileHeader                        128 bytes, magic "KPTRACE1"
//   SectionEntry × section_count       24 bytes each: kind, record size, count, file offset
//   section payloads                   arrays of the Raw* records below, 8-byte aligned
//   strings section                    NUL-terminated UTF-8 strings; a StringRef is a byte offset into it
//   FileFooter                         16 bytes: total file size + magic "KPTREND1" (detects truncation)
//
// Timestamps are raw CUPTI ns; the reader makes them relative. Forward compatibility: a reader accepts
// record_bytes larger than it knows (reads the known prefix) and skips unknown section kinds.
#pragma once
#include <cstdint>

namespace kprof::trace_format {

inline constexpr char kMagic[8] = {'K', 'P', 'T', 'R', 'A', 'C', 'E', '1'};
inline constexpr char kEndMagic[8] = {'K', 'P', 'T', 'R', 'E', 'N', 'D', '1'};
inline constexpr std::uint32_t kVersion = 1;
using StringRef = std::uint32_t;                     // byte offset into the strings section
inline constexpr StringRef kNoString = 0xffffffffu;  // absent / empty

enum HeaderFlags : std::uint32_t {
  kFlagApiTraced = 1u << 0,     // RUNTIME + DRIVER kinds were enabled
  kFlagNvtxTraced = 1u << 1,    // MARKER kind was enabled
  kFlagGraphTrace = 1u << 2,    // GRAPH_TRACE (whole-graph records instead of node kernels)
  kFlagInterrupted = 1u << 3,   // written from a signal handler
};

struct FileHeader {
  char magic[8];
  std::uint32_t version;
  std::uint32_t header_bytes;       // sizeof(FileHeader)
  std::uint32_t section_count;
  std::uint32_t pid;
  std::uint64_t dropped_records;    // sum of cuptiActivityGetNumDroppedRecords
  std::uint64_t tracer_start_ns;    // cuptiGetTimestamp at InitializeInjection
  std::uint64_t tracer_end_ns;      // cuptiGetTimestamp when written
  std::uint32_t cupti_error_count;
  StringRef errors;                 // first errors, '\n'-joined
  StringRef process_name;
  std::uint32_t flags;              // HeaderFlags
  std::uint32_t cupti_api_version;
  std::uint32_t reserved[15];
};
static_assert(sizeof(FileHeader) == 128);

enum SectionKind : std::uint32_t {
  kSectionKernel = 1, kSectionMemcpy = 2, kSectionMemset = 3, kSectionSync = 4, kSectionApi = 5,
  kSectionMarker = 6, kSectionGraph = 7, kSectionOverhead = 8, kSectionStrings = 100,
};

struct SectionEntry {
  std::uint32_t kind;
  std::uint32_t record_bytes;  // 1 for strings
  std::uint64_t count;
  std::uint64_t offset;        // from the start of the file
};
static_assert(sizeof(SectionEntry) == 24);

struct FileFooter {
  std::uint64_t file_bytes;
  char magic[8];
};
static_assert(sizeof(FileFooter) == 16);

// The fields every timed GPU record shares (kernels, copies, memsets, graph launches), whatever its kind: each of
// those Raw* records below carries them under these names. span_of / set_span move them as one value, so the
// tracer (from CUPTI), the JSONL reader and the assembly into the model copy them in one place each.
struct Span {
  std::uint64_t start = 0, end = 0;
  std::uint32_t device = 0, context = 0, stream = 0, correlation = 0;
};
template <typename Raw>
Span span_of(const Raw& r) {
  return {r.start, r.end, r.device, r.context, r.stream, r.correlation};
}
template <typename Raw>
void set_span(Raw& r, const Span& s) {
  r.start = s.start;
  r.end = s.end;
  r.device = s.device;
  r.context = s.context;
  r.stream = s.stream;
  r.correlation = s.correlation;
}

struct RawKernel {
  std::uint64_t start, end, graph_node_id;
  std::uint32_t device, context, stream, correlation;
  StringRef name;  // mangled
  std::uint32_t graph_id;
  std::int32_t grid[3], block[3];
  std::int32_t registers, smem_static, smem_dynamic;
  std::uint32_t reserved;
};
static_assert(sizeof(RawKernel) == 88);

struct RawMemcpy {
  std::uint64_t start, end, bytes;
  std::uint32_t device, context, stream, correlation, graph_id;
  std::uint8_t copy_kind, src_kind, dst_kind, flags;  // CUpti_ActivityMemcpyKind, memory kinds, CUPTI flags
};
static_assert(sizeof(RawMemcpy) == 48);

struct RawMemset {
  std::uint64_t start, end, bytes;
  std::uint32_t device, context, stream, correlation, graph_id, value;
};
static_assert(sizeof(RawMemset) == 48);

inline constexpr std::uint32_t kNoStream = 0xffffffffu;  // CUPTI_SYNCHRONIZATION_INVALID_VALUE
struct RawSync {
  std::uint64_t start, end;
  std::uint32_t type, context, stream, correlation, event, reserved;
};
static_assert(sizeof(RawSync) == 40);

enum ApiDomainCode : std::uint8_t { kApiRuntime = 0, kApiDriver = 1 };
struct RawApi {
  std::uint64_t start, end;
  std::uint32_t cbid, process, thread, correlation;
  StringRef name;  // callback name resolved by the tracer
  std::int32_t return_value;
  std::uint8_t domain;  // ApiDomainCode
  std::uint8_t pad[7];
};
static_assert(sizeof(RawApi) == 48);

// One NVTX marker as CUPTI reports it: a push/start and its pop/end are two records sharing `id`.
enum MarkerFlags : std::uint32_t { kMarkerInstant = 1u << 0, kMarkerStart = 1u << 1, kMarkerEnd = 1u << 2 };
struct RawMarker {
  std::uint64_t timestamp;
  std::uint32_t id, flags, process, thread;
  StringRef name, domain;
  std::uint32_t object_kind, reserved;
};
static_assert(sizeof(RawMarker) == 40);

struct RawGraph {
  std::uint64_t start, end;
  std::uint32_t device, context, stream, correlation, graph_id, reserved;
};
static_assert(sizeof(RawGraph) == 40);

struct RawOverhead {
  std::uint64_t start, end;
  std::uint32_t kind, object_kind, process, thread, correlation, reserved;
};
static_assert(sizeof(RawOverhead) == 40);

}  // namespace kprof::trace_format
