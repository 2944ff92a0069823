// Twenty-eighth held-out diagnosis set: hand-written CUDA programs, each case built to have ONE bottleneck that an
// expert names from Nsight Compute's full report (and, for the program-level cases, the nsys timeline), designed
// without reference to kprof's rules. Six cases are single kernels whose fix lies inside the kernel (one of them at a
// roof with nothing to gain); four are about how the program drives the GPU (an unfused three-kernel chain,
// independent small kernels serialised on one stream, device allocation inside the loop, pageable uploads). What each
// case is designed to show (one line each; the designed labels are also in diag_holdout28_design.md; labels for
// scoring come from the reports alone):
//
//   sensor_outlier_compact    per-tile stream compaction of 2^26 samples (|v| > 0.75 kept), 1024-thread blocks:
//                             every tile, thread 0 alone turns the 1024 keep flags into output offsets in a serial
//                             loop over shared memory while the other 31 warps wait at __syncthreads; a parallel
//                             (warp-shuffle) block scan would do the same in a few dozen instructions
//   agents_publish_seq        2^23 agents advanced one step, each record published for an out-of-process reader as
//                             store record, __threadfence_system(), store sequence word: one system-scope fence per
//                             element; write the records, fence once per block, then the sequence words
//   hilbert_sort_keys         63-bit 3-D Hilbert keys (Skilling's transform, 21 bits per axis, branch-free, fully
//                             unrolled) for 2^24 quantised points: ~700 PTX (~400 SASS) 32/64-bit shift/and/xor
//                             instructions per point for 24 bytes of traffic: bound by the integer (ALU) pipe;
//                             a table-driven encoder
//   adc_channel_linearize     12-bit ADC codes of 256 channels x 2^19 samples, each linearised through its channel's
//                             own 4096-entry float table (16 KiB per thread, 4 MiB per block): random codes, so every
//                             SM's working set is the 4 MiB of tables and the L1 hit rate collapses; tile by channel
//   resample_48k_to_44k1      24-tap polyphase resampler 48 kHz -> 44.1 kHz (147 phases) with its coefficients in
//                             __constant__ memory indexed by each output's phase: the 32 lanes of a warp need 32
//                             different phases, so every coefficient load is serialised in the constant cache
//   tracer_field_f64          gravitational acceleration and potential at 135168 tracers from 4096 stars in double
//                             precision, sources tiled through shared memory, one full wave: at the FP64 pipe's roof,
//                             nothing to gain inside the kernel
//   ndvi_row_means            NDVI of a 16384 x 8192 two-band image, then a cloud mask applied, then per-row NaN-means:
//                             three DRAM-bound kernels passing two 512 MiB float intermediates through DRAM; one fused
//                             kernel reads the bands and the mask once
//   seir_region_ensembles     8 independent SEIR ensemble forecasts (8-24 blocks each, 124 blocks in all) launched
//                             back to back on one stream: each kernel holds a few SMs for ~0.15 ms, the rest idle;
//                             one stream per region (or one batched launch) would run them together
//   edge_histogram_frames     8 frames of Sobel magnitude + 64-bin histogram, each frame cudaMalloc'ing and
//                             cudaFree'ing its 32 MiB scratch around ~30 us of kernels: the host's allocation calls
//                             (and cudaFree's implicit synchronisation) dominate; allocate the scratch once
//   ct_slab_upload            6 CT slabs (16 MiB of int16 each) copied with cudaMemcpyAsync from std::vector (pageable)
//                             memory, each before a ~10 us window/level kernel: staged copies at pageable speed, the
//                             host blocked, nothing overlaps; pin the host buffer (and double-buffer)
//
//   diag_holdout28 [reps] [cases]   reps: launches of each case (default 1); cases: comma-separated names to run
//                                    (default all), or names each prefixed with '-' to leave out
//
// Every case runs in its own NVTX push/pop range named after it, holding only that case's kernels, copies, memsets,
// allocation calls and waits. Inputs are filled first, outside any range; every kernel is loaded
// (cudaFuncGetAttributes) and a launch, a memset, pinned and pageable copies both ways and a cudaMalloc/cudaFree pair
// are warmed up before the first range. After its launches each case checks its results once on the host (a CPU
// reference on a sample, or an invariant) and prints "<case>: ok" or "<case>: MISMATCH ...". 3 GiB of device memory
// (three 1 GiB buffers shared by the cases) plus the 32 MiB scratch the histogram case allocates in its range; 96 MiB
// of pageable host memory for the CT slabs and a 4 KiB pinned warm-up buffer.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <cmath>
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

constexpr unsigned FULL = 0xffffffffu;

__host__ __device__ inline unsigned hash_u32(size_t i, unsigned seed) {
  unsigned h = (unsigned)i ^ ((unsigned)(i >> 32) * 0x9e3779b9u) ^ (seed * 0x27d4eb2fu);
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}
__host__ __device__ inline float hash_unit(size_t i, unsigned seed) {  // in [-1, 1)
  return (float)(hash_u32(i, seed) & 0xffffffu) * (2.0f / 16777216.0f) - 1.0f;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(FULL, v, o);
  return v;
}
__device__ __forceinline__ int warp_sum_int(int v) {
#pragma unroll
  for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(FULL, v, o);
  return v;
}

// ---------------------------------------------------------------------------------------------------------------
// sensor_outlier_compact: keep the samples with |v| > 0.75 of each 1024-sample tile, in order, at the tile's start in
// the output, with the tile's count (the first phase of a two-phase compaction).

constexpr int OC_TILE = 1024;
constexpr int OC_TILES = 1 << 16;                      // 2^26 samples, 256 MiB
constexpr size_t OC_N = (size_t)OC_TILE * OC_TILES;
constexpr int OC_GRID = 264;                           // two 1024-thread blocks per SM on an H200
constexpr float OC_THRESH = 0.75f;
// Per tile: every thread loads its sample and writes its keep flag; thread 0 walks the 1024 flags in order writing
// each sample's output offset (a 1024-long chain of dependent adds through shared memory) while the other 1023
// threads wait at the second barrier; then every kept sample is written at its offset.
__global__ void __launch_bounds__(OC_TILE, 2) compact_tiles(const float* __restrict__ in, float* __restrict__ out,
                                                            int* __restrict__ count) {
  __shared__ int s_flag[OC_TILE];
  __shared__ int s_off[OC_TILE];
  __shared__ int s_total;
  for (int tile = blockIdx.x; tile < OC_TILES; tile += gridDim.x) {
    const size_t base = (size_t)tile * OC_TILE;
    const float v = in[base + threadIdx.x];
    const int keep = fabsf(v) > OC_THRESH ? 1 : 0;
    s_flag[threadIdx.x] = keep;
    __syncthreads();
    if (threadIdx.x == 0) {
      int run = 0;
      for (int i = 0; i < OC_TILE; ++i) {
        s_off[i] = run;
        run += s_flag[i];
      }
      s_total = run;
    }
    __syncthreads();
    if (keep) out[base + s_off[threadIdx.x]] = v;
    if (threadIdx.x == 0) count[tile] = s_total;
    // No third barrier needed: the next tile's writes of s_flag / s_off come after this tile's reads in every thread
    // (s_off is written only by thread 0 after the next first barrier).
  }
}

