// Every CUDA call in kprof-kernels is checked: a failure throws with the call, file and line.
#pragma once
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace kprof::kernels {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

inline void cuda_check(cudaError_t e, const char* call, const char* file, int line) {
  if (e != cudaSuccess)
    throw CudaError(e, std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                           cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

// Errors after which the CUDA context is unusable: the process must end (the cache keeps what was measured).
inline bool is_sticky(cudaError_t e) {
  return e == cudaErrorIllegalAddress || e == cudaErrorLaunchFailure || e == cudaErrorMisalignedAddress ||
         e == cudaErrorIllegalInstruction || e == cudaErrorInvalidPc || e == cudaErrorHardwareStackError ||
         e == cudaErrorAssert || e == cudaErrorLaunchTimeout || e == cudaErrorECCUncorrectable;
}

}  // namespace kprof::kernels

#define KK_CHECK(call) ::kprof::kernels::cuda_check((call), #call, __FILE__, __LINE__)
