// Forty-fourth held-out diagnosis set: graph analytics and computational science written by hand in CUDA C++ the way
// a competent practitioner writes it the first time. Each case has ONE performance limiter, designed without
// reference to kprof's rules: six cases are single kernels (five with a flaw a real person plausibly ships, one
// already at the DRAM roof), four are program-level (a host loop, a chain of kernels and copies, one stream, or
// allocation inside a time step). One paragraph each (the designer's intent is in diag_holdout44_design.md; labels for
// scoring come from the reports alone):
//
//   pagerank_pull_thread_per_vertex_rmat_s20   two PageRank iterations pulling over the in-edge CSR of an R-MAT
//                                        graph (2^20 vertices, 16.8 M edges, a = 0.57), one thread per vertex. The
//                                        in-degrees are power-law (the largest about 69 k, most under 16), so a
//                                        handful of threads walk tens of thousands of edges alone while the rest of
//                                        the GPU has finished: load imbalance across threads / warps / SMs (a long
//                                        tail with almost no warps resident). First fix: a warp (or block) per
//                                        vertex, or bin the vertices by degree / split the edges evenly (merge-path).
//   degree_histogram_powerlaw_16m_vertices   the degree distribution of a 16.8 M-vertex power-law graph (exponent
//                                        2.1) from its CSR row offsets: one thread per vertex and one global
//                                        atomicAdd into 1025 bins. Half of all vertices have degree 1 and most of the
//                                        rest 2 to 5, so millions of atomics serialise on a few addresses in one L2
//                                        slice: same-address atomic contention. First fix: a per-block shared-memory
//                                        histogram merged once per block (or warp-aggregated increments).
//   lbm_d3q19_stream_collide_aos_128cubed    four lattice-Boltzmann steps (D3Q19, BGK, periodic, pull scheme) on
//                                        128^3 cells with the 19 populations of a cell stored together (array of
//                                        structures, 76 bytes a cell). Every load and store of a warp touches 32
//                                        lanes 76 bytes apart: about 32 sectors per request where 4 would do
//                                        (uncoalesced accesses, L1/L2 traffic many times the useful bytes). First
//                                        fix: structure-of-arrays layout f[q][cell].
//   smith_waterman_affine_batch_131072x100bp   Smith-Waterman with affine gaps for 131072 read / window pairs of
//                                        100 bp, one thread per pair (inter-task), sequences interleaved for
//                                        coalescing. Each thread keeps its previous DP row H[] and gap row E[] in
//                                        arrays sized for 256 bp and indexed by the run-time column: they live in
//                                        local memory (about 2 KB of stack a thread), 16 bytes of local traffic per
//                                        cell that misses L1. First fix: keep a strip of the row in registers (tile
//                                        the columns with compile-time indices) or in shared memory as 16-bit values.
//   vertical_diffusion_thomas_1m_columns_32_levels   four implicit vertical-diffusion steps of 2^20 atmospheric
//                                        columns of 32 levels (tridiagonal Thomas solve per column). A block stages
//                                        128 columns of temperature and diffusivity through shared memory with
//                                        coalesced loads, then each thread sweeps its own column at
//                                        tile[thread * 32 + level]: a stride of 32 words, so all 32 lanes hit one
//                                        bank (32-way shared-memory bank conflicts). First fix: pad the tile rows to
//                                        33 words (or an XOR swizzle).
//   jacobi_poisson2d_5pt_8192sq_8_sweeps     eight Jacobi sweeps of the 5-point Poisson stencil on an 8192^2 fp32
//                                        grid (ping-pong buffers, Dirichlet boundary), 32 x 8 thread blocks with
//                                        coalesced rows: a streaming kernel at the DRAM roof (reads u and f, writes
//                                        u_new, neighbours come from L1/L2). Nothing big to fix short of an
//                                        algorithmic change (temporal blocking, multigrid).
//   bfs_topdown_lattice_512x512_from_centre  a level-synchronous top-down BFS on a 512 x 512 lattice (a road-like,
//                                        high-diameter graph) from its centre: 513 levels, each a memset of the
//                                        queue counter, one kernel over the (at most ~1000-vertex) frontier with an
//                                        atomic queue, and a blocking 4-byte read-back of the next frontier's size.
//                                        The GPU idles between microsecond kernels while the host launches and
//                                        waits: launch / synchronisation bound. First fix: keep the level loop on
//                                        the device (persistent kernel with a grid barrier, or a CUDA graph with a
//                                        conditional node) or check the size only every few levels.
//   wave3d_acoustic_leapfrog_256cubed_8_steps  eight leapfrog steps of the 3-D acoustic wave equation on 256^3
//                                        (variable velocity, a Ricker point source): per step a 7-point Laplacian
//                                        kernel writes lap[] to DRAM, an update kernel reads it back with u, u_prev
//                                        and c^2 to write u_next, and two device-to-device copies rotate the time
//                                        levels: about 11 full-grid passes where one fused kernel with pointer
//                                        rotation needs 4. First fix: fuse the Laplacian into the update and swap
//                                        pointers instead of copying.
//   double_gyre_particle_advection_4m_4_frames  Lagrangian tracking of 4 M particles in the time-periodic double
//                                        gyre (RK4, 25 steps a frame), each frame's 32 MB of positions copied to
//                                        pinned host memory on the same stream as the next frame's kernel: copies
//                                        and kernels strictly alternate, the copy engine idle while the SMs work and
//                                        vice versa. First fix: double-buffer the positions and issue the copy on a
//                                        second stream so it overlaps the next frame's kernel.
//   md_cell_list_rebuild_1m_particles_10_steps  ten steps of a particle code's neighbour-grid rebuild (1 M
//                                        particles, 64^3 cells): drift, cell index, CUB radix sort by cell, cell
//                                        bounds, reorder; the build function cudaMalloc's its three scratch arrays
//                                        and CUB's temporary storage each call and cudaFree's them at the end (the
//                                        frees synchronise the device). The GPU sits idle between short bursts of
//                                        work while the host allocates and frees. First fix: allocate the scratch
//                                        once (or use cudaMallocAsync / a memory pool) and reuse it.
//
//   diag_holdout44 [reps] [cases]   reps: repetitions of each case's range (default 1); cases: comma-separated names
//                                    to run (default all), or names each prefixed with '-' to leave out
//
// Every case runs in its own NVTX push/pop range named after it, holding only that case's kernels, copies,
// allocations (where they are the case) and waits on the one created stream; the range ends after the end event is
// synchronised. Graph generation, input allocation and fills and one warm-up of the case's work come before the
// range; a case that overwrites its input restores it before each repetition, outside the range. A CUDA error inside
// a case (including running out of memory) makes it print "<case>: skipped (...)" and the program goes on. After its
// repetitions each case checks its result once (a host reference, on samples where a full one is too slow, or an
// invariant) and prints "<case>: ok" or "<case>: MISMATCH ..."; the program prints "ok" and returns 0 when no case
// mismatched, 1 otherwise. Without a CUDA device it says so and returns 0. Peak device memory about 1.2 GB (one
// case's buffers at a time).
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cub/cub.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

// ---------------------------------------------------------------------------------------------------------------
// Error handling: inside a case a failing CUDA call throws CaseSkip; the case prints "<case>: skipped (...)".

