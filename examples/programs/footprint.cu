// Replay cost against the program's device memory footprint (bench/RESULTS.md §1, issue 27): allocates and touches
// <pad MiB> of device memory no kernel reads, then runs six short kernels of distinct names over a 64 MiB buffer.
// A counter pass that saves and restores device memory per replay pays for the pad; one that does not, does not.
//   footprint <pad MiB> [rounds]
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x)                                                                                   \
  do {                                                                                          \
    cudaError_t e_ = (x);                                                                       \
    if (e_ != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                             \
    }                                                                                           \
  } while (0)

template <int K>
__global__ void axpb(float* __restrict__ p, size_t n, float a, float b) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = p[i] * a + b + K;
}

int main(int argc, char** argv) {
  const size_t pad_mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 0;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 1;
  void* pad = nullptr;
  if (pad_mib > 0) {
    CK(cudaMalloc(&pad, pad_mib << 20));
    CK(cudaMemset(pad, 1, pad_mib << 20));
  }
  const size_t n = 16u << 20;
  float* buf;
  CK(cudaMalloc(&buf, n * sizeof(float)));
  CK(cudaMemset(buf, 0, n * sizeof(float)));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int blocks = prop.multiProcessorCount * 8;
  for (int r = 0; r < rounds; ++r) {
    axpb<0><<<blocks, 256>>>(buf, n, 1.0f, 0.5f);
    axpb<1><<<blocks, 256>>>(buf, n, 0.5f, 1.0f);
    axpb<2><<<blocks, 256>>>(buf, n, 2.0f, 0.0f);
    axpb<3><<<blocks, 256>>>(buf, n, 1.0f, -0.5f);
    axpb<4><<<blocks, 256>>>(buf, n, 0.25f, 0.0f);
    axpb<5><<<blocks, 256>>>(buf, n, 4.0f, 0.0f);
  }
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  float h = 0;
  CK(cudaMemcpy(&h, buf, sizeof h, cudaMemcpyDeviceToHost));
  std::printf("pad %zu MiB, 6 kernels x %d, buf[0]=%g\n", pad_mib, rounds, h);
  return 0;
}
