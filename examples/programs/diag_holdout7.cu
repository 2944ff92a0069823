// Seventh held-out diagnosis set: hand-written CUDA kernels, each built to have ONE bottleneck that an expert names
// from Nsight Compute's full report (mostly the dominant warp stall reason or the memory-access counters), designed
// without reference to kprof's rules. What each case is designed to show (one line each; the designed labels are
// also in diag_holdout7_8_design.md; labels for scoring come from the ncu report alone):
//
//   barrier_one_warp_works      one warp per block computes a serial chain while 15 wait at __syncthreads: barrier
//   imbalance_in_block          warp w does (w+1)^2 dependent loads, the block waits for its slowest warp: barrier
//                               stalls, issue slots mostly idle (SM underused)
//   membar_fence_per_store      a store followed by __threadfence() in a loop: membar stalls
//   nanosleep_spin              31 warps poll a shared flag with __nanosleep backoff while one warp produces: sleeping
//   partial_coalescing_stride2  DRAM-bound stream reading every second float: 8 sectors per request where 4 suffice
//   int_index_math              5-D permute with 64-bit / and % per element: integer instructions bound it, DRAM modest
//   register_limited            ~240 registers per thread (no spills) allow 8 warps per SM: latency-bound loads
//   l1_thrash                   each SM reads at random in a 1 MiB region (4x its L1): low L1 hit rate, high L2 hit
//   const_cache_divergent       __constant__ table read at a per-lane index: constant-cache accesses serialise
//   fp8_convert_scale           bf16 -> fp8 e4m3 with a scale, vectorised: at the DRAM roof
//   pipeline_unfused            pipe_scale_write writes a 1 GiB intermediate that pipe_reduce_rows reads back:
//                               both DRAM-bound, fusable (the intermediate need not leave the chip)
//
//   diag_holdout7 [reps] [cases]   reps: launches of each case (default 1); cases: comma-separated names to run
//                                   (default all), or names each prefixed with '-' to leave out
//
// Every case runs in its own NVTX push/pop range named after it (pipeline_unfused holds its two kernels). Inputs are
// filled with non-zero data first, outside any range. Sizes are chosen so that each launch takes ~0.2-3 ms on an H200.
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(x)                                                                                     \
  do {                                                                                            \
    cudaError_t e_ = (x);                                                                         \
    if (e_ != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

__device__ __forceinline__ unsigned sm_id() {
  unsigned r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}

// ---------------------------------------------------------------------------------------------------------------
// Synchronisation within a block.

// Each round, warp 0 runs a chain of `chain` dependent FMAs and publishes the result in shared memory; the other
// fifteen warps of the 512-thread block only wait for it at __syncthreads and add it up.
__global__ void barrier_one_warp_works(float* out, int rounds, int chain) {
  __shared__ float sval;
  float acc = 0.f;
  float v = threadIdx.x * 1e-3f + blockIdx.x * 1e-6f;
  for (int r = 0; r < rounds; ++r) {
    if (threadIdx.x < 32) {
#pragma unroll 16
      for (int k = 0; k < chain; ++k) v = fmaf(v, 0.999991f, 1e-7f);
      if (threadIdx.x == 0) sval = v;
    }
    __syncthreads();
    acc += sval;
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// 1024-thread blocks; warp w follows a chain of unit*(w+1)^2 dependent loads through a 2 MiB table (L2-resident),
// then the block meets at __syncthreads: warp 31 does 1024 units, the average warp 357, so most warps sit at the
// barrier while a few chase, and the SM issues little.
__global__ void __launch_bounds__(1024) imbalance_in_block(const uint32_t* __restrict__ next, uint32_t* out,
                                                           uint32_t mask, int unit) {
  __shared__ uint32_t red[32];
  const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int trips = (w + 1) * (w + 1) * unit;
  uint32_t p = (blockIdx.x * 32u + w) * 2654435761u;
  for (int i = 0; i < trips; ++i) p = next[p & mask];
  if (lane == 0) red[w] = p;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = red[(w + 1) % 32] + lane;
}

// Each thread stores to its own word and then fences (__threadfence: device-scope sequentially consistent fence),
// `iters` times: every warp waits for its store to be acknowledged before it can go on.
__global__ void membar_fence_per_store(float* out, int iters) {
  const size_t g = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  const float v = (float)(g & 1023);
  for (int i = 0; i < iters; ++i) {
    out[g] = v + (float)i;
    __threadfence();
  }
}

// Producer/consumer inside a 1024-thread block: warp 0 computes a chain of `chain` dependent FMAs per round and
// raises a shared-memory flag; warps 1-31 poll the flag, sleeping with exponential __nanosleep backoff (128 ns
// doubling to 2 us) between polls, and add up the published value.
__global__ void __launch_bounds__(1024) nanosleep_spin(float* out, int rounds, int chain) {
  __shared__ volatile int flag;
  __shared__ volatile float sval;
  if (threadIdx.x == 0) {
    flag = 0;
    sval = 0.f;
  }
  __syncthreads();
  float acc = 0.f;
  if (threadIdx.x < 32) {
    float v = threadIdx.x * 1e-3f + blockIdx.x * 1e-6f;
    for (int r = 0; r < rounds; ++r) {
#pragma unroll 16
      for (int k = 0; k < chain; ++k) v = fmaf(v, 0.999991f, 1e-7f);
      if (threadIdx.x == 0) {
        sval = v;
        flag = r + 1;
      }
      acc += v;
    }
  } else {
    for (int r = 0; r < rounds; ++r) {
      unsigned ns = 128;
      while (flag <= r) {
        __nanosleep(ns);
        if (ns < 2048) ns *= 2;
      }
      acc += sval;
    }
  }
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// ---------------------------------------------------------------------------------------------------------------
// Memory access patterns.

// Sums a[2*i] over a 2 GiB array: each warp load spans 256 bytes (8 sectors) of which it uses 128; DRAM moves the
// whole array to deliver half of it.
__global__ void partial_coalescing_stride2(const float* __restrict__ a, float* out, size_t n_used) {
  const size_t g = blockIdx.x * (size_t)blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
  float s = 0.f;
#pragma unroll 4
  for (size_t i = g; i < n_used; i += stride) s += a[2 * i];
  out[g] = s;
}

// 16-bit elements permuted in 5-D (out dims d0..d4, taken from input dims by a permutation that keeps the innermost
// dimension innermost, so both sides are coalesced): every element decomposes its 64-bit linear index with four
// runtime divisions/modulos and recombines it with the input strides.
struct Dims5 {
  long long d[5];  // output dimensions
  long long s[5];  // input stride of each output dimension
};
__global__ void int_index_math(const uint16_t* __restrict__ in, uint16_t* __restrict__ out, Dims5 p, long long n) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long r = i;
  const long long c4 = r % p.d[4];
  r /= p.d[4];
  const long long c3 = r % p.d[3];
  r /= p.d[3];
  const long long c2 = r % p.d[2];
  r /= p.d[2];
  const long long c1 = r % p.d[1];
  const long long c0 = r / p.d[1];
  out[i] = in[c0 * p.s[0] + c1 * p.s[1] + c2 * p.s[2] + c3 * p.s[3] + c4 * p.s[4]];
}

// 224 floats live in registers per thread (fully unrolled, no spills), so one 256-thread block fits an SM: 8 warps.
// Each step loads four coalesced floats whose sum decides the next address (a data dependence the compiler cannot
// remove), so each warp has only four loads in flight and the few warps cannot cover DRAM latency.
constexpr int RL_N = 224;
__global__ void __launch_bounds__(256, 1) register_limited(const float* __restrict__ a, float* out, size_t mask,
                                                           int outer) {
  const size_t T = (size_t)gridDim.x * blockDim.x;
  const size_t g = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  float r[RL_N];
#pragma unroll
  for (int j = 0; j < RL_N; ++j) r[j] = (float)(g & 255) * 1e-4f + (float)j * 1e-3f;
  size_t p = g;
  for (int o = 0; o < outer; ++o) {
#pragma unroll
    for (int s = 0; s < RL_N / 8; ++s) {
      const float x0 = a[p & mask], x1 = a[(p + T) & mask], x2 = a[(p + 2 * T) & mask], x3 = a[(p + 3 * T) & mask];
#pragma unroll
      for (int j = 0; j < 8; ++j) r[8 * s + j] = fmaf(r[8 * s + j], (j & 1) ? x1 : x0, (j & 2) ? x2 : x3);
      p += 4 * T + (size_t)(x0 + x1 + x2 + x3 < -1e30f);  // inputs are positive: never adds 1
    }
  }
  float sum = 0.f;
#pragma unroll
  for (int j = 0; j < RL_N; ++j) sum = fmaf(r[j], (float)(j + 1), sum);
  out[g] = sum;
}

// Every SM reads one of 16 regions of 1 MiB (chosen by its SM id, so all blocks on an SM share it): each warp loads
// 512-byte chunks (one float4 per lane) at pseudo-random places in its region. The region is four times the SM's L1
// (256 KiB at most), so most chunks were evicted since they were last read; all 16 regions (16 MiB) stay in L2.
constexpr unsigned L1T_REGIONS = 16, L1T_CHUNK_BITS = 11;  // 2^11 chunks of 512 B = 1 MiB per region
__global__ void l1_thrash(const float4* __restrict__ a, float* out, int loads) {
  const float4* base = a + (size_t)(sm_id() % L1T_REGIONS) * (32u << L1T_CHUNK_BITS);
  const unsigned gw = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  unsigned x = gw * 2654435761u + 12345u;
  float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll 4
  for (int i = 0; i < loads; ++i) {
    x = x * 1664525u + 1013904223u;  // warp-uniform LCG: the chunk's index is its top bits
    const float4 v = base[(x >> (32 - L1T_CHUNK_BITS)) * 32 + lane];
    s.x += v.x;
    s.y += v.y;
    s.z += v.z;
    s.w += v.w;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = s.x + s.y + s.z + s.w;
}

// A 1 KiB __constant__ table read at lane-dependent indices: the 32 lanes of a warp ask for 32 different words, which
// the constant cache serves one address at a time.
__constant__ float ctab[256];
__global__ void const_cache_divergent(float* out, int iters) {
  const int lane = threadIdx.x % 32;
  float s = 0.f;
  for (int i = 0; i < iters; ++i) s = fmaf(s, 0.5f, ctab[(lane * 8 + i) & 255]);
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// ---------------------------------------------------------------------------------------------------------------
// Roof and pipeline.

// bf16 -> fp8 e4m3 (saturating) with a per-tensor scale: 16 bytes in, 8 bytes out per thread and step.
__global__ void fp8_convert_scale(const uint4* __restrict__ in, uint2* __restrict__ out, size_t n8, float scale) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n8; i += (size_t)gridDim.x * blockDim.x) {
    const uint4 v = in[i];
    const uint32_t w[4] = {v.x, v.y, v.z, v.w};
    uint32_t q[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const float lo = __uint_as_float(w[k] << 16) * scale, hi = __uint_as_float(w[k] & 0xffff0000u) * scale;
      q[k] = __nv_cvt_float2_to_fp8x2(make_float2(lo, hi), __NV_SATFINITE, __NV_E4M3);
    }
    out[i] = make_uint2(q[0] | (q[1] << 16), q[2] | (q[3] << 16));
  }
}

// First half of a fusable pipeline: y = x*a + b over 1 GiB, written to DRAM.
__global__ void pipe_scale_write(const float4* __restrict__ x, float4* __restrict__ y, size_t n4, float a, float b) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) {
    const float4 v = x[i];
    y[i] = make_float4(fmaf(v.x, a, b), fmaf(v.y, a, b), fmaf(v.z, a, b), fmaf(v.w, a, b));
  }
}

// Second half: one 256-thread block per row of y (cols4 float4 per row) reads it back and writes the row sum.
__global__ void pipe_reduce_rows(const float4* __restrict__ y, float* __restrict__ out, int cols4) {
  __shared__ float part[32];
  const float4* row = y + (size_t)blockIdx.x * cols4;
  float s = 0.f;
  for (int c = threadIdx.x; c < cols4; c += blockDim.x) {
    const float4 v = row[c];
    s += (v.x + v.y) + (v.z + v.w);
  }
#pragma unroll
  for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x < 32) {
    s = threadIdx.x < blockDim.x / 32 ? part[threadIdx.x] : 0.f;
#pragma unroll
    for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (threadIdx.x == 0) out[blockIdx.x] = s;
  }
}

// ---------------------------------------------------------------------------------------------------------------

__global__ void fill_f(float* p, size_t n, float v) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = v * (float)((i * 2654435761u) % 1009) * 1e-3f + 1e-3f;
}
__global__ void fill_bf_raw(uint16_t* p, size_t n) {  // bf16 bit patterns of small positive and negative values
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const float f = ((float)((i * 2654435761u) % 2001) - 1000.f) * 1e-3f;
    p[i] = (uint16_t)(__float_as_uint(f) >> 16);
  }
}
// A multiplicative hash gives well-spread, data-dependent next indices.
__global__ void fill_next(uint32_t* p, size_t n, uint32_t mask) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint32_t x = (uint32_t)i * 2654435761u + 0x9e3779b9u;
    x ^= x >> 16;
    x *= 0x85ebca6bu;
    x ^= x >> 13;
    p[i] = x & mask;
  }
}