struct CaseSkip {
  std::string why;
};
[[noreturn]] static void throw_skip(const char* what, const char* expr, int line) {
  std::string call(expr);
  const size_t paren = call.find('(');
  if (paren != std::string::npos) call.resize(paren);
  throw CaseSkip{std::string(what) + " from " + call + " at line " + std::to_string(line)};
}
#define CK(x)                                           \
  do {                                                  \
    const cudaError_t err_ = (x);                       \
    if (err_ != cudaSuccess) {                          \
      (void)cudaGetLastError();                         \
      throw_skip(cudaGetErrorString(err_), #x, __LINE__); \
    }                                                   \
  } while (0)

template <class T>
struct DevBuf {
  T* p = nullptr;
  explicit DevBuf(size_t count) { CK(cudaMalloc(&p, count * sizeof(T))); }
  ~DevBuf() {
    if (p != nullptr) cudaFree(p);
  }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  operator T*() const { return p; }
};
template <class T>
struct PinnedBuf {
  T* p = nullptr;
  explicit PinnedBuf(size_t count) { CK(cudaMallocHost(&p, count * sizeof(T))); }
  ~PinnedBuf() {
    if (p != nullptr) cudaFreeHost(p);
  }
  PinnedBuf(const PinnedBuf&) = delete;
  PinnedBuf& operator=(const PinnedBuf&) = delete;
};
struct NvtxRange {
  explicit NvtxRange(const char* name) { nvtxRangePushA(name); }
  ~NvtxRange() { nvtxRangePop(); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

// ---------------------------------------------------------------------------------------------------------------
// Deterministic counter-based random numbers (a splitmix64 finaliser), the same on host and device.

__host__ __device__ inline unsigned long long mix64(unsigned long long z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
__host__ __device__ inline unsigned rnd32(unsigned long long i, unsigned seed) {
  return (unsigned)(mix64(i ^ (0xD1B54A32D192ED03ull * (seed + 1ull))) >> 32);
}
__host__ __device__ inline float rnd01(unsigned long long i, unsigned seed) {  // [0, 1), 24 bits
  return (float)(rnd32(i, seed) >> 8) * (1.0f / 16777216.0f);
}
__host__ __device__ inline float rnd11(unsigned long long i, unsigned seed) {  // [-1, 1)
  return rnd01(i, seed) * 2.0f - 1.0f;
}

// ---------------------------------------------------------------------------------------------------------------
// Host-side helpers.

template <class T>
static std::vector<T> d2h(const T* p, size_t count) {
  std::vector<T> h(count);
  CK(cudaMemcpy(h.data(), p, count * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}
template <class T>
static void h2d(T* dst, const std::vector<T>& src) {
  CK(cudaMemcpy(dst, src.data(), src.size() * sizeof(T), cudaMemcpyHostToDevice));
}
static bool close_to(double got, double ref, double atol, double rtol) {
  return std::isfinite(got) && std::fabs(got - ref) <= atol + rtol * std::fabs(ref);
}
static size_t sample_index(int s, size_t n, unsigned salt) {  // a spread of sample positions in [0, n)
  return (size_t)(rnd32((unsigned long long)s, 0xC0FFEEu + salt) % n);
}
static unsigned blocks_for(size_t n, unsigned threads) { return (unsigned)((n + threads - 1) / threads); }

__global__ void warmup_kernel(int* p) {
  if (blockIdx.x == 0 && threadIdx.x == 0 && p != nullptr) *p = 1;
}
__global__ void fill_float(float* p, size_t n, float v) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) p[i] = v;
}

static const char* const kCases[] = {"pagerank_pull_thread_per_vertex_rmat_s20",
                                     "degree_histogram_powerlaw_16m_vertices",
                                     "lbm_d3q19_stream_collide_aos_128cubed",
                                     "smith_waterman_affine_batch_131072x100bp",
                                     "vertical_diffusion_thomas_1m_columns_32_levels",
                                     "jacobi_poisson2d_5pt_8192sq_8_sweeps",
                                     "bfs_topdown_lattice_512x512_from_centre",
                                     "wave3d_acoustic_leapfrog_256cubed_8_steps",
                                     "double_gyre_particle_advection_4m_4_frames",
                                     "md_cell_list_rebuild_1m_particles_10_steps"};

// What every case shares: the stream, the timing events, the repetition count and the tally of mismatches.
struct Ctx {
  cudaStream_t st = nullptr;
  cudaEvent_t ev0 = nullptr, ev1 = nullptr;
  int reps = 1, failures = 0, sms = 132;
  char msg[320] = "";

  // prep() runs before each repetition, outside the range; body() issues the case's work and returns the amount of
  // work done, printed as work / seconds / scale in the given unit.
  template <class Prep, class Body>
  void run(const char* name, double scale, const char* unit, Prep&& prep, Body&& body) {
    for (int r = 0; r < reps; ++r) {
      prep();
      CK(cudaStreamSynchronize(st));
      double work = 0.0;
      {
        NvtxRange range(name);
        CK(cudaEventRecord(ev0, st));
        work = body();
        CK(cudaEventRecord(ev1, st));
        CK(cudaGetLastError());
        CK(cudaEventSynchronize(ev1));
      }
      float ms = 0.0f;
      CK(cudaEventElapsedTime(&ms, ev0, ev1));
      std::printf("%-50s %9.3f ms  %10.2f %s\n", name, ms, work / (ms * 1e-3) / scale, unit);
    }
  }
  void report(const char* name, bool ok) {
    if (ok) {
      std::printf("%s: ok\n", name);
    } else {
      std::printf("%s: MISMATCH %s\n", name, msg);
      ++failures;
    }
    msg[0] = '\0';
  }
};

// ===============================================================================================================
// 1. pagerank_pull_thread_per_vertex_rmat_s20

constexpr int PR_SCALE = 20;
constexpr int PR_NV = 1 << PR_SCALE;
constexpr long long PR_NE = 16LL << PR_SCALE;  // edge factor 16
constexpr int PR_ITERS = 2;
constexpr float PR_DAMPING = 0.85f;

// A bijection on [0, 2^scale) (odd multipliers and xor-shifts of a masked value) that scatters the R-MAT ids, as
// the Graph500 generator permutes its vertices.
__host__ __device__ inline unsigned scramble_vertex(unsigned v, int scale) {
  const unsigned mask = (1u << scale) - 1u;
  v = (v * 0x9E3779B1u) & mask;
  v ^= v >> (scale / 2);
  v = (v * 0x85EBCA77u) & mask;
  v ^= v >> (scale / 3);
  return v;
}

// R-MAT edges with (a, b, c, d) = (0.57, 0.19, 0.19, 0.05), one level of the recursion per id bit.
__global__ void rmat_edges(int* src, int* dst, long long m, int scale, unsigned seed) {
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < m; e += (long long)gridDim.x * blockDim.x) {
    unsigned s = 0, d = 0;
    for (int l = 0; l < scale; ++l) {
      const float r = rnd01((unsigned long long)e * 32ull + (unsigned long long)l, seed);
      const unsigned bs = r >= 0.76f ? 1u : 0u;                                // quadrants c, d
      const unsigned bd = ((r >= 0.57f && r < 0.76f) || r >= 0.95f) ? 1u : 0u;  // quadrants b, d
      s = (s << 1) | bs;
      d = (d << 1) | bd;
    }
    src[e] = (int)scramble_vertex(s, scale);
    dst[e] = (int)scramble_vertex(d, scale);
  }
}

// rank_next[v] = (1 - d) / n + d * sum over in-neighbours u of rank[u] / outdeg(u)
__global__ void pagerank_pull(const int* __restrict__ row_ptr, const int* __restrict__ col,
                              const float* __restrict__ inv_outdeg, const float* __restrict__ rank,
                              float* __restrict__ rank_next, int n, float damping) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  float sum = 0.0f;
  const int end = row_ptr[v + 1];
  for (int e = row_ptr[v]; e < end; ++e) {
    const int u = col[e];
    sum += rank[u] * inv_outdeg[u];
  }
  rank_next[v] = (1.0f - damping) / n + damping * sum;
}

static void case_pagerank(Ctx& c, const char* name) {
  const int n = PR_NV;
  const long long m = PR_NE;
  // The graph: edges generated on the device, the in-edge CSR built on the host (a stable counting sort by target).
  std::vector<int> rp(n + 1, 0), col((size_t)m), outdeg(n, 0);
  {
    DevBuf<int> dsrc((size_t)m), ddst((size_t)m);
    rmat_edges<<<8 * c.sms, 256, 0, c.st>>>(dsrc, ddst, m, PR_SCALE, 101u);
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(c.st));
    const auto hs = d2h(dsrc.p, (size_t)m), hd = d2h(ddst.p, (size_t)m);
    for (long long e = 0; e < m; ++e) {
      ++rp[hd[e] + 1];
      ++outdeg[hs[e]];
    }
    for (int v = 0; v < n; ++v) rp[v + 1] += rp[v];
    std::vector<int> cursor(rp.begin(), rp.end() - 1);
    for (long long e = 0; e < m; ++e) col[cursor[hd[e]]++] = hs[e];
  }
  std::vector<float> inv(n);
  for (int v = 0; v < n; ++v) inv[v] = outdeg[v] > 0 ? 1.0f / (float)outdeg[v] : 0.0f;
  int max_in = 0;
  for (int v = 0; v < n; ++v) max_in = std::max(max_in, rp[v + 1] - rp[v]);

  DevBuf<int> drp(n + 1), dcol((size_t)m);
  DevBuf<float> dinv(n), ra(n), rb(n);
  h2d(drp.p, rp);
  h2d(dcol.p, col);
  h2d(dinv.p, inv);
  const unsigned threads = 256, blocks = blocks_for(n, threads);
  auto reset = [&] { fill_float<<<256, 256, 0, c.st>>>(ra, n, 1.0f / n); };
  auto iterate = [&] {
    float* cur = ra.p;
    float* nxt = rb.p;
    for (int it = 0; it < PR_ITERS; ++it) {
      pagerank_pull<<<blocks, threads, 0, c.st>>>(drp, dcol, dinv, cur, nxt, n, PR_DAMPING);
      std::swap(cur, nxt);
    }
  };
  reset();
  iterate();  // warm-up
  CK(cudaGetLastError());
  CK(cudaStreamSynchronize(c.st));
  c.run(name, 1e9, "GTEPS", reset, [&] {
    iterate();
    return (double)m * PR_ITERS;
  });
  // Host reference: the same iterations in double from the uniform start.
  std::vector<double> r(n, 1.0 / n), r2(n);
  for (int it = 0; it < PR_ITERS; ++it) {
    for (int v = 0; v < n; ++v) {
      double s = 0.0;
      for (int e = rp[v]; e < rp[v + 1]; ++e) s += r[col[e]] * (double)inv[col[e]];
      r2[v] = (1.0 - PR_DAMPING) / n + PR_DAMPING * s;
    }
    r.swap(r2);
  }
  const auto got = d2h(PR_ITERS % 2 == 0 ? ra.p : rb.p, n);
  bool ok = max_in > 10000;  // the designed skew is there
  if (!ok) std::snprintf(c.msg, sizeof c.msg, "largest in-degree %d, expected a hub above 10000", max_in);
  for (int v = 0; v < n && ok; ++v)
    if (!close_to(got[v], r[v], 1e-10, 2e-3)) {
      std::snprintf(c.msg, sizeof c.msg, "rank[%d] = %.7g, expected %.7g", v, (double)got[v], r[v]);
      ok = false;
    }
  c.report(name, ok);
}

// ===============================================================================================================
// 2. degree_histogram_powerlaw_16m_vertices

constexpr int HG_NV = 1 << 24;
constexpr int HG_MAXDEG = 1024;  // bins 0 .. 1023, and 1024 for every degree >= 1024
constexpr long long HG_DEGCAP = 1LL << 20;

// Degrees with P(deg >= k) ~ k^-1.1 (a power law of exponent 2.1), at least 1, capped at 2^20.
static long long hg_degree(int v) {
  const double u = ((double)(rnd32((unsigned long long)v, 201u) >> 8) + 0.5) / 16777216.0;
  const double d = std::floor(std::pow(u, -1.0 / 1.1));
  return std::min((long long)d, HG_DEGCAP);
}

__global__ void degree_histogram(const long long* __restrict__ row_ptr, int n, unsigned* __restrict__ hist,
                                 int max_deg) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  const long long deg = row_ptr[v + 1] - row_ptr[v];
  atomicAdd(&hist[deg < max_deg ? (int)deg : max_deg], 1u);
}

