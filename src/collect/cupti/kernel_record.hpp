// One profiled launch as the counter collector records it, and how it is filled: from the launch callback's
// parameters (launch_params.cpp) and, after the launch, from the driver's function attributes and occupancy
// calculator (function_attributes.cpp).
#pragma once
#include <cuda.h>
#include <cupti.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kprof::cupti {

struct KernelRecord {
  std::string mangled;
  std::uint64_t invocation = 0;  // 1-based, per mangled name (all launches counted, profiled or not)
  std::uint64_t order = 0;       // 0-based position among all kernel launches of the process
  std::uint32_t context_uid = 0;
  std::uint64_t stream = 0;
  bool has_stream = false;
  int device = 0;
  unsigned grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  std::uint64_t smem_dynamic = 0;
  CUfunction function = nullptr;  // from a driver-level callback; attributes are read after the launch
  bool has_function = false;
  std::string api;                // the launch call that was intercepted (outermost first)
  bool capturing = false;         // launched into a stream being captured into a CUDA graph
  int registers = 0, smem_static = 0, local_bytes = 0, max_blocks_per_sm = 0;
  double theoretical_occupancy_pct = 0, waves_per_sm = 0;
  std::vector<std::string> nvtx;
  std::map<std::string, double> values;
  std::size_t ranges = 0, dropped = 0;
  double wall_ms = 0;  // host time spent in the profiled launch (replay included)
  // wall_ms by phase (launch with its replays, stop, decode, evaluate) and the file write after it, in ms.
  std::vector<std::pair<std::string, double>> phases_ms;
  std::chrono::steady_clock::time_point t0;
  std::vector<std::string> non_finite;  // metrics CUPTI evaluated to NaN or infinity (left out of values)
  std::string error;
};

// The runtime and driver launch entry points the collector handles (the _ptsz variants included).
bool is_launch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);
// Grid, block, dynamic shared memory, stream (and whether it is capturing) and, from driver-level callbacks, the
// function, from a launch callback's parameters. A runtime callback fills nothing the driver already filled.
void fill_from_params(KernelRecord& r, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* params);
// After the launch (the function is loaded by then, even with lazy module loading): registers, static shared
// memory, local memory, blocks per SM, theoretical occupancy and waves from the driver. Once per record.
void fill_function(KernelRecord& r, CUfunction f);

}  // namespace kprof::cupti
