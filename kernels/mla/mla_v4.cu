// MLA decode v4: two strided-batched cuBLASLt GEMMs around a row softmax (mla_kernels.cuh, README.md).
//
// Per batch entry all R = s*h query rows share the latent kv [t, d+p], so (row-major shapes)
//   S[R, t] = Q[R, dk] KV[t, dk]^T * scale*log2(e)     dk = d+p
//   P[R, t] = softmax_t(S)  (exp2, since S is already in log2 units)
//   O[R, d] = P[R, t] V[t, d],  V = the first d columns of KV (row pitch dk)
// cuBLASLt is column-major: a row-major [r, c] matrix with pitch ld is a column-major [c, r] matrix with the same
// ld.  Hence, per batch entry (m x n x k, column-major):
//   scores: D = S^T [t, R] (ld = ld_s)  = op(A) B with A = KV^T stored [dk, t] (ld dk), op = T;  B = Q^T [dk, R]
//           (ld dk), op = N.  m = t, n = R, k = dk ("TN").
//   output: D = O^T [d, R] (ld = d)     = A B with A = V^T [d, t] (ld dk), op = N;  B = P^T [t, R] (ld = ld_s),
//           op = N.  m = d, n = R, k = t ("NN").
// Batch strides: KV t*dk, Q R*dk, S and P R*ld_s, O R*d elements.
#include "mla_kernels.cuh"

#include "util/cuda_check.hpp"

#include <cublasLt.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mla {
namespace {

using bf16 = __nv_bfloat16;

constexpr float kLog2e = 1.4426950408889634f;
constexpr int kDefaultSoftmaxThreads = 256;
constexpr int kLdMultiple = 64;  // row pitch of S and P: 256-byte fp32 rows, 128-byte bf16 rows

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("mla v4: " + what);
}

// A cuBLASLt status: configuration problems (the algorithm or shape is not supported) as std::invalid_argument,
// so that a caller can skip the configuration; anything else as std::runtime_error.
void lt_check(cublasStatus_t st, const char* what) {
  if (st == CUBLAS_STATUS_SUCCESS) return;
  const std::string msg = std::string("mla v4: ") + what + " failed: " + cublasLtGetStatusName(st) + " (" +
                          cublasLtGetStatusString(st) + ")";
  if (st == CUBLAS_STATUS_NOT_SUPPORTED || st == CUBLAS_STATUS_INVALID_VALUE) throw std::invalid_argument(msg);
  throw std::runtime_error(msg);
}

// Largest power of two <= 256 dividing x (256 for x == 0).
std::uint32_t align_of(std::uint64_t x) {
  if (x == 0) return 256;
  const std::uint64_t low = x & (~x + 1);
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(low, 256));
}

// Alignment every batch entry's matrix has: of the base pointer and, with more than one entry, of the stride.
std::uint32_t batch_align(const void* ptr, int batches, std::uint64_t stride_bytes) {
  std::uint32_t a = align_of(reinterpret_cast<std::uintptr_t>(ptr));
  if (batches > 1) a = std::min(a, align_of(stride_bytes));
  return a;
}

// ---------------------------------------------------------------------------------------------------------------
// Row softmax.  One block per row of S (b*R rows, pitch ld).  The row is read in chunks of 8 consecutive scores
// (fp32: two 16-byte loads; bf16: one), chunk c of the row belongs to thread c % THREADS, and P is written in
// 16-byte pieces of 8 bf16.  Scores at or past t (the last chunk's tail) count as -inf, so their P is 0.
//   mla_softmax_kernel<THREADS, CPT>: each thread holds its CPT chunks in registers: one read of S, max and sum
//     by block reductions, exp2 computed once, one write of P.
//   mla_softmax_long_kernel<THREADS>: rows longer than THREADS*CPT_MAX*8: a pass with a running (max, sum) per
//     thread, then a second read of the row to write P.
// ---------------------------------------------------------------------------------------------------------------

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
  return v;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

