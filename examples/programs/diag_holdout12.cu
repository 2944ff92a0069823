// Twelfth held-out diagnosis set: hand-written CUDA kernels, each built to have ONE bottleneck that an expert names
// from Nsight Compute's full report (and, for the program-level case, the nsys timeline), designed without reference
// to kprof's rules. What each case is designed to show (one line each; the designed labels are also in
// diag_holdout12_design.md; labels for scoring come from the reports alone):
//
//   grid_sync_steps         a cooperative kernel (all blocks co-resident) that runs 1000 tiny stencil steps with a
//                           cooperative-groups grid.sync() after each: grid-wide barrier stalls
//   tiny_step_launches      3000 back-to-back launches of tiny_step (~1-2 us of work each), no host syncs: launch
//                           overhead (program level)
//   sgemm_simt_regtile      FP32 GEMM on the FMA pipe (128x128 block tiles, 8x8 register tile per thread): compute-
//                           bound on FP32 FMA, no tensor cores
//   sgemm_smem_naive        FP32 GEMM with 32x32 shared tiles and one output per thread: every FMA reloads both
//                           operands from shared memory, shared-memory (LDS) throughput bound
//   rowsum_thread_per_row   row sums of a row-major 1 GiB matrix with one thread per row: each warp load touches 32
//                           rows (32 sectors per request): uncoalesced
//   int_div_runtime         32-bit division/modulo by a divisor that changes every iteration, no memory: emulated
//                           integer division (I2F/MUFU.RCP/F2I + IMAD sequences) bound
//   atomic_hot_global       float atomicAdd (RED) of every thread onto 16 hot addresses: global atomic contention
//   spill_launch_bounds     48 live floats per thread under __launch_bounds__(256, 8) (32 registers): spills, local
//                           memory loads and stores in the hot loop
//   zero_copy_host_read     a read stream from mapped pinned host memory (zero-copy): bound by the host link
//   skewed_block_work       every 16th block does 48x the FMA work of the others: load imbalance across blocks/SMs
//
//   diag_holdout12 [reps] [cases]   reps: launches of each case (default 1); cases: comma-separated names to run
//                                    (default all), or names each prefixed with '-' to leave out
//
// Every case runs in its own NVTX push/pop range named after it (tiny_step_launches holds its 3000 tiny_step
// launches). Inputs are filled with non-zero data first, outside any range. Sizes are chosen so that each launch takes
// ~0.3-3 ms on an H200 (tiny_step_launches ~5-10 ms in all). ~1.3 GB of device memory and 128 MiB of pinned host
// memory in all.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace cg = cooperative_groups;

