// A program that misbehaves on the GPU, for kprof's bad-input checks on the device (scripts/device/reliability.sh):
//
//   misbehave fault      three good launches of `scale`, then `wild_store` writes through a wild pointer: the
//                        launch ends in cudaErrorIllegalAddress, the program prints the error and exits 1
//   misbehave trap       three good launches, then `trap_kernel` executes __trap() (cudaErrorLaunchFailure), exit 1
//   misbehave long SECS  launches `scale` in a loop for SECS seconds, printing a line per second (something to
//                        interrupt with Ctrl-C or SIGTERM while it is being profiled); exit 0 when the time is up
//
// Build: CMake with CUDA (KPROF_CUDA_ARCHITECTURES), or `nvcc -O2 -arch=sm_90 -lineinfo misbehave.cu`.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = a * x[i] + 1.0f;
}

__global__ void wild_store(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  // Far past the allocation: an address no allocation of this program maps.
  if (i < n) x[i + (1ll << 36) / sizeof(float)] = 1.0f;
}

__global__ void trap_kernel(const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] > -1.0f) __trap();
}

int check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return 0;
  std::fprintf(stderr, "misbehave: %s: %s (%s)\n", what, cudaGetErrorString(e), cudaGetErrorName(e));
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: misbehave fault | trap | long SECONDS\n");
    return 2;
  }
  const char* mode = argv[1];
  const int n = 1 << 24;
  float* x = nullptr;
  if (check(cudaMalloc(&x, n * sizeof(float)), "cudaMalloc")) return 1;
  if (check(cudaMemset(x, 0, n * sizeof(float)), "cudaMemset")) return 1;
  const int block = 256, grid = (n + block - 1) / block;

  if (std::strcmp(mode, "long") == 0) {
    const double secs = argc > 2 ? std::atof(argv[2]) : 30.0;
    const auto t0 = std::chrono::steady_clock::now();
    long launches = 0;
    double next_print = 1.0;
    for (;;) {
      scale<<<grid, block>>>(x, 0.5f, n);
      if (check(cudaDeviceSynchronize(), "scale")) return 1;
      ++launches;
      const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (el >= next_print) {
        std::printf("misbehave: %.0f s, %ld launches\n", el, launches);
        std::fflush(stdout);
        next_print += 1.0;
      }
      if (el >= secs) break;
    }
    std::printf("misbehave: done after %ld launches\n", launches);
    return 0;
  }

  for (int k = 0; k < 3; ++k) scale<<<grid, block>>>(x, 0.5f, n);
  if (check(cudaDeviceSynchronize(), "scale")) return 1;
  std::printf("misbehave: three good launches done\n");
  std::fflush(stdout);
  if (std::strcmp(mode, "fault") == 0) {
    wild_store<<<grid, block>>>(x, n);
    return check(cudaDeviceSynchronize(), "wild_store") ? 1 : 0;
  }
  if (std::strcmp(mode, "trap") == 0) {
    trap_kernel<<<grid, block>>>(x, n);
    return check(cudaDeviceSynchronize(), "trap_kernel") ? 1 : 0;
  }
  std::fprintf(stderr, "misbehave: unknown mode %s\n", mode);
  return 2;
}