// Block-wide max / sum: every thread gets the result.  `red` holds NW floats and is used once per kernel.
template <int NW>
__device__ __forceinline__ float block_max(float v, float* red) {
  v = warp_max(v);
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = v;
  __syncthreads();
  float r = red[0];
#pragma unroll
  for (int i = 1; i < NW; ++i) r = fmaxf(r, red[i]);
  return r;
}

template <int NW>
__device__ __forceinline__ float block_sum(float v, float* red) {
  v = warp_sum(v);
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = v;
  __syncthreads();
  float r = red[0];
#pragma unroll
  for (int i = 1; i < NW; ++i) r += red[i];
  return r;
}

// 8 scores from a 32-byte (fp32) or 16-byte (bf16) aligned address; kStream: evict-first loads (read once).
template <bool kStream>
__device__ __forceinline__ void load8(const float* src, float (&v)[8]) {
  const float4* p4 = reinterpret_cast<const float4*>(src);
  const float4 a = kStream ? __ldcs(p4) : __ldg(p4);
  const float4 b = kStream ? __ldcs(p4 + 1) : __ldg(p4 + 1);
  v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w;
  v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
}

template <bool kStream>
__device__ __forceinline__ void load8(const bf16* src, float (&v)[8]) {
  const uint4* p4 = reinterpret_cast<const uint4*>(src);
  const uint4 raw = kStream ? __ldcs(p4) : __ldg(p4);
  const auto* h = reinterpret_cast<const __nv_bfloat162*>(&raw);
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    const float2 f = __bfloat1622float2(h[e]);
    v[2 * e] = f.x;
    v[2 * e + 1] = f.y;
  }
}

// Scores of chunk `chunk` (< n_chunks) with the elements at or past t set to -inf.
template <bool kStream, class ScoreT>
__device__ __forceinline__ void load_chunk(const ScoreT* row, int chunk, int t, float (&v)[8]) {
  load8<kStream>(row + static_cast<long long>(chunk) * 8, v);
#pragma unroll
  for (int e = 0; e < 8; ++e)
    if (chunk * 8 + e >= t) v[e] = -INFINITY;
}

// 8 probabilities v * inv as bf16, one 16-byte store.
__device__ __forceinline__ void store8(bf16* dst, const float (&v)[8], float inv) {
  uint4 packed;
  auto* o2 = reinterpret_cast<__nv_bfloat162*>(&packed);
#pragma unroll
  for (int e = 0; e < 4; ++e) o2[e] = __floats2bfloat162_rn(v[2 * e] * inv, v[2 * e + 1] * inv);
  *reinterpret_cast<uint4*>(dst) = packed;
}

template <int THREADS, int CPT, class ScoreT>
__global__ void __launch_bounds__(THREADS) mla_softmax_kernel(const ScoreT* __restrict__ s, bf16* __restrict__ p,
                                                              int t, long long ld) {
  constexpr int NW = THREADS / 32;
  __shared__ float red_max[NW], red_sum[NW];
  const long long row = blockIdx.x;
  const ScoreT* s_row = s + row * ld;
  bf16* p_row = p + row * ld;
  const int n_chunks = static_cast<int>((static_cast<long long>(t) + 7) / 8);

  float v[CPT][8];
  float mx = -INFINITY;
#pragma unroll
  for (int c = 0; c < CPT; ++c) {
    const int chunk = threadIdx.x + c * THREADS;
    if (chunk < n_chunks) {
      load_chunk<true>(s_row, chunk, t, v[c]);
    } else {
#pragma unroll
      for (int e = 0; e < 8; ++e) v[c][e] = -INFINITY;
    }
#pragma unroll
    for (int e = 0; e < 8; ++e) mx = fmaxf(mx, v[c][e]);
  }
  mx = block_max<NW>(mx, red_max);  // finite: the row has t >= 1 finite scores

  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < CPT; ++c)
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      v[c][e] = exp2f(v[c][e] - mx);  // -inf (past t) -> 0
      sum += v[c][e];
    }
  sum = block_sum<NW>(sum, red_sum);
  const float inv = 1.0f / sum;