static void case_degree_histogram(Ctx& c, const char* name) {
  const int n = HG_NV;
  std::vector<long long> rp(n + 1);
  std::vector<unsigned> ref(HG_MAXDEG + 1, 0u);
  rp[0] = 0;
  for (int v = 0; v < n; ++v) {
    const long long d = hg_degree(v);
    rp[v + 1] = rp[v] + d;
    ++ref[d < HG_MAXDEG ? (int)d : HG_MAXDEG];
  }
  DevBuf<long long> drp(n + 1);
  DevBuf<unsigned> hist(HG_MAXDEG + 1);
  h2d(drp.p, rp);
  const unsigned threads = 256, blocks = blocks_for(n, threads);
  auto count = [&] {
    CK(cudaMemsetAsync(hist, 0, (HG_MAXDEG + 1) * sizeof(unsigned), c.st));
    degree_histogram<<<blocks, threads, 0, c.st>>>(drp, n, hist, HG_MAXDEG);
  };
  count();  // warm-up
  CK(cudaGetLastError());
  CK(cudaStreamSynchronize(c.st));
  c.run(name, 1e9, "Gvertex/s", [] {}, [&] {
    count();
    return (double)n;
  });
  const auto got = d2h(hist.p, HG_MAXDEG + 1);
  bool ok = ref[1] > (unsigned)(n / 3);  // the designed skew: most vertices in the lowest bins
  if (!ok) std::snprintf(c.msg, sizeof c.msg, "only %u vertices of degree 1", ref[1]);
  for (int b = 0; b <= HG_MAXDEG && ok; ++b)
    if (got[b] != ref[b]) {
      std::snprintf(c.msg, sizeof c.msg, "bin %d holds %u, expected %u", b, got[b], ref[b]);
      ok = false;
    }
  c.report(name, ok);
}

// ===============================================================================================================
// 3. lbm_d3q19_stream_collide_aos_128cubed

constexpr int LB_N = 128;  // cells per side, periodic
constexpr int LB_Q = 19;
constexpr int LB_STEPS = 4;
constexpr float LB_OMEGA = 1.0f / 0.8f;  // BGK relaxation rate, tau = 0.8

// D3Q19: rest, 6 face neighbours, 12 edge neighbours.
static const int kLbCx[LB_Q] = {0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1, 0, 0, 0, 0};
static const int kLbCy[LB_Q] = {0, 0, 0, 1, -1, 0, 0, 1, -1, -1, 1, 0, 0, 0, 0, 1, -1, 1, -1};
static const int kLbCz[LB_Q] = {0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, -1, -1, 1, 1, -1, -1, 1};
static const float kLbW[LB_Q] = {1.0f / 3,  1.0f / 18, 1.0f / 18, 1.0f / 18, 1.0f / 18, 1.0f / 18, 1.0f / 18,
                                 1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36,
                                 1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36};
__constant__ int c_lb_cx[LB_Q], c_lb_cy[LB_Q], c_lb_cz[LB_Q];
__constant__ float c_lb_w[LB_Q];

__host__ __device__ inline void lb_initial_state(int x, int y, int z, int n, float& rho, float& ux, float& uy,
                                                 float& uz) {
  const unsigned long long cell = ((unsigned long long)z * n + y) * n + x;
  const float two_pi = 6.28318530718f;
  rho = 1.0f + 0.01f * rnd11(cell, 301u);
  ux = 0.04f * sinf(two_pi * y / n);
  uy = 0.02f * sinf(two_pi * z / n);
  uz = 0.01f * rnd11(cell, 302u);
}

__global__ void lb_init_equilibrium(float* f, int n) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
  if (x >= n) return;
  float rho, ux, uy, uz;
  lb_initial_state(x, y, z, n, rho, ux, uy, uz);
  const float usq = 1.5f * (ux * ux + uy * uy + uz * uz);
  const size_t base = (((size_t)z * n + y) * n + x) * LB_Q;
  for (int q = 0; q < LB_Q; ++q) {
    const float cu = 3.0f * (c_lb_cx[q] * ux + c_lb_cy[q] * uy + c_lb_cz[q] * uz);
    f[base + q] = c_lb_w[q] * rho * (1.0f + cu + 0.5f * cu * cu - usq);
  }
}

// One fused stream-and-collide step (pull): cell x gathers f_q from x - c_q, relaxes towards equilibrium, writes its
// 19 new populations. f is stored cell by cell: f[cell * 19 + q].
__global__ void lbm_d3q19_step_aos(const float* __restrict__ fin, float* __restrict__ fout, int n, float omega) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
  if (x >= n) return;
  float f[LB_Q];
#pragma unroll
  for (int q = 0; q < LB_Q; ++q) {
    int xs = x - c_lb_cx[q], ys = y - c_lb_cy[q], zs = z - c_lb_cz[q];
    xs = xs < 0 ? xs + n : (xs >= n ? xs - n : xs);
    ys = ys < 0 ? ys + n : (ys >= n ? ys - n : ys);
    zs = zs < 0 ? zs + n : (zs >= n ? zs - n : zs);
    f[q] = fin[(((size_t)zs * n + ys) * n + xs) * LB_Q + q];
  }
  float rho = 0.0f, jx = 0.0f, jy = 0.0f, jz = 0.0f;
#pragma unroll
  for (int q = 0; q < LB_Q; ++q) {
    rho += f[q];
    jx += c_lb_cx[q] * f[q];
    jy += c_lb_cy[q] * f[q];
    jz += c_lb_cz[q] * f[q];
  }
  const float inv_rho = 1.0f / rho;
  const float ux = jx * inv_rho, uy = jy * inv_rho, uz = jz * inv_rho;
  const float usq = 1.5f * (ux * ux + uy * uy + uz * uz);
  const size_t base = (((size_t)z * n + y) * n + x) * LB_Q;
#pragma unroll
  for (int q = 0; q < LB_Q; ++q) {
    const float cu = 3.0f * (c_lb_cx[q] * ux + c_lb_cy[q] * uy + c_lb_cz[q] * uz);
    const float feq = c_lb_w[q] * rho * (1.0f + cu + 0.5f * cu * cu - usq);
    fout[base + q] = f[q] - omega * (f[q] - feq);
  }
}

static void case_lbm(Ctx& c, const char* name) {
  const int n = LB_N;
  const size_t cells = (size_t)n * n * n, count = cells * LB_Q;
  CK(cudaMemcpyToSymbol(c_lb_cx, kLbCx, sizeof kLbCx));
  CK(cudaMemcpyToSymbol(c_lb_cy, kLbCy, sizeof kLbCy));
  CK(cudaMemcpyToSymbol(c_lb_cz, kLbCz, sizeof kLbCz));
  CK(cudaMemcpyToSymbol(c_lb_w, kLbW, sizeof kLbW));
  DevBuf<float> f0(count), fa(count), fb(count);
  const dim3 block(128), grid(n / 128, n, n);
  lb_init_equilibrium<<<grid, block, 0, c.st>>>(f0, n);
  CK(cudaGetLastError());
  double mass0 = 0.0;
  {
    const auto h0 = d2h(f0.p, count);
    for (float v : h0) mass0 += v;
  }
  auto restore = [&] { CK(cudaMemcpyAsync(fa, f0, count * sizeof(float), cudaMemcpyDeviceToDevice, c.st)); };
  auto steps = [&] {
    for (int s = 0; s < LB_STEPS; s += 2) {
      lbm_d3q19_step_aos<<<grid, block, 0, c.st>>>(fa, fb, n, LB_OMEGA);
      lbm_d3q19_step_aos<<<grid, block, 0, c.st>>>(fb, fa, n, LB_OMEGA);
    }
  };
  restore();
  steps();  // warm-up
  CK(cudaGetLastError());
  CK(cudaStreamSynchronize(c.st));
  c.run(name, 1e6, "MLUPS", restore, [&] {
    steps();
    return (double)cells * LB_STEPS;
  });
  // Invariant: mass is conserved. Reference: one more step, checked on sampled cells against a host step in double.
  const auto pre = d2h(fa.p, count);
  lbm_d3q19_step_aos<<<grid, block, 0, c.st>>>(fa, fb, n, LB_OMEGA);
  CK(cudaGetLastError());
  CK(cudaStreamSynchronize(c.st));
  const auto post = d2h(fb.p, count);
  double mass = 0.0;
  for (float v : pre) mass += v;
  bool ok = close_to(mass, mass0, 0.0, 1e-5);
  if (!ok) std::snprintf(c.msg, sizeof c.msg, "total mass %.9g after %d steps, expected %.9g", mass, LB_STEPS, mass0);
  for (int s = 0; s < 4096 && ok; ++s) {
    const size_t cell = s == 0 ? 0 : sample_index(s, cells, 3u);
    const int x = (int)(cell % n), y = (int)(cell / n % n), z = (int)(cell / ((size_t)n * n));
    double f[LB_Q], rho = 0.0, jx = 0.0, jy = 0.0, jz = 0.0;
    for (int q = 0; q < LB_Q; ++q) {
      const int xs = (x - kLbCx[q] + n) % n, ys = (y - kLbCy[q] + n) % n, zs = (z - kLbCz[q] + n) % n;
      f[q] = pre[(((size_t)zs * n + ys) * n + xs) * LB_Q + q];
      rho += f[q];
      jx += kLbCx[q] * f[q];
      jy += kLbCy[q] * f[q];
      jz += kLbCz[q] * f[q];
    }
    const double ux = jx / rho, uy = jy / rho, uz = jz / rho, usq = 1.5 * (ux * ux + uy * uy + uz * uz);
    for (int q = 0; q < LB_Q && ok; ++q) {
      const double cu = 3.0 * (kLbCx[q] * ux + kLbCy[q] * uy + kLbCz[q] * uz);
      const double feq = (double)kLbW[q] * rho * (1.0 + cu + 0.5 * cu * cu - usq);
      const double ref = f[q] - (double)LB_OMEGA * (f[q] - feq);
      const double g = post[cell * LB_Q + q];
      if (!close_to(g, ref, 1e-6, 1e-5)) {
        std::snprintf(c.msg, sizeof c.msg, "f[%zu][%d] = %.8g, expected %.8g", cell, q, g, ref);
        ok = false;
      }
    }
  }
  c.report(name, ok);
}