// ---------------------------------------------------------------------------------------------------------------
// agents_publish_seq: one explicit step of 2^23 agents (position += dt * velocity); each new record is published to a
// reader in another process (a visualiser mapping the buffer through CUDA IPC) as record, fence, sequence word.

constexpr int PB_N = 1 << 23;          // agents: float4 position and velocity in, float4 record + 4-byte word out
constexpr int PB_GRID = 132 * 8;       // 8 blocks of 256 per SM, grid-stride
constexpr float PB_DT = 1.0f / 120.0f;
constexpr unsigned PB_EPOCH = 7u;
__global__ void __launch_bounds__(256) publish_agents(const float4* __restrict__ pos, const float4* __restrict__ vel,
                                                      float4* __restrict__ rec, unsigned* __restrict__ seq) {
  for (int i = blockIdx.x * 256 + threadIdx.x; i < PB_N; i += gridDim.x * 256) {
    const float4 p = pos[i], v = vel[i];
    rec[i] = make_float4(fmaf(PB_DT, v.x, p.x), fmaf(PB_DT, v.y, p.y), fmaf(PB_DT, v.z, p.z), p.w);
    __threadfence_system();  // the record must be visible (system-wide) before its sequence word says it is new
    seq[i] = PB_EPOCH;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// hilbert_sort_keys: the 63-bit Hilbert index of each of 2^24 points quantised to a 2^21 grid per axis (the sort key
// of an octree / SPH neighbour search), by Skilling's "axes to transpose" transform, written branch-free.

constexpr int HB_N = 1 << 24;  // points: uint4 (x, y, z, id) in, uint64 key out
constexpr int HB_BITS = 21;
__host__ __device__ inline uint64_t spread3(unsigned v) {  // bit k of v -> bit 3k
  uint64_t x = v & 0x1fffffu;
  x = (x | x << 32) & 0x1f00000000ffffull;
  x = (x | x << 16) & 0x1f0000ff0000ffull;
  x = (x | x << 8) & 0x100f00f00f00f00full;
  x = (x | x << 4) & 0x10c30c30c30c30c3ull;
  x = (x | x << 2) & 0x1249249249249249ull;
  return x;
}
template <int B>
__host__ __device__ inline uint64_t hilbert3(unsigned x0, unsigned x1, unsigned x2) {
  // Inverse undo, from the top bit down: where bit q of X[i] is set, invert the low bits of X[0]; else exchange the
  // low bits of X[0] and X[i]. Masks instead of branches (every lane takes the same path).
#pragma unroll
  for (int q = B - 1; q > 0; --q) {
    const unsigned P = (1u << q) - 1u;
    x0 ^= P & (0u - ((x0 >> q) & 1u));
    {
      const unsigned m = 0u - ((x1 >> q) & 1u);
      const unsigned t = (x0 ^ x1) & P & ~m;
      x0 ^= (P & m) ^ t;
      x1 ^= t;
    }
    {
      const unsigned m = 0u - ((x2 >> q) & 1u);
      const unsigned t = (x0 ^ x2) & P & ~m;
      x0 ^= (P & m) ^ t;
      x2 ^= t;
    }
  }
  // Gray encode.
  x1 ^= x0;
  x2 ^= x1;
  unsigned t = 0;
#pragma unroll
  for (int q = B - 1; q > 0; --q) t ^= ((1u << q) - 1u) & (0u - ((x2 >> q) & 1u));
  x0 ^= t;
  x1 ^= t;
  x2 ^= t;
  // Interleave the transposed bits, X[0] most significant.
  return (spread3(x0) << 2) | (spread3(x1) << 1) | spread3(x2);
}
__global__ void __launch_bounds__(256) hilbert_keys(const uint4* __restrict__ pts,
                                                    unsigned long long* __restrict__ key) {
  const int i = blockIdx.x * 256 + threadIdx.x;
  const uint4 p = pts[i];
  key[i] = hilbert3<HB_BITS>(p.x, p.y, p.z);
}

// ---------------------------------------------------------------------------------------------------------------
// adc_channel_linearize: a 256-channel acquisition card's 12-bit codes ([sample][channel], uint16) linearised to
// calibrated floats through one 4096-entry table per channel (4 MiB of tables, [channel][code]).

constexpr int AD_CH = 256, AD_CODES = 4096;
constexpr int AD_T = 1 << 19;          // samples per channel: 2^27 codes (256 MiB) in, 512 MiB of floats out
constexpr int AD_GRID = 132 * 8;
// Thread = channel (threadIdx.x), block = a stride of sample rows. Each thread looks up its own 16 KiB table at a
// data-dependent code: the 32 lanes of a warp touch 32 different tables, and every block on an SM uses all 256 tables,
// so the SM's working set is the whole 4 MiB (L1: 256 KiB).
__global__ void __launch_bounds__(256) adc_linearize(const unsigned short* __restrict__ code,
                                                     const float* __restrict__ lut, float* __restrict__ out) {
  const int c = threadIdx.x;
  const float* tab = lut + (size_t)c * AD_CODES;
#pragma unroll 4
  for (int t = blockIdx.x; t < AD_T; t += gridDim.x) {
    const size_t i = (size_t)t * AD_CH + c;
    out[i] = tab[code[i]];
  }
}
static float ad_lut_value(int c, int k) {  // per-channel gain, offset and a small quadratic non-linearity (volts)
  const double g = 1.0 + 0.02 * hash_unit((size_t)c, 401u), o = 0.01 * hash_unit((size_t)c, 402u);
  const double nl = 0.003 * hash_unit((size_t)c, 403u);
  const double u = k / 4095.0;
  return (float)(o + g * (2.0 * u - 1.0) + nl * (u * u - u));
}

// ---------------------------------------------------------------------------------------------------------------
// resample_48k_to_44k1: a 24-tap-per-phase polyphase FIR resampler, 48 kHz -> 44.1 kHz (up 147, down 160), the 147 x 24
// coefficient table in __constant__ memory.

constexpr int RS_L = 147, RS_M = 160, RS_TAPS = 24;
constexpr int RS_NY = 1 << 24;  // output samples (64 MiB); the input (with 23 samples of history) ~70 MiB
constexpr size_t RS_NX = (size_t)(((unsigned long long)(RS_NY - 1) * RS_M) / RS_L) + RS_TAPS;
__constant__ float c_rs_h[RS_L * RS_TAPS];  // [phase][tap], 13.8 KiB
// Output n sits at n * 160 / 147 input samples: base = n * 160 / 147, phase p = n * 160 mod 147. Consecutive outputs
// step the phase by 13 (mod 147), so a warp's 32 lanes read 32 different coefficient rows: each of the 24 c[p][k]
// loads is an LDC with 32 distinct addresses, which the constant cache serves one address at a time.
__global__ void __launch_bounds__(256) polyphase_resample(const float* __restrict__ x, float* __restrict__ y) {
  const int n = blockIdx.x * 256 + threadIdx.x;
  const unsigned pos = (unsigned)n * RS_M;  // < 2^32 for n < 2^24
  const unsigned base = pos / RS_L, p = pos - base * RS_L;
  const int row = (int)p * RS_TAPS;
  const float* xs = x + base + (RS_TAPS - 1);  // x[base + 23 - k] is the input k samples back
  float acc0 = 0.f, acc1 = 0.f;
#pragma unroll
  for (int k = 0; k < RS_TAPS; k += 2) {
    acc0 = fmaf(c_rs_h[row + k], xs[-k], acc0);
    acc1 = fmaf(c_rs_h[row + k + 1], xs[-k - 1], acc1);
  }
  y[n] = acc0 + acc1;
}

// ---------------------------------------------------------------------------------------------------------------
// tracer_field_f64: acceleration and potential (G = 1, Plummer softening) at 135168 tracer particles from 4096 stars,
// in double precision (the orbit integrator that consumes it accumulates over 10^6 steps).

struct __align__(32) dvec4 {  // x, y, z, w (CUDA 13 deprecates double4)
  double x, y, z, w;
};
constexpr int NB_S = 4096;              // stars: dvec4 (x, y, z, m), 128 KiB
constexpr int NB_T = 132 * 4 * 256;     // tracers: one full wave of 4 blocks of 256 per SM
constexpr double NB_EPS2 = 1e-4;
// Classic shared-memory tiling (GPU Gems 3, ch. 31): 256 stars per tile, one star broadcast to the warp per
// interaction: 3 DADD, 3 DFMA, the double rsqrt (MUFU.RSQ64H + Newton steps), 3 DMUL, 4 accumulating DFMA/DADD.
__global__ void __launch_bounds__(256, 4) tracer_accel_f64(const dvec4* __restrict__ star,
                                                           const dvec4* __restrict__ tracer,
                                                           dvec4* __restrict__ out) {
  __shared__ dvec4 s_star[256];
  const int i = blockIdx.x * 256 + threadIdx.x;
  const dvec4 p = tracer[i];
  double ax = 0.0, ay = 0.0, az = 0.0, phi = 0.0;
  for (int j0 = 0; j0 < NB_S; j0 += 256) {
    __syncthreads();
    s_star[threadIdx.x] = star[j0 + threadIdx.x];
    __syncthreads();
#pragma unroll 4
    for (int j = 0; j < 256; ++j) {
      const dvec4 q = s_star[j];
      const double dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
      const double r2 = fma(dx, dx, fma(dy, dy, fma(dz, dz, NB_EPS2)));
      const double inv = rsqrt(r2);
      const double minv = q.w * inv;
      const double minv3 = minv * inv * inv;
      ax = fma(minv3, dx, ax);
      ay = fma(minv3, dy, ay);
      az = fma(minv3, dz, az);
      phi -= minv;
    }
  }
  out[i] = dvec4{ax, ay, az, phi};
}
__host__ __device__ inline dvec4 nb_star(int j) {
  return dvec4{(double)hash_unit((size_t)j, 501u), (double)hash_unit((size_t)j, 502u),
               (double)hash_unit((size_t)j, 503u), (1.0 + 0.5 * hash_unit((size_t)j, 504u)) / NB_S};
}
__host__ __device__ inline dvec4 nb_tracer(int i) {
  return dvec4{1.5 * hash_unit((size_t)i, 511u), 1.5 * hash_unit((size_t)i, 512u),
               1.5 * hash_unit((size_t)i, 513u), 0.0};
}

// ---------------------------------------------------------------------------------------------------------------
// ndvi_row_means: per-row mean NDVI of a 16384 x 8192 scene (red and NIR bands, uint16 digital numbers) over the
// pixels the cloud mask leaves, written as three kernels: NDVI image, masked image (NaN = cloud), row NaN-mean.

constexpr int NV_W = 16384, NV_H = 8192;
constexpr size_t NV_PIX = (size_t)NV_W * NV_H;  // 2^27 pixels
__host__ __device__ inline float ndvi_of(unsigned red, unsigned nir) {
  return (float)((int)nir - (int)red) / (float)(nir + red);
}
__global__ void __launch_bounds__(256) ndvi_from_bands(const ushort4* __restrict__ red, const ushort4* __restrict__ nir,
                                                       float4* __restrict__ ndvi) {
  const size_t i = blockIdx.x * (size_t)256 + threadIdx.x;
  const ushort4 r = red[i], n = nir[i];
  ndvi[i] = make_float4(ndvi_of(r.x, n.x), ndvi_of(r.y, n.y), ndvi_of(r.z, n.z), ndvi_of(r.w, n.w));
}
__global__ void __launch_bounds__(256) apply_cloud_mask(const float4* __restrict__ ndvi,
                                                        const uchar4* __restrict__ cloud, float4* __restrict__ masked) {
  const size_t i = blockIdx.x * (size_t)256 + threadIdx.x;
  const float nan = __int_as_float(0x7fffffff);
  float4 v = ndvi[i];
  const uchar4 m = cloud[i];
  v.x = m.x ? nan : v.x;
  v.y = m.y ? nan : v.y;
  v.z = m.z ? nan : v.z;
  v.w = m.w ? nan : v.w;
  masked[i] = v;
}
// One block per row: 16 float4 per thread, sum and count of the non-NaN values, block reduction.
__global__ void __launch_bounds__(256) row_nanmean(const float4* __restrict__ img, float* __restrict__ mean) {
  __shared__ float s_s[8];
  __shared__ int s_c[8];
  const float4* r = img + (size_t)blockIdx.x * (NV_W / 4);
  float s = 0.f;
  int c = 0;
#pragma unroll
  for (int j = 0; j < NV_W / 4 / 256; ++j) {
    const float4 v = r[threadIdx.x + 256 * j];
    if (v.x == v.x) s += v.x, ++c;
    if (v.y == v.y) s += v.y, ++c;
    if (v.z == v.z) s += v.z, ++c;
    if (v.w == v.w) s += v.w, ++c;
  }
  s = warp_sum(s);
  c = warp_sum_int(c);
  if ((threadIdx.x & 31) == 0) s_s[threadIdx.x >> 5] = s, s_c[threadIdx.x >> 5] = c;
  __syncthreads();
  if (threadIdx.x < 32) {
    s = warp_sum(threadIdx.x < 8 ? s_s[threadIdx.x] : 0.f);
    c = warp_sum_int(threadIdx.x < 8 ? s_c[threadIdx.x] : 0);
    if (threadIdx.x == 0) mean[blockIdx.x] = c > 0 ? s / (float)c : __int_as_float(0x7fffffff);
  }
}
__host__ __device__ inline unsigned nv_red(size_t i) { return 100u + hash_u32(i, 601u) % 2900u; }
__host__ __device__ inline unsigned nv_nir(size_t i) { return 200u + hash_u32(i, 602u) % 5800u; }
__host__ __device__ inline unsigned nv_cloud(size_t i) { return hash_u32(i, 603u) % 100u < 22u ? 1u : 0u; }

// ---------------------------------------------------------------------------------------------------------------
// seir_region_ensembles: per region, an ensemble of SEIR forecasts (one member per thread, parameters drawn from a hash
// of the member index), RK4 over 150 days; output the final recovered fraction and the peak infected fraction.

constexpr int SE_REGIONS = 8;
constexpr int SE_STEPS = 3000;
constexpr float SE_DT = 0.05f;  // days
constexpr int SE_MEMBERS[SE_REGIONS] = {4096, 3072, 6144, 2048, 4096, 5120, 3072, 4096};  // 124 blocks of 256
struct SeirPar {
  float beta, sigma, gamma, i0;
};
__host__ __device__ inline SeirPar se_par(int region, int m) {
  const size_t k = (size_t)region * 65536 + m;
  SeirPar q;
  q.beta = 0.35f + 0.15f * hash_unit(k, 701u);
  q.sigma = 1.0f / (5.2f + 1.0f * hash_unit(k, 702u));
  q.gamma = 1.0f / (7.0f + 2.0f * hash_unit(k, 703u));
  q.i0 = 1e-4f * (1.5f + hash_unit(k, 704u)) * (float)(region + 1);
  return q;
}
__host__ __device__ inline void se_deriv(float s, float e, float i, const SeirPar& q, float& ds, float& de, float& di) {
  const float inf = q.beta * s * i;
  ds = -inf;
  de = fmaf(-q.sigma, e, inf);
  di = fmaf(q.sigma, e, -q.gamma * i);
}
__host__ __device__ inline void se_step(float& s, float& e, float& i, const SeirPar& q) {
  const float h2 = 0.5f * SE_DT, h6 = SE_DT / 6.0f;
  float s1, e1, i1, s2, e2, i2, s3, e3, i3, s4, e4, i4;
  se_deriv(s, e, i, q, s1, e1, i1);
  se_deriv(fmaf(h2, s1, s), fmaf(h2, e1, e), fmaf(h2, i1, i), q, s2, e2, i2);
  se_deriv(fmaf(h2, s2, s), fmaf(h2, e2, e), fmaf(h2, i2, i), q, s3, e3, i3);
  se_deriv(fmaf(SE_DT, s3, s), fmaf(SE_DT, e3, e), fmaf(SE_DT, i3, i), q, s4, e4, i4);
  s = fmaf(h6, fmaf(2.0f, s2 + s3, s1 + s4), s);
  e = fmaf(h6, fmaf(2.0f, e2 + e3, e1 + e4), e);
  i = fmaf(h6, fmaf(2.0f, i2 + i3, i1 + i4), i);
}
__global__ void __launch_bounds__(256) seir_ensemble(int region, int members, float2* __restrict__ out) {
  const int m = blockIdx.x * 256 + threadIdx.x;
  if (m >= members) return;
  const SeirPar q = se_par(region, m);
  float s = 1.0f - q.i0, e = 0.f, i = q.i0, peak = q.i0;
#pragma unroll 2
  for (int k = 0; k < SE_STEPS; ++k) {
    se_step(s, e, i, q);
    peak = fmaxf(peak, i);
  }
  out[m] = make_float2(1.0f - s - e - i, peak);
}

// ---------------------------------------------------------------------------------------------------------------
// edge_histogram_frames: per 4096 x 4096 8-bit frame, Sobel gradient magnitude |gx| + |gy| (uint16 scratch), then a
// 64-bin histogram of it (magnitude >> 5).

constexpr int ED_W = 4096, ED_H = 4096, ED_FRAMES = 8;
constexpr size_t ED_PIX = (size_t)ED_W * ED_H;
__host__ __device__ inline unsigned ed_pixel(int f, int x, int y) {  // noise on a ramp
  return (hash_u32((size_t)f * ED_PIX + (size_t)y * ED_W + x, 801u) & 127u) + ((unsigned)(x + 2 * y) & 127u);
}
__global__ void __launch_bounds__(256) sobel_magnitude(const unsigned char* __restrict__ f,
                                                       unsigned short* __restrict__ g) {
  const int x = blockIdx.x * 32 + (threadIdx.x & 31), y = blockIdx.y * 8 + (threadIdx.x >> 5);
  const size_t o = (size_t)y * ED_W + x;
  if (x == 0 || y == 0 || x == ED_W - 1 || y == ED_H - 1) {
    g[o] = 0;
    return;
  }
  const unsigned char* p = f + o;
  const int a = p[-ED_W - 1], b = p[-ED_W], c = p[-ED_W + 1];
  const int d = p[-1], e = p[1];
  const int h = p[ED_W - 1], k = p[ED_W], l = p[ED_W + 1];
  const int gx = (c + 2 * e + l) - (a + 2 * d + h);
  const int gy = (h + 2 * k + l) - (a + 2 * b + c);
  g[o] = (unsigned short)(abs(gx) + abs(gy));
}
__global__ void __launch_bounds__(256) magnitude_hist64(const uint4* __restrict__ g, int* __restrict__ hist) {
  __shared__ int s_h[64];
  if (threadIdx.x < 64) s_h[threadIdx.x] = 0;
  __syncthreads();
  for (size_t i = blockIdx.x * (size_t)256 + threadIdx.x; i < ED_PIX / 8; i += (size_t)gridDim.x * 256) {
    const uint4 v = g[i];
    const unsigned w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      atomicAdd(&s_h[(w[j] & 0xffffu) >> 5], 1);
      atomicAdd(&s_h[(w[j] >> 16) >> 5], 1);
    }
  }
  __syncthreads();
  if (threadIdx.x < 64) atomicAdd(&hist[threadIdx.x], s_h[threadIdx.x]);
}

// ---------------------------------------------------------------------------------------------------------------
// ct_slab_upload: 512 x 512 x 32-voxel CT slabs of Hounsfield units (int16) from the reconstruction on the host,
// windowed (level 40, width 400) to 8-bit display values on the GPU.

constexpr int CT_SLABS = 6;
constexpr size_t CT_VOX = 512ull * 512 * 32;  // 8 M voxels, 16 MiB of int16 per slab
__host__ __device__ inline int ct_hu(size_t i) { return (int)(hash_u32(i, 901u) % 3000u) - 1000; }
__host__ __device__ inline unsigned char ct_window(int hu) {
  const int v = (hu + 160) * 255 / 400;  // level 40, width 400: [-160, 240] -> [0, 255]
  return (unsigned char)(v < 0 ? 0 : (v > 255 ? 255 : v));
}
__global__ void __launch_bounds__(256) ct_window_level(const int4* __restrict__ hu, uint2* __restrict__ out) {
  const size_t i = blockIdx.x * (size_t)256 + threadIdx.x;  // 8 voxels per thread
  const int4 v = hu[i];
  const int w[4] = {v.x, v.y, v.z, v.w};
  unsigned o[2] = {0u, 0u};
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const int lo = (int)(short)(w[j] & 0xffff), hi = w[j] >> 16;  // little-endian int16 pairs
    o[j >> 1] |= ((unsigned)ct_window(lo) | ((unsigned)ct_window(hi) << 8)) << (16 * (j & 1));
  }
  out[i] = make_uint2(o[0], o[1]);
}

