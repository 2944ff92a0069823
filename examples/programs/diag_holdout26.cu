// Twenty-sixth held-out diagnosis set: hand-written CUDA programs, each case built to have ONE bottleneck that an
// expert names from Nsight Compute's full report (and, for the program-level cases, the nsys timeline), designed
// without reference to kprof's rules. Five cases are single kernels (one at a roof with nothing to gain), five are
// program-level (the right advice is about copies, host work or synchronisation rather than any one kernel). What each
// case is designed to show (one line each; the designed labels are also in diag_holdout26_design.md; labels for
// scoring come from the reports alone):
//
//   fourier_sincos_terms      a 32-harmonic Fourier series evaluated at 2^24 points with one __sincosf per harmonic
//                             (64 MUFU operations per point): bound by the special-function (XU) pipe; the angle-
//                             addition recurrence needs one __sincosf per point
//   aos_trap_energy           potential energy q * k x^2 / 2 of 2^22 particles stored as 128-byte structs: each thread
//                             reads 8 bytes of its 128-byte record, every warp load touches 32 lines (strided,
//                             uncoalesced); DRAM moves 4-8x the useful bytes
//   hist_private_rows         32-bin histogram of a smooth 8-bit image with per-thread private histograms in shared
//                             memory laid out [thread][bin]: neighbouring threads hit the same bin, so the same bank:
//                             up to 32-way bank conflicts on every increment
//   ema_weights_roof          exponential moving average of 2^26 fp32 weights (float4, one pass): at the DRAM roof with
//                             the minimum bytes, nothing to gain
//   grad_norm_block_per_tensor L2 norms of 8 gradient tensors of 8 M floats, one 1024-thread block per tensor: 8 blocks
//                             on 132 SMs, each SM latency-bound on its own stream of loads; the grid is too small
//   flatfield_calib_reupload  4 batches of flat-field correction, each re-uploading the unchanging 64 MiB gain/dark
//                             calibration map from pinned host memory: the range is ~95% HtoD copies
//   heat_copy_back_dtod       10 explicit heat-equation steps on 4096^2, each followed by a 64 MiB device-to-device copy
//                             of the new grid back over the old one where swapping the two pointers would do
//   sampler_host_prep         6 batches of field evaluation at 2^18 sample points that the host generates on the CPU
//                             (trigonometry per point) between launches: the GPU idles while the host works
//   probe_readback_full_state 6 particle steps, each copying the whole 64 MiB particle state to the host, which reads
//                             256 probe particles out of it: the range is almost all DtoH copy of unused data
//   power_iter_scalar_sync    40 power-iteration steps on a 2048^2 matrix, each reading the norm to the host with a
//                             synchronous cudaMemcpy to pass 1/lambda to the scaling kernel: the GPU waits on the host
//                             round trip every iteration
//
//   diag_holdout26 [reps] [cases]   reps: launches of each case (default 1); cases: comma-separated names to run
//                                    (default all), or names each prefixed with '-' to leave out
//
// Every case runs in its own NVTX push/pop range named after it, holding only that case's kernels (and its copies,
// memsets, host work and host waits). Inputs are filled first, outside any range; every kernel is loaded
// (cudaFuncGetAttributes) and a launch, a memset and pinned copies both ways are warmed up before the first range.
// After its launches each case checks its results once on the host (a CPU reference on a sample, or an invariant) and
// prints "<case>: ok" or "<case>: MISMATCH ...". 1.5 GiB of device memory (three 512 MiB buffers shared by the cases)
// and ~131 MiB of pinned host memory.
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

// ---------------------------------------------------------------------------------------------------------------
// fourier_sincos_terms: y(x) = sum_{k=1..32} a_k cos(k pi x) + b_k sin(k pi x) at 2^24 points x in [-1, 1).

constexpr int FS_N = 1 << 24, FS_K = 32;
constexpr float FS_PI = 3.14159265f;
__constant__ float c_fs_a[FS_K], c_fs_b[FS_K];
__host__ __device__ inline float fs_a(int k) { return 1.0f / (float)(k + 1); }             // harmonic k + 1
__host__ __device__ inline float fs_b(int k) { return (k & 1 ? -0.5f : 0.5f) / (float)(k + 1); }

// One point per thread; per harmonic one __sincosf (MUFU.SIN + MUFU.COS after one multiply) and two FFMAs: 64 MUFU
// operations per point against ~130 other instructions. The XU's 16 lanes per clock per SM are the limit.
__global__ void __launch_bounds__(256) fourier_eval(const float* __restrict__ x, float* __restrict__ y) {
  const int i = blockIdx.x * 256 + threadIdx.x;
  const float th = x[i] * FS_PI;
  float acc = 0.f;
#pragma unroll
  for (int k = 0; k < FS_K; ++k) {
    float s, c;
    __sincosf((float)(k + 1) * th, &s, &c);
    acc = fmaf(c_fs_a[k], c, fmaf(c_fs_b[k], s, acc));
  }
  y[i] = acc;
}

// ---------------------------------------------------------------------------------------------------------------
// aos_trap_energy: particles as an array of 128-byte structs; the energy needs x and q only.