// ===============================================================================================================
// 4. smith_waterman_affine_batch_131072x100bp

constexpr int SW_PAIRS = 131072;
constexpr int SW_QLEN = 100, SW_TLEN = 100;
constexpr int SW_MAXLEN = 256;  // the longest target the kernel accepts
constexpr int SW_MATCH = 2, SW_MISMATCH = -3, SW_GAP_OPEN = 5, SW_GAP_EXT = 2;

// One thread per (query, target) pair; the sequences of all pairs are interleaved (base i of pair p at
// i * npairs + p) so a warp's loads are contiguous. Local alignment with affine gaps (Gotoh), best score per pair.
__global__ void smith_waterman_batch(const unsigned char* __restrict__ query, const unsigned char* __restrict__ target,
                                     int npairs, int qlen, int tlen, int* __restrict__ best_score) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= npairs) return;
  int H[SW_MAXLEN + 1];  // the previous row: best score of an alignment ending at (i - 1, j)
  int E[SW_MAXLEN + 1];  // the previous row: best score ending at (i - 1, j) with a gap in the target
  for (int j = 0; j <= tlen; ++j) {
    H[j] = 0;
    E[j] = 0;
  }
  int best = 0;
  for (int i = 1; i <= qlen; ++i) {
    const unsigned char a = query[(size_t)(i - 1) * npairs + p];
    int diag = 0, left = 0, F = 0;
    for (int j = 1; j <= tlen; ++j) {
      const unsigned char b = target[(size_t)(j - 1) * npairs + p];
      const int up = H[j];
      const int e = max(E[j] - SW_GAP_EXT, up - SW_GAP_OPEN);
      F = max(F - SW_GAP_EXT, left - SW_GAP_OPEN);
      int h = diag + (a == b ? SW_MATCH : SW_MISMATCH);
      h = max(max(h, 0), max(e, F));
      diag = up;
      H[j] = h;
      E[j] = e;
      left = h;
      best = max(best, h);
    }
  }
  best_score[p] = best;
}

static int sw_host(const std::vector<unsigned char>& q, const std::vector<unsigned char>& t, int npairs, int p) {
  std::vector<int> H(SW_TLEN + 1, 0), E(SW_TLEN + 1, 0);
  int best = 0;
  for (int i = 1; i <= SW_QLEN; ++i) {
    const unsigned char a = q[(size_t)(i - 1) * npairs + p];
    int diag = 0, left = 0, F = 0;
    for (int j = 1; j <= SW_TLEN; ++j) {
      const unsigned char b = t[(size_t)(j - 1) * npairs + p];
      const int up = H[j];
      const int e = std::max(E[j] - SW_GAP_EXT, up - SW_GAP_OPEN);
      F = std::max(F - SW_GAP_EXT, left - SW_GAP_OPEN);
      int h = diag + (a == b ? SW_MATCH : SW_MISMATCH);
      h = std::max(std::max(h, 0), std::max(e, F));
      diag = up;
      H[j] = h;
      E[j] = e;
      left = h;
      best = std::max(best, h);
    }
  }
  return best;
}

static void case_smith_waterman(Ctx& c, const char* name) {
  const int np = SW_PAIRS;
  static_assert(SW_TLEN <= SW_MAXLEN, "target longer than the kernel's rows");
  // Reads (random ACGT) and reference windows: the read shifted by -8..7 bases with ~12 % substitutions.
  std::vector<unsigned char> q((size_t)SW_QLEN * np), t((size_t)SW_TLEN * np);
  for (int p = 0; p < np; ++p) {
    for (int i = 0; i < SW_QLEN; ++i)
      q[(size_t)i * np + p] = (unsigned char)(rnd32((unsigned long long)p * 512 + i, 401u) & 3u);
    const int shift = (int)(rnd32((unsigned long long)p, 402u) % 16u) - 8;
    for (int j = 0; j < SW_TLEN; ++j) {
      const int i = j + shift;
      const unsigned long long k = (unsigned long long)p * 512 + j;
      const bool keep = i >= 0 && i < SW_QLEN && rnd32(k, 403u) % 100u >= 12u;
      t[(size_t)j * np + p] = keep ? q[(size_t)i * np + p] : (unsigned char)(rnd32(k, 404u) & 3u);
    }
  }
  DevBuf<unsigned char> dq(q.size()), dt(t.size());
  DevBuf<int> score(np);
  h2d(dq.p, q);
  h2d(dt.p, t);
  const unsigned threads = 128, blocks = blocks_for(np, threads);
  auto align = [&] { smith_waterman_batch<<<blocks, threads, 0, c.st>>>(dq, dt, np, SW_QLEN, SW_TLEN, score); };
  align();  // warm-up
  CK(cudaGetLastError());
  CK(cudaStreamSynchronize(c.st));
  c.run(name, 1e9, "GCUPS", [] {}, [&] {
    align();
    return (double)np * SW_QLEN * SW_TLEN;
  });
  const auto got = d2h(score.p, np);
  bool ok = true;
  int high = 0;
  for (int s = 0; s < 4096 && ok; ++s) {
    const int p = s == 0 ? np - 1 : (int)sample_index(s, np, 4u);
    const int ref = sw_host(q, t, np, p);
    high = std::max(high, ref);
    if (got[p] != ref) {
      std::snprintf(c.msg, sizeof c.msg, "score[%d] = %d, expected %d", p, got[p], ref);
      ok = false;
    }
  }
  if (ok && high < 60) {
    std::snprintf(c.msg, sizeof c.msg, "best sampled score %d: the planted similarity is missing", high);
    ok = false;
  }
  c.report(name, ok);
}

// ===============================================================================================================
// 5. vertical_diffusion_thomas_1m_columns_32_levels

constexpr int VD_NCOL = 1 << 20;
constexpr int VD_NLEV = 32;
constexpr int VD_COLS = 128;  // columns (threads) per block
constexpr int VD_STEPS = 4;

// Implicit diffusion of temperature in each column, (I - dt d/dz K d/dz) T_new = T_old with zero-flux ends. kdt[l]
// holds dt K / dz^2 at the interface between levels l and l + 1 (the last entry is unused). Columns are stored one
// after the other (t[col * NLEV + level]); a block loads its columns into shared memory with coalesced loads and each
// thread runs the Thomas algorithm down its own column.
__global__ void vertical_diffusion_thomas(const float* __restrict__ t_in, const float* __restrict__ kdt,
                                          float* __restrict__ t_out, int ncol) {
  __shared__ float s_t[VD_COLS * VD_NLEV];
  __shared__ float s_k[VD_COLS * VD_NLEV];
  const size_t base = (size_t)blockIdx.x * VD_COLS * VD_NLEV;
  const int ncols_here = min(VD_COLS, ncol - (int)(blockIdx.x * VD_COLS));
  for (int i = threadIdx.x; i < ncols_here * VD_NLEV; i += blockDim.x) {
    s_t[i] = t_in[base + i];
    s_k[i] = kdt[base + i];
  }
  __syncthreads();
  if ((int)threadIdx.x < ncols_here) {
    float* t = s_t + threadIdx.x * VD_NLEV;
    const float* k = s_k + threadIdx.x * VD_NLEV;
    float cp[VD_NLEV];
    // forward elimination
    float b = 1.0f + k[0];
    cp[0] = -k[0] / b;
    t[0] = t[0] / b;
#pragma unroll
    for (int l = 1; l < VD_NLEV; ++l) {
      const float a = -k[l - 1];
      const float cc = l < VD_NLEV - 1 ? -k[l] : 0.0f;
      b = 1.0f - a - cc;
      const float m = 1.0f / (b - a * cp[l - 1]);
      cp[l] = cc * m;
      t[l] = (t[l] - a * t[l - 1]) * m;
    }
    // back substitution
#pragma unroll
    for (int l = VD_NLEV - 2; l >= 0; --l) t[l] = t[l] - cp[l] * t[l + 1];
  }
  __syncthreads();
  for (int i = threadIdx.x; i < ncols_here * VD_NLEV; i += blockDim.x) t_out[base + i] = s_t[i];
}