#pragma unroll
  for (int c = 0; c < CPT; ++c) {
    const int chunk = threadIdx.x + c * THREADS;
    if (chunk < n_chunks) store8(p_row + static_cast<long long>(chunk) * 8, v[c], inv);
  }
}

template <int THREADS, class ScoreT>
__global__ void __launch_bounds__(THREADS) mla_softmax_long_kernel(const ScoreT* __restrict__ s,
                                                                   bf16* __restrict__ p, int t, long long ld) {
  constexpr int NW = THREADS / 32;
  __shared__ float red_max[NW], red_sum[NW];
  const long long row = blockIdx.x;
  const ScoreT* s_row = s + row * ld;
  bf16* p_row = p + row * ld;
  const int n_chunks = static_cast<int>((static_cast<long long>(t) + 7) / 8);

  // Pass 1: running max m and sum l = sum exp2(x - m) over this thread's chunks.  Every chunk < n_chunks holds at
  // least one score before t, so m_new is finite and exp2(m - m_new) is 0 on the first chunk (m = -inf, l = 0).
  float m = -INFINITY, l = 0.0f;
#pragma unroll 1
  for (int chunk = threadIdx.x; chunk < n_chunks; chunk += THREADS) {
    float v[8];
    load_chunk<false>(s_row, chunk, t, v);
    float cm = v[0];
#pragma unroll
    for (int e = 1; e < 8; ++e) cm = fmaxf(cm, v[e]);
    const float m_new = fmaxf(m, cm);
    float add = 0.0f;
#pragma unroll
    for (int e = 0; e < 8; ++e) add += exp2f(v[e] - m_new);
    l = l * exp2f(m - m_new) + add;
    m = m_new;
  }
  const float row_max = block_max<NW>(m, red_max);
  // Threads without chunks have m = -inf, l = 0: weight exp2(-inf) = 0.
  const float row_sum = block_sum<NW>(l * exp2f(m - row_max), red_sum);
  const float inv = 1.0f / row_sum;

  // Pass 2: the row again (from L2 when it is still there), normalised probabilities out.
#pragma unroll 1
  for (int chunk = threadIdx.x; chunk < n_chunks; chunk += THREADS) {
    float v[8];
    load_chunk<true>(s_row, chunk, t, v);
#pragma unroll
    for (int e = 0; e < 8; ++e) v[e] = exp2f(v[e] - row_max);
    store8(p_row + static_cast<long long>(chunk) * 8, v, inv);
  }
}

template <class ScoreT>
using SoftmaxFn = void (*)(const ScoreT*, bf16*, int, long long);

// Chunks per thread kept in registers: up to 8 (64 floats) below 1024 threads, 4 at 1024 (64 registers a thread).
template <int THREADS, int CPT_MAX, class ScoreT>
SoftmaxFn<ScoreT> pick_softmax(long long chunks_per_thread) {
  if (chunks_per_thread <= 1) return mla_softmax_kernel<THREADS, 1, ScoreT>;
  if (chunks_per_thread <= 2) return mla_softmax_kernel<THREADS, 2, ScoreT>;
  if (chunks_per_thread <= 4) return mla_softmax_kernel<THREADS, 4, ScoreT>;
  if constexpr (CPT_MAX >= 8) {
    if (chunks_per_thread <= 8) return mla_softmax_kernel<THREADS, 8, ScoreT>;
  }
  return mla_softmax_long_kernel<THREADS, ScoreT>;
}

template <class ScoreT>
SoftmaxFn<ScoreT> softmax_kernel(int threads, int t) {
  const long long n_chunks = (static_cast<long long>(t) + 7) / 8;
  const long long per = (n_chunks + threads - 1) / threads;
  switch (threads) {
    case 128: return pick_softmax<128, 8, ScoreT>(per);
    case 256: return pick_softmax<256, 8, ScoreT>(per);
    case 512: return pick_softmax<512, 8, ScoreT>(per);
    case 1024: return pick_softmax<1024, 4, ScoreT>(per);
    default: return nullptr;
  }
}

