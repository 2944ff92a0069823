// Fix experiment: what removing the fences of two held-out cases realises, to check the estimates kprof gives for
// its "fences" item (bench/RESULTS.md). Both kernels are the held-out programs' own (sets 28 and 35), each beside the
// change the blind labels name as the first fix:
//   agents_publish_seq  per-element __threadfence_system() before each sequence word  -> one fence per block's batch
//   lidar_voxel_counts  cuda::atomic_ref::fetch_add in its default order (seq_cst)    -> memory_order_relaxed
// Timing: CUDA events around each launch, 5 warm-ups, then 30 alternating launches of the two versions; medians.
// Prints one line per case: before and after median (us), realised gain = 1 - after/before.
#include <cuda/atomic>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#define CK(x)                                                                                 \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__);    \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)

__host__ __device__ inline unsigned hash32(unsigned long long i, unsigned seed) {
  unsigned long long z = i * 0xD6E8FEB86659FD93ull + (unsigned long long)(seed + 1u) * 0xA0761D6478BD642Full;
  z ^= z >> 33;
  z *= 0xFF51AFD7ED558CCDull;
  z ^= z >> 33;
  z *= 0xC4CEB9FE1A85EC53ull;
  z ^= z >> 33;
  return (unsigned)(z >> 32) ^ (unsigned)z;
}

// ---- set 28: agents_publish_seq
constexpr int PB_N = 1 << 23;
constexpr int PB_GRID = 132 * 8;
constexpr float PB_DT = 1.0f / 120.0f;
__global__ void __launch_bounds__(256) publish_per_element(const float4* __restrict__ pos, const float4* __restrict__ vel,
                                                           float4* __restrict__ rec, unsigned* __restrict__ seq) {
  for (int i = blockIdx.x * 256 + threadIdx.x; i < PB_N; i += gridDim.x * 256) {
    const float4 p = pos[i], v = vel[i];
    rec[i] = make_float4(fmaf(PB_DT, v.x, p.x), fmaf(PB_DT, v.y, p.y), fmaf(PB_DT, v.z, p.z), p.w);
    __threadfence_system();
    seq[i] = 7u;
  }
}
// The labelled fix: a block writes its batch of records, one fence, then the batch's sequence words.
__global__ void __launch_bounds__(256) publish_per_batch(const float4* __restrict__ pos, const float4* __restrict__ vel,
                                                         float4* __restrict__ rec, unsigned* __restrict__ seq) {
  for (int base = blockIdx.x * 256; base < PB_N; base += gridDim.x * 256) {
    const int i = base + threadIdx.x;
    const float4 p = pos[i], v = vel[i];
    rec[i] = make_float4(fmaf(PB_DT, v.x, p.x), fmaf(PB_DT, v.y, p.y), fmaf(PB_DT, v.z, p.z), p.w);
    __syncthreads();
    if (threadIdx.x == 0) __threadfence_system();
    __syncthreads();
    seq[i] = 7u;
  }
}

// ---- set 35: lidar_voxel_counts
constexpr size_t LV_N = (size_t)1 << 26;
constexpr size_t LV_BINS = (size_t)1 << 21;
__host__ __device__ inline unsigned lv_voxel(unsigned p) {
  return ((p & 1023u) >> 3) | (((p >> 10) & 1023u) >> 3) << 7 | (((p >> 20) & 1023u) >> 3) << 14;
}
template <cuda::memory_order O>
__global__ void __launch_bounds__(256) lidar_counts(const uint4* __restrict__ pts, unsigned* __restrict__ counts) {
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  const uint4 p = pts[i];
  const unsigned pt[4] = {p.x, p.y, p.z, p.w};
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> cell(counts[lv_voxel(pt[k])]);
    cell.fetch_add(1u, O);
  }
}
__global__ void fill_points(unsigned* p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = hash32(i, 91u) & 0x3FFFFFFFu;
}

template <class A, class B>
int alternate(const char* name, A before, B after) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<float> tb, ta;
  for (int r = 0; r < 35; ++r)
    for (int which = 0; which < 2; ++which) {
      CK(cudaEventRecord(e0));
      if (which == 0) before(); else after();
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      CK(cudaGetLastError());
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      if (r >= 5) (which == 0 ? tb : ta).push_back(ms * 1000.0f);
    }
  std::sort(tb.begin(), tb.end());
  std::sort(ta.begin(), ta.end());
  const float b = tb[tb.size() / 2], a = ta[ta.size() / 2];
  std::printf("| %s | %.1f | %.1f | %.1f%% |\n", name, b, a, 100.0 * (1.0 - a / b));
  return 0;
}

int main() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    std::printf("no usable CUDA device\n");
    return 0;
  }
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s\n| case | before (us) | after (us) | realised |\n| --- | --: | --: | --: |\n", prop.name);
  float4 *pos, *vel, *rec;
  unsigned* seq;
  CK(cudaMalloc(&pos, PB_N * sizeof(float4)));
  CK(cudaMalloc(&vel, PB_N * sizeof(float4)));
  CK(cudaMalloc(&rec, PB_N * sizeof(float4)));
  CK(cudaMalloc(&seq, PB_N * sizeof(unsigned)));
  CK(cudaMemset(pos, 0, PB_N * sizeof(float4)));
  CK(cudaMemset(vel, 0, PB_N * sizeof(float4)));
  if (alternate("agents_publish_seq: per-element system fence -> one per block",
                [&] { publish_per_element<<<PB_GRID, 256>>>(pos, vel, rec, seq); },
                [&] { publish_per_batch<<<PB_GRID, 256>>>(pos, vel, rec, seq); }))
    return 1;
  unsigned *pts, *counts;
  CK(cudaMalloc(&pts, LV_N * sizeof(unsigned)));
  CK(cudaMalloc(&counts, LV_BINS * sizeof(unsigned)));
  fill_points<<<1024, 256>>>(pts, LV_N);
  CK(cudaMemset(counts, 0, LV_BINS * sizeof(unsigned)));
  const unsigned grid = (unsigned)(LV_N / 4 / 256);
  if (alternate("lidar_voxel_counts: seq_cst fetch_add -> relaxed",
                [&] { lidar_counts<cuda::memory_order_seq_cst><<<grid, 256>>>(reinterpret_cast<const uint4*>(pts), counts); },
                [&] { lidar_counts<cuda::memory_order_relaxed><<<grid, 256>>>(reinterpret_cast<const uint4*>(pts), counts); }))
    return 1;
  return 0;
}