#define CK(x)                                                                                     \
  do {                                                                                            \
    cudaError_t e_ = (x);                                                                         \
    if (e_ != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

// ---------------------------------------------------------------------------------------------------------------
// Grid-wide synchronisation.

// A 3-point smoothing of a ring of n floats (one per thread), `steps` times, ping-ponging between a and b; a
// cooperative-groups grid.sync() after every step (each step reads the neighbours the previous step wrote). A step is
// three L2-resident loads and a store; the grid barrier (block barrier, one arrival atomic per block, a spin on the
// generation word, block barrier) costs several times that, so most warps wait at the block barrier inside grid.sync.
// Launched with cudaLaunchCooperativeKernel on exactly the blocks that fit at once.
constexpr int GS_THREADS = 512;
__global__ void __launch_bounds__(GS_THREADS) grid_sync_steps(float* a, float* b, int n, int steps) {
  cg::grid_group grid = cg::this_grid();
  const int T = gridDim.x * blockDim.x;
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  for (int s = 0; s < steps; ++s) {
    for (int i = g; i < n; i += T) {
      const float l = a[i == 0 ? n - 1 : i - 1], c = a[i], r = a[i == n - 1 ? 0 : i + 1];
      b[i] = fmaf(0.5f, c, 0.25f * (l + r));
    }
    grid.sync();
    float* t = a;
    a = b;
    b = t;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Launch overhead (program level).

// One multiply-add per element of a small array: a launch does ~1-2 us of GPU work; the case launches it 3000 times
// back to back (each launch depends on the previous one's result).
__global__ void tiny_step(float* x, int n, float a, float c) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = fmaf(x[i], a, c);
}

// ---------------------------------------------------------------------------------------------------------------
// FP32 GEMM on the FMA pipe.

// C (M x N) = A (M x K) * B (K x N), all row-major fp32; M, N multiples of 128, K a multiple of 8. 256 threads per
// 128x128 block tile, BK = 8, double-buffered shared tiles (A stored transposed) with the next tile's global loads in
// registers during the current tile's math. Each thread owns an 8x8 register tile (rows ty*4+i and 64+ty*4+i,
// columns tx*4+j and 64+tx*4+j): per k step four LDS.128 (conflict-free) feed 64 independent FFMAs. Two blocks
// (16 warps) per SM; the FMA pipe is the limit, no tensor cores.
constexpr int SG_BM = 128, SG_BN = 128, SG_BK = 8, SG_THREADS = 256;
__global__ void __launch_bounds__(SG_THREADS, 2) sgemm_simt_regtile(const float* __restrict__ A,
                                                                    const float* __restrict__ B,
                                                                    float* __restrict__ C, int M, int N, int K) {
  __shared__ __align__(16) float As[2][SG_BK][SG_BM];
  __shared__ __align__(16) float Bs[2][SG_BK][SG_BN];
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const int bm = blockIdx.y * SG_BM, bn = blockIdx.x * SG_BN;
  const int a_row = tid / 2, a_col = (tid % 2) * 4;    // the A tile: 128 rows x 8 columns, one float4 per thread
  const int b_row = tid / 32, b_col = (tid % 32) * 4;  // the B tile: 8 rows x 128 columns, one float4 per thread
  const float* Ap = A + (size_t)(bm + a_row) * K + a_col;
  const float* Bp = B + (size_t)b_row * N + bn + b_col;
  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.f;
  float4 ra = *(const float4*)Ap, rb = *(const float4*)Bp;
  As[0][a_col + 0][a_row] = ra.x;
  As[0][a_col + 1][a_row] = ra.y;
  As[0][a_col + 2][a_row] = ra.z;
  As[0][a_col + 3][a_row] = ra.w;
  *(float4*)&Bs[0][b_row][b_col] = rb;
  __syncthreads();
  int buf = 0;
  for (int k0 = 0; k0 < K; k0 += SG_BK) {
    const bool more = k0 + SG_BK < K;
    if (more) {
      ra = *(const float4*)(Ap + k0 + SG_BK);
      rb = *(const float4*)(Bp + (size_t)(k0 + SG_BK) * N);
    }
#pragma unroll
    for (int k = 0; k < SG_BK; ++k) {
      const float4 a0 = *(const float4*)&As[buf][k][ty * 4], a1 = *(const float4*)&As[buf][k][64 + ty * 4];
      const float4 b0 = *(const float4*)&Bs[buf][k][tx * 4], b1 = *(const float4*)&Bs[buf][k][64 + tx * 4];
      const float av[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float bv[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
    }
    if (more) {
      As[buf ^ 1][a_col + 0][a_row] = ra.x;
      As[buf ^ 1][a_col + 1][a_row] = ra.y;
      As[buf ^ 1][a_col + 2][a_row] = ra.z;
      As[buf ^ 1][a_col + 3][a_row] = ra.w;
      *(float4*)&Bs[buf ^ 1][b_row][b_col] = rb;
    }
    __syncthreads();
    buf ^= 1;
  }
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int row = bm + (i < 4 ? ty * 4 + i : 64 + ty * 4 + (i - 4));
    float* Cr = C + (size_t)row * N + bn;
    *(float4*)&Cr[tx * 4] = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
    *(float4*)&Cr[64 + tx * 4] = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// FP32 GEMM limited by shared-memory bandwidth.

// C = A * B (row-major, leading dimensions lda/ldb/ldc; M, N, K multiples of 32) with 32x32 shared tiles, 1024
// threads per block, one output per thread: per tile each thread does 32 FMAs and reloads both operands of every FMA
// from shared memory (As[ty][k] a warp-wide broadcast, Bs[k][tx] conflict-free), ~40 shared loads per 32 FMAs where
// the FMA pipe could do 4 warp FMAs per shared wavefront: the shared-memory pipe (MIO/LSU) is the limit.
constexpr int SN_T = 32;
__global__ void __launch_bounds__(SN_T* SN_T) sgemm_smem_naive(const float* __restrict__ A, const float* __restrict__ B,
                                                               float* __restrict__ C, int K, int lda, int ldb,
                                                               int ldc) {
  __shared__ float As[SN_T][SN_T];
  __shared__ float Bs[SN_T][SN_T];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * SN_T + ty, col = blockIdx.x * SN_T + tx;
  float acc = 0.f;
  for (int k0 = 0; k0 < K; k0 += SN_T) {
    As[ty][tx] = A[(size_t)row * lda + k0 + tx];
    Bs[ty][tx] = B[(size_t)(k0 + ty) * ldb + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < SN_T; ++k) acc = fmaf(As[ty][k], Bs[k][tx], acc);
    __syncthreads();
  }
  C[(size_t)row * ldc + col] = acc;
}

// ---------------------------------------------------------------------------------------------------------------
// Uncoalesced reads.

// out[r] = sum of row r of a row-major rows x cols float matrix, one thread per row, walking its row element by
// element: at each step the 32 lanes of a warp read from 32 different rows (cols*4 = 1 KiB apart), 32 sectors per
// request for 128 useful bytes. The matrix is read once; lanes re-touch each sector 8 times over consecutive steps.
__global__ void rowsum_thread_per_row(const float* __restrict__ m, float* __restrict__ out, int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* p = m + (size_t)r * cols;
  float s0 = 0.f, s1 = 0.f;
#pragma unroll 4
  for (int c = 0; c < cols; c += 2) {
    s0 += p[c];
    s1 += p[c + 1];
  }
  out[r] = s0 + s1;
}

// ---------------------------------------------------------------------------------------------------------------
// Integer division.

// Two coupled integer recurrences per thread, each step a 32-bit quotient and remainder by a divisor that changes every
// iteration (base + (i & 1023), and that plus 7): the reciprocal cannot be hoisted, so every step runs two full
// unsigned-division sequences (I2F.U32.RP, MUFU.RCP, F2I.U32.TRUNC, IMAD.HI/IMAD fix-ups). No memory but the store.
__global__ void int_div_runtime(unsigned* out, unsigned base, int iters) {
  const unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = g * 2654435761u + 12345u, y = g ^ 0x5bd1e995u;
  for (int i = 0; i < iters; ++i) {
    const unsigned m = base + ((unsigned)i & 1023u), m2 = m + 7u;
    const unsigned q = x / m, r = x % m;
    const unsigned q2 = y / m2, r2 = y % m2;
    x = (q ^ (r * 2654435761u)) + (unsigned)i;
    y = (q2 + r2 * 40503u) ^ x;
  }
  out[g] = x ^ y;
}

// ---------------------------------------------------------------------------------------------------------------
// Global atomic contention.

// Every thread adds `per_thread` floats into one of 16 hot accumulators (128 bytes apart, so on several L2 lines); lane
// l at step i hits accumulator (l + i) % 16, so each warp RED touches all 16, two lanes each, and all warps of the grid
// pile onto the same 16 addresses: same-address atomics serialise in L2.
constexpr int HOT_N = 16, HOT_STRIDE = 32;
__global__ void atomic_hot_global(float* hot, int per_thread) {
  const unsigned g = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x % 32;
  float v = 1e-6f * (float)((g & 255) + 1);
  for (int i = 0; i < per_thread; ++i) {
    atomicAdd(&hot[((lane + (unsigned)i) % HOT_N) * HOT_STRIDE], v);
    v = fmaf(v, 0.999f, 1e-7f);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Register spills.

// 48 floats of per-thread state, all live across rounds (each round updates every element from itself and its
// neighbour, the last from the new first one), under __launch_bounds__(256, 8): 32 registers per thread, so ptxas
// spills most of the state (a 160-byte frame); every round reloads and re-stores the spilled values (local memory).
constexpr int SP_N = 48;
__global__ void __launch_bounds__(256, 8) spill_launch_bounds(const float* __restrict__ in, float* out, int rounds) {
  const unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  float v[SP_N];
  const float base = in[g & 1023];
#pragma unroll
  for (int j = 0; j < SP_N; ++j) v[j] = base * (1.0f + 0.01f * j);
  for (int r = 0; r < rounds; ++r) {
#pragma unroll
    for (int j = 0; j < SP_N; ++j) v[j] = fmaf(v[j], 0.5f, fmaf(v[(j + 1) % SP_N], 0.25f, 1e-3f * (j + 1)));
  }
  float s = 0.f;
#pragma unroll
  for (int j = 0; j < SP_N; ++j) s = fmaf(s, 0.75f, v[j]);
  out[g] = s;
}

// ---------------------------------------------------------------------------------------------------------------
// Zero-copy host reads.

// A grid-stride float4 sum over n4 float4s in mapped pinned host memory (cudaHostAllocMapped): every load crosses the
// host link (PCIe / C2C) instead of HBM; device memory only sees the per-thread results.
__global__ void zero_copy_host_read(const float4* __restrict__ h, float* __restrict__ out, size_t n4) {
  const size_t g = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  float s0 = 0.f, s1 = 0.f;
#pragma unroll 4
  for (size_t i = g; i < n4; i += (size_t)gridDim.x * blockDim.x) {
    const float4 v = h[i];
    s0 += v.x + v.y;
    s1 += v.z + v.w;
  }
  out[g] = s0 + s1;
}

// ---------------------------------------------------------------------------------------------------------------
// Load imbalance across blocks.

// Four independent FMA chains per thread; every 16th block runs heavy * light iterations, the others light. One
// wave (all blocks resident at once): after the light blocks finish (~1/10 of the run), the 66 heavy blocks run alone
// on a few dozen SMs while the rest of the GPU idles.
__global__ void skewed_block_work(float* out, int light, int heavy) {
  const unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  const int iters = blockIdx.x % 16 == 0 ? light * heavy : light;
  const float t = (g & 255) * 1e-4f;
  float a = t, b = t + 0.1f, c = t + 0.2f, d = t + 0.3f;
#pragma unroll 4
  for (int i = 0; i < iters; ++i) {
    a = fmaf(a, 0.9999f, 1e-4f);
    b = fmaf(b, 0.9998f, 2e-4f);
    c = fmaf(c, 0.9997f, 3e-4f);
    d = fmaf(d, 0.9996f, 4e-4f);
  }
  out[g] = (a + b) + (c + d);
}

// ---------------------------------------------------------------------------------------------------------------

__global__ void fill_f(float* p, size_t n, float v) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = v * (float)((i * 2654435761u) % 1009) * 1e-3f + 1e-3f;
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

  const size_t MiB = 1ull << 20;
  // 1 GiB of positive floats: rowsum_thread_per_row's matrix (2^20 rows of 256); its first KiB spill_launch_bounds'
  // seeds.
  float* fa;
  CK(cudaMalloc(&fa, 1024 * MiB));
  fill_f<<<4096, 256>>>(fa, 1024 * MiB / 4, 1.0f);
  // GEMM operands: A 4096 x 2048, B 2048 x 4096, C 4096 x 4096 (fp32, row-major).
  const int GM = 4096, GN = 4096, GK = 2048;
  float *gA, *gB, *gC;
  CK(cudaMalloc(&gA, (size_t)GM * GK * 4));
  CK(cudaMalloc(&gB, (size_t)GK * GN * 4));
  CK(cudaMalloc(&gC, (size_t)GM * GN * 4));
  fill_f<<<1024, 256>>>(gA, (size_t)GM * GK, 0.5f);
  fill_f<<<1024, 256>>>(gB, (size_t)GK * GN, 0.25f);
  CK(cudaMemset(gC, 0, (size_t)GM * GN * 4));
  // Cooperative launch: as many 512-thread blocks as fit at once; the ring has one float per thread.
  int coop = 0;
  CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0));
  int gs_fit = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&gs_fit, grid_sync_steps, GS_THREADS, 0));
  if (gs_fit < 1) gs_fit = 1;
  const int gs_blocks = gs_fit * sms, gs_n = gs_blocks * GS_THREADS;
  float *gsa, *gsb;
  CK(cudaMalloc(&gsa, (size_t)gs_n * 4));
  CK(cudaMalloc(&gsb, (size_t)gs_n * 4));
  fill_f<<<256, 256>>>(gsa, gs_n, 1.0f);
  CK(cudaMemset(gsb, 0, (size_t)gs_n * 4));
  // tiny_step's array: one 256-thread block per SM.
  const int tiny_n = sms * 256;
  float* tiny;
  CK(cudaMalloc(&tiny, (size_t)tiny_n * 4));
  fill_f<<<64, 256>>>(tiny, tiny_n, 1.0f);
  // The hot accumulators.
  float* hot;
  CK(cudaMalloc(&hot, HOT_N * HOT_STRIDE * sizeof(float)));
  CK(cudaMemset(hot, 0, HOT_N * HOT_STRIDE * sizeof(float)));
  // 128 MiB of mapped pinned host memory, filled on the host.
  const size_t host_bytes = 128 * MiB;
  float* hbuf = nullptr;
  CK(cudaHostAlloc(&hbuf, host_bytes, cudaHostAllocMapped));
  for (size_t i = 0; i < host_bytes / 4; ++i) hbuf[i] = (float)(i % 1009) * 1e-3f + 1e-3f;
  float* hbuf_dev = nullptr;
  CK(cudaHostGetDevicePointer((void**)&hbuf_dev, hbuf, 0));
  float* out;
  const size_t out_bytes = 64 * MiB;
  CK(cudaMalloc(&out, out_bytes));
  CK(cudaMemset(out, 0, out_bytes));
  CK(cudaDeviceSynchronize());

  Timer tm;
  // Launches run inside named ranges; each prints its CUDA-event time so plain runs show the designed behaviour.
  auto once = [&](const char* name, double work, const char* unit, auto&& body) {
    if (!selected(name)) return;
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

  {
    // All co-resident 512-thread blocks (4 per SM), 1000 steps with a grid barrier each. Rate: k grid barriers/s.
    int steps = 1000;
    if (!coop) {
      if (selected("grid_sync_steps")) std::printf("grid_sync_steps: no cooperative launch on this device, skipped\n");
    } else {
      run("grid_sync_steps", 1e6 * steps, "kbar/s", [&] {
        float* a = gsa;
        float* b = gsb;
        int n = gs_n;
        void* args[] = {&a, &b, &n, &steps};
        CK(cudaLaunchCooperativeKernel((const void*)grid_sync_steps, dim3(gs_blocks), dim3(GS_THREADS), args, 0, 0));
      });
    }
  }
  {
    // 3000 launches of one 256-thread block per SM, one FMA per thread each. Rate: k launches per second.
    const int launches = 3000;
    run("tiny_step_launches", 1e6 * launches, "klaunch/s", [&] {
      for (int k = 0; k < launches; ++k) tiny_step<<<sms, 256>>>(tiny, tiny_n, 0.999f, 1e-3f);
    });
  }
  // 4096 x 4096 x 2048: 1024 block tiles, two per SM (~3.9 waves). Rate: GFLOP/s.
  run("sgemm_simt_regtile", 2.0 * GM * GN * GK, "GFLOP/s", [&] {
    sgemm_simt_regtile<<<dim3(GN / SG_BN, GM / SG_BM), SG_THREADS>>>(gA, gB, gC, GM, GN, GK);
  });
  {
    // 2048 x 2048 outputs, K = 1536 (top-left corners of A, B and C): 4096 blocks of 1024, two per SM. Rate: GFLOP/s.
    const int n = 2048, k = 1536;
    run("sgemm_smem_naive", 2.0 * n * n * k, "GFLOP/s", [&] {
      sgemm_smem_naive<<<dim3(n / SN_T, n / SN_T), dim3(SN_T, SN_T)>>>(gA, gB, gC, k, GK, GN, GN);
    });
  }
  {
    // 2^20 rows of 256 floats (1 GiB), one thread per row: 4096 blocks of 256 (~3.9 waves). Rate: GB/s of matrix.
    const int rows = 1 << 20, cols = 256;
    run("rowsum_thread_per_row", 1024.0 * MiB, "GB/s",
        [&] { rowsum_thread_per_row<<<rows / 256, 256>>>(fa, out, rows, cols); });
  }
  // 8 blocks of 256 per SM, one wave; 2048 iterations of two divisions. Rate: G divisions per second.
  run("int_div_runtime", 2.0 * 2048 * sms * 8 * 256, "Gdiv/s",
      [&] { int_div_runtime<<<sms * 8, 256>>>((unsigned*)out, 1000003u, 2048); });
  // 8 blocks of 256 per SM, one wave; 64 atomics per thread onto 16 addresses. Rate: G atomics per second.
  run("atomic_hot_global", 64.0 * sms * 8 * 256, "Gatom/s",
      [&] { atomic_hot_global<<<sms * 8, 256>>>(hot, 64); });
  // 8 blocks of 256 per SM, one wave; 256 rounds over 48 values. Rate: G value updates per second.
  run("spill_launch_bounds", 48.0 * 256 * sms * 8 * 256, "Gupd/s",
      [&] { spill_launch_bounds<<<sms * 8, 256>>>(fa, out, 256); });
  // 8 blocks of 256 per SM, one wave, over 128 MiB of host memory. Rate: GB/s across the host link.
  run("zero_copy_host_read", (double)host_bytes, "GB/s",
      [&] { zero_copy_host_read<<<sms * 8, 256>>>((const float4*)hbuf_dev, out, host_bytes / 16); });
  // 8 blocks of 256 per SM (one wave); light blocks 4096 iterations of 4 FMAs, every 16th block 48 times that.
  // Rate: GFMA/s over all the work done.
  {
    const int blocks = sms * 8, light = 4096, heavy = 48;
    const int nheavy = (blocks + 15) / 16;
    run("skewed_block_work", 4.0 * 256 * light * ((double)(blocks - nheavy) + (double)nheavy * heavy), "GFMA/s",
        [&] { skewed_block_work<<<blocks, 256>>>(out, light, heavy); });
  }
  CK(cudaDeviceSynchronize());
  CK(cudaFreeHost(hbuf));
  std::printf("ok\n");
  return 0;
}
