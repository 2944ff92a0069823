#include "compute_peaks.hpp"

#include <string>

#include "util/cuda_check.hpp"
#include "device_buffer.hpp"
#include "random_fill.hpp"

namespace kprof::peaks {

namespace {

constexpr int kThreads = 256;
constexpr int kChains = 8;

// a <- a*b + c converges to c/(1-b) (here ~1): no overflow, no denormals, and the compiler cannot fold it.
template <typename T>
__global__ void fma_kernel(const T* __restrict__ seeds, long iters, T b, T c, T* out) {
  const size_t gid = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  T a[kChains];
#pragma unroll
  for (int k = 0; k < kChains; ++k) a[k] = seeds[(gid * kChains + k) & 4095];
#pragma unroll 4
  for (long it = 0; it < iters; ++it) {
#pragma unroll
    for (int k = 0; k < kChains; ++k) a[k] = fma(a[k], b, c);
  }
  T s = 0;
#pragma unroll
  for (int k = 0; k < kChains; ++k) s += a[k];
  out[gid] = s;
}

template <typename T>
PeakMeasurement measure(const DeviceFacts& d, cudaStream_t s, const TimingOptions& opt, T b, T c,
                        const std::string& name) {
  const int blocks = d.sm_count * (d.max_threads_per_sm / kThreads);
  const size_t threads = static_cast<size_t>(blocks) * kThreads;
  DeviceBuffer seeds(4096 * sizeof(T)), out(threads * sizeof(T));
  if constexpr (sizeof(T) == 4) {
    fill_random(seeds.as<void>(), ElemType::f32, 4096, 5, 0.5f, 1.5f, s);
  } else {
    DeviceBuffer tmp(4096 * sizeof(float));
    fill_random(tmp.as<void>(), ElemType::f32, 4096, 6, 0.5f, 1.5f, s);
    float host_f[4096];
    double host_d[4096];
    CUDA_CHECK(cudaMemcpyAsync(host_f, tmp.as<void>(), sizeof host_f, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < 4096; ++i) host_d[i] = host_f[i];
    CUDA_CHECK(cudaMemcpy(seeds.as<void>(), host_d, sizeof host_d, cudaMemcpyHostToDevice));
  }
  auto launch = [&](cudaStream_t st, long iters) {
    fma_kernel<T><<<blocks, kThreads, 0, st>>>(seeds.as<const T>(), iters, b, c, out.as<T>());
    CUDA_CHECK_LAUNCH();
  };
  const long iters = calibrate(launch, s, 256, 2.0, 1L << 26);
  auto ms = time_runs([&](cudaStream_t st) { launch(st, iters); }, s, opt);
  const double flops = 2.0 * kChains * static_cast<double>(iters) * threads;
  return summarize(ms, flops, 1e12,
                   name + " FMA, " + std::to_string(kChains) + " independent chains x " + std::to_string(iters) +
                       " per thread, " + std::to_string(threads) + " threads");
}

}  // namespace

PeakMeasurement measure_fp32_fma(const DeviceFacts& d, cudaStream_t s, const TimingOptions& opt) {
  return measure<float>(d, s, opt, 0.999999f, 1e-6f, "FP32");
}

PeakMeasurement measure_fp64_fma(const DeviceFacts& d, cudaStream_t s, const TimingOptions& opt) {
  return measure<double>(d, s, opt, 0.9999999, 1e-7, "FP64 (CUDA cores, no DMMA)");
}

}  // namespace kprof::peaks
