// In-memory arena of raw trace records plus the kprof-trace/1 file writer.
// Shared by libkprof_inject.so (which fills it from CUPTI buffers) and the tests; it needs neither CUDA nor any
// third-party library. Appending is amortised O(1) with no formatting and no I/O: records go into 64 Ki-record
// chunks that never move. Not thread-safe: the caller serialises access.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>
#include "collect/trace/trace_format.hpp"

namespace kprof {

template <typename T>
class RecordArena {
 public:
  static constexpr std::size_t kChunk = 65536;
  T& push() {
    if (size_ % kChunk == 0 && size_ / kChunk == chunks_.size()) chunks_.push_back(std::make_unique<T[]>(kChunk));
    T& r = chunks_[size_ / kChunk][size_ % kChunk];
    ++size_;
    return r;
  }
  void push(const T& rec) { push() = rec; }
  std::size_t size() const { return size_; }
  // Forgets the records, keeping the chunks for reuse (an in-process profiling window starts empty).
  void clear() { size_ = 0; }
  // Calls f(const T* records, std::size_t n) once per chunk, in order.
  template <typename F>
  void for_each_chunk(F&& f) const {
    for (std::size_t c = 0, left = size_; left > 0; ++c) {
      std::size_t n = left < kChunk ? left : kChunk;
      f(chunks_[c].get(), n);
      left -= n;
    }
  }

 private:
  std::vector<std::unique_ptr<T[]>> chunks_;
  std::size_t size_ = 0;
};

// What the header says besides the records.
struct TraceFileInfo {
  std::uint32_t pid = 0;
  std::string process_name;
  std::uint64_t dropped_records = 0;
  std::uint64_t tracer_start_ns = 0, tracer_end_ns = 0;
  std::vector<std::string> errors;  // at most the first few are kept (error_count has the total)
  std::uint32_t error_count = 0;
  std::uint32_t flags = 0;          // trace_format::HeaderFlags
  std::uint32_t cupti_api_version = 0;
};

class TraceBuffer {
 public:
  TraceBuffer();
  // Content-keyed interning: the same text always gets the same ref. nullptr / "" → kNoString.
  trace_format::StringRef intern(const char* s);
  trace_format::StringRef intern(std::string_view s);

  RecordArena<trace_format::RawKernel> kernels;
  RecordArena<trace_format::RawMemcpy> memcpys;
  RecordArena<trace_format::RawMemset> memsets;
  RecordArena<trace_format::RawSync> syncs;
  RecordArena<trace_format::RawApi> api_calls;
  RecordArena<trace_format::RawMarker> markers;
  RecordArena<trace_format::RawGraph> graphs;
  RecordArena<trace_format::RawOverhead> overheads;

  std::size_t record_count() const;
  // Forgets every record (strings stay interned): the next window of an in-process profile starts empty.
  void clear_records();
  std::size_t string_bytes() const { return strings_.size(); }

  // Writes the whole trace to `path` atomically: a temporary file beside it that no planted link can redirect
  // (util/atomic_file.hpp), then rename. Uses only open/write/fsync/rename and the C library, so it may run late
  // in exit or from the tracer's signal writer thread.
  // Returns false with *error set on failure.
  bool write_file(const std::string& path, const TraceFileInfo& info, std::string* error) const;
  // The same bytes as write_file, in memory (tests).
  std::string serialize(const TraceFileInfo& info) const;

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::string strings_;
  std::unordered_map<std::string, trace_format::StringRef, Hash, std::equal_to<>> refs_;

  template <typename Sink>
  bool emit(const TraceFileInfo& info, Sink&& sink) const;
};

}  // namespace kprof
