// Which NVTX range a kernel belongs to (TraceKernel::nvtx_range).
// Rule: the innermost push/pop range that encloses the kernel's launch API call, on the thread that made the call
// (found through the correlation id). When the trace has no API record for the kernel (API tracing off, or the
// JSONL format), the innermost push/pop range on any thread that encloses the kernel's GPU start; ties go to the
// deepest range. Asynchronous launches therefore land in the range that launched them, not the one running when
// the GPU got to them — what a user who wrapped a phase in nvtxRangePush expects.
// A launch from a thread with no default-domain range open (its own stack empty, or only a library's domain such as
// CUB's) while another thread of the same process is inside one adopts that thread's innermost default-domain range
// (TraceKernel::nvtx_adopted): PyTorch runs `loss.backward()`'s kernels on its autograd worker thread while the
// thread that wrapped the call in a range waits inside it. Where several threads have one open, the deepest wins,
// then the latest start. The range's thread must be waiting: if it launches a kernel of its own within the span of
// the other thread's launches there, none of them is adopted (a prefetching thread beside the main one). The trace's
// warnings say how many kernels were placed so.
#pragma once
#include <cstdint>
#include <vector>
#include "model/trace.hpp"

namespace kprof {

class NvtxIndex {
 public:
  explicit NvtxIndex(const Trace& trace);
  // Innermost push/pop range on (process, thread) enclosing t, or -1.
  int innermost(std::uint32_t process, std::uint32_t thread, std::int64_t t) const;
  // Innermost push/pop range on any thread enclosing t (deepest wins, then the latest start), or -1.
  int innermost_any_thread(std::int64_t t) const;
  // Innermost default-domain push/pop range enclosing t on a thread of `process` other than `thread`, or -1.
  int innermost_default_elsewhere(std::uint32_t process, std::uint32_t thread, std::int64_t t) const;

 private:
  struct ThreadRanges {
    std::uint32_t process, thread;
    std::vector<int> by_start;  // indices into trace.nvtx, sorted by start
  };
  int innermost_in(const ThreadRanges& tr, std::int64_t t) const;
  const Trace& trace_;
  std::vector<ThreadRanges> threads_;
};

void attribute_kernels_to_nvtx(Trace& trace);

// Names of the ranges from the outermost to `range` itself.
std::vector<std::string> nvtx_stack(const Trace& trace, int range);

}  // namespace kprof