__host__ __device__ inline float vd_t0(size_t col, int l) {
  return 300.0f - 2.0f * l + 5.0f * rnd11(col * VD_NLEV + l, 501u);
}
__host__ __device__ inline float vd_kdt(size_t col, int l) {
  if (l >= VD_NLEV - 1) return 0.0f;
  const float boundary_layer = l < 8 ? 1.5f : 0.3f;  // larger mixing near the surface
  return boundary_layer * (0.2f + rnd01(col * VD_NLEV + l, 502u));
}
__global__ void vd_fill(float* t0, float* kdt, int ncol) {
  const size_t n = (size_t)ncol * VD_NLEV;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    t0[i] = vd_t0(i / VD_NLEV, (int)(i % VD_NLEV));
    kdt[i] = vd_kdt(i / VD_NLEV, (int)(i % VD_NLEV));
  }
}

static void case_vertical_diffusion(Ctx& c, const char* name) {
  const int ncol = VD_NCOL;
  const size_t n = (size_t)ncol * VD_NLEV;
  DevBuf<float> t0(n), ta(n), tb(n), kdt(n);
  vd_fill<<<8 * c.sms, 256, 0, c.st>>>(t0, kdt, ncol);
  CK(cudaGetLastError());
  const unsigned blocks = blocks_for(ncol, VD_COLS);
  auto restore = [&] { CK(cudaMemcpyAsync(ta, t0, n * sizeof(float), cudaMemcpyDeviceToDevice, c.st)); };
  auto steps = [&] {
    for (int s = 0; s < VD_STEPS; s += 2) {
      vertical_diffusion_thomas<<<blocks, VD_COLS, 0, c.st>>>(ta, kdt, tb, ncol);
      vertical_diffusion_thomas<<<blocks, VD_COLS, 0, c.st>>>(tb, kdt, ta, ncol);
    }
  };
  restore();
  steps();  // warm-up
  CK(cudaGetLastError());
  CK(cudaStreamSynchronize(c.st));
  c.run(name, 1e9, "GB/s", restore, [&] {
    steps();
    return 3.0 * n * sizeof(float) * VD_STEPS;  // t_in, kdt read; t_out written
  });
  const auto got = d2h(ta.p, n);
  bool ok = true;
  for (int s = 0; s < 4096 && ok; ++s) {
    const size_t col = s == 0 ? (size_t)ncol - 1 : sample_index(s, ncol, 5u);
    double t[VD_NLEV], k[VD_NLEV], cp[VD_NLEV];
    for (int l = 0; l < VD_NLEV; ++l) {
      t[l] = vd_t0(col, l);
      k[l] = vd_kdt(col, l);
    }
    for (int step = 0; step < VD_STEPS; ++step) {
      double b = 1.0 + k[0];
      cp[0] = -k[0] / b;
      t[0] /= b;
      for (int l = 1; l < VD_NLEV; ++l) {
        const double a = -k[l - 1], cc = l < VD_NLEV - 1 ? -k[l] : 0.0;
        b = 1.0 - a - cc;
        const double m = 1.0 / (b - a * cp[l - 1]);
        cp[l] = cc * m;
        t[l] = (t[l] - a * t[l - 1]) * m;
      }
      for (int l = VD_NLEV - 2; l >= 0; --l) t[l] -= cp[l] * t[l + 1];
    }
    for (int l = 0; l < VD_NLEV && ok; ++l) {
      const double g = got[col * VD_NLEV + l];
      if (!close_to(g, t[l], 1e-3, 2e-5)) {
        std::snprintf(c.msg, sizeof c.msg, "T[%zu][%d] = %.8g, expected %.8g", col, l, g, t[l]);
        ok = false;
      }
    }
  }
  c.report(name, ok);
}

// ===============================================================================================================
// 6. jacobi_poisson2d_5pt_8192sq_8_sweeps

constexpr int JC_N = 8192;
constexpr int JC_SWEEPS = 8;

__host__ __device__ inline float jc_u0(int i, int j, int n) {  // boundary values and the initial guess
  if (i == 0 || j == 0 || i == n - 1 || j == n - 1)
    return sinf(3.14159265f * j / (n - 1)) + 0.5f * cosf(3.14159265f * i / (n - 1));
  return 0.5f * rnd11((unsigned long long)i * n + j, 601u);
}
__host__ __device__ inline float jc_f(int i, int j, int n) {
  return 100.0f * rnd11((unsigned long long)i * n + j, 602u);
}
__global__ void jc_fill(float* u0, float* f, int n) {
  const size_t total = (size_t)n * n;
  for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < total; k += (size_t)gridDim.x * blockDim.x) {
    const int i = (int)(k / n), j = (int)(k % n);
    u0[k] = jc_u0(i, j, n);
    f[k] = jc_f(i, j, n);
  }
}

// One Jacobi sweep for -lap(u) = f on the unit square: interior points only, the boundary stays fixed.
__global__ void jacobi_sweep(const float* __restrict__ u, const float* __restrict__ f, float* __restrict__ u_new, int n,
                             float h2) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < 1 || j < 1 || i >= n - 1 || j >= n - 1) return;
  const size_t k = (size_t)i * n + j;
  u_new[k] = 0.25f * (u[k - 1] + u[k + 1] + u[k - n] + u[k + n] + h2 * f[k]);
}

static void case_jacobi(Ctx& c, const char* name) {
  const int n = JC_N;
  const size_t total = (size_t)n * n;
  const float h = 1.0f / (n - 1), h2 = h * h;
  DevBuf<float> u0(total), ua(total), ub(total), f(total);
  jc_fill<<<16 * c.sms, 256, 0, c.st>>>(u0, f, n);
  CK(cudaGetLastError());
  const dim3 block(32, 8), grid(n / 32, n / 8);
  auto restore = [&] {
    CK(cudaMemcpyAsync(ua, u0, total * sizeof(float), cudaMemcpyDeviceToDevice, c.st));
    CK(cudaMemcpyAsync(ub, u0, total * sizeof(float), cudaMemcpyDeviceToDevice, c.st));  // its boundary
  };
  auto sweeps = [&] {
    for (int s = 0; s < JC_SWEEPS; s += 2) {
      jacobi_sweep<<<grid, block, 0, c.st>>>(ua, f, ub, n, h2);
      jacobi_sweep<<<grid, block, 0, c.st>>>(ub, f, ua, n, h2);
    }
  };
  restore();
  sweeps();  // warm-up
  CK(cudaGetLastError());
  CK(cudaStreamSynchronize(c.st));
  c.run(name, 1e9, "GB/s", restore, [&] {
    sweeps();
    return 3.0 * total * sizeof(float) * JC_SWEEPS;  // u and f read, u_new written
  });
  const auto got = d2h(ua.p, total);
  // Host reference on samples: the point's value after the sweeps depends only on the initial values within
  // JC_SWEEPS points of it, swept in double over a shrinking window.
  const int R = JC_SWEEPS, W = 2 * R + 1;
  bool ok = true;
  std::vector<double> w(W * W), w2(W * W);
  for (int s = 0; s < 1024 && ok; ++s) {
    int ci, cj;
    if (s < 512) {  // half near the boundary, where the boundary values reach in
      ci = 1 + (int)sample_index(s, 12, 6u);
      cj = 1 + (int)sample_index(s, n - 2, 7u);
      if (s % 2) std::swap(ci, cj);
      if (s % 4 >= 2) ci = n - 1 - ci;
    } else {
      ci = 1 + (int)sample_index(s, n - 2, 8u);
      cj = 1 + (int)sample_index(s, n - 2, 9u);
    }
    auto inside = [&](int i, int j) { return i >= 0 && j >= 0 && i < n && j < n; };
    for (int a = 0; a < W; ++a)
      for (int b = 0; b < W; ++b) {
        const int i = ci - R + a, j = cj - R + b;
        w[a * W + b] = inside(i, j) ? jc_u0(i, j, n) : 0.0;
      }
    for (int sw = 0; sw < R; ++sw) {
      w2 = w;
      const int reach = R - sw - 1;
      for (int a = R - reach; a <= R + reach; ++a)
        for (int b = R - reach; b <= R + reach; ++b) {
          const int i = ci - R + a, j = cj - R + b;
          if (i < 1 || j < 1 || i >= n - 1 || j >= n - 1) continue;
          w2[a * W + b] = 0.25 * (w[a * W + b - 1] + w[a * W + b + 1] + w[(a - 1) * W + b] + w[(a + 1) * W + b] +
                                  (double)h2 * jc_f(i, j, n));
        }
      w.swap(w2);
    }
    const double ref = w[R * W + R], g = got[(size_t)ci * n + cj];
    if (!close_to(g, ref, 1e-5, 1e-5)) {
      std::snprintf(c.msg, sizeof c.msg, "u[%d][%d] = %.8g, expected %.8g", ci, cj, g, ref);
      ok = false;
    }
  }
  c.report(name, ok);
}

// ===============================================================================================================
// 7. bfs_topdown_lattice_512x512_from_centre

constexpr int BF_W = 512;

// Expands one level: each frontier vertex claims its unvisited neighbours and appends them to the next queue.
__global__ void bfs_expand_level(const int* __restrict__ row_ptr, const int* __restrict__ col, int* __restrict__ dist,
                                 const int* __restrict__ frontier, int frontier_size, int* __restrict__ next,
                                 int* __restrict__ next_size, int level) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= frontier_size) return;
  const int v = frontier[i];
  for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
    const int u = col[e];
    if (dist[u] == -1 && atomicCAS(&dist[u], -1, level + 1) == -1) next[atomicAdd(next_size, 1)] = u;
  }
}

