#include "memory_peaks.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "util/cuda_check.hpp"
#include "device_buffer.hpp"
#include "random_fill.hpp"

namespace kprof::peaks {

namespace {

constexpr int kThreads = 256;
constexpr int kUnroll = 4;  // float4 loads in flight per thread before any store / add

__device__ __forceinline__ float sum4(float4 v) { return (v.x + v.y) + (v.z + v.w); }

__device__ __forceinline__ void block_sum_to(float acc, float* out) {
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, acc);
}

__global__ void copy_kernel(const float4* __restrict__ in, float4* __restrict__ out, size_t n) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x * kUnroll;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x * kUnroll + threadIdx.x; i < n; i += stride) {
    float4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (i + u * blockDim.x < n) v[u] = in[i + u * blockDim.x];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (i + u * blockDim.x < n) out[i + u * blockDim.x] = v[u];
  }
}

// The read:write mix of an elementwise binary op (PyTorch's add: c = a + b, two streams read, one written),
// grid-stride over resident blocks.
__global__ void add_kernel(const float4* __restrict__ a, const float4* __restrict__ b, float4* __restrict__ c,
                           size_t n) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x * kUnroll;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x * kUnroll + threadIdx.x; i < n; i += stride) {
    float4 x[kUnroll], y[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (i + u * blockDim.x < n) {
        x[u] = a[i + u * blockDim.x];
        y[u] = b[i + u * blockDim.x];
      }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (i + u * blockDim.x < n)
        c[i + u * blockDim.x] = make_float4(x[u].x + y[u].x, x[u].y + y[u].y, x[u].z + y[u].z, x[u].w + y[u].w);
  }
}

// The same mixes with the launch shape of a framework's elementwise kernel: one float4 per thread, as many blocks
// as the data needs (no grid-stride loop). `b` null: a copy (1:1); else c = a + b (2:1).
__global__ void flat_kernel(const float4* __restrict__ a, const float4* __restrict__ b, float4* __restrict__ c,
                            size_t n) {
  const size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 x = a[i];
  if (b) {
    const float4 y = b[i];
    x = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
  c[i] = x;
}

// Reads in[0..n) `passes` times, each pass starting at a different offset so no load repeats an address the
// compiler could prove unchanged. __ldcg caches in L2 only: with a working set smaller than L2, passes after the
// first are L2 hits; with one larger than L2 every pass reads HBM.
__global__ void read_kernel(const float4* __restrict__ in, size_t n, int passes, float* out) {
  float acc = 0.0f;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x * kUnroll;
  for (int p = 0; p < passes; ++p) {
    const size_t shift = (static_cast<size_t>(p) * 4099u * 32u) % n;
    for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x * kUnroll + threadIdx.x; i < n; i += stride) {
      float4 v[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        size_t j = i + u * blockDim.x;
        if (j < n) {
          j += shift;
          if (j >= n) j -= n;
          v[u] = __ldcg(in + j);
        } else {
          v[u] = make_float4(0.f, 0.f, 0.f, 0.f);
        }
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) acc += sum4(v[u]);
    }
  }
  block_sum_to(acc, out);
}

// Each thread reads float4s from shared memory; a warp's 32 reads are 512 consecutive bytes (no bank conflicts).
__global__ void smem_kernel(int iters, float* out) {
  extern __shared__ float4 tile[];
  const int n = blockDim.x * 4;  // power of two
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    tile[i] = make_float4(1.0f + i * 1e-6f, 2.0f - i * 1e-6f, 0.5f + blockIdx.x * 1e-7f, 0.25f);
  __syncthreads();
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  const int mask = n - 1;
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int u = 0; u < 8; ++u) {
      float4 v = tile[(threadIdx.x + (it * 8 + u) * 32) & mask];
      acc.x += v.x;
      acc.y += v.y;
      acc.z += v.z;
      acc.w += v.w;
    }
  }
  block_sum_to(sum4(acc), out);
}

std::string gib(double bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f GiB", bytes / (1024.0 * 1024 * 1024));
  return b;
}
std::string mib(double bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f MiB", bytes / (1024.0 * 1024));
  return b;
}

int resident_blocks(const DeviceFacts& d) { return d.sm_count * (d.max_threads_per_sm / kThreads); }

// 2 GiB per buffer, less when the card has little free memory (never under 4x the L2).
size_t hbm_buffer_bytes(const DeviceFacts& d, int buffers) {
  size_t want = size_t{2} << 30;
  size_t cap = d.free_memory_bytes / (buffers + 1);
  size_t bytes = std::min(want, cap);
  if (bytes < 4 * d.l2_bytes) throw std::runtime_error("not enough free device memory for an HBM benchmark");
  return bytes / 16 * 16;
}

}  // namespace

