// Trace kernels → the common KernelLaunch model, so grouping into stages and kernels works as for ncu data.
#pragma once
#include <vector>
#include "model/profile.hpp"
#include "model/trace.hpp"

namespace kprof {

// One KernelLaunch per kernel record, in start order: id = position, name = demangled signature,
// function = base name, nvtx_range / nvtx_stack from TraceKernel::nvtx_range, start_ns relative to the trace
// start, duration_ns, stream, context, device, grid/block/registers/shared memory.
std::vector<KernelLaunch> kernel_launches(const Trace& trace);

}  // namespace kprof