static void case_bfs(Ctx& c, const char* name) {
  const int w = BF_W, n = w * w, src = (w / 2) * w + w / 2;
  std::vector<int> rp(n + 1, 0), col;
  col.reserve((size_t)4 * n);
  for (int y = 0; y < w; ++y)
    for (int x = 0; x < w; ++x) {
      if (x > 0) col.push_back(y * w + x - 1);
      if (x < w - 1) col.push_back(y * w + x + 1);
      if (y > 0) col.push_back((y - 1) * w + x);
      if (y < w - 1) col.push_back((y + 1) * w + x);
      rp[y * w + x + 1] = (int)col.size();
    }
  DevBuf<int> drp(n + 1), dcol(col.size()), dist(n), qa(n), qb(n), next_size(1);
  h2d(drp.p, rp);
  h2d(dcol.p, col);
  const int zero = 0;
  auto reset = [&] {
    CK(cudaMemsetAsync(dist, 0xff, n * sizeof(int), c.st));
    CK(cudaMemcpyAsync(dist.p + src, &zero, sizeof(int), cudaMemcpyHostToDevice, c.st));
    CK(cudaMemcpyAsync(qa.p, &src, sizeof(int), cudaMemcpyHostToDevice, c.st));
  };
  int levels = 0;
  auto bfs = [&] {
    int* cur = qa.p;
    int* nxt = qb.p;
    int frontier_size = 1, level = 0;
    while (frontier_size > 0) {
      CK(cudaMemsetAsync(next_size, 0, sizeof(int), c.st));
      bfs_expand_level<<<blocks_for(frontier_size, 256), 256, 0, c.st>>>(drp, dcol, dist, cur, frontier_size, nxt,
                                                                          next_size, level);
      CK(cudaGetLastError());
      CK(cudaMemcpyAsync(&frontier_size, next_size, sizeof(int), cudaMemcpyDeviceToHost, c.st));
      CK(cudaStreamSynchronize(c.st));
      std::swap(cur, nxt);
      ++level;
    }
    levels = level;
  };
  reset();
  CK(cudaStreamSynchronize(c.st));
  bfs();  // warm-up
  c.run(name, 1e6, "MTEPS", reset, [&] {
    bfs();
    return (double)col.size();
  });
  const auto got = d2h(dist.p, n);
  bool ok = levels == w + 1;  // distances 0 .. w from the centre of an even-sided lattice, one empty level at the end
  if (!ok) std::snprintf(c.msg, sizeof c.msg, "%d levels, expected %d", levels, w + 1);
  for (int v = 0; v < n && ok; ++v) {
    const int ref = std::abs(v % w - w / 2) + std::abs(v / w - w / 2);
    if (got[v] != ref) {
      std::snprintf(c.msg, sizeof c.msg, "dist[%d] = %d, expected %d", v, got[v], ref);
      ok = false;
    }
  }
  c.report(name, ok);
}

// ===============================================================================================================
// 8. wave3d_acoustic_leapfrog_256cubed_8_steps

constexpr int WV_N = 256;
constexpr int WV_STEPS = 8;

__host__ __device__ inline bool wv_boundary(int x, int y, int z, int n) {
  return x == 0 || y == 0 || z == 0 || x == n - 1 || y == n - 1 || z == n - 1;
}
__host__ __device__ inline float wv_u0(int x, int y, int z, int n) {  // a Gaussian pulse plus small noise
  if (wv_boundary(x, y, z, n)) return 0.0f;
  const float dx = x - 0.3f * n, dy = y - 0.4f * n, dz = z - 0.5f * n;
  const unsigned long long k = ((unsigned long long)z * n + y) * n + x;
  return expf(-(dx * dx + dy * dy + dz * dz) / 72.0f) + 0.01f * rnd11(k, 801u);
}
__host__ __device__ inline float wv_c2(int x, int y, int z, int n) {  // (c dt / h)^2, layered, below 1/3
  const unsigned long long k = ((unsigned long long)z * n + y) * n + x;
  return 0.10f + 0.15f * z / n + 0.02f * rnd01(k, 802u);
}
static float wv_source(int step) {  // Ricker wavelet, peak frequency 0.05 per step, delayed by 6 steps
  const double a = 3.14159265358979 * 0.05 * (step - 6);
  return (float)((1.0 - 2.0 * a * a) * std::exp(-a * a));
}
__global__ void wv_fill(float* u0, float* c2, int n) {
  const size_t total = (size_t)n * n * n;
  for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < total; k += (size_t)gridDim.x * blockDim.x) {
    const int x = (int)(k % n), y = (int)(k / n % n), z = (int)(k / ((size_t)n * n));
    u0[k] = wv_u0(x, y, z, n);
    c2[k] = wv_c2(x, y, z, n);
  }
}

__global__ void wave_laplacian(const float* __restrict__ u, float* __restrict__ lap, int n) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y, z = blockIdx.z;
  if (x >= n || y >= n) return;
  const size_t k = ((size_t)z * n + y) * n + x, plane = (size_t)n * n;
  if (wv_boundary(x, y, z, n)) {
    lap[k] = 0.0f;
    return;
  }
  lap[k] = u[k - 1] + u[k + 1] + u[k - n] + u[k + n] + u[k - plane] + u[k + plane] - 6.0f * u[k];
}
__global__ void wave_update(const float* __restrict__ u, const float* __restrict__ u_prev,
                            const float* __restrict__ lap, const float* __restrict__ c2, float* __restrict__ u_next,
                            int n, size_t src_index, float src_value) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y, z = blockIdx.z;
  if (x >= n || y >= n) return;
  const size_t k = ((size_t)z * n + y) * n + x;
  float v = 2.0f * u[k] - u_prev[k] + c2[k] * lap[k];
  if (k == src_index) v += src_value;
  u_next[k] = v;
}

static void case_wave(Ctx& c, const char* name) {
  const int n = WV_N;
  const size_t total = (size_t)n * n * n, bytes = total * sizeof(float);
  const int sx = n / 2, sy = n / 2, sz = n / 2;
  const size_t src_index = ((size_t)sz * n + sy) * n + sx;
  DevBuf<float> u0(total), c2(total), u(total), u_prev(total), u_next(total), lap(total);
  wv_fill<<<16 * c.sms, 256, 0, c.st>>>(u0, c2, n);
  CK(cudaGetLastError());
  const dim3 block(32, 8), grid(n / 32, n / 8, n);
  auto restore = [&] {
    CK(cudaMemcpyAsync(u, u0, bytes, cudaMemcpyDeviceToDevice, c.st));
    CK(cudaMemcpyAsync(u_prev, u0, bytes, cudaMemcpyDeviceToDevice, c.st));  // starts at rest
  };
  auto steps = [&] {
    for (int s = 0; s < WV_STEPS; ++s) {
      wave_laplacian<<<grid, block, 0, c.st>>>(u, lap, n);
      wave_update<<<grid, block, 0, c.st>>>(u, u_prev, lap, c2, u_next, n, src_index, wv_source(s));
      CK(cudaMemcpyAsync(u_prev, u, bytes, cudaMemcpyDeviceToDevice, c.st));
      CK(cudaMemcpyAsync(u, u_next, bytes, cudaMemcpyDeviceToDevice, c.st));
    }
  };
  restore();
  steps();  // warm-up
  CK(cudaGetLastError());
  CK(cudaStreamSynchronize(c.st));
  c.run(name, 1e9, "Gpoint/s", restore, [&] {
    steps();
    return (double)total * WV_STEPS;
  });
  const auto got = d2h(u.p, total);
  // Host reference on samples: a point after the steps depends only on the initial field within WV_STEPS points.
  const int R = WV_STEPS, W = 2 * R + 1;
  std::vector<double> cu(W * W * W), cp(W * W * W), cn(W * W * W);
  bool ok = true;
  for (int s = 0; s < 48 && ok; ++s) {
    int cx = s == 0 ? sx : 1 + (int)sample_index(s, n - 2, 10u);
    int cy = s == 0 ? sy : 1 + (int)sample_index(s, n - 2, 11u);
    int cz = s == 0 ? sz : 1 + (int)sample_index(s, n - 2, 12u);
    if (s >= 1 && s < 8) {  // near the source
      cx = sx + s - 4;
      cy = sy + 1;
      cz = sz - 1;
    }
    if (s >= 8 && s < 12) cz = s % 2 ? 2 : n - 3;  // near a boundary
    auto at = [&](int a, int b, int d) { return ((size_t)d * W + b) * W + a; };
    for (int d = 0; d < W; ++d)
      for (int b = 0; b < W; ++b)
        for (int a = 0; a < W; ++a) {
          const int x = cx - R + a, y = cy - R + b, z = cz - R + d;
          const bool in = x >= 0 && y >= 0 && z >= 0 && x < n && y < n && z < n;
          cu[at(a, b, d)] = cp[at(a, b, d)] = in ? wv_u0(x, y, z, n) : 0.0;
        }
    for (int st = 0; st < R; ++st) {
      cn = cu;
      const int reach = R - st - 1;
      const double src = wv_source(st);
      for (int d = R - reach; d <= R + reach; ++d)
        for (int b = R - reach; b <= R + reach; ++b)
          for (int a = R - reach; a <= R + reach; ++a) {
            const int x = cx - R + a, y = cy - R + b, z = cz - R + d;
            if (x < 0 || y < 0 || z < 0 || x >= n || y >= n || z >= n) continue;
            if (wv_boundary(x, y, z, n)) {
              cn[at(a, b, d)] = 0.0;
              continue;
            }
            const double l = cu[at(a - 1, b, d)] + cu[at(a + 1, b, d)] + cu[at(a, b - 1, d)] + cu[at(a, b + 1, d)] +
                             cu[at(a, b, d - 1)] + cu[at(a, b, d + 1)] - 6.0 * cu[at(a, b, d)];
            double v = 2.0 * cu[at(a, b, d)] - cp[at(a, b, d)] + (double)wv_c2(x, y, z, n) * l;
            if (x == sx && y == sy && z == sz) v += src;
            cn[at(a, b, d)] = v;
          }
      cp.swap(cu);
      cu.swap(cn);
    }
    const double ref = cu[at(R, R, R)], g = got[((size_t)cz * n + cy) * n + cx];
    if (!close_to(g, ref, 2e-5, 1e-4)) {
      std::snprintf(c.msg, sizeof c.msg, "u(%d,%d,%d) = %.8g, expected %.8g", cx, cy, cz, g, ref);
      ok = false;
    }
  }
  c.report(name, ok);
}