PeakMeasurement measure_dram_copy(const DeviceFacts& d, cudaStream_t s, const TimingOptions& opt) {
  const size_t bytes = hbm_buffer_bytes(d, 2);
  const size_t n = bytes / sizeof(float4);
  DeviceBuffer in(bytes), out(bytes);
  fill_random(in.as<void>(), ElemType::f32, bytes / 4, 1, -1.0f, 1.0f, s);
  fill_random(out.as<void>(), ElemType::f32, bytes / 4, 2, -1.0f, 1.0f, s);
  auto ms = time_runs(
      [&](cudaStream_t st) {
        copy_kernel<<<resident_blocks(d), kThreads, 0, st>>>(in.as<const float4>(), out.as<float4>(), n);
        CUDA_CHECK_LAUNCH();
      },
      s, opt);
  CUDA_CHECK(cudaStreamSynchronize(s));
  if (zero_fraction_f32(out.as<float>(), 4096) > 0.01) throw std::runtime_error("copy produced zeros");
  return summarize(ms, 2.0 * bytes, 1e9, "float4 copy kernel, " + gib(bytes) + " in + " + gib(bytes) +
                                             " out, bytes read + written");
}

// The copy engine's device-to-device path: often a little faster than an SM copy kernel on HBM parts.
PeakMeasurement measure_dram_memcpy(const DeviceFacts& d, cudaStream_t s, const TimingOptions& opt) {
  const size_t bytes = hbm_buffer_bytes(d, 2);
  DeviceBuffer in(bytes), out(bytes);
  fill_random(in.as<void>(), ElemType::f32, bytes / 4, 3, -1.0f, 1.0f, s);
  fill_random(out.as<void>(), ElemType::f32, bytes / 4, 4, -1.0f, 1.0f, s);
  auto ms = time_runs(
      [&](cudaStream_t st) { CUDA_CHECK(cudaMemcpyAsync(out.as<void>(), in.as<void>(), bytes, cudaMemcpyDeviceToDevice, st)); },
      s, opt);
  CUDA_CHECK(cudaStreamSynchronize(s));
  if (zero_fraction_f32(out.as<float>(), 4096) > 0.01) throw std::runtime_error("memcpy produced zeros");
  return summarize(ms, 2.0 * bytes, 1e9, "cudaMemcpyAsync device to device, " + gib(bytes) + ", bytes read + written");
}

PeakMeasurement measure_host_link(cudaStream_t s, const TimingOptions& opt, bool to_device) {
  const size_t bytes = size_t(256) << 20;
  DeviceBuffer dev(bytes);
  void* host = nullptr;
  CUDA_CHECK(cudaMallocHost(&host, bytes));
  struct Pinned {
    void* p;
    ~Pinned() { cudaFreeHost(p); }
  } pinned{host};
  // The source holds 2.0f everywhere and the destination starts at zero, so a copy that did nothing (or only part)
  // shows in the sampled words checked after the timed runs.
  float* h = static_cast<float*>(host);
  const std::size_t words = bytes / sizeof(float);
  if (to_device) {
    std::fill_n(h, words, 2.0f);
    CUDA_CHECK(cudaMemsetAsync(dev.as<void>(), 0, bytes, s));
  } else {
    std::fill_n(h, words, 0.0f);
    fill_random(dev.as<void>(), ElemType::f32, words, 8, 2.0f, 2.0f, s);
  }
  CUDA_CHECK(cudaStreamSynchronize(s));
  auto ms = time_runs(
      [&](cudaStream_t st) {
        CUDA_CHECK(to_device ? cudaMemcpyAsync(dev.as<void>(), host, bytes, cudaMemcpyHostToDevice, st)
                             : cudaMemcpyAsync(host, dev.as<void>(), bytes, cudaMemcpyDeviceToHost, st));
      },
      s, opt);
  CUDA_CHECK(cudaStreamSynchronize(s));
  // Words spread over the whole buffer, read on the host side: the destination, or a copy of it back.
  std::vector<float> sample(64);
  for (std::size_t i = 0; i < sample.size(); ++i) {
    const std::size_t at = (words - 1) * i / (sample.size() - 1);
    if (to_device) CUDA_CHECK(cudaMemcpy(&sample[i], dev.as<float>() + at, sizeof(float), cudaMemcpyDeviceToHost));
    else sample[i] = h[at];
  }
  if (std::any_of(sample.begin(), sample.end(), [](float v) { return v != 2.0f; }))
    throw std::runtime_error("the host-link copy did not deliver the source's bytes");
  return summarize(ms, double(bytes), 1e9,
                   std::string("cudaMemcpyAsync ") + (to_device ? "host to device" : "device to host") +
                       " from pinned host memory (cudaMallocHost), " + gib(bytes) + " a run, bytes copied");
}

