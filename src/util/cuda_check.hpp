// The one CUDA error check of the repository's CUDA programs (kprof-kernels and its packages, the MLA kernels and
// mla_check, kprof-peaks): a failed runtime call throws CudaError naming the call, the file and line, and CUDA's
// error name and text, so that the caller decides what to do. Header-only: only CUDA targets include it.
//   CUDA_CHECK(call)       check a runtime call
//   CUDA_CHECK_LAUNCH()    right after a kernel launch: launch-configuration errors now (and cleared);
//                          asynchronous faults surface at the next synchronising call, which CUDA_CHECK checks
#pragma once
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace kprof {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

// "<call> failed at <file>:<line>: <name> (<text>)": the message of every check, CUDA's and a library's (cuBLASLt).
inline std::string check_failure(const char* call, const char* file, int line, const char* name, const char* text) {
  return std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " + name + " (" + text + ")";
}

inline void cuda_check(cudaError_t e, const char* call, const char* file, int line) {
  if (e != cudaSuccess) throw CudaError(e, check_failure(call, file, line, cudaGetErrorName(e), cudaGetErrorString(e)));
}

// Errors after which the CUDA context is unusable: the process must end.
inline bool is_sticky(cudaError_t e) {
  return e == cudaErrorIllegalAddress || e == cudaErrorLaunchFailure || e == cudaErrorMisalignedAddress ||
         e == cudaErrorIllegalInstruction || e == cudaErrorInvalidPc || e == cudaErrorHardwareStackError ||
         e == cudaErrorAssert || e == cudaErrorLaunchTimeout || e == cudaErrorECCUncorrectable;
}

}  // namespace kprof

#define CUDA_CHECK(call) ::kprof::cuda_check((call), #call, __FILE__, __LINE__)
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