int softmax_threads_of(const TileConfig& cfg) {
  const int threads = cfg.softmax_threads == 0 ? kDefaultSoftmaxThreads : cfg.softmax_threads;
  require(threads == 128 || threads == 256 || threads == 512 || threads == 1024,
          "softmax_threads must be 128, 256, 512 or 1024 (got " + std::to_string(threads) + ")");
  return threads;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// The plan
// ---------------------------------------------------------------------------------------------------------------

struct MlaV4Plan::Impl {
  struct Gemm {
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, cd = nullptr;  // C and D share a layout (C = D, beta = 0)
    std::vector<cublasLtMatmulHeuristicResult_t> algos;
  };

  int b = 0, s = 0, t = 0, h = 0, d = 0, p = 0;
  long long rows = 0;  // s*h query rows per batch entry
  long long ld = 0;
  ScoreType score_type = ScoreType::fp32;
  std::uint32_t align_q = 0, align_kv = 0, align_o = 0;
  void* scores = nullptr;
  bf16* probs = nullptr;
  void* workspace = nullptr;
  std::size_t scores_bytes = 0, probs_bytes = 0;
  cublasLtHandle_t handle = nullptr;
  Gemm gemm[2];  // V4Gemm::scores, V4Gemm::output

  ~Impl() {
    for (Gemm& g : gemm) {
      if (g.cd) cublasLtMatrixLayoutDestroy(g.cd);
      if (g.b) cublasLtMatrixLayoutDestroy(g.b);
      if (g.a) cublasLtMatrixLayoutDestroy(g.a);
      if (g.op) cublasLtMatmulDescDestroy(g.op);
    }
    if (handle) cublasLtDestroy(handle);
    cudaFree(workspace);
    cudaFree(probs);
    cudaFree(scores);
  }

  std::size_t score_size() const { return score_type == ScoreType::fp32 ? 4 : 2; }

  // A column-major layout of `batches` matrices rows x cols (pitch ld, elements), `stride` elements apart.
  static void make_layout(cublasLtMatrixLayout_t& out, cudaDataType_t type, long long rows, long long cols, long long ld,
                          int batches, long long stride) {
    lt_check(cublasLtMatrixLayoutCreate(&out, type, static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(cols),
                                        static_cast<std::int64_t>(ld)),
             "cublasLtMatrixLayoutCreate");
    const std::int32_t count = batches;
    const std::int64_t offset = stride;
    lt_check(cublasLtMatrixLayoutSetAttribute(out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count),
             "set CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT");
    lt_check(cublasLtMatrixLayoutSetAttribute(out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &offset, sizeof offset),
             "set CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET");
  }

  void make_op(Gemm& g, cublasOperation_t ta, cublasOperation_t tb) {
    lt_check(cublasLtMatmulDescCreate(&g.op, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
    lt_check(cublasLtMatmulDescSetAttribute(g.op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), "set TRANSA");
    lt_check(cublasLtMatmulDescSetAttribute(g.op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), "set TRANSB");
  }

  // Up to kMaxAlgos algorithms, in the heuristic's order (its estimate of fastest first), that accept the given
  // alignments and the workspace.
  void find_algos(Gemm& g, std::uint32_t align_a, std::uint32_t align_b, std::uint32_t align_cd, const char* name) {
    cublasLtMatmulPreference_t pref = nullptr;
    lt_check(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
    struct PrefGuard {
      cublasLtMatmulPreference_t p;
      ~PrefGuard() { cublasLtMatmulPreferenceDestroy(p); }
    } guard{pref};
    const std::uint64_t ws = kWorkspaceBytes;
    lt_check(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws),
             "set MAX_WORKSPACE_BYTES");
    const std::pair<cublasLtMatmulPreferenceAttributes_t, std::uint32_t> aligns[] = {
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, align_a},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, align_b},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, align_cd},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, align_cd}};
    for (const auto& [attr, value] : aligns)
      lt_check(cublasLtMatmulPreferenceSetAttribute(pref, attr, &value, sizeof value), "set MIN_ALIGNMENT");
    cublasLtMatmulHeuristicResult_t found[kMaxAlgos] = {};
    int n = 0;
    lt_check(cublasLtMatmulAlgoGetHeuristic(handle, g.op, g.a, g.b, g.cd, g.cd, pref, kMaxAlgos, found, &n),
             "cublasLtMatmulAlgoGetHeuristic");
    for (int i = 0; i < n && i < kMaxAlgos; ++i)
      if (found[i].state == CUBLAS_STATUS_SUCCESS && found[i].workspaceSize <= kWorkspaceBytes)
        g.algos.push_back(found[i]);
    require(!g.algos.empty(), std::string("cuBLASLt has no algorithm for the ") + name + " GEMM of this shape");
  }

  void check_args(const MlaArgs& a) const {
    require(a.q != nullptr && a.kv != nullptr && a.o != nullptr, "q, kv and o must be set");
    require(a.b == b && a.s == s && a.t == t && a.h == h && a.d == d && a.p == p,
            "the arguments' shape differs from the plan's (a plan is built for one shape)");
    auto ok = [](const void* ptr, std::uint32_t align) { return reinterpret_cast<std::uintptr_t>(ptr) % align == 0; };
    require(ok(a.q, align_q) && ok(a.kv, align_kv) && ok(a.o, align_o),
            "q, kv or o is less aligned than the pointers the plan was built for");
  }

  const cublasLtMatmulAlgo_t& algo(V4Gemm which, int rank_cfg) const {
    const auto& g = gemm[static_cast<int>(which)];
    const int rank = rank_cfg == 0 ? 1 : rank_cfg;
    require(rank >= 1 && rank <= static_cast<int>(g.algos.size()),
            "algorithm rank " + std::to_string(rank) + " not available (cuBLASLt offered " +
                std::to_string(g.algos.size()) + ")");
    return g.algos[rank - 1].algo;
  }
};