constexpr int AS_N = 1 << 22;  // 4 M particles x 128 B = 512 MiB
constexpr float AS_K = 2.5f;
struct __align__(16) Particle {
  float px, py, pz, q;
  float vx, vy, vz, m;
  float aux[24];  // force, previous position, cell index, species data, ...
};
static_assert(sizeof(Particle) == 128, "Particle is 128 bytes");

// u_i = q_i k x_i^2 / 2: 8 useful bytes per 128-byte record; a warp's load covers 32 different 128-byte lines.
__global__ void __launch_bounds__(256) aos_trap_energy(const Particle* __restrict__ p, float* __restrict__ u) {
  const int i = blockIdx.x * 256 + threadIdx.x;
  const float x = p[i].px, q = p[i].q;
  u[i] = 0.5f * AS_K * q * x * x;
}

// ---------------------------------------------------------------------------------------------------------------
// hist_private_rows: 32-bin histogram of an 8192 x 8192 8-bit image (64 MiB).

constexpr int HG_W = 8192, HG_H = 8192, HG_BINS = 32, HG_Q = 16;  // 16 uchar4 (64 pixels) per thread
constexpr size_t HG_PIX = (size_t)HG_W * HG_H;
constexpr int HG_BLOCKS = (int)(HG_PIX / (256 * 4 * HG_Q));  // 4096
// A smooth image (a slow ramp in x and y plus 2 bits of noise): 128 neighbouring pixels span ~7 grey levels.
__host__ __device__ inline unsigned char hg_pixel(size_t i) {
  const unsigned x = (unsigned)(i % HG_W), y = (unsigned)(i / HG_W);
  return (unsigned char)(((x >> 5) + (y >> 3) + (hash_u32(i, 57u) & 3u)) & 255u);
}
__global__ void fill_hist_image(uchar4* img) {
  for (size_t q = blockIdx.x * (size_t)blockDim.x + threadIdx.x; q < HG_PIX / 4; q += (size_t)gridDim.x * blockDim.x)
    img[q] = make_uchar4(hg_pixel(4 * q), hg_pixel(4 * q + 1), hg_pixel(4 * q + 2), hg_pixel(4 * q + 3));
}

