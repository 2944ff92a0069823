// Is there a GPU at all? A cheap check made before any program starts, so that a machine without one gets exit 4
// at once instead of a program failure (7) or a missing tool (5) later. Device nodes and the driver library
// are looked at; nothing is initialised.
#pragma once
#include <optional>
#include <string>

namespace kprof {

// Why no GPU can be used here ("no /dev/nvidia* device", "CUDA_VISIBLE_DEVICES is empty", "libcuda.so.1 cannot be
// loaded: ..."), or nullopt when one may be. KPROF_ASSUME_GPU=1 skips the check (programs and tools faked in tests).
std::optional<std::string> no_gpu_reason();

// Throws Error(kExitNoGpu) naming `what` needs the GPU and why there is none.
void require_gpu(const std::string& what);

}  // namespace kprof