MlaV4Plan::MlaV4Plan(const MlaArgs& a, ScoreType scores) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  require(a.q != nullptr && a.kv != nullptr && a.o != nullptr, "q, kv and o must be set");
  require(a.b > 0 && a.s > 0 && a.t > 0 && a.h > 0 && a.d > 0 && a.p >= 0, "need b, s, t, h, d > 0 and p >= 0");
  require(a.d % 8 == 0 && a.p % 8 == 0, "d and p must be multiples of 8 (16-byte rows)");
  const long long rows = static_cast<long long>(a.s) * a.h;
  require(rows <= INT_MAX && static_cast<long long>(a.b) * rows <= INT_MAX, "b*s*h must fit in int");
  m.b = a.b, m.s = a.s, m.t = a.t, m.h = a.h, m.d = a.d, m.p = a.p;
  m.rows = rows;
  m.ld = (static_cast<long long>(a.t) + kLdMultiple - 1) / kLdMultiple * kLdMultiple;
  m.score_type = scores;
  const long long dk = a.d + a.p;

  const std::size_t elems = static_cast<std::size_t>(a.b) * static_cast<std::size_t>(rows) * static_cast<std::size_t>(m.ld);
  m.scores_bytes = elems * m.score_size();
  m.probs_bytes = elems * sizeof(bf16);
  CUDA_CHECK(cudaMalloc(&m.scores, m.scores_bytes));
  CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&m.probs), m.probs_bytes));
  CUDA_CHECK(cudaMalloc(&m.workspace, kWorkspaceBytes));

  m.align_q = batch_align(a.q, a.b, static_cast<std::uint64_t>(rows * dk * 2));
  m.align_kv = batch_align(a.kv, a.b, static_cast<std::uint64_t>(static_cast<long long>(a.t) * dk * 2));
  m.align_o = batch_align(a.o, a.b, static_cast<std::uint64_t>(rows * a.d * 2));
  const std::uint32_t align_s = batch_align(m.scores, a.b, static_cast<std::uint64_t>(rows * m.ld) * m.score_size());
  const std::uint32_t align_p = batch_align(m.probs, a.b, static_cast<std::uint64_t>(rows * m.ld) * 2);

  lt_check(cublasLtCreate(&m.handle), "cublasLtCreate");
  const cudaDataType_t s_type = scores == ScoreType::fp32 ? CUDA_R_32F : CUDA_R_16BF;

  // scores: D = S^T [t, R] = (KV^T [dk, t])^T * Q^T [dk, R]
  Impl::Gemm& g1 = m.gemm[static_cast<int>(V4Gemm::scores)];
  m.make_op(g1, CUBLAS_OP_T, CUBLAS_OP_N);
  Impl::make_layout(g1.a, CUDA_R_16BF, dk, a.t, dk, a.b, static_cast<long long>(a.t) * dk);
  Impl::make_layout(g1.b, CUDA_R_16BF, dk, rows, dk, a.b, rows * dk);
  Impl::make_layout(g1.cd, s_type, a.t, rows, m.ld, a.b, rows * m.ld);
  m.find_algos(g1, m.align_kv, m.align_q, align_s, "scores");

  // output: D = O^T [d, R] = V^T [d, t] (pitch dk) * P^T [t, R] (pitch ld)
  Impl::Gemm& g2 = m.gemm[static_cast<int>(V4Gemm::output)];
  m.make_op(g2, CUBLAS_OP_N, CUBLAS_OP_N);
  Impl::make_layout(g2.a, CUDA_R_16BF, a.d, a.t, dk, a.b, static_cast<long long>(a.t) * dk);
  Impl::make_layout(g2.b, CUDA_R_16BF, a.t, rows, m.ld, a.b, rows * m.ld);
  Impl::make_layout(g2.cd, CUDA_R_16BF, a.d, rows, a.d, a.b, rows * a.d);
  m.find_algos(g2, m.align_kv, align_p, m.align_o, "output");
}