// Each thread counts into its own row h[t][0..31] of shared memory (no atomics needed), then one warp merges the 256
// rows and adds the block's counts to the global histogram. h[t][b] lies in bank b for every t: the lanes of a warp
// read neighbouring pixels, which mostly fall into the same one or two bins, so each increment's load and store are
// serialised up to 32 ways.
__global__ void __launch_bounds__(256) hist_private_rows(const uchar4* __restrict__ img, unsigned* __restrict__ hist) {
  __shared__ unsigned h[256][HG_BINS];
  const int t = threadIdx.x;
#pragma unroll
  for (int b = 0; b < HG_BINS; ++b) h[t][b] = 0u;
  const size_t base = (size_t)blockIdx.x * 256 * HG_Q + t;
#pragma unroll 4
  for (int j = 0; j < HG_Q; ++j) {
    const uchar4 v = img[base + (size_t)j * 256];
    ++h[t][v.x >> 3];
    ++h[t][v.y >> 3];
    ++h[t][v.z >> 3];
    ++h[t][v.w >> 3];
  }
  __syncthreads();
  if (t < HG_BINS) {
    unsigned s = 0u;
    for (int r = 0; r < 256; ++r) s += h[r][t];
    atomicAdd(&hist[t], s);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// ema_weights_roof: ema = decay * ema + (1 - decay) * w over 2^26 fp32 weights.

constexpr size_t EM_N4 = 1ull << 24;  // float4s: 256 MiB per tensor
constexpr float EM_DECAY = 0.999f;
__host__ __device__ inline float em_step(float e, float w) { return fmaf(EM_DECAY, e - w, w); }
__global__ void __launch_bounds__(256) ema_update(float4* __restrict__ ema, const float4* __restrict__ w) {
  const size_t i = blockIdx.x * (size_t)256 + threadIdx.x;
  float4 e = ema[i];
  const float4 x = w[i];
  e.x = em_step(e.x, x.x);
  e.y = em_step(e.y, x.y);
  e.z = em_step(e.z, x.z);
  e.w = em_step(e.w, x.w);
  ema[i] = e;
}

// ---------------------------------------------------------------------------------------------------------------
// grad_norm_block_per_tensor: ||g_t||_2 for 8 gradient tensors of 2^23 floats (32 MiB each), one block per tensor.

constexpr int GN_T = 8;
constexpr size_t GN_LEN = 1ull << 23;
__global__ void __launch_bounds__(1024) grad_norm_per_tensor(const float4* __restrict__ g, float* __restrict__ norms) {
  __shared__ float s_w[32];
  const float4* t = g + (size_t)blockIdx.x * (GN_LEN / 4);
  float a0 = 0.f, a1 = 0.f, a2 = 0.f, a3 = 0.f;
#pragma unroll 4
  for (size_t k = threadIdx.x; k < GN_LEN / 4; k += 1024) {
    const float4 v = t[k];
    a0 = fmaf(v.x, v.x, a0);
    a1 = fmaf(v.y, v.y, a1);
    a2 = fmaf(v.z, v.z, a2);
    a3 = fmaf(v.w, v.w, a3);
  }
  float a = warp_sum((a0 + a1) + (a2 + a3));
  if ((threadIdx.x & 31) == 0) s_w[threadIdx.x >> 5] = a;
  __syncthreads();
  if (threadIdx.x < 32) {
    a = warp_sum(s_w[threadIdx.x]);
    if (threadIdx.x == 0) norms[blockIdx.x] = sqrtf(a);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// flatfield_calib_reupload: out = (raw - dark) * gain per pixel, 2 frames of 4096 x 2048 per batch.

constexpr int FF_W = 4096, FF_H = 2048, FF_BATCHES = 4, FF_FRAMES = 2;
constexpr size_t FF_PIX = (size_t)FF_W * FF_H;  // 8 M pixels; calibration (gain, dark) float2 per pixel: 64 MiB
__host__ __device__ inline float ff_gain(size_t p) { return 1.0f + 0.1f * hash_unit(p, 61u); }
__host__ __device__ inline float ff_dark(size_t p) { return 0.025f + 0.025f * hash_unit(p, 62u); }
// Two pixels per thread: raw float2, calibration float4 (gain0, dark0, gain1, dark1), out float2.
__global__ void __launch_bounds__(256) flatfield(const float2* __restrict__ raw, const float4* __restrict__ calib,
                                                 float2* __restrict__ out) {
  const size_t i = blockIdx.x * (size_t)256 + threadIdx.x;  // pixel pair within the batch's frames
  const float4 c = calib[i % (FF_PIX / 2)];
  const float2 r = raw[i];
  out[i] = make_float2((r.x - c.y) * c.x, (r.y - c.w) * c.z);
}

// ---------------------------------------------------------------------------------------------------------------
// heat_copy_back_dtod: explicit 5-point heat steps on a 4096 x 4096 grid with fixed boundary.

constexpr int HT_N = 4096, HT_STEPS = 10;
constexpr float HT_A = 0.2f;
__host__ __device__ inline float ht_update(float c, float l, float r, float d, float u) {
  return fmaf(HT_A, ((l + r) + (d + u)) - 4.0f * c, c);
}
__global__ void __launch_bounds__(256) heat_step(const float* __restrict__ u, float* __restrict__ v) {
  const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 8 + threadIdx.y;
  const size_t i = (size_t)y * HT_N + x;
  const float c = u[i];
  float nv = c;
  if (x > 0 && x < HT_N - 1 && y > 0 && y < HT_N - 1) nv = ht_update(c, u[i - 1], u[i + 1], u[i - HT_N], u[i + HT_N]);
  v[i] = nv;
}

// ---------------------------------------------------------------------------------------------------------------
// sampler_host_prep: potential of 64 point sources at sample points generated by the host.

constexpr int HP_BATCHES = 6, HP_N = 1 << 18, HP_SRC = 64;
constexpr float HP_EPS = 1e-3f;
__constant__ float4 c_src[HP_SRC];  // (x, y, q, 0)
__host__ __device__ inline float4 hp_source(int s) {
  return make_float4(0.8f * hash_unit((size_t)s, 71u), 0.8f * hash_unit((size_t)s, 72u), hash_unit((size_t)s, 73u), 0.f);
}
// The host's sample point j of batch b: uniform in the unit disc, r = sqrt(u), theta = 2 pi v (double trigonometry).
static inline void hp_point(int b, int j, float& x, float& y) {
  const size_t k = (size_t)b * HP_N + (size_t)j;
  const double u = 0.5 * ((double)hash_unit(k, 74u) + 1.0), v = (double)hash_unit(k, 75u);
  const double r = std::sqrt(u), th = 3.14159265358979323846 * v;
  x = (float)(r * std::cos(th));
  y = (float)(r * std::sin(th));
}
__global__ void __launch_bounds__(256) field_at_points(const float2* __restrict__ pts, float* __restrict__ phi) {
  const int i = blockIdx.x * 256 + threadIdx.x;
  const float2 p = pts[i];
  float acc = 0.f;
#pragma unroll 8
  for (int s = 0; s < HP_SRC; ++s) {
    const float dx = p.x - c_src[s].x, dy = p.y - c_src[s].y;
    acc = fmaf(c_src[s].z, rsqrtf(fmaf(dx, dx, fmaf(dy, dy, HP_EPS))), acc);
  }
  phi[i] = acc;
}

// ---------------------------------------------------------------------------------------------------------------
// probe_readback_full_state: 2^22 particles (x, y, vx, vy) in a rotating harmonic well; 256 probes are tracked.

constexpr int PR_N = 1 << 22, PR_STEPS = 6, PR_SUB = 4, PR_PROBES = 256;
constexpr float PR_DT = 0.01f, PR_W2 = 0.5f, PR_OM = 0.8f;
__host__ __device__ inline void pr_substep(float& x, float& y, float& vx, float& vy) {
  vx = fmaf(PR_DT, fmaf(-PR_W2, x, PR_OM * vy), vx);
  vy = fmaf(PR_DT, fmaf(-PR_W2, y, -PR_OM * vx), vy);
  x = fmaf(PR_DT, vx, x);
  y = fmaf(PR_DT, vy, y);
}
__global__ void __launch_bounds__(256) particle_push(float4* __restrict__ p) {
  const int i = blockIdx.x * 256 + threadIdx.x;
  float4 s = p[i];
#pragma unroll
  for (int k = 0; k < PR_SUB; ++k) pr_substep(s.x, s.y, s.z, s.w);
  p[i] = s;
}
__host__ __device__ inline int pr_probe(int j) { return (int)(((unsigned)j * 2654435761u + 12345u) % (unsigned)PR_N); }

// ---------------------------------------------------------------------------------------------------------------
// power_iter_scalar_sync: x <- A x / ||A x|| for a 2048 x 2048 positive matrix (16 MiB, L2-resident).

constexpr int PW_N = 2048, PW_ITERS = 40;
// One warp per row: y_r = A_r . x, and sumsq += y_r^2.
__global__ void __launch_bounds__(256) pw_matvec(const float4* __restrict__ A, const float4* __restrict__ x,
                                                 float* __restrict__ y, float* __restrict__ sumsq) {
  const int row = blockIdx.x * 8 + (threadIdx.x >> 5), lane = threadIdx.x & 31;
  const float4* a = A + (size_t)row * (PW_N / 4);
  float acc = 0.f;
#pragma unroll 4
  for (int k = lane; k < PW_N / 4; k += 32) {
    const float4 av = a[k], xv = x[k];
    acc = fmaf(av.x, xv.x, fmaf(av.y, xv.y, fmaf(av.z, xv.z, fmaf(av.w, xv.w, acc))));
  }
  acc = warp_sum(acc);
  if (lane == 0) {
    y[row] = acc;
    atomicAdd(sumsq, acc * acc);
  }
}
__global__ void __launch_bounds__(256) pw_scale(const float* __restrict__ y, float* __restrict__ x, float inv) {
  const int i = blockIdx.x * 256 + threadIdx.x;
  x[i] = y[i] * inv;
}

// ---------------------------------------------------------------------------------------------------------------
// Input fills (outside any range) and host-side helpers.

__global__ void fill_f32(float* p, size_t n, float scale, float offset, unsigned seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = fmaf(scale, hash_unit(i, seed), offset);
}
__global__ void warmup_kernel(int* p) {
  if (threadIdx.x == 0 && blockIdx.x == 0 && p != nullptr) *p = 0;
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

// The cases, in the order they run.
static const char* const kCases[] = {
    "fourier_sincos_terms",      "aos_trap_energy",         "hist_private_rows",
    "ema_weights_roof",          "grad_norm_block_per_tensor", "flatfield_calib_reupload",
    "heat_copy_back_dtod",       "sampler_host_prep",       "probe_readback_full_state",
    "power_iter_scalar_sync"};

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
    const void* kernels[] = {(const void*)fourier_eval,      (const void*)aos_trap_energy,
                             (const void*)fill_hist_image,   (const void*)hist_private_rows,
                             (const void*)ema_update,        (const void*)grad_norm_per_tensor,
                             (const void*)flatfield,         (const void*)heat_step,
                             (const void*)field_at_points,   (const void*)particle_push,
                             (const void*)pw_matvec,         (const void*)pw_scale,
                             (const void*)fill_f32,          (const void*)warmup_kernel};
    for (const void* k : kernels) {
      cudaFuncAttributes fa;
      CK(cudaFuncGetAttributes(&fa, k));
    }
  }

  const size_t MiB = 1ull << 20;
  // Device buffers shared by the cases (three of 512 MiB); each case fills what it reads before its range.
  void *B0, *B1, *B2;
  CK(cudaMalloc(&B0, 512 * MiB));
  CK(cudaMalloc(&B1, 512 * MiB));
  CK(cudaMalloc(&B2, 512 * MiB));
  auto fill32 = [&](float* p, size_t n, float scale, float offset, unsigned seed) {
    fill_f32<<<4096, 256>>>(p, n, scale, offset, seed);
  };
  // The value fill_f32 writes at index i, computed on the host (the same fma on the same hash).
  auto fill_value = [](size_t i, float scale, float offset, unsigned seed) {
    return std::fmaf(scale, hash_unit(i, seed), offset);
  };

  {
    // Warm-up outside any range: a launch, a memset, pinned copies both ways and a device-to-device copy, so that
    // first-use costs land nowhere near a case.
    int* hw = nullptr;
    CK(cudaMallocHost(&hw, 4096));
    warmup_kernel<<<1, 32>>>(at<int>(B2, 0));
    CK(cudaMemsetAsync(B2, 0, 4096, 0));
    CK(cudaMemcpyAsync(hw, B2, 4096, cudaMemcpyDeviceToHost, 0));
    CK(cudaMemcpyAsync(B2, hw, 4096, cudaMemcpyHostToDevice, 0));
    CK(cudaMemcpyAsync(at<char>(B2, 4096), B2, 4096, cudaMemcpyDeviceToDevice, 0));
    CK(cudaMemcpy(hw, B2, 4, cudaMemcpyDeviceToHost));
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

  // ---- fourier_sincos_terms: 2^24 points in [-1, 1) (64 MiB) in B0, the values in B1.
  if (selected("fourier_sincos_terms")) {
    float* x = at<float>(B0, 0);
    float* y = at<float>(B1, 0);
    fill32(x, FS_N, 1.0f, 0.0f, 21u);
    float ha[FS_K], hb[FS_K];
    for (int k = 0; k < FS_K; ++k) {
      ha[k] = fs_a(k);
      hb[k] = fs_b(k);
    }
    CK(cudaMemcpyToSymbol(c_fs_a, ha, sizeof ha));
    CK(cudaMemcpyToSymbol(c_fs_b, hb, sizeof hb));
    CK(cudaDeviceSynchronize());
    // Rate: harmonic terms per second, in billions.
    run("fourier_sincos_terms", 1.0 * FS_N * FS_K, "Gterm/s", [&] { fourier_eval<<<FS_N / 256, 256>>>(x, y); });
    bool ok = true;
    const auto hy = d2h(y, FS_N);
    for (int s = 0; s < 4096 && ok; ++s) {
      const int i = (int)((s * 2654435761u + 5u) % (unsigned)FS_N);
      const double th = (double)(fill_value((size_t)i, 1.0f, 0.0f, 21u) * FS_PI);
      double ref = 0.0;
      for (int k = 0; k < FS_K; ++k) ref += (double)ha[k] * std::cos((k + 1) * th) + (double)hb[k] * std::sin((k + 1) * th);
      if (!close_to(hy[i], ref, 2e-3, 1e-3)) {
        std::snprintf(msg, sizeof msg, "point %d: %g vs %g", i, (double)hy[i], ref);
        ok = false;
      }
    }
    report("fourier_sincos_terms", ok, msg);
  }

  // ---- aos_trap_energy: 4 M particles of 128 bytes (512 MiB, every float in [-1, 1)) in B0, the energies in B1.
  if (selected("aos_trap_energy")) {
    Particle* p = at<Particle>(B0, 0);
    float* u = at<float>(B1, 0);
    fill32(reinterpret_cast<float*>(p), (size_t)AS_N * 32, 1.0f, 0.0f, 31u);
    CK(cudaDeviceSynchronize());
    // Rate: particles per second, in billions.
    run("aos_trap_energy", 1.0 * AS_N, "Gpart/s", [&] { aos_trap_energy<<<AS_N / 256, 256>>>(p, u); });
    bool ok = true;
    const auto hu = d2h(u, AS_N);
    for (int s = 0; s < 65536 && ok; ++s) {
      const int i = (int)((s * 2654435761u + 9u) % (unsigned)AS_N);
      const double x = fill_value((size_t)i * 32 + 0, 1.0f, 0.0f, 31u), q = fill_value((size_t)i * 32 + 3, 1.0f, 0.0f, 31u);
      const double ref = 0.5 * AS_K * q * x * x;
      if (!close_to(hu[i], ref, 1e-6, 1e-5)) {
        std::snprintf(msg, sizeof msg, "particle %d: %g vs %g", i, (double)hu[i], ref);
        ok = false;
      }
    }
    report("aos_trap_energy", ok, msg);
  }

  // ---- hist_private_rows: the 8192 x 8192 8-bit image (64 MiB) in B0, the 32 counters in B1.
  if (selected("hist_private_rows")) {
    uchar4* img = at<uchar4>(B0, 0);
    unsigned* hist = at<unsigned>(B1, 0);
    fill_hist_image<<<4096, 256>>>(img);
    CK(cudaDeviceSynchronize());
    // Rate: pixels per second, in billions.
    run("hist_private_rows", 1.0 * HG_PIX, "Gpix/s", [&] {
      CK(cudaMemsetAsync(hist, 0, HG_BINS * sizeof(unsigned), 0));
      hist_private_rows<<<HG_BLOCKS, 256>>>(img, hist);
    });
    bool ok = true;
    const auto hh = d2h(hist, HG_BINS);
    std::vector<unsigned> ref(HG_BINS, 0u);
    for (size_t i = 0; i < HG_PIX; ++i) ++ref[hg_pixel(i) >> 3];
    for (int b = 0; b < HG_BINS && ok; ++b)
      if (hh[b] != ref[b]) {
        std::snprintf(msg, sizeof msg, "bin %d: %u vs %u", b, hh[b], ref[b]);
        ok = false;
      }
    report("hist_private_rows", ok, msg);
  }

  // ---- ema_weights_roof: the EMA (256 MiB) in B0, the current weights (256 MiB) in B1.
  if (selected("ema_weights_roof")) {
    float* ema = at<float>(B0, 0);
    float* w = at<float>(B1, 0);
    fill32(ema, 4 * EM_N4, 0.1f, 0.0f, 41u);
    fill32(w, 4 * EM_N4, 0.1f, 0.0f, 42u);
    CK(cudaDeviceSynchronize());
    // Traffic: 512 MiB read, 256 MiB written. Rate: weights per second, in billions.
    run("ema_weights_roof", 4.0 * (double)EM_N4, "Gweight/s",
        [&] { ema_update<<<(unsigned)(EM_N4 / 256), 256>>>((float4*)ema, (const float4*)w); });
    bool ok = true;
    for (int s = 0; s < 4096 && ok; ++s) {
      const size_t i = ((size_t)s * 2654435761u + 17u) % (4 * EM_N4);
      float e = fill_value(i, 0.1f, 0.0f, 41u);
      const float x = fill_value(i, 0.1f, 0.0f, 42u);
      for (int r = 0; r < reps; ++r) e = em_step(e, x);
      const float got = d2h(ema + i, 1)[0];
      if (!close_to(got, e, 1e-7, 1e-5)) {
        std::snprintf(msg, sizeof msg, "weight %zu: %g vs %g", i, (double)got, (double)e);
        ok = false;
      }
    }
    report("ema_weights_roof", ok, msg);
  }

  // ---- grad_norm_block_per_tensor: 8 tensors of 2^23 floats in [-0.01, 0.01) (256 MiB) in B0, the norms in B1.
  if (selected("grad_norm_block_per_tensor")) {
    float* g = at<float>(B0, 0);
    float* norms = at<float>(B1, 0);
    fill32(g, GN_T * GN_LEN, 0.01f, 0.0f, 51u);
    CK(cudaDeviceSynchronize());
    // Traffic: 256 MiB read. Rate: elements per second, in billions.
    run("grad_norm_block_per_tensor", 1.0 * GN_T * (double)GN_LEN, "Gelem/s",
        [&] { grad_norm_per_tensor<<<GN_T, 1024>>>((const float4*)g, norms); });
    bool ok = true;
    const auto hn = d2h(norms, GN_T);
    const int check[2] = {0, 5};
    for (int c = 0; c < 2 && ok; ++c) {
      const int t = check[c];
      double ss = 0.0;
      for (size_t k = 0; k < GN_LEN; ++k) {
        const double v = fill_value((size_t)t * GN_LEN + k, 0.01f, 0.0f, 51u);
        ss += v * v;
      }
      const double ref = std::sqrt(ss);
      if (!close_to(hn[t], ref, 0.0, 1e-4)) {
        std::snprintf(msg, sizeof msg, "tensor %d: %g vs %g", t, (double)hn[t], ref);
        ok = false;
      }
    }
    for (int t = 0; t < GN_T && ok; ++t)
      if (!(hn[t] > 0.f) || !std::isfinite(hn[t])) {
        std::snprintf(msg, sizeof msg, "tensor %d: norm %g", t, (double)hn[t]);
        ok = false;
      }
    report("grad_norm_block_per_tensor", ok, msg);
  }

  // ---- flatfield_calib_reupload: raw frames (4 batches x 2 frames x 32 MiB) in B0, corrected frames in B1, the
  // device calibration map (64 MiB) in B2; the calibration map in pinned host memory (64 MiB).
  if (selected("flatfield_calib_reupload")) {
    float* raw = at<float>(B0, 0);
    float* out = at<float>(B1, 0);
    float4* dcal = at<float4>(B2, 0);
    fill32(raw, (size_t)FF_BATCHES * FF_FRAMES * FF_PIX, 0.5f, 0.5f, 61u);
    float2* hcal = nullptr;
    CK(cudaMallocHost(&hcal, FF_PIX * sizeof(float2)));
    for (size_t p = 0; p < FF_PIX; ++p) hcal[p] = make_float2(ff_gain(p), ff_dark(p));
    CK(cudaDeviceSynchronize());
    const size_t batch_px = (size_t)FF_FRAMES * FF_PIX;
    // Traffic needed: the raw frames in, the corrected frames out. Rate: pixels per second, in billions.
    run("flatfield_calib_reupload", 1.0 * FF_BATCHES * (double)batch_px, "Gpix/s", [&] {
      for (int b = 0; b < FF_BATCHES; ++b) {
        // The calibration map never changes, yet it is uploaded again for every batch.
        CK(cudaMemcpyAsync(dcal, hcal, FF_PIX * sizeof(float2), cudaMemcpyHostToDevice, 0));
        flatfield<<<(unsigned)(batch_px / 2 / 256), 256>>>((const float2*)(raw + (size_t)b * batch_px), dcal,
                                                            (float2*)(out + (size_t)b * batch_px));
      }
    });
    bool ok = true;
    const size_t total = (size_t)FF_BATCHES * batch_px;
    const auto ho = d2h(out, total);
    for (int s = 0; s < 65536 && ok; ++s) {
      const size_t i = ((size_t)s * 2654435761u + 29u) % total;
      const size_t p = i % FF_PIX;
      const double ref = ((double)fill_value(i, 0.5f, 0.5f, 61u) - ff_dark(p)) * ff_gain(p);
      if (!close_to(ho[i], ref, 1e-6, 1e-5)) {
        std::snprintf(msg, sizeof msg, "pixel %zu: %g vs %g", i, (double)ho[i], ref);
        ok = false;
      }
    }
    CK(cudaFreeHost(hcal));
    report("flatfield_calib_reupload", ok, msg);
  }

  // ---- heat_copy_back_dtod: the grid u (64 MiB) and the new grid v (64 MiB) in B0.
  if (selected("heat_copy_back_dtod")) {
    const size_t ng = (size_t)HT_N * HT_N;
    float* u = at<float>(B0, 0);
    float* v = at<float>(B0, 64 * MiB);
    fill32(u, ng, 0.5f, 0.5f, 81u);
    CK(cudaDeviceSynchronize());
    // Traffic needed: 64 MiB in and out per step. Rate: cell updates per second, in billions.
    run("heat_copy_back_dtod", 1.0 * HT_STEPS * (double)ng, "Gcell/s", [&] {
      for (int s = 0; s < HT_STEPS; ++s) {
        heat_step<<<dim3(HT_N / 32, HT_N / 8), dim3(32, 8)>>>(u, v);
        // "Make the new grid the current one": a full copy where swapping u and v would do.
        CK(cudaMemcpyAsync(u, v, ng * sizeof(float), cudaMemcpyDeviceToDevice, 0));
      }
    });
    // Replay all steps on the host (float, the same update) and compare sampled cells.
    std::vector<float> a(ng), b(ng);
    for (size_t i = 0; i < ng; ++i) a[i] = fill_value(i, 0.5f, 0.5f, 81u);
    for (int s = 0; s < HT_STEPS * reps; ++s) {
      for (int y = 0; y < HT_N; ++y)
        for (int x = 0; x < HT_N; ++x) {
          const size_t i = (size_t)y * HT_N + x;
          b[i] = (x > 0 && x < HT_N - 1 && y > 0 && y < HT_N - 1)
                     ? ht_update(a[i], a[i - 1], a[i + 1], a[i - HT_N], a[i + HT_N])
                     : a[i];
        }
      a.swap(b);
    }
    bool ok = true;
    const auto hu = d2h(u, ng);
    for (int s = 0; s < 65536 && ok; ++s) {
      const size_t i = ((size_t)s * 2654435761u + 3u) % ng;
      if (!close_to(hu[i], a[i], 1e-5, 1e-5)) {
        std::snprintf(msg, sizeof msg, "cell %zu: %g vs %g", i, (double)hu[i], (double)a[i]);
        ok = false;
      }
    }
    report("heat_copy_back_dtod", ok, msg);
  }

  // ---- sampler_host_prep: the batch's points (2 MiB) in B0, the potentials (1 MiB) in B1; pinned host buffers.
  if (selected("sampler_host_prep")) {
    float2* dpts = at<float2>(B0, 0);
    float* dphi = at<float>(B1, 0);
    float4 hsrc[HP_SRC];
    for (int s = 0; s < HP_SRC; ++s) hsrc[s] = hp_source(s);
    CK(cudaMemcpyToSymbol(c_src, hsrc, sizeof hsrc));
    float2* hpts = nullptr;
    float* hphi = nullptr;
    CK(cudaMallocHost(&hpts, HP_N * sizeof(float2)));
    CK(cudaMallocHost(&hphi, HP_N * sizeof(float)));
    std::vector<double> means;
    CK(cudaDeviceSynchronize());
    // Rate: point-source evaluations per second, in billions.
    run("sampler_host_prep", 1.0 * HP_BATCHES * HP_N * HP_SRC, "Geval/s", [&] {
      for (int b = 0; b < HP_BATCHES; ++b) {
        // The host generates the batch's sample points (the GPU has nothing to do meanwhile).
        for (int j = 0; j < HP_N; ++j) hp_point(b, j, hpts[j].x, hpts[j].y);
        CK(cudaMemcpyAsync(dpts, hpts, HP_N * sizeof(float2), cudaMemcpyHostToDevice, 0));
        field_at_points<<<HP_N / 256, 256>>>(dpts, dphi);
        CK(cudaMemcpyAsync(hphi, dphi, HP_N * sizeof(float), cudaMemcpyDeviceToHost, 0));
        CK(cudaStreamSynchronize(0));
        double m = 0.0;
        for (int j = 0; j < HP_N; ++j) m += hphi[j];
        means.push_back(m / HP_N);
      }
    });
    // The last batch's potentials against a double-precision host evaluation at sampled points.
    bool ok = (int)means.size() == HP_BATCHES * reps;
    if (!ok) std::snprintf(msg, sizeof msg, "%zu batch means, expected %d", means.size(), HP_BATCHES * reps);
    for (int s = 0; s < 4096 && ok; ++s) {
      const int j = (int)((s * 2654435761u + 1u) % (unsigned)HP_N);
      float x, y;
      hp_point(HP_BATCHES - 1, j, x, y);
      double ref = 0.0;
      for (int k = 0; k < HP_SRC; ++k) {
        const double dx = (double)x - hsrc[k].x, dy = (double)y - hsrc[k].y;
        ref += hsrc[k].z / std::sqrt(dx * dx + dy * dy + HP_EPS);
      }
      if (!close_to(hphi[j], ref, 1e-3, 1e-4)) {
        std::snprintf(msg, sizeof msg, "point %d: %g vs %g", j, (double)hphi[j], ref);
        ok = false;
      }
    }
    CK(cudaFreeHost(hpts));
    CK(cudaFreeHost(hphi));
    report("sampler_host_prep", ok, msg);
  }

  // ---- probe_readback_full_state: 4 M particles (x, y, vx, vy) (64 MiB) in B0; a pinned 64 MiB host copy.
  if (selected("probe_readback_full_state")) {
    float4* p = at<float4>(B0, 0);
    fill32(reinterpret_cast<float*>(p), 4 * (size_t)PR_N, 1.0f, 0.0f, 91u);
    float4* hstate = nullptr;
    CK(cudaMallocHost(&hstate, PR_N * sizeof(float4)));
    std::vector<double> probe_r2;
    CK(cudaDeviceSynchronize());
    // Traffic needed: 64 MiB in and out per step, plus 256 probes. Rate: particle sub-steps per second, in billions.
    run("probe_readback_full_state", 1.0 * PR_STEPS * PR_SUB * (double)PR_N, "Gstep/s", [&] {
      for (int s = 0; s < PR_STEPS; ++s) {
        particle_push<<<PR_N / 256, 256>>>(p);
        // The whole state comes back although only the 256 probe particles are looked at.
        CK(cudaMemcpyAsync(hstate, p, PR_N * sizeof(float4), cudaMemcpyDeviceToHost, 0));
        CK(cudaStreamSynchronize(0));
        double r2 = 0.0;
        for (int j = 0; j < PR_PROBES; ++j) {
          const float4 q = hstate[pr_probe(j)];
          r2 += (double)q.x * q.x + (double)q.y * q.y;
        }
        probe_r2.push_back(r2 / PR_PROBES);
      }
    });
    // The probes replayed on the host from their initial state (all steps of all repetitions).
    bool ok = (int)probe_r2.size() == PR_STEPS * reps;
    if (!ok) std::snprintf(msg, sizeof msg, "%zu probe logs, expected %d", probe_r2.size(), PR_STEPS * reps);
    double r2 = 0.0;
    for (int j = 0; j < PR_PROBES && ok; ++j) {
      const size_t i = (size_t)pr_probe(j);
      float x = fill_value(4 * i, 1.0f, 0.0f, 91u), y = fill_value(4 * i + 1, 1.0f, 0.0f, 91u);
      float vx = fill_value(4 * i + 2, 1.0f, 0.0f, 91u), vy = fill_value(4 * i + 3, 1.0f, 0.0f, 91u);
      for (int k = 0; k < PR_STEPS * PR_SUB * reps; ++k) pr_substep(x, y, vx, vy);
      const float4 q = hstate[i];
      if (!close_to(q.x, x, 1e-4, 1e-4) || !close_to(q.w, vy, 1e-4, 1e-4)) {
        std::snprintf(msg, sizeof msg, "probe %zu: (%g, %g) vs (%g, %g)", i, (double)q.x, (double)q.w, (double)x,
                      (double)vy);
        ok = false;
      }
      r2 += (double)q.x * q.x + (double)q.y * q.y;
    }
    if (ok && !close_to(probe_r2.back(), r2 / PR_PROBES, 0.0, 1e-12)) {
      std::snprintf(msg, sizeof msg, "last probe log %g vs %g", probe_r2.back(), r2 / PR_PROBES);
      ok = false;
    }
    CK(cudaFreeHost(hstate));
    report("probe_readback_full_state", ok, msg);
  }

  // ---- power_iter_scalar_sync: A (16 MiB, entries in [0, 1)) in B0; x0, x1, y and the sum of squares in B1.
  if (selected("power_iter_scalar_sync")) {
    float* A = at<float>(B0, 0);
    float* xs[2] = {at<float>(B1, 0), at<float>(B1, 64 * 1024)};
    float* y = at<float>(B1, 128 * 1024);
    float* sumsq = at<float>(B1, 192 * 1024);
    fill32(A, (size_t)PW_N * PW_N, 0.5f, 0.5f, 101u);
    int cur = 0;
    float lam = 0.f;
    std::vector<float> lams;
    fill32(xs[cur], PW_N, 0.0f, 1.0f / std::sqrt((float)PW_N), 0u);  // x = 1 / sqrt(n)
    CK(cudaDeviceSynchronize());
    // Rate: matrix-vector products per second, in thousands. (A second repetition continues from where the first
    // stopped.)
    run("power_iter_scalar_sync", 1e-3 * PW_ITERS, "kmatvec/s", [&] {
      for (int it = 0; it < PW_ITERS; ++it) {
        CK(cudaMemsetAsync(sumsq, 0, sizeof(float), 0));
        pw_matvec<<<PW_N / 8, 256>>>((const float4*)A, (const float4*)xs[cur], y, sumsq);
        float ss = 0.f;
        CK(cudaMemcpy(&ss, sumsq, sizeof(float), cudaMemcpyDeviceToHost));  // the host waits for the norm
        lam = std::sqrt(ss);
        lams.push_back(lam);
        pw_scale<<<PW_N / 256, 256>>>(y, xs[cur ^ 1], 1.0f / lam);
        cur ^= 1;
      }
    });
    // The last iteration recomputed on the host from the vector it started from.
    bool ok = true;
    const auto hA = d2h(A, (size_t)PW_N * PW_N);
    const auto xprev = d2h(xs[cur ^ 1], PW_N);
    const auto xlast = d2h(xs[cur], PW_N);
    std::vector<double> yr(PW_N);
    double ss = 0.0;
    for (int r = 0; r < PW_N; ++r) {
      double acc = 0.0;
      for (int c = 0; c < PW_N; ++c) acc += (double)hA[(size_t)r * PW_N + c] * xprev[c];
      yr[r] = acc;
      ss += acc * acc;
    }
    const double lref = std::sqrt(ss);
    if (!close_to(lam, lref, 0.0, 1e-4)) {
      std::snprintf(msg, sizeof msg, "lambda %g vs %g", (double)lam, lref);
      ok = false;
    }
    for (int r = 0; r < PW_N && ok; ++r)
      if (!close_to(xlast[r], yr[r] / lref, 1e-6, 1e-4)) {
        std::snprintf(msg, sizeof msg, "x[%d]: %g vs %g", r, (double)xlast[r], yr[r] / lref);
        ok = false;
      }
    report("power_iter_scalar_sync", ok, msg);
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
