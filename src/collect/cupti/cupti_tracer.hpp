// CUPTI activity tracing for one process: enables the activity kinds, hands CUPTI pooled buffers, copies
// completed records into a TraceBuffer arena (no formatting, no I/O while the program runs) and writes the
// kprof-trace/1 file on demand. Everything CUPTI-specific above the record level lives here.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>
#include "collect/cupti/cupti_records.hpp"
#include "collect/trace/trace_writer.hpp"

namespace kprof::cupti {

struct TracerOptions {
  std::string output;             // KPROF_TRACE_FILE (default: kprof_trace.<pid>.kptrace in the cwd)
  bool api = true;                // KPROF_TRACE_API (default 1): RUNTIME records, needed for correlation
  bool driver = false;            // KPROF_TRACE_DRIVER (default 0): DRIVER records too
  bool copies = true;             // KPROF_TRACE_COPIES (default 1): MEMCPY + MEMSET
  bool sync = true;               // KPROF_TRACE_SYNC (default 1): SYNCHRONIZATION
  bool nvtx = true;               // KPROF_TRACE_NVTX (default 1): MARKER (NVTX ranges)
  bool graph_trace = false;       // KPROF_TRACE_GRAPH=1: one record per graph launch instead of per node
  bool overhead = false;          // KPROF_TRACE_OVERHEAD (default 0)
  std::size_t buffer_bytes = 8u << 20;  // KPROF_TRACE_BUFFER_MB (default 8)
  // CUPTI's own knobs, for overhead experiments (bench/RESULTS.md §2); unset = CUPTI's defaults.
  bool zeroed_buffers = false;          // KPROF_TRACE_ZEROED=1: hand CUPTI zeroed buffers (it skips zeroing them)
  bool discard = false;                 // KPROF_TRACE_DISCARD=1: records enabled but never read (CUPTI's floor)
  int host_pinned = -1;                 // KPROF_TRACE_PINNED=0/1: profiling data in pinned host memory
  std::size_t device_buffer_mb = 0;     // KPROF_TRACE_DEVBUF_MB: CUPTI's per-context device buffer
  std::size_t device_buffers = 0;       // KPROF_TRACE_PREALLOC: device buffers pre-allocated per context
  bool serial_kernels = false;          // KPROF_TRACE_SERIAL_KERNELS=1: KERNEL records (serialises) not CONCURRENT_KERNEL
  bool hw_trace = false;                // KPROF_TRACE_HWTRACE=1: ask for hardware kernel timestamps (Blackwell)
  static TracerOptions from_env();
};

class Tracer {
 public:
  static Tracer& instance();
  // Enables tracing; returns false when CUPTI refused the essential kinds (errors are kept for the header).
  bool start(const TracerOptions& options);
  // Flushes CUPTI (forced) and writes everything traced so far. Safe to call repeatedly: each call rewrites the
  // file with the full trace (atomic rename). Re-entrant calls return at once.
  void write_snapshot(bool interrupted);
  // What a signal writes first: the records CUPTI has already handed over, without a flush (a forced flush can wait
  // on a lock held by the thread the signal interrupted) and without waiting more than `wait_ms` for the record
  // lock. False when nothing was written (lock not free in time, another write under way, or a write error).
  bool write_delivered(bool interrupted, int wait_ms);
  // Waits up to `wait_ms` for a write under way (another thread's) to finish; true when none is.
  bool wait_idle(int wait_ms) const;
  // In-process profiling (the C API, capi/): flushes CUPTI, writes what was traced since the last window to
  // `path`, then forgets it, so the next window starts empty. False when the file could not be written.
  bool write_window(const std::string& path);
  const TracerOptions& options() const { return options_; }

 private:
  Tracer() = default;
  static void request_buffer(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records);
  static void buffer_completed(CUcontext ctx, std::uint32_t stream, std::uint8_t* buffer, std::size_t size,
                               std::size_t valid);
  void note_error(std::string error);  // caller holds mu_; `error` as cupti_failure() writes it
  TraceFileInfo file_info(bool interrupted);         // the trace file's header fields; caller holds mu_
  bool write_locked(const std::string& path, bool interrupted);  // the trace file, atomically; caller holds mu_
  bool enable(CUpti_ActivityKind kind, const char* name, bool essential);

  TracerOptions options_;
  std::mutex mu_;  // guards buffer_, names_, errors_, dropped_
  TraceBuffer buffer_;
  CallbackNames names_;
  std::vector<std::string> errors_;
  std::uint32_t error_count_ = 0;
  std::uint64_t dropped_ = 0;
  std::uint32_t flags_ = 0;
  std::uint64_t start_ns_ = 0;
  std::string process_name_;

  std::mutex pool_mu_;
  std::vector<std::uint8_t*> pool_;  // free CUPTI buffers, reused
  std::atomic<bool> writing_{false};
};

}  // namespace kprof::cupti