MlaV4Plan::~MlaV4Plan() = default;

void MlaV4Plan::launch_scores(const MlaArgs& a, cudaStream_t stream, const TileConfig& cfg) const {
  const Impl& m = *impl_;
  m.check_args(a);
  const auto& g = m.gemm[static_cast<int>(V4Gemm::scores)];
  const cublasLtMatmulAlgo_t& algo = m.algo(V4Gemm::scores, cfg.scores_algo);
  const float alpha = mla_scale(a) * kLog2e, beta = 0.0f;
  lt_check(cublasLtMatmul(m.handle, g.op, &alpha, a.kv, g.a, a.q, g.b, &beta, m.scores, g.cd, m.scores, g.cd, &algo,
                          m.workspace, kWorkspaceBytes, stream),
           "cublasLtMatmul (scores)");
}

void MlaV4Plan::launch_softmax(const MlaArgs& a, cudaStream_t stream, const TileConfig& cfg) const {
  const Impl& m = *impl_;
  m.check_args(a);
  const int threads = softmax_threads_of(cfg);
  const unsigned grid = static_cast<unsigned>(static_cast<long long>(m.b) * m.rows);
  if (m.score_type == ScoreType::fp32) {
    const SoftmaxFn<float> k = softmax_kernel<float>(threads, m.t);
    k<<<grid, threads, 0, stream>>>(static_cast<const float*>(m.scores), m.probs, m.t, m.ld);
  } else {
    const SoftmaxFn<bf16> k = softmax_kernel<bf16>(threads, m.t);
    k<<<grid, threads, 0, stream>>>(static_cast<const bf16*>(m.scores), m.probs, m.t, m.ld);
  }
  CUDA_CHECK_LAUNCH();
}