PeakMeasurement measure_host_link_both(cudaStream_t s, const TimingOptions& opt) {
  const size_t bytes = size_t(256) << 20;
  DeviceBuffer up(bytes), down(bytes);
  void* host_up = nullptr;
  void* host_down = nullptr;
  CUDA_CHECK(cudaMallocHost(&host_up, bytes));
  struct Pinned {
    void* p;
    ~Pinned() { cudaFreeHost(p); }
  } pinned_up{host_up};
  CUDA_CHECK(cudaMallocHost(&host_down, bytes));
  Pinned pinned_down{host_down};
  cudaStream_t side;
  CUDA_CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  struct Stream {
    cudaStream_t s;
    ~Stream() { cudaStreamDestroy(s); }
  } side_owner{side};
  struct Event {  // owned from its creation, so a failure creating the next one leaks nothing
    cudaEvent_t e = nullptr;
    ~Event() {
      if (e) cudaEventDestroy(e);
    }
  } fork_owner, join_owner;
  CUDA_CHECK(cudaEventCreateWithFlags(&fork_owner.e, cudaEventDisableTiming));
  CUDA_CHECK(cudaEventCreateWithFlags(&join_owner.e, cudaEventDisableTiming));
  cudaEvent_t fork = fork_owner.e, join = join_owner.e;
  // The upload's source holds 2.0f, the read-back's source (on the device) 3.0f; both destinations start at zero,
  // so a copy that did nothing, or read the other's buffer, shows in the words checked after the timed runs.
  const std::size_t words = bytes / sizeof(float);
  std::fill_n(static_cast<float*>(host_up), words, 2.0f);
  std::fill_n(static_cast<float*>(host_down), words, 0.0f);
  CUDA_CHECK(cudaMemsetAsync(up.as<void>(), 0, bytes, s));
  fill_random(down.as<void>(), ElemType::f32, words, 8, 3.0f, 3.0f, s);
  CUDA_CHECK(cudaStreamSynchronize(s));
  auto ms = time_runs(
      [&](cudaStream_t st) {
        // The read-back starts with the upload (the side stream waits for the timing stream's start) and the timing
        // stream waits for it to end.
        CUDA_CHECK(cudaEventRecord(fork, st));
        CUDA_CHECK(cudaStreamWaitEvent(side, fork, 0));
        CUDA_CHECK(cudaMemcpyAsync(host_down, down.as<void>(), bytes, cudaMemcpyDeviceToHost, side));
        CUDA_CHECK(cudaMemcpyAsync(up.as<void>(), host_up, bytes, cudaMemcpyHostToDevice, st));
        CUDA_CHECK(cudaEventRecord(join, side));
        CUDA_CHECK(cudaStreamWaitEvent(st, join, 0));
      },
      s, opt);
  CUDA_CHECK(cudaStreamSynchronize(s));
  for (std::size_t i = 0; i < 64; ++i) {
    const std::size_t at = (words - 1) * i / 63;
    float uploaded = 0.0f;
    CUDA_CHECK(cudaMemcpy(&uploaded, up.as<float>() + at, sizeof(float), cudaMemcpyDeviceToHost));
    if (uploaded != 2.0f || static_cast<const float*>(host_down)[at] != 3.0f)
      throw std::runtime_error("the two-way host-link copies did not deliver the sources' bytes");
  }
  return summarize(ms, 2.0 * double(bytes), 1e9,
                   "cudaMemcpyAsync host to device and device to host at once (two streams), pinned host memory "
                   "(cudaMallocHost), " + gib(bytes) + " each way a run, bytes copied both ways");
}

PeakMeasurement measure_dram_mix(const DeviceFacts& d, cudaStream_t s, const TimingOptions& opt, DramMix mix) {
  const bool add = mix == DramMix::add_resident || mix == DramMix::add_flat;
  const size_t bytes = hbm_buffer_bytes(d, 3);
  const size_t n = bytes / sizeof(float4);
  DeviceBuffer a(bytes), b(bytes), c(bytes);
  fill_random(a.as<void>(), ElemType::f32, bytes / 4, 5, 0.5f, 1.5f, s);
  fill_random(b.as<void>(), ElemType::f32, bytes / 4, 6, 0.5f, 1.5f, s);
  fill_random(c.as<void>(), ElemType::f32, bytes / 4, 7, -1.0f, 1.0f, s);
  const unsigned flat_blocks = static_cast<unsigned>((n + kThreads - 1) / kThreads);
  auto ms = time_runs(
      [&](cudaStream_t st) {
        if (mix == DramMix::add_resident)
          add_kernel<<<resident_blocks(d), kThreads, 0, st>>>(a.as<const float4>(), b.as<const float4>(),
                                                               c.as<float4>(), n);
        else
          flat_kernel<<<flat_blocks, kThreads, 0, st>>>(a.as<const float4>(), add ? b.as<const float4>() : nullptr,
                                                         c.as<float4>(), n);
        CUDA_CHECK_LAUNCH();
      },
      s, opt);
  CUDA_CHECK(cudaStreamSynchronize(s));
  if (zero_fraction_f32(c.as<float>(), 4096) > 0.01) throw std::runtime_error("the mix kernel produced zeros");
  const std::string shape = mix == DramMix::add_resident ? "grid-stride over resident blocks"
                                                         : "one float4 per thread, " + std::to_string(flat_blocks) +
                                                               " blocks";
  return summarize(ms, (add ? 3.0 : 2.0) * bytes, 1e9,
                   std::string(add ? "c = a + b (2 reads : 1 write)" : "copy (1 read : 1 write)") + ", float4, " +
                       shape + ", " + gib(bytes) + " per stream, bytes read + written");
}

