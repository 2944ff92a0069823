#include "random_fill.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <vector>

#include "util/cuda_check.hpp"

namespace kprof::peaks {

namespace {

__device__ __forceinline__ float hash_uniform(std::uint64_t i, std::uint32_t seed, float lo, float hi) {
  std::uint64_t x = i * 0x9E3779B97F4A7C15ull + seed * 0xBF58476D1CE4E5B9ull + 1;  // splitmix64
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  float u = (x >> 40) * (1.0f / 16777216.0f);  // 24 bits → [0, 1)
  float v = lo + (hi - lo) * u;
  return v == 0.0f ? 0.5f * (lo + hi) + 1e-3f : v;
}

template <typename T>
__device__ __forceinline__ T convert(float v);
template <> __device__ __forceinline__ float convert<float>(float v) { return v; }
template <> __device__ __forceinline__ __half convert<__half>(float v) { return __float2half(v); }
template <> __device__ __forceinline__ __nv_bfloat16 convert<__nv_bfloat16>(float v) { return __float2bfloat16(v); }
template <> __device__ __forceinline__ __nv_fp8_e4m3 convert<__nv_fp8_e4m3>(float v) { return __nv_fp8_e4m3(v); }

template <typename T>
__global__ void fill_kernel(T* dst, std::size_t n, std::uint32_t seed, float lo, float hi) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    dst[i] = convert<T>(hash_uniform(i, seed, lo, hi));
}

template <typename T>
void launch_fill(void* dst, std::size_t n, std::uint32_t seed, float lo, float hi, cudaStream_t s) {
  fill_kernel<T><<<4096, 256, 0, s>>>(static_cast<T*>(dst), n, seed, lo, hi);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void fill_random(void* dst, ElemType type, std::size_t count, std::uint32_t seed, float lo, float hi,
                 cudaStream_t stream) {
  switch (type) {
    case ElemType::f32: launch_fill<float>(dst, count, seed, lo, hi, stream); break;
    case ElemType::f16: launch_fill<__half>(dst, count, seed, lo, hi, stream); break;
    case ElemType::bf16: launch_fill<__nv_bfloat16>(dst, count, seed, lo, hi, stream); break;
    case ElemType::fp8_e4m3: launch_fill<__nv_fp8_e4m3>(dst, count, seed, lo, hi, stream); break;
  }
}

double zero_fraction_f32(const float* dev, std::size_t count) {
  std::vector<float> host(count);
  CUDA_CHECK(cudaMemcpy(host.data(), dev, count * sizeof(float), cudaMemcpyDeviceToHost));
  std::size_t zeros = 0;
  for (float v : host) zeros += (v == 0.0f);
  return count ? static_cast<double>(zeros) / count : 1.0;
}

}  // namespace kprof::peaks