void MlaV4Plan::launch_output(const MlaArgs& a, cudaStream_t stream, const TileConfig& cfg) const {
  const Impl& m = *impl_;
  m.check_args(a);
  const auto& g = m.gemm[static_cast<int>(V4Gemm::output)];
  const cublasLtMatmulAlgo_t& algo = m.algo(V4Gemm::output, cfg.output_algo);
  const float alpha = 1.0f, beta = 0.0f;
  lt_check(cublasLtMatmul(m.handle, g.op, &alpha, a.kv, g.a, m.probs, g.b, &beta, a.o, g.cd, a.o, g.cd, &algo,
                          m.workspace, kWorkspaceBytes, stream),
           "cublasLtMatmul (output)");
}

void MlaV4Plan::launch(const MlaArgs& a, cudaStream_t stream, const TileConfig& cfg) const {
  launch_scores(a, stream, cfg);
  launch_softmax(a, stream, cfg);
  launch_output(a, stream, cfg);
}

int MlaV4Plan::algo_count(V4Gemm g) const { return static_cast<int>(impl_->gemm[static_cast<int>(g)].algos.size()); }

std::string MlaV4Plan::algo_description(V4Gemm which, int rank) const {
  const auto& algos = impl_->gemm[static_cast<int>(which)].algos;
  if (rank < 1 || rank > static_cast<int>(algos.size())) return "(none)";
  const cublasLtMatmulHeuristicResult_t& r = algos[rank - 1];
  std::int32_t id = -1, splitk = -1;
  std::uint32_t tile = 0, stages = 0;
  std::size_t written = 0;
  cublasLtMatmulAlgoConfigGetAttribute(&r.algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &written);
  cublasLtMatmulAlgoConfigGetAttribute(&r.algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, &written);
  cublasLtMatmulAlgoConfigGetAttribute(&r.algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages, &written);
  cublasLtMatmulAlgoConfigGetAttribute(&r.algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk, &written);
  char buf[160];
  std::snprintf(buf, sizeof buf, "algo id %d, tile id %u, stages id %u, split-k %d, workspace %zu B, waves %.2f",
                static_cast<int>(id), tile, stages, static_cast<int>(splitk), r.workspaceSize, r.wavesCount);
  return buf;
}

cudaError_t MlaV4Plan::softmax_attributes(const TileConfig& cfg, cudaFuncAttributes& out) const {
  const int threads = cfg.softmax_threads == 0 ? kDefaultSoftmaxThreads : cfg.softmax_threads;
  const void* k = impl_->score_type == ScoreType::fp32
                      ? reinterpret_cast<const void*>(softmax_kernel<float>(threads, impl_->t))
                      : reinterpret_cast<const void*>(softmax_kernel<bf16>(threads, impl_->t));
  if (k == nullptr) return cudaErrorNotSupported;
  return cudaFuncGetAttributes(&out, k);
}

void MlaV4Plan::poison(cudaStream_t stream) const {
  poison_scores(stream);
  poison_probs(stream);
}
void MlaV4Plan::poison_scores(cudaStream_t stream) const {
  CUDA_CHECK(cudaMemsetAsync(impl_->scores, 0xFF, impl_->scores_bytes, stream));
}
void MlaV4Plan::poison_probs(cudaStream_t stream) const {
  CUDA_CHECK(cudaMemsetAsync(impl_->probs, 0xFF, impl_->probs_bytes, stream));
}

ScoreType MlaV4Plan::score_type() const { return impl_->score_type; }
long long MlaV4Plan::ld() const { return impl_->ld; }
const void* MlaV4Plan::scores() const { return impl_->scores; }
const __nv_bfloat16* MlaV4Plan::probs() const { return impl_->probs; }
std::size_t MlaV4Plan::scores_bytes() const { return impl_->scores_bytes; }
std::size_t MlaV4Plan::probs_bytes() const { return impl_->probs_bytes; }

std::vector<int> mla_v4_softmax_threads() { return {256, 128, 512, 1024}; }

}  // namespace mla