// ===============================================================================================================
// 9. double_gyre_particle_advection_4m_4_frames

constexpr int DG_N = 1 << 22;
constexpr int DG_FRAMES = 4;
constexpr int DG_STEPS = 25;  // RK4 steps per frame
constexpr float DG_DT = 0.02f;
constexpr float DG_A = 0.1f, DG_EPS = 0.25f;  // amplitude, perturbation; period 10 (omega = 2 pi / 10 = pi / 5)

// The time-periodic double gyre on [0, 2] x [0, 1] (Shadden et al.): psi = A sin(pi f(x, t)) sin(pi y).
__device__ inline float2 gyre_velocity(float x, float y, float t) {
  const float a = DG_EPS * sinpif(0.2f * t), b = 1.0f - 2.0f * a;
  const float f = (a * x + b) * x, dfdx = 2.0f * a * x + b;
  float sf, cf, sy, cy;
  sincospif(f, &sf, &cf);
  sincospif(y, &sy, &cy);
  const float pa = 3.14159265f * DG_A;
  return make_float2(-pa * sf * cy, pa * cf * sy * dfdx);
}
__global__ void advect_double_gyre_rk4(float2* __restrict__ pos, int n, float t0, float dt, int steps) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float2 p = pos[i];
  float t = t0;
  for (int s = 0; s < steps; ++s) {
    const float h = 0.5f * dt;
    const float2 k1 = gyre_velocity(p.x, p.y, t);
    const float2 k2 = gyre_velocity(p.x + h * k1.x, p.y + h * k1.y, t + h);
    const float2 k3 = gyre_velocity(p.x + h * k2.x, p.y + h * k2.y, t + h);
    const float2 k4 = gyre_velocity(p.x + dt * k3.x, p.y + dt * k3.y, t + dt);
    p.x += dt / 6.0f * (k1.x + 2.0f * k2.x + 2.0f * k3.x + k4.x);
    p.y += dt / 6.0f * (k1.y + 2.0f * k2.y + 2.0f * k3.y + k4.y);
    t += dt;
  }
  pos[i] = p;
}
static void gyre_velocity_host(double x, double y, double t, double& u, double& v) {
  const double pi = 3.14159265358979;
  const double a = DG_EPS * std::sin(pi * 0.2 * t), b = 1.0 - 2.0 * a;
  const double f = (a * x + b) * x, dfdx = 2.0 * a * x + b;
  u = -pi * DG_A * std::sin(pi * f) * std::cos(pi * y);
  v = pi * DG_A * std::cos(pi * f) * std::sin(pi * y) * dfdx;
}
__host__ __device__ inline float2 dg_start(int i) {
  return make_float2(0.02f + 1.96f * rnd01((unsigned long long)i, 901u),
                     0.02f + 0.96f * rnd01((unsigned long long)i, 902u));
}
__global__ void dg_fill(float2* pos, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) pos[i] = dg_start(i);
}

static void case_double_gyre(Ctx& c, const char* name) {
  const int n = DG_N;
  const size_t bytes = (size_t)n * sizeof(float2);
  DevBuf<float2> pos0(n), pos(n);
  PinnedBuf<float2> frames((size_t)DG_FRAMES * n);  // what the analysis (FTLE, plots) reads on the host
  dg_fill<<<8 * c.sms, 256, 0, c.st>>>(pos0, n);
  CK(cudaGetLastError());
  const unsigned threads = 256, blocks = blocks_for(n, threads);
  auto restore = [&] { CK(cudaMemcpyAsync(pos, pos0, bytes, cudaMemcpyDeviceToDevice, c.st)); };
  auto track = [&] {
    for (int fr = 0; fr < DG_FRAMES; ++fr) {
      advect_double_gyre_rk4<<<blocks, threads, 0, c.st>>>(pos, n, fr * DG_STEPS * DG_DT, DG_DT, DG_STEPS);
      CK(cudaMemcpyAsync(frames.p + (size_t)fr * n, pos, bytes, cudaMemcpyDeviceToHost, c.st));
    }
  };
  restore();
  track();  // warm-up
  CK(cudaGetLastError());
  CK(cudaStreamSynchronize(c.st));
  c.run(name, 1e9, "Gparticle-steps/s", restore, [&] {
    track();
    return (double)n * DG_FRAMES * DG_STEPS;
  });
  bool ok = true;
  for (int s = 0; s < 2048 && ok; ++s) {
    const int i = s == 0 ? n - 1 : (int)sample_index(s, n, 13u);
    const float2 p0 = dg_start(i);
    double x = p0.x, y = p0.y, t = 0.0;
    const double dt = DG_DT;
    for (int fr = 0; fr < DG_FRAMES && ok; ++fr) {
      for (int st = 0; st < DG_STEPS; ++st) {
        double u1, v1, u2, v2, u3, v3, u4, v4;
        gyre_velocity_host(x, y, t, u1, v1);
        gyre_velocity_host(x + 0.5 * dt * u1, y + 0.5 * dt * v1, t + 0.5 * dt, u2, v2);
        gyre_velocity_host(x + 0.5 * dt * u2, y + 0.5 * dt * v2, t + 0.5 * dt, u3, v3);
        gyre_velocity_host(x + dt * u3, y + dt * v3, t + dt, u4, v4);
        x += dt / 6.0 * (u1 + 2.0 * u2 + 2.0 * u3 + u4);
        y += dt / 6.0 * (v1 + 2.0 * v2 + 2.0 * v3 + v4);
        t += dt;
      }
      const float2 g = frames.p[(size_t)fr * n + i];
      if (!close_to(g.x, x, 1e-3, 0.0) || !close_to(g.y, y, 1e-3, 0.0)) {
        std::snprintf(c.msg, sizeof c.msg, "particle %d in frame %d at (%.6f, %.6f), expected (%.6f, %.6f)", i, fr,
                      (double)g.x, (double)g.y, x, y);
        ok = false;
      }
    }
  }
  c.report(name, ok);
}

// ===============================================================================================================
// 10. md_cell_list_rebuild_1m_particles_10_steps

constexpr int CL_N = 1 << 20;
constexpr int CL_G = 64;  // cells per side of the unit box
constexpr int CL_CELLS = CL_G * CL_G * CL_G;
constexpr int CL_BITS = 18;  // log2(CL_CELLS)
constexpr int CL_STEPS = 10;
static_assert((1 << CL_BITS) == CL_CELLS, "sort bits cover the cell ids");

__host__ __device__ inline unsigned cl_cell_of(float4 p) {
  const int cx = min((int)(p.x * CL_G), CL_G - 1), cy = min((int)(p.y * CL_G), CL_G - 1),
            cz = min((int)(p.z * CL_G), CL_G - 1);
  return (unsigned)((cz * CL_G + cy) * CL_G + cx);
}
__host__ __device__ inline float cl_wrap(float v) {
  if (v >= 1.0f) v -= 1.0f;
  if (v < 0.0f) v += 1.0f;
  return v;
}
__host__ __device__ inline float4 cl_start(int i) {
  return make_float4(rnd01((unsigned long long)i, 1001u), rnd01((unsigned long long)i, 1002u),
                     rnd01((unsigned long long)i, 1003u), 1.0f);
}
__global__ void cl_fill(float4* pos, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) pos[i] = cl_start(i);
}
// A stand-in for the integrator: every particle moves by up to 0.002 per axis (periodic box).
__global__ void cl_drift(float4* pos, int n, int step) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 p = pos[i];
  const unsigned long long k = (unsigned long long)i * 3;
  p.x = cl_wrap(p.x + 0.002f * rnd11(k, 1100u + step));
  p.y = cl_wrap(p.y + 0.002f * rnd11(k + 1, 1100u + step));
  p.z = cl_wrap(p.z + 0.002f * rnd11(k + 2, 1100u + step));
  pos[i] = p;
}
__global__ void cl_cell_index(const float4* __restrict__ pos, int n, unsigned* __restrict__ cell,
                              unsigned* __restrict__ index) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cell[i] = cl_cell_of(pos[i]);
  index[i] = (unsigned)i;
}
__global__ void cl_cell_bounds(const unsigned* __restrict__ cell_sorted, int n, int* __restrict__ cell_start,
                               int* __restrict__ cell_end) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned cc = cell_sorted[i];
  if (i == 0 || cell_sorted[i - 1] != cc) cell_start[cc] = i;
  if (i == n - 1 || cell_sorted[i + 1] != cc) cell_end[cc] = i + 1;
}
__global__ void cl_reorder(const float4* __restrict__ pos, const unsigned* __restrict__ index_sorted, int n,
                           float4* __restrict__ pos_sorted) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  pos_sorted[i] = pos[index_sorted[i]];
}