// ---------------------------------------------------------------------------------------------------------------
// Input fills (outside any range) and host-side helpers.

__global__ void fill_f32(float* p, size_t n, float scale, float offset, unsigned seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = fmaf(scale, hash_unit(i, seed), offset);
}
__global__ void fill_coords(uint4* p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = make_uint4(hash_u32(i, 301u) & 0x1fffffu, hash_u32(i, 302u) & 0x1fffffu, hash_u32(i, 303u) & 0x1fffffu,
                      (unsigned)i);
}
__global__ void fill_adc_codes(unsigned short* p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = (unsigned short)(hash_u32(i, 404u) & 4095u);
}
__global__ void fill_stars_tracers(dvec4* star, dvec4* tracer) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < NB_T; i += gridDim.x * blockDim.x) {
    if (i < NB_S) star[i] = nb_star(i);
    tracer[i] = nb_tracer(i);
  }
}
__global__ void fill_bands(unsigned short* red, unsigned short* nir, unsigned char* cloud) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < NV_PIX; i += (size_t)gridDim.x * blockDim.x) {
    red[i] = (unsigned short)nv_red(i);
    nir[i] = (unsigned short)nv_nir(i);
    cloud[i] = (unsigned char)nv_cloud(i);
  }
}
__global__ void fill_frames(unsigned char* f) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < ED_PIX * ED_FRAMES;
       i += (size_t)gridDim.x * blockDim.x) {
    const int fr = (int)(i / ED_PIX);
    const size_t r = i % ED_PIX;
    f[i] = (unsigned char)ed_pixel(fr, (int)(r % ED_W), (int)(r / ED_W));
  }
}
__global__ void warmup_kernel(const int* src, int* dst) {
  if (threadIdx.x == 0 && blockIdx.x == 0 && dst != nullptr) *dst = src != nullptr ? *src : 0;
}