struct Timer {
  cudaEvent_t a, b;
  Timer() {
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
  }
};

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 1;
  // Case selection: "a,b" runs only a and b; "-a,-b" runs all but a and b.
  std::vector<std::string> chosen;
  bool exclude = false;
  if (argc > 2) {
    std::string list = argv[2];
    for (std::size_t start = 0; start <= list.size();) {
      std::size_t end = list.find(',', start);
      if (end == std::string::npos) end = list.size();
      std::string name = list.substr(start, end - start);
      if (!name.empty() && name[0] == '-') {
        exclude = true;
        name.erase(0, 1);
      }
      if (!name.empty()) chosen.push_back(name);
      start = end + 1;
    }
  }
  auto selected = [&](const char* name) {
    bool listed = false;
    for (const auto& c : chosen) listed = listed || c == name;
    return chosen.empty() || listed != exclude;
  };
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;

  const size_t GiB = 1ull << 30;
  float* fa;  // 2 GiB of positive floats: stride-2 source, register_limited and pipeline input, int_index_math input
  CK(cudaMalloc(&fa, 2 * GiB));
  fill_f<<<4096, 256>>>(fa, 2 * GiB / 4, 1.0f);
  float* fb;  // 1 GiB: the pipeline's intermediate, int_index_math's output
  CK(cudaMalloc(&fb, GiB));
  CK(cudaMemset(fb, 0, GiB));
  uint16_t* bf;  // 1 GiB of bf16 bits: fp8_convert_scale's input
  CK(cudaMalloc(&bf, GiB));
  fill_bf_raw<<<4096, 256>>>(bf, GiB / 2);
  uint8_t* f8;  // 512 MiB: fp8_convert_scale's output
  CK(cudaMalloc(&f8, GiB / 2));
  const uint32_t nnext = 1u << 19;  // 2 MiB chain table: L2-resident, 8x an SM's L1
  uint32_t* next;
  CK(cudaMalloc(&next, nnext * 4ull));
  fill_next<<<512, 256>>>(next, nnext, nnext - 1);
  float* out;
  const size_t out_bytes = 256ull << 20;
  CK(cudaMalloc(&out, out_bytes));
  CK(cudaMemset(out, 0, out_bytes));
  {
    float h[256];
    for (int i = 0; i < 256; ++i) h[i] = 0.25f + (float)((i * 37) % 101) * 1e-3f;
    CK(cudaMemcpyToSymbol(ctab, h, sizeof h));
  }
  CK(cudaFuncSetAttribute(l1_thrash, cudaFuncAttributePreferredSharedMemoryCarveout, 0));  // all of it L1
  CK(cudaDeviceSynchronize());

  Timer tm;
  // Launches run inside named ranges; each prints its CUDA-event time so plain runs show the designed behaviour.
  auto run = [&](const char* name, double work, const char* unit, auto&& body) {
    if (!selected(name)) return;
    for (int r = 0; r < reps; ++r) {
      nvtxRangePushA(name);
      CK(cudaEventRecord(tm.a));
      body();
      CK(cudaEventRecord(tm.b));
      CK(cudaGetLastError());
      CK(cudaEventSynchronize(tm.b));
      nvtxRangePop();
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, tm.a, tm.b));
      const double rate = work / ms / 1e6;
      std::printf("%-28s %9.3f ms  %8.1f %s\n", name, ms, rate, unit);
    }
  };

  // 4 blocks of 512 per SM, 4 waves; 512 rounds of a 128-FMA chain (~0.3 us per round).
  run("barrier_one_warp_works", 0, "-", [&] { barrier_one_warp_works<<<sms * 16, 512>>>(out, 512, 128); });
  // 2 blocks of 1024 per SM, 3 waves; the slowest warp follows 2*1024 dependent L2 loads.
  run("imbalance_in_block", 0, "-",
      [&] { imbalance_in_block<<<sms * 6, 1024>>>(next, (uint32_t*)out, nnext - 1, 2); });
  // 2 waves of 8 blocks of 256 per SM; 256 fenced stores per thread.
  run("membar_fence_per_store", 0, "-", [&] { membar_fence_per_store<<<sms * 16, 256>>>(out, 256); });
  // 2 blocks of 1024 per SM, 3 waves; 128 rounds of a 1024-FMA chain (~2 us per round).
  run("nanosleep_spin", 0, "-", [&] { nanosleep_spin<<<sms * 6, 1024>>>(out, 128, 1024); });
  // Reads all 2 GiB (DRAM moves every sector) to use 1 GiB: GB/s below counts the bytes DRAM must move.
  run("partial_coalescing_stride2", 2.0 * GiB, "GB/s",
      [&] { partial_coalescing_stride2<<<sms * 8, 256>>>(fa, out, 2 * GiB / 8); });
  {
    // Input (A,B,C,D,E) = (16,32,40,56,96), 110M 16-bit elements (220 MB each way); output (C,A,D,B,E).
    const long long A = 16, B = 32, C = 40, D = 56, E = 96, n = A * B * C * D * E;
    const long long sA = B * C * D * E, sB = C * D * E, sC = D * E, sD = E;
    const Dims5 p{{C, A, D, B, E}, {sC, sA, sD, sB, 1}};
    run("int_index_math", 4.0 * n, "GB/s", [&] {
      int_index_math<<<(unsigned)((n + 255) / 256), 256>>>((const uint16_t*)fa, (uint16_t*)fb, p, n);
    });
  }
  // 1 block of 256 per SM, 4 waves; 16 x 28 dependent steps of four loads each, within the first GiB of fa.
  run("register_limited", 4.0 * 4 * 16 * 28 * 256.0 * sms * 4, "GB/s",
      [&] { register_limited<<<sms * 4, 256>>>(fa, out, GiB / 4 - 1, 16); });
  // 8 blocks of 256 per SM, 4 waves; 512 loads of 512 B per warp (8.9 GB requested from L1).
  run("l1_thrash", 512.0 * 512 * 8 * sms * 32, "GB/s", [&] { l1_thrash<<<sms * 32, 256>>>((const float4*)fa, out, 512); });
  // 2 waves of 8 blocks of 256 per SM; 256 divergent constant reads per thread.
  run("const_cache_divergent", 0, "-", [&] { const_cache_divergent<<<sms * 16, 256>>>(out, 256); });
  // 1 GiB of bf16 in, 512 MiB of fp8 out.
  run("fp8_convert_scale", 1.5 * GiB, "GB/s",
      [&] { fp8_convert_scale<<<sms * 8, 256>>>((const uint4*)bf, (uint2*)f8, GiB / 16, 0.75f); });
  {
    // x: the first GiB of fa; y: fb (65536 rows of 4096 floats); 3 GiB of DRAM traffic in all (fused: 1 GiB).
    const int rows = 65536, cols = 4096;
    run("pipeline_unfused", 3.0 * GiB, "GB/s", [&] {
      pipe_scale_write<<<sms * 8, 256>>>((const float4*)fa, (float4*)fb, GiB / 16, 1.5f, 0.25f);
      pipe_reduce_rows<<<rows, 256>>>((const float4*)fb, out, cols / 4);
    });
  }
  CK(cudaDeviceSynchronize());
  std::printf("ok\n");
  return 0;
}
