// What the benchmarks size themselves from (read once from cudaGetDeviceProperties).
#pragma once
#include <cstddef>

namespace kprof::peaks {

struct DeviceFacts {
  int device = 0;
  int sm_count = 0;
  int max_threads_per_sm = 2048;
  std::size_t l2_bytes = 0;
  std::size_t free_memory_bytes = 0;
};

}  // namespace kprof::peaks
