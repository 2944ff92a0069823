// CK(call): check a CUDA runtime call; CK_LAUNCH(): check the last error right after a kernel launch.
// Both throw std::runtime_error (file:line, the call, the CUDA error name and text) so that a library caller
// decides what to do; the check program catches per version and reports the failure.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace mla::detail {

[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* what, const char* file, int line) {
  throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + what + " failed: " +
                           cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
}

}  // namespace mla::detail

#define CK(call)                                                                  \
  do {                                                                            \
    const cudaError_t ck_err_ = (call);                                           \
    if (ck_err_ != cudaSuccess) {                                                 \
      ::mla::detail::throw_cuda_error(ck_err_, #call, __FILE__, __LINE__);        \
    }                                                                             \
  } while (0)

// cudaGetLastError reports launch-configuration errors (and clears them); asynchronous faults surface at the
// next synchronising call, which the caller checks with CK.
#define CK_LAUNCH() CK(cudaGetLastError())