// The neighbour-grid build: the outputs (sorted order, cell ranges, sorted positions) persist for the force
// kernels; the scratch is allocated here and released before returning.
static void build_cell_list(const float4* pos, int n, unsigned* index_sorted, int* cell_start, int* cell_end,
                            float4* pos_sorted, cudaStream_t st) {
  unsigned *cell = nullptr, *index = nullptr, *cell_sorted = nullptr;
  CK(cudaMalloc(&cell, n * sizeof(unsigned)));
  CK(cudaMalloc(&index, n * sizeof(unsigned)));
  CK(cudaMalloc(&cell_sorted, n * sizeof(unsigned)));
  const unsigned threads = 256, blocks = blocks_for(n, threads);
  cl_cell_index<<<blocks, threads, 0, st>>>(pos, n, cell, index);
  CK(cudaGetLastError());
  size_t temp_bytes = 0;
  CK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, cell, cell_sorted, index, index_sorted, n, 0, CL_BITS, st));
  void* temp = nullptr;
  CK(cudaMalloc(&temp, temp_bytes));
  CK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, cell, cell_sorted, index, index_sorted, n, 0, CL_BITS, st));
  CK(cudaMemsetAsync(cell_start, 0xff, CL_CELLS * sizeof(int), st));
  CK(cudaMemsetAsync(cell_end, 0xff, CL_CELLS * sizeof(int), st));
  cl_cell_bounds<<<blocks, threads, 0, st>>>(cell_sorted, n, cell_start, cell_end);
  cl_reorder<<<blocks, threads, 0, st>>>(pos, index_sorted, n, pos_sorted);
  CK(cudaGetLastError());
  CK(cudaFree(temp));
  CK(cudaFree(cell_sorted));
  CK(cudaFree(index));
  CK(cudaFree(cell));
}

static void case_cell_list(Ctx& c, const char* name) {
  const int n = CL_N;
  DevBuf<float4> pos0(n), pos(n), pos_sorted(n);
  DevBuf<unsigned> index_sorted(n);
  DevBuf<int> cell_start(CL_CELLS), cell_end(CL_CELLS);
  cl_fill<<<8 * c.sms, 256, 0, c.st>>>(pos0, n);
  CK(cudaGetLastError());
  auto restore = [&] { CK(cudaMemcpyAsync(pos, pos0, n * sizeof(float4), cudaMemcpyDeviceToDevice, c.st)); };
  auto steps = [&] {
    for (int s = 0; s < CL_STEPS; ++s) {
      cl_drift<<<blocks_for(n, 256), 256, 0, c.st>>>(pos, n, s);
      build_cell_list(pos, n, index_sorted, cell_start, cell_end, pos_sorted, c.st);
    }
  };
  restore();
  steps();  // warm-up
  CK(cudaGetLastError());
  CK(cudaStreamSynchronize(c.st));
  c.run(name, 1e6, "Mparticles/s", restore, [&] {
    steps();
    return (double)n * CL_STEPS;
  });
  const auto hp = d2h(pos.p, n), hs = d2h(pos_sorted.p, n);
  const auto hi = d2h(index_sorted.p, n);
  const auto hstart = d2h(cell_start.p, CL_CELLS), hend = d2h(cell_end.p, CL_CELLS);
  bool ok = true;
  // The positions after the drifts (the device may contract the update into an FMA: compare with a tolerance).
  for (int i = 0; i < n && ok; ++i) {
    float4 p = cl_start(i);
    const unsigned long long k = (unsigned long long)i * 3;
    for (int s = 0; s < CL_STEPS; ++s) {
      p.x = cl_wrap(p.x + 0.002f * rnd11(k, 1100u + s));
      p.y = cl_wrap(p.y + 0.002f * rnd11(k + 1, 1100u + s));
      p.z = cl_wrap(p.z + 0.002f * rnd11(k + 2, 1100u + s));
    }
    auto far = [](float a, float b) {
      const float d = std::fabs(a - b);
      return std::min(d, 1.0f - d) > 1e-5f;
    };
    if (far(p.x, hp[i].x) || far(p.y, hp[i].y) || far(p.z, hp[i].z)) {
      std::snprintf(c.msg, sizeof c.msg, "particle %d at (%.7f, %.7f, %.7f), expected (%.7f, %.7f, %.7f)", i,
                    (double)hp[i].x, (double)hp[i].y, (double)hp[i].z, (double)p.x, (double)p.y, (double)p.z);
      ok = false;
    }
  }
  // The cell list: a stable sort of the particles by cell, the sorted copy, and the cell ranges.
  std::vector<char> seen(n, 0);
  for (int i = 0; i < n && ok; ++i) {
    const unsigned j = hi[i];
    const unsigned cc = j < (unsigned)n ? cl_cell_of(hp[j]) : 0u;
    const unsigned prev_c = i > 0 ? cl_cell_of(hp[hi[i - 1]]) : 0u;
    if (j >= (unsigned)n || seen[j] || std::memcmp(&hs[i], &hp[j], sizeof(float4)) != 0 ||
        (i > 0 && (prev_c > cc || (prev_c == cc && hi[i - 1] > j))) || hstart[cc] < 0 || hstart[cc] > i ||
        hend[cc] <= i) {
      std::snprintf(c.msg, sizeof c.msg, "sorted slot %d (particle %u) inconsistent", i, j);
      ok = false;
      break;
    }
    seen[j] = 1;
  }
  long long covered = 0;
  for (int cc = 0; cc < CL_CELLS && ok; ++cc) {
    if ((hstart[cc] < 0) != (hend[cc] < 0)) {
      std::snprintf(c.msg, sizeof c.msg, "cell %d has start %d end %d", cc, hstart[cc], hend[cc]);
      ok = false;
    }
    if (hstart[cc] >= 0) covered += hend[cc] - hstart[cc];
  }
  if (ok && covered != n) {
    std::snprintf(c.msg, sizeof c.msg, "cell ranges cover %lld particles, expected %d", covered, n);
    ok = false;
  }
  c.report(name, ok);
}

// ===============================================================================================================

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
    const std::string list = argv[2];
    size_t start = 0;
    while (start <= list.size()) {
      size_t end = list.find(',', start);
      if (end == std::string::npos) end = list.size();
      std::string item = list.substr(start, end - start);
      if (!item.empty() && item[0] == '-') {
        exclude = true;
        item.erase(0, 1);
      }
      if (!item.empty()) {
        bool known = false;
        for (const char* k : kCases) known = known || item == k;
        if (!known) {
          std::fprintf(stderr, "unknown case '%s'; cases:", item.c_str());
          for (const char* k : kCases) std::fprintf(stderr, " %s", k);
          std::fprintf(stderr, "\n");
          return 2;
        }
        chosen.push_back(item);
      }
      start = end + 1;
    }
  }
  auto selected = [&](const char* case_name) {
    bool listed = false;
    for (const auto& s : chosen) listed = listed || s == case_name;
    return chosen.empty() || listed != exclude;
  };

  {
    int ndev = 0;
    const cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev == 0) {
      std::printf("diag_holdout44: no usable CUDA device (%s); nothing to run\n",
                  e != cudaSuccess ? cudaGetErrorString(e) : "device count 0");
      return 0;
    }
  }

  Ctx ctx;
  ctx.reps = reps;
  try {
    int dev = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&ctx.sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaStreamCreate(&ctx.st));
    CK(cudaEventCreate(&ctx.ev0));
    CK(cudaEventCreate(&ctx.ev1));
    // Warm-up outside any range: launches, a memset, allocations, pinned and pageable copies both ways.
    DevBuf<int> scratch(1 << 18);
    PinnedBuf<int> pinned(1 << 18);
    std::vector<int> pageable(1 << 18, 1);
    warmup_kernel<<<1, 32, 0, ctx.st>>>(scratch);
    CK(cudaMemsetAsync(scratch, 0, 4096, ctx.st));
    CK(cudaMemcpyAsync(scratch, pinned.p, 1 << 20, cudaMemcpyHostToDevice, ctx.st));
    CK(cudaMemcpyAsync(pinned.p, scratch, 1 << 20, cudaMemcpyDeviceToHost, ctx.st));
    CK(cudaMemcpy(scratch, pageable.data(), pageable.size() * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(pageable.data(), scratch, pageable.size() * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaStreamSynchronize(ctx.st));
    CK(cudaDeviceSynchronize());
  } catch (const CaseSkip& e) {
    std::fprintf(stderr, "diag_holdout44: set-up failed: %s\n", e.why.c_str());
    return 1;
  }

  using CaseFn = void (*)(Ctx&, const char*);
  const CaseFn fns[] = {case_pagerank, case_degree_histogram, case_lbm,  case_smith_waterman, case_vertical_diffusion,
                        case_jacobi,   case_bfs,              case_wave, case_double_gyre,    case_cell_list};
  static_assert(sizeof(fns) / sizeof(fns[0]) == sizeof(kCases) / sizeof(kCases[0]), "one function per case");
  for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); ++i) {
    const char* case_name = kCases[i];
    if (!selected(case_name)) continue;
    try {
      fns[i](ctx, case_name);
    } catch (const CaseSkip& e) {
      std::printf("%s: skipped (%s)\n", case_name, e.why.c_str());
    } catch (const std::exception& e) {
      std::printf("%s: skipped (%s)\n", case_name, e.what());
    }
    (void)cudaGetLastError();
    (void)cudaDeviceSynchronize();  // nothing of one case overlaps the next
  }

  cudaEventDestroy(ctx.ev0);
  cudaEventDestroy(ctx.ev1);
  cudaStreamDestroy(ctx.st);
  if (ctx.failures == 0) {
    std::printf("ok\n");
    return 0;
  }
  std::printf("%d case(s) MISMATCH\n", ctx.failures);
  return 1;
}