template <class T>
static T* at(void* base, size_t byte_offset) {
  return reinterpret_cast<T*>(static_cast<char*>(base) + byte_offset);
}
template <class T>
static std::vector<T> d2h(const T* p, size_t count) {
  std::vector<T> h(count);
  CK(cudaMemcpy(h.data(), p, count * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}
static bool close_to(double got, double ref, double atol, double rtol) {
  return std::isfinite(got) && std::fabs(got - ref) <= atol + rtol * std::fabs(ref);
}
static unsigned ed_sobel_host(const unsigned char* f, int x, int y) {
  if (x == 0 || y == 0 || x == ED_W - 1 || y == ED_H - 1) return 0;
  auto P = [&](int dx, int dy) { return (int)f[(size_t)(y + dy) * ED_W + (x + dx)]; };
  const int gx = (P(1, -1) + 2 * P(1, 0) + P(1, 1)) - (P(-1, -1) + 2 * P(-1, 0) + P(-1, 1));
  const int gy = (P(-1, 1) + 2 * P(0, 1) + P(1, 1)) - (P(-1, -1) + 2 * P(0, -1) + P(1, -1));
  return (unsigned)(std::abs(gx) + std::abs(gy));
}

// The cases, in the order they run.
static const char* const kCases[] = {
    "sensor_outlier_compact", "agents_publish_seq", "hilbert_sort_keys",     "adc_channel_linearize",
    "resample_48k_to_44k1",   "tracer_field_f64",   "ndvi_row_means",        "seir_region_ensembles",
    "edge_histogram_frames",  "ct_slab_upload"};

struct Timer {
  cudaEvent_t a, b;
  Timer() {
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
  }
  ~Timer() {
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
};

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 1;
  if (reps < 1) {
    std::fprintf(stderr, "usage: %s [reps >= 1] [cases]\n", argv[0]);
    return 2;
  }
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
      if (!name.empty()) {
        bool known = false;
        for (const char* c : kCases) known = known || name == c;
        if (!known) {
          std::fprintf(stderr, "unknown case '%s'; cases:", name.c_str());
          for (const char* c : kCases) std::fprintf(stderr, " %s", c);
          std::fprintf(stderr, "\n");
          return 2;
        }
        chosen.push_back(name);
      }
      start = end + 1;
    }
  }
  auto selected = [&](const char* name) {
    bool listed = false;
    for (const auto& c : chosen) listed = listed || c == name;
    return chosen.empty() || listed != exclude;
  };

  {
    // Load every kernel now: with lazy module loading (the default) each would otherwise be loaded at its first
    // launch, which for most of them is inside a range.
    const void* kernels[] = {(const void*)compact_tiles,    (const void*)publish_agents,
                             (const void*)hilbert_keys,     (const void*)adc_linearize,
                             (const void*)polyphase_resample, (const void*)tracer_accel_f64,
                             (const void*)ndvi_from_bands,  (const void*)apply_cloud_mask,
                             (const void*)row_nanmean,      (const void*)seir_ensemble,
                             (const void*)sobel_magnitude,  (const void*)magnitude_hist64,
                             (const void*)ct_window_level,  (const void*)fill_f32,
                             (const void*)fill_coords,      (const void*)fill_adc_codes,
                             (const void*)fill_stars_tracers, (const void*)fill_bands,
                             (const void*)fill_frames,      (const void*)warmup_kernel};
    for (const void* k : kernels) {
      cudaFuncAttributes fa;
      CK(cudaFuncGetAttributes(&fa, k));
    }
  }

  const size_t MiB = 1ull << 20;
  // Device buffers shared by the cases (three of 1 GiB); each case fills what it reads before its range.
  void *B0, *B1, *B2;
  CK(cudaMalloc(&B0, 1024 * MiB));
  CK(cudaMalloc(&B1, 1024 * MiB));
  CK(cudaMalloc(&B2, 1024 * MiB));
  auto fill32 = [&](float* p, size_t n, float scale, float offset, unsigned seed) {
    fill_f32<<<4096, 256>>>(p, n, scale, offset, seed);
  };
  // The value fill_f32 writes at index i, computed on the host (the same fma on the same hash).
  auto fill_value = [](size_t i, float scale, float offset, unsigned seed) {
    return std::fmaf(scale, hash_unit(i, seed), offset);
  };

  {
    // Warm-up outside any range: a launch, a memset, pinned and pageable copies both ways and a cudaMalloc/cudaFree
    // pair, so that first-use costs (staging buffers, allocator paths) land nowhere near a case.
    int* hw = nullptr;
    CK(cudaMallocHost(&hw, 4096));
    std::vector<int> pageable(1024, 3);
    warmup_kernel<<<1, 32>>>(nullptr, at<int>(B2, 0));
    CK(cudaMemsetAsync(B2, 0, 4096, 0));
    CK(cudaMemcpyAsync(hw, B2, 2048, cudaMemcpyDeviceToHost, 0));
    CK(cudaMemcpyAsync(B2, hw, 2048, cudaMemcpyHostToDevice, 0));
    CK(cudaMemcpyAsync(at<int>(B2, 8192), pageable.data(), 4096, cudaMemcpyHostToDevice, 0));
    CK(cudaMemcpy(pageable.data(), B2, 4096, cudaMemcpyDeviceToHost));
    void* tmp = nullptr;
    CK(cudaMalloc(&tmp, 32 * MiB));
    warmup_kernel<<<1, 32>>>(nullptr, static_cast<int*>(tmp));
    CK(cudaFree(tmp));
    CK(cudaDeviceSynchronize());
    CK(cudaFreeHost(hw));
  }

  Timer tm;
  int failures = 0;
  // Launches run inside named ranges; each prints its CUDA-event time (recorded on the legacy default stream) so
  // plain runs show the designed behaviour.
  auto once = [&](const char* name, double work, const char* unit, auto&& body) {
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
  };
  auto run = [&](const char* name, double work, const char* unit, auto&& body) {
    for (int r = 0; r < reps; ++r) once(name, work, unit, body);
  };
  auto report = [&](const char* name, bool ok, const std::string& detail) {
    if (ok) {
      std::printf("%s: ok\n", name);
    } else {
      std::printf("%s: MISMATCH %s\n", name, detail.c_str());
      ++failures;
    }
  };
  char msg[256] = "";

  // ---- sensor_outlier_compact: 2^26 samples in [-1, 1) (256 MiB) in B0, the per-tile outputs in B1, counts in B2.
  if (selected("sensor_outlier_compact")) {
    float* in = at<float>(B0, 0);
    float* out = at<float>(B1, 0);
    int* cnt = at<int>(B2, 0);
    fill32(in, OC_N, 1.0f, 0.0f, 11u);
    CK(cudaDeviceSynchronize());
    // Rate: input samples per second, in billions.
    run("sensor_outlier_compact", (double)OC_N, "Gsample/s",
        [&] { compact_tiles<<<OC_GRID, OC_TILE>>>(in, out, cnt); });
    bool ok = true;
    const auto hc = d2h(cnt, OC_TILES);
    std::vector<float> seg(OC_TILE);
    for (int s = 0; s < 2048 && ok; ++s) {
      const int tile = (int)((s * 2654435761u + 7u) % (unsigned)OC_TILES);
      const size_t base = (size_t)tile * OC_TILE;
      CK(cudaMemcpy(seg.data(), out + base, OC_TILE * sizeof(float), cudaMemcpyDeviceToHost));
      int k = 0;
      for (int j = 0; j < OC_TILE && ok; ++j) {
        const float v = fill_value(base + j, 1.0f, 0.0f, 11u);
        if (std::fabs(v) > OC_THRESH) {
          if (seg[k] != v) {
            std::snprintf(msg, sizeof msg, "tile %d kept #%d: %g vs %g", tile, k, (double)seg[k], (double)v);
            ok = false;
          }
          ++k;
        }
      }
      if (ok && hc[tile] != k) {
        std::snprintf(msg, sizeof msg, "tile %d count %d vs %d", tile, hc[tile], k);
        ok = false;
      }
    }
    report("sensor_outlier_compact", ok, msg);
  }

  // ---- agents_publish_seq: positions and velocities (128 MiB each) in B0, records in B1, sequence words in B2.
  if (selected("agents_publish_seq")) {
    float4* pos = at<float4>(B0, 0);
    float4* vel = at<float4>(B0, 128 * MiB);
    float4* rec = at<float4>(B1, 0);
    unsigned* seq = at<unsigned>(B2, 0);
    fill32(reinterpret_cast<float*>(pos), 4 * (size_t)PB_N, 50.0f, 0.0f, 21u);
    fill32(reinterpret_cast<float*>(vel), 4 * (size_t)PB_N, 2.0f, 0.0f, 22u);
    CK(cudaMemsetAsync(seq, 0, (size_t)PB_N * sizeof(unsigned), 0));
    CK(cudaDeviceSynchronize());
    // Rate: agents per second, in billions.
    run("agents_publish_seq", 1.0 * PB_N, "Gagent/s",
        [&] { publish_agents<<<PB_GRID, 256>>>(pos, vel, rec, seq); });
    bool ok = true;
    const auto hs = d2h(seq, PB_N);
    for (int i = 0; i < PB_N && ok; ++i)
      if (hs[i] != PB_EPOCH) {
        std::snprintf(msg, sizeof msg, "agent %d sequence word %u", i, hs[i]);
        ok = false;
      }
    for (int s = 0; s < 4096 && ok; ++s) {
      const size_t i = ((size_t)s * 2654435761u + 5u) % PB_N;
      float4 g;
      CK(cudaMemcpy(&g, rec + i, sizeof g, cudaMemcpyDeviceToHost));
      const float px = fill_value(4 * i, 50.0f, 0.0f, 21u), py = fill_value(4 * i + 1, 50.0f, 0.0f, 21u);
      const float pz = fill_value(4 * i + 2, 50.0f, 0.0f, 21u), pw = fill_value(4 * i + 3, 50.0f, 0.0f, 21u);
      const float vx = fill_value(4 * i, 2.0f, 0.0f, 22u), vy = fill_value(4 * i + 1, 2.0f, 0.0f, 22u);
      const float vz = fill_value(4 * i + 2, 2.0f, 0.0f, 22u);
      const float rx = std::fmaf(PB_DT, vx, px), ry = std::fmaf(PB_DT, vy, py), rz = std::fmaf(PB_DT, vz, pz);
      if (g.x != rx || g.y != ry || g.z != rz || g.w != pw) {
        std::snprintf(msg, sizeof msg, "agent %zu: (%g, %g, %g) vs (%g, %g, %g)", i, (double)g.x, (double)g.y,
                      (double)g.z, (double)rx, (double)ry, (double)rz);
        ok = false;
      }
    }
    report("agents_publish_seq", ok, msg);
  }

  // ---- hilbert_sort_keys: points (256 MiB of uint4) in B0, keys (128 MiB) in B1.
  if (selected("hilbert_sort_keys")) {
    uint4* pts = at<uint4>(B0, 0);
    unsigned long long* key = at<unsigned long long>(B1, 0);
    fill_coords<<<4096, 256>>>(pts, HB_N);
    CK(cudaDeviceSynchronize());
    // Rate: keys per second, in billions.
    run("hilbert_sort_keys", 1.0 * HB_N, "Gkey/s", [&] { hilbert_keys<<<HB_N / 256, 256>>>(pts, key); });
    bool ok = true;
    const auto hk = d2h(key, HB_N);
    for (int s = 0; s < 65536 && ok; ++s) {
      const size_t i = ((size_t)s * 2654435761u + 3u) % HB_N;
      const uint64_t ref = hilbert3<HB_BITS>(hash_u32(i, 301u) & 0x1fffffu, hash_u32(i, 302u) & 0x1fffffu,
                                             hash_u32(i, 303u) & 0x1fffffu);
      if (hk[i] != ref) {
        std::snprintf(msg, sizeof msg, "point %zu: key %llx vs %llx", i, (unsigned long long)hk[i],
                      (unsigned long long)ref);
        ok = false;
      }
    }
    report("hilbert_sort_keys", ok, msg);
  }

  // ---- adc_channel_linearize: codes (256 MiB) in B0, floats out (512 MiB) in B1, the tables (4 MiB) in B2.
  if (selected("adc_channel_linearize")) {
    unsigned short* code = at<unsigned short>(B0, 0);
    float* out = at<float>(B1, 0);
    float* lut = at<float>(B2, 0);
    std::vector<float> hl((size_t)AD_CH * AD_CODES);
    for (int c = 0; c < AD_CH; ++c)
      for (int k = 0; k < AD_CODES; ++k) hl[(size_t)c * AD_CODES + k] = ad_lut_value(c, k);
    CK(cudaMemcpy(lut, hl.data(), hl.size() * sizeof(float), cudaMemcpyHostToDevice));
    fill_adc_codes<<<4096, 256>>>(code, (size_t)AD_T * AD_CH);
    CK(cudaDeviceSynchronize());
    // Rate: samples per second, in billions.
    run("adc_channel_linearize", (double)AD_T * AD_CH, "Gsample/s",
        [&] { adc_linearize<<<AD_GRID, AD_CH>>>(code, lut, out); });
    bool ok = true;
    const auto ho = d2h(out, (size_t)AD_T * AD_CH);
    for (int s = 0; s < 65536 && ok; ++s) {
      const size_t i = ((size_t)s * 2654435761u + 9u) % ((size_t)AD_T * AD_CH);
      const int c = (int)(i % AD_CH), k = (int)(hash_u32(i, 404u) & 4095u);
      if (ho[i] != hl[(size_t)c * AD_CODES + k]) {
        std::snprintf(msg, sizeof msg, "sample %zu (channel %d code %d): %g vs %g", i, c, k, (double)ho[i],
                      (double)hl[(size_t)c * AD_CODES + k]);
        ok = false;
      }
    }
    report("adc_channel_linearize", ok, msg);
  }

  // ---- resample_48k_to_44k1: the input (~70 MiB, [-1, 1)) in B0, the output (64 MiB) in B1.
  if (selected("resample_48k_to_44k1")) {
    float* x = at<float>(B0, 0);
    float* y = at<float>(B1, 0);
    // Prototype: a Blackman-windowed sinc low-pass at the output Nyquist (fc = 1 / 160 of the 147x upsampled rate),
    // 147 x 24 taps; phase p, tap k holds 147 h[p + 147 k].
    std::vector<float> coef((size_t)RS_L * RS_TAPS);
    {
      const int len = RS_L * RS_TAPS;
      const double fc = 0.5 / RS_M, mid = 0.5 * (len - 1), pi = 3.14159265358979323846;
      for (int j = 0; j < len; ++j) {
        const double t = j - mid, a = 2.0 * pi * j / (len - 1);
        const double sinc = t == 0.0 ? 2.0 * fc : std::sin(2.0 * pi * fc * t) / (pi * t);
        const double w = 0.42 - 0.5 * std::cos(a) + 0.08 * std::cos(2.0 * a);
        coef[(size_t)(j % RS_L) * RS_TAPS + j / RS_L] = (float)(RS_L * sinc * w);
      }
    }
    CK(cudaMemcpyToSymbol(c_rs_h, coef.data(), coef.size() * sizeof(float)));
    fill32(x, RS_NX, 1.0f, 0.0f, 31u);
    CK(cudaDeviceSynchronize());
    // Rate: output samples per second, in billions (24 taps each).
    run("resample_48k_to_44k1", 1.0 * RS_NY, "Gsample/s",
        [&] { polyphase_resample<<<RS_NY / 256, 256>>>(x, y); });
    bool ok = true;
    const auto hy = d2h(y, RS_NY);
    for (int s = 0; s < 16384 && ok; ++s) {
      const int n = (int)((s * 2654435761u + 1u) % (unsigned)RS_NY);
      const unsigned pos = (unsigned)n * RS_M, base = pos / RS_L, p = pos % RS_L;
      double ref = 0.0;
      for (int k = 0; k < RS_TAPS; ++k)
        ref += (double)coef[(size_t)p * RS_TAPS + k] * fill_value(base + RS_TAPS - 1 - k, 1.0f, 0.0f, 31u);
      if (!close_to(hy[n], ref, 1e-5, 1e-5)) {
        std::snprintf(msg, sizeof msg, "output %d (phase %u): %g vs %g", n, p, (double)hy[n], ref);
        ok = false;
      }
    }
    report("resample_48k_to_44k1", ok, msg);
  }

  // ---- tracer_field_f64: stars (128 KiB) in B0, tracers (4.1 MiB) in B1, accelerations in B2.
  if (selected("tracer_field_f64")) {
    dvec4* star = at<dvec4>(B0, 0);
    dvec4* tracer = at<dvec4>(B1, 0);
    dvec4* acc = at<dvec4>(B2, 0);
    fill_stars_tracers<<<NB_T / 256, 256>>>(star, tracer);
    CK(cudaDeviceSynchronize());
    // Rate: interactions per second, in billions.
    run("tracer_field_f64", 1.0 * NB_T * NB_S, "Ginter/s",
        [&] { tracer_accel_f64<<<NB_T / 256, 256>>>(star, tracer, acc); });
    bool ok = true;
    const auto ha = d2h(acc, NB_T);
    std::vector<dvec4> hs(NB_S);
    for (int j = 0; j < NB_S; ++j) hs[j] = nb_star(j);
    for (int s = 0; s < 256 && ok; ++s) {
      const int i = (int)((s * 2654435761u + 11u) % (unsigned)NB_T);
      const dvec4 p = nb_tracer(i);
      double ax = 0, ay = 0, az = 0, phi = 0;
      for (int j = 0; j < NB_S; ++j) {
        const double dx = hs[j].x - p.x, dy = hs[j].y - p.y, dz = hs[j].z - p.z;
        const double inv = 1.0 / std::sqrt(dx * dx + dy * dy + dz * dz + NB_EPS2);
        ax += hs[j].w * inv * inv * inv * dx;
        ay += hs[j].w * inv * inv * inv * dy;
        az += hs[j].w * inv * inv * inv * dz;
        phi -= hs[j].w * inv;
      }
      const double scale = std::fabs(phi);  // accelerations are of order phi / r: compare against it
      if (!close_to(ha[i].x, ax, 1e-11 * scale, 1e-10) || !close_to(ha[i].y, ay, 1e-11 * scale, 1e-10) ||
          !close_to(ha[i].z, az, 1e-11 * scale, 1e-10) || !close_to(ha[i].w, phi, 0.0, 1e-11)) {
        std::snprintf(msg, sizeof msg, "tracer %d: (%.12g, %.12g, %.12g, %.12g) vs (%.12g, %.12g, %.12g, %.12g)", i,
                      ha[i].x, ha[i].y, ha[i].z, ha[i].w, ax, ay, az, phi);
        ok = false;
      }
    }
    report("tracer_field_f64", ok, msg);
  }

  // ---- ndvi_row_means: red and NIR (256 MiB each) in B0, the NDVI image (512 MiB) in B1, the cloud mask (128 MiB)
  // and the masked image (512 MiB) in B2, the row means after the image in B1.
  if (selected("ndvi_row_means")) {
    unsigned short* red = at<unsigned short>(B0, 0);
    unsigned short* nir = at<unsigned short>(B0, 256 * MiB);
    float* ndvi = at<float>(B1, 0);
    float* mean = at<float>(B1, 512 * MiB);
    unsigned char* cloud = at<unsigned char>(B2, 0);
    float* masked = at<float>(B2, 128 * MiB);
    fill_bands<<<4096, 256>>>(red, nir, cloud);
    CK(cudaDeviceSynchronize());
    // Traffic: 2.7 GB through DRAM where 0.64 GB would do. Rate: pixels per second, in billions.
    run("ndvi_row_means", (double)NV_PIX, "Gpix/s", [&] {
      ndvi_from_bands<<<(unsigned)(NV_PIX / 4 / 256), 256>>>((const ushort4*)red, (const ushort4*)nir, (float4*)ndvi);
      apply_cloud_mask<<<(unsigned)(NV_PIX / 4 / 256), 256>>>((const float4*)ndvi, (const uchar4*)cloud,
                                                               (float4*)masked);
      row_nanmean<<<NV_H, 256>>>((const float4*)masked, mean);
    });
    bool ok = true;
    const auto hm = d2h(mean, NV_H);
    for (int s = 0; s < 64 && ok; ++s) {
      const int row = (int)((s * 2654435761u + 13u) % (unsigned)NV_H);
      double sum = 0.0;
      int cnt = 0;
      for (int x = 0; x < NV_W; ++x) {
        const size_t i = (size_t)row * NV_W + x;
        if (nv_cloud(i)) continue;
        sum += ndvi_of(nv_red(i), nv_nir(i));
        ++cnt;
      }
      const double ref = sum / cnt;
      if (!close_to(hm[row], ref, 1e-6, 1e-5)) {
        std::snprintf(msg, sizeof msg, "row %d: mean %.9g vs %.9g (%d clear pixels)", row, (double)hm[row], ref, cnt);
        ok = false;
      }
    }
    report("ndvi_row_means", ok, msg);
  }

  // ---- seir_region_ensembles: the 8 regions' outputs (31744 float2) in B0.
  if (selected("seir_region_ensembles")) {
    float2* out = at<float2>(B0, 0);
    int offset[SE_REGIONS];
    int total = 0;
    for (int r = 0; r < SE_REGIONS; ++r) offset[r] = total, total += SE_MEMBERS[r];
    CK(cudaMemsetAsync(out, 0, (size_t)total * sizeof(float2), 0));
    CK(cudaDeviceSynchronize());
    // Rate: member-steps per second, in billions.
    run("seir_region_ensembles", (double)total * SE_STEPS, "Gstep/s", [&] {
      // One forecast per region, each launched as soon as the previous one is enqueued, all on the default stream.
      for (int r = 0; r < SE_REGIONS; ++r)
        seir_ensemble<<<(SE_MEMBERS[r] + 255) / 256, 256>>>(r, SE_MEMBERS[r], out + offset[r]);
    });
    bool ok = true;
    const auto ho = d2h(out, (size_t)total);
    for (int r = 0; r < SE_REGIONS && ok; ++r)
      for (int s = 0; s < 24 && ok; ++s) {
        const int m = (int)((s * 2654435761u + 17u * r) % (unsigned)SE_MEMBERS[r]);
        const SeirPar q = se_par(r, m);
        float sv = 1.0f - q.i0, ev = 0.f, iv = q.i0, peak = q.i0;
        for (int k = 0; k < SE_STEPS; ++k) {
          se_step(sv, ev, iv, q);
          peak = std::max(peak, iv);
        }
        const float2 g = ho[(size_t)offset[r] + m];
        if (!close_to(g.x, 1.0f - sv - ev - iv, 1e-4, 1e-3) || !close_to(g.y, peak, 1e-5, 1e-3)) {
          std::snprintf(msg, sizeof msg, "region %d member %d: (%g, %g) vs (%g, %g)", r, m, (double)g.x, (double)g.y,
                        (double)(1.0f - sv - ev - iv), (double)peak);
          ok = false;
        }
      }
    report("seir_region_ensembles", ok, msg);
  }

  // ---- edge_histogram_frames: 8 frames (128 MiB) in B0, the 8 x 64 histograms in B2; scratch allocated per frame.
  if (selected("edge_histogram_frames")) {
    unsigned char* frames = at<unsigned char>(B0, 0);
    int* hist = at<int>(B2, 0);
    fill_frames<<<4096, 256>>>(frames);
    CK(cudaDeviceSynchronize());
    // Rate: frames per second, in thousands.
    run("edge_histogram_frames", ED_FRAMES / 1e3, "kframe/s", [&] {
      CK(cudaMemsetAsync(hist, 0, ED_FRAMES * 64 * sizeof(int), 0));
      for (int f = 0; f < ED_FRAMES; ++f) {
        unsigned short* grad = nullptr;  // this frame's gradient image
        CK(cudaMalloc(&grad, ED_PIX * sizeof(unsigned short)));
        sobel_magnitude<<<dim3(ED_W / 32, ED_H / 8), 256>>>(frames + (size_t)f * ED_PIX, grad);
        magnitude_hist64<<<1056, 256>>>(reinterpret_cast<const uint4*>(grad), hist + 64 * f);
        CK(cudaFree(grad));
      }
    });
    bool ok = true;
    const auto hh = d2h(hist, ED_FRAMES * 64);
    for (int f = 0; f < ED_FRAMES && ok; ++f) {
      long long total = 0;
      for (int b = 0; b < 64; ++b) total += hh[64 * f + b];
      if (total != (long long)ED_PIX) {
        std::snprintf(msg, sizeof msg, "frame %d: histogram holds %lld pixels", f, total);
        ok = false;
      }
    }
    std::vector<unsigned char> hf(ED_PIX);
    for (int f : {0, ED_FRAMES - 1}) {
      if (!ok) break;
      for (int y = 0; y < ED_H; ++y)
        for (int x = 0; x < ED_W; ++x) hf[(size_t)y * ED_W + x] = (unsigned char)ed_pixel(f, x, y);
      std::vector<int> ref(64, 0);
      for (int y = 0; y < ED_H; ++y)
        for (int x = 0; x < ED_W; ++x) ++ref[ed_sobel_host(hf.data(), x, y) >> 5];
      for (int b = 0; b < 64 && ok; ++b)
        if (hh[64 * f + b] != ref[b]) {
          std::snprintf(msg, sizeof msg, "frame %d bin %d: %d vs %d", f, b, hh[64 * f + b], ref[b]);
          ok = false;
        }
    }
    report("edge_histogram_frames", ok, msg);
  }

  // ---- ct_slab_upload: 6 slabs of int16 HU in a std::vector (96 MiB, pageable), one 16 MiB device slab buffer in
  // B0 reused every step, the 8-bit windowed volume (48 MiB) in B1.
  if (selected("ct_slab_upload")) {
    std::vector<short> host((size_t)CT_SLABS * CT_VOX);
    for (size_t i = 0; i < host.size(); ++i) host[i] = (short)ct_hu(i);
    short* slab = at<short>(B0, 0);
    unsigned char* vol = at<unsigned char>(B1, 0);
    // Rate: voxels per second, in billions.
    run("ct_slab_upload", (double)CT_SLABS * CT_VOX, "Gvox/s", [&] {
      for (int s = 0; s < CT_SLABS; ++s) {
        CK(cudaMemcpyAsync(slab, host.data() + (size_t)s * CT_VOX, CT_VOX * sizeof(short), cudaMemcpyHostToDevice,
                           0));
        ct_window_level<<<(unsigned)(CT_VOX / 8 / 256), 256>>>(reinterpret_cast<const int4*>(slab),
                                                               reinterpret_cast<uint2*>(vol + (size_t)s * CT_VOX));
      }
    });
    bool ok = true;
    const auto hv = d2h(vol, (size_t)CT_SLABS * CT_VOX);
    for (int s = 0; s < 65536 && ok; ++s) {
      const size_t i = ((size_t)s * 2654435761u + 19u) % ((size_t)CT_SLABS * CT_VOX);
      const unsigned char ref = ct_window(ct_hu(i));
      if (hv[i] != ref) {
        std::snprintf(msg, sizeof msg, "voxel %zu (HU %d): %u vs %u", i, ct_hu(i), (unsigned)hv[i], (unsigned)ref);
        ok = false;
      }
    }
    report("ct_slab_upload", ok, msg);
  }

  CK(cudaDeviceSynchronize());
  CK(cudaFree(B0));
  CK(cudaFree(B1));
  CK(cudaFree(B2));
  if (failures == 0)
    std::printf("ok\n");
  else
    std::printf("%d case(s) MISMATCH\n", failures);
  return 0;
}