PeakMeasurement measure_dram_read(const DeviceFacts& d, cudaStream_t s, const TimingOptions& opt) {
  const size_t bytes = hbm_buffer_bytes(d, 1);
  const size_t n = bytes / sizeof(float4);
  DeviceBuffer in(bytes), sum(sizeof(float));
  fill_random(in.as<void>(), ElemType::f32, bytes / 4, 3, 0.5f, 1.5f, s);
  CUDA_CHECK(cudaMemsetAsync(sum.as<void>(), 0, sizeof(float), s));
  auto ms = time_runs(
      [&](cudaStream_t st) {
        read_kernel<<<resident_blocks(d), kThreads, 0, st>>>(in.as<const float4>(), n, 1, sum.as<float>());
        CUDA_CHECK_LAUNCH();
      },
      s, opt);
  CUDA_CHECK(cudaStreamSynchronize(s));
  if (zero_fraction_f32(sum.as<float>(), 1) > 0) throw std::runtime_error("read reduction summed to zero");
  return summarize(ms, 1.0 * bytes, 1e9, "float4 read-only reduction, " + gib(bytes) + ", bytes read");
}

PeakMeasurement measure_l2_read(const DeviceFacts& d, cudaStream_t s, const TimingOptions& opt) {
  if (d.l2_bytes == 0) throw std::runtime_error("the runtime reports no L2 size");
  const size_t bytes = d.l2_bytes / 4 / 4096 * 4096;
  const size_t n = bytes / sizeof(float4);
  DeviceBuffer in(bytes), sum(sizeof(float));
  fill_random(in.as<void>(), ElemType::f32, bytes / 4, 4, 0.5f, 1.5f, s);
  CUDA_CHECK(cudaMemsetAsync(sum.as<void>(), 0, sizeof(float), s));
  auto launch = [&](cudaStream_t st, long passes) {
    read_kernel<<<resident_blocks(d), kThreads, 0, st>>>(in.as<const float4>(), n, static_cast<int>(passes),
                                                          sum.as<float>());
    CUDA_CHECK_LAUNCH();
  };
  const long passes = calibrate(launch, s, 8, 2.0, 1 << 16);
  auto ms = time_runs([&](cudaStream_t st) { launch(st, passes); }, s, opt);
  return summarize(ms, static_cast<double>(bytes) * passes, 1e9,
                   "float4 __ldcg re-reads of " + mib(bytes) + " (L2/4), " + std::to_string(passes) +
                       " passes, first pass included");
}

PeakMeasurement measure_smem_read(const DeviceFacts& d, cudaStream_t s, const TimingOptions& opt) {
  const int threads = 1024;
  const size_t smem = threads * 4 * sizeof(float4);  // 64 KiB per block
  CUDA_CHECK(cudaFuncSetAttribute(smem_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  int per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, smem_kernel, threads, smem));
  if (per_sm < 1) throw std::runtime_error("shared-memory kernel cannot be resident");
  const int blocks = d.sm_count * per_sm;
  DeviceBuffer sum(sizeof(float));
  CUDA_CHECK(cudaMemsetAsync(sum.as<void>(), 0, sizeof(float), s));
  auto launch = [&](cudaStream_t st, long iters) {
    smem_kernel<<<blocks, threads, smem, st>>>(static_cast<int>(iters), sum.as<float>());
    CUDA_CHECK_LAUNCH();
  };
  const long iters = calibrate(launch, s, 64, 2.0, 1 << 22);
  auto ms = time_runs([&](cudaStream_t st) { launch(st, iters); }, s, opt);
  const double bytes = static_cast<double>(blocks) * threads * iters * 8 * sizeof(float4);
  return summarize(ms, bytes, 1e9,
                   "LDS.128 conflict-free reads, " + std::to_string(per_sm) + " x 1024-thread blocks per SM, " +
                       std::to_string(iters * 8) + " loads per thread");
}

}  // namespace kprof::peaks
