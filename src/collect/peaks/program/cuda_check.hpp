// Every CUDA and cuBLASLt call is checked; a failure throws with the call, file and line.
#pragma once
#include <stdexcept>
#include <string>

#include <cublasLt.h>
#include <cuda_runtime.h>

namespace kprof::peaks {

inline void cuda_check(cudaError_t e, const char* what, const char* file, int line) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string(what) + " failed at " + file + ":" + std::to_string(line) + ": " +
                             cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}
inline void cublas_check(cublasStatus_t s, const char* what, const char* file, int line) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + " failed at " + file + ":" + std::to_string(line) + ": " +
                             cublasLtGetStatusName(s) + " (" + cublasLtGetStatusString(s) + ")");
}

}  // namespace kprof::peaks

#define CUDA_CHECK(call) ::kprof::peaks::cuda_check((call), #call, __FILE__, __LINE__)
#define CUBLAS_CHECK(call) ::kprof::peaks::cublas_check((call), #call, __FILE__, __LINE__)
// After a kernel launch: launch errors now, execution errors at the next synchronisation.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
