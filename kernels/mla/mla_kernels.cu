// MLA decode kernels: v1 (fp32, one block per query row), v2 (WMMA tile), v3 (split-KV partial + combine).
// v4 (cuBLASLt GEMMs around a row softmax) lives in mla_v4.cu.  Layouts and formulas: mla_kernels.cuh, README.md.
#include "mla_kernels.cuh"

#include "util/cuda_check.hpp"

#include <mma.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace mla {
namespace {

using bf16 = __nv_bfloat16;
namespace wmma = nvcuda::wmma;

constexpr float kLog2e = 1.4426950408889634f;

// ---------------------------------------------------------------------------------------------------------------
// Host-side validation
// ---------------------------------------------------------------------------------------------------------------

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("mla: " + what);
}

bool aligned16(const void* ptr) { return (reinterpret_cast<std::uintptr_t>(ptr) & 15u) == 0; }

long long query_rows(const MlaArgs& a) { return static_cast<long long>(a.s) * a.h; }

void validate_common(const MlaArgs& a) {
  require(a.q != nullptr && a.kv != nullptr && a.o != nullptr, "q, kv and o must be set");
  require(a.b > 0 && a.s > 0 && a.t > 0 && a.h > 0 && a.d > 0 && a.p >= 0, "need b, s, t, h, d > 0 and p >= 0");
  require(a.d % 8 == 0 && a.p % 8 == 0, "d and p must be multiples of 8 (rows are copied in 16-byte pieces)");
  require(aligned16(a.q) && aligned16(a.kv) && aligned16(a.o), "q, kv and o must be 16-byte aligned");
  require(query_rows(a) <= INT_MAX && static_cast<long long>(a.b) * query_rows(a) <= INT_MAX,
          "b*s*h must fit in int");
  require(a.b <= 65535, "b must be <= 65535 (grid z)");
}

// ---------------------------------------------------------------------------------------------------------------
// Device helpers
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

// 16-byte global -> shared copy that bypasses L1; src_bytes = 0 writes 16 zero bytes (used for rows past the end).
__device__ __forceinline__ void cp_async_16(void* smem_dst, const void* gmem_src, int src_bytes) {
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem_dst));
  const auto src = static_cast<unsigned long long>(__cvta_generic_to_global(gmem_src));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_group 0;\n" ::: "memory"); }

// ---------------------------------------------------------------------------------------------------------------
// v1: one block per query row, fp32 throughout.
// Per chunk of 64 keys: each warp computes whole dot products (16-byte loads of the kv row, the q row in shared
// memory as fp32), then every thread updates the running max/sum and its own output columns.
// ---------------------------------------------------------------------------------------------------------------

constexpr int kV1Threads = 256;
constexpr int kV1Chunk = 64;
constexpr int kV1ColsPerThread = 4;  // d <= kV1Threads * kV1ColsPerThread = 1024

__global__ void __launch_bounds__(kV1Threads) mla_v1_kernel(const bf16* __restrict__ q, const bf16* __restrict__ kv,
                                                            bf16* __restrict__ o, int rows_per_batch, int t, int d,
                                                            int dk, float scale_log2) {
  extern __shared__ float v1_smem[];
  float* s_q = v1_smem;                // dk floats: the query row
  float* s_score = s_q + dk;           // kV1Chunk raw scores (log2 domain)
  float* s_prob = s_score + kV1Chunk;  // kV1Chunk exp2(score - running max)

  const long long row = blockIdx.x;  // over b * s * h
  const int batch = static_cast<int>(row / rows_per_batch);
  const bf16* q_row = q + row * dk;
  const bf16* kv_b = kv + static_cast<long long>(batch) * t * dk;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int vecs_per_row = dk / 8;

  for (int c = threadIdx.x; c < dk; c += kV1Threads) s_q[c] = __bfloat162float(q_row[c]);
  __syncthreads();

  float acc[kV1ColsPerThread];
#pragma unroll
  for (int k = 0; k < kV1ColsPerThread; ++k) acc[k] = 0.0f;
  float m_run = -INFINITY, l_run = 0.0f;

  for (int j0 = 0; j0 < t; j0 += kV1Chunk) {
    const int n_valid = min(kV1Chunk, t - j0);
    for (int jj = warp; jj < kV1Chunk; jj += kV1Threads / 32) {
      float score = -INFINITY;
      if (jj < n_valid) {
        const uint4* k_row = reinterpret_cast<const uint4*>(kv_b + static_cast<long long>(j0 + jj) * dk);
        float dot = 0.0f;
        for (int v = lane; v < vecs_per_row; v += 32) {
          const uint4 raw = __ldg(k_row + v);
          const auto* pairs = reinterpret_cast<const __nv_bfloat162*>(&raw);
          const float* qv = s_q + v * 8;
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const float2 f = __bfloat1622float2(pairs[e]);
            dot = fmaf(f.x, qv[2 * e], dot);
            dot = fmaf(f.y, qv[2 * e + 1], dot);
          }
        }
        score = warp_sum(dot) * scale_log2;
      }
      if (lane == 0) s_score[jj] = score;
    }
    __syncthreads();

    float chunk_max = -INFINITY;
    for (int jj = 0; jj < n_valid; ++jj) chunk_max = fmaxf(chunk_max, s_score[jj]);
    const float m_new = fmaxf(m_run, chunk_max);
    const float alpha = exp2f(m_run - m_new);  // 0 on the first chunk (m_run = -inf, m_new finite)
    if (threadIdx.x < n_valid) s_prob[threadIdx.x] = exp2f(s_score[threadIdx.x] - m_new);
    __syncthreads();

    float p_sum = 0.0f;
#pragma unroll
    for (int k = 0; k < kV1ColsPerThread; ++k) acc[k] *= alpha;
    for (int jj = 0; jj < n_valid; ++jj) {
      const float pj = s_prob[jj];
      p_sum += pj;
      const bf16* v_row = kv_b + static_cast<long long>(j0 + jj) * dk;
#pragma unroll
      for (int k = 0; k < kV1ColsPerThread; ++k) {
        const int c = threadIdx.x + k * kV1Threads;
        if (c < d) acc[k] = fmaf(pj, __bfloat162float(v_row[c]), acc[k]);
      }
    }
    l_run = l_run * alpha + p_sum;
    m_run = m_new;
    // The next chunk writes s_score before its first barrier; every thread has read s_score above (before the
    // barrier it passed), and s_prob is rewritten only after that next barrier.
  }

  const float inv_l = 1.0f / l_run;
#pragma unroll
  for (int k = 0; k < kV1ColsPerThread; ++k) {
    const int c = threadIdx.x + k * kV1Threads;
    if (c < d) o[row * d + c] = __float2bfloat16(acc[k] * inv_l);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// v2 / v3 stage 1: tensor-core tile.
// A block owns HB query rows (flattened s*h of one batch entry) and walks kv rows [t_begin, t_end) in tiles of N,
// double-buffered with cp.async.  Per tile:
//   phase 1  S = Q K^T (WMMA, fp32 accumulate) -> shared memory; when there are more warps than 16x16 score
//            fragments, KSPLIT warps share a fragment by splitting the d+p reduction.
//   phase 2  one warp per row: running max m (log2 domain), alpha = exp2(m_old - m_new), P = exp2(S - m_new) as
//            bf16, l = l * alpha + sum(P).
//   phase 3  each warp owns DV/NW output columns for all HB rows: O *= alpha (per row), O += P V (WMMA).
// WMMA accumulator element -> row mapping is opaque, so it is read once from a fragment loaded with its own row
// indices (row_of below) and used to apply per-row alpha in registers.
// ---------------------------------------------------------------------------------------------------------------

template <int DV_, int DR_, int HB_, int N_, int NW_>
struct TcTile {
  static constexpr int DV = DV_, DR = DR_, HB = HB_, N = N_, NW = NW_;
  static constexpr int D = DV + DR;
  static constexpr int DP = D + 8;  // bf16 row pitch: +16 bytes puts the 8 rows of an ldmatrix in distinct banks
  static constexpr int KT = D / 16;
  static constexpr int MF = HB / 16;
  static constexpr int SF = N / 16;
  static constexpr int S_FRAGS = MF * SF;
  static constexpr int KSPLIT = NW > S_FRAGS ? NW / S_FRAGS : 1;
  static constexpr int NF = DV / 16 / NW;  // output fragments per warp along d
  static constexpr int SLD = N + 4;        // fp32 score pitch
  static constexpr int PLD = N + 8;        // bf16 probability pitch
  static constexpr int OLD = DV + 4;       // fp32 output staging pitch
  static constexpr int THREADS = NW * 32;

  static_assert(DV % 16 == 0 && DR % 16 == 0, "d and p must be multiples of 16 for WMMA");
  static_assert(HB % 16 == 0 && N % 32 == 0, "tile sizes");
  static_assert((DV / 16) % NW == 0, "output columns must split evenly over warps");
  static_assert(KSPLIT == 1 || NW % S_FRAGS == 0, "warps must split score fragments evenly");
  static_assert(KSPLIT <= KT, "too many warps per score fragment");

  static constexpr std::size_t round128(std::size_t x) { return (x + 127) / 128 * 128; }
  static constexpr std::size_t Q_BYTES = round128(std::size_t{HB} * DP * 2);
  static constexpr std::size_t KV_BYTES = round128(std::size_t{N} * DP * 2);  // one buffer
  static constexpr int KV_ELEMS = static_cast<int>(KV_BYTES / 2);
  static constexpr std::size_t O_BYTES = round128(std::size_t{HB} * OLD * 4);  // reuses Q + KV after the loop
  static constexpr std::size_t MAIN_BYTES = (Q_BYTES + 2 * KV_BYTES) > O_BYTES ? Q_BYTES + 2 * KV_BYTES : O_BYTES;
  static constexpr std::size_t S_OFF = MAIN_BYTES;
  static constexpr std::size_t S_BYTES = round128(std::size_t{KSPLIT} * HB * SLD * 4);
  static constexpr std::size_t P_OFF = S_OFF + S_BYTES;
  static constexpr std::size_t P_BYTES = round128(std::size_t{HB} * PLD * 2);
  static constexpr std::size_t STAT_OFF = P_OFF + P_BYTES;
  static constexpr std::size_t SMEM = STAT_OFF + round128(3 * std::size_t{HB} * 4);
  static_assert(S_BYTES >= 16 * 16 * 4, "row-index matrix is staged in the score buffer");
};

struct TcParams {
  const bf16* q;
  const bf16* kv;
  bf16* o;          // v2 output
  float* ws_o;      // v3: [b, rows, splits, DV] unnormalised output
  float* ws_ml;     // v3: [b, rows, splits, 2] (max in log2 domain, sum)
  int rows;         // s * h
  int t;
  int chunk;        // kv rows per split (v2: t)
  int num_splits;   // v2: 1
  float scale_log2; // scale * log2(e)
};

using FragA = wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major>;
using FragBCol = wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major>;
using FragBRow = wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major>;
using FragC = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;

// Stage n_rows rows of D bf16 (global pitch D, shared pitch DP); rows at or past `limit` become zeros.
template <int D, int DP, int THREADS>
__device__ __forceinline__ void stage_rows(bf16* dst, const bf16* src_base, int n_rows, int first, int limit) {
  constexpr int CHUNKS = D / 8;
  // Not unrolled: cp.async needs no registers in flight, and unrolled copies hoist one 64-bit address per chunk
  // out of the kv loop.
#pragma unroll 1
  for (int i = threadIdx.x; i < n_rows * CHUNKS; i += THREADS) {
    const int r = i / CHUNKS, c = i % CHUNKS;
    const bool ok = first + r < limit;
    const bf16* src = ok ? src_base + static_cast<long long>(first + r) * D + c * 8 : src_base;
    cp_async_16(dst + r * DP + c * 8, src, ok ? 16 : 0);
  }
}

// One 16x16 score fragment over k-steps [k0, k1) of the d+p reduction; two accumulators for independent chains.
template <class T>
__device__ __forceinline__ void score_fragment(const bf16* s_q, const bf16* s_k, int mi, int ni, int k0, int k1,
                                               float* dst) {
  FragC c0, c1;
  wmma::fill_fragment(c0, 0.0f);
  wmma::fill_fragment(c1, 0.0f);
  FragA a;
  FragBCol b;
  const bf16* q_base = s_q + mi * 16 * T::DP;
  const bf16* k_base = s_k + ni * 16 * T::DP;
  int k = k0;
#pragma unroll 1
  for (; k + 1 < k1; k += 2) {
    wmma::load_matrix_sync(a, q_base + k * 16, T::DP);
    wmma::load_matrix_sync(b, k_base + k * 16, T::DP);
    wmma::mma_sync(c0, a, b, c0);
    wmma::load_matrix_sync(a, q_base + (k + 1) * 16, T::DP);
    wmma::load_matrix_sync(b, k_base + (k + 1) * 16, T::DP);
    wmma::mma_sync(c1, a, b, c1);
  }
  if (k < k1) {
    wmma::load_matrix_sync(a, q_base + k * 16, T::DP);
    wmma::load_matrix_sync(b, k_base + k * 16, T::DP);
    wmma::mma_sync(c0, a, b, c0);
  }
#pragma unroll
  for (int i = 0; i < c0.num_elements; ++i) c0.x[i] += c1.x[i];
  wmma::store_matrix_sync(dst + mi * 16 * T::SLD + ni * 16, c0, T::SLD, wmma::mem_row_major);
}

template <class T, bool kPartial>
__global__ void __launch_bounds__(T::THREADS, 1) mla_tc_kernel(const TcParams prm) {
  extern __shared__ __align__(128) unsigned char tc_smem[];
  bf16* s_q = reinterpret_cast<bf16*>(tc_smem);
  bf16* s_kv0 = reinterpret_cast<bf16*>(tc_smem + T::Q_BYTES);  // buffer i at s_kv0 + i * KV_ELEMS
  float* s_o = reinterpret_cast<float*>(tc_smem);  // only after the kv loop
  float* s_s = reinterpret_cast<float*>(tc_smem + T::S_OFF);
  bf16* s_p = reinterpret_cast<bf16*>(tc_smem + T::P_OFF);
  float* s_m = reinterpret_cast<float*>(tc_smem + T::STAT_OFF);
  float* s_l = s_m + T::HB;
  float* s_alpha = s_l + T::HB;

  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int row0 = blockIdx.x * T::HB;
  const int split = blockIdx.y;
  const int batch = blockIdx.z;
  const int t_begin = split * prm.chunk;
  const int t_end = min(prm.t, t_begin + prm.chunk);
  const long long grow0 = static_cast<long long>(batch) * prm.rows + row0;  // global query row of tile row 0

  if constexpr (kPartial) {
    if (t_begin >= t_end) {  // empty split (t small relative to num_splits): contributes nothing to the merge
      for (int i = tid; i < T::HB * (T::DV / 4); i += T::THREADS) {
        const int r = i / (T::DV / 4), c = (i % (T::DV / 4)) * 4;
        if (row0 + r >= prm.rows) continue;
        const long long slot = (grow0 + r) * prm.num_splits + split;
        *reinterpret_cast<float4*>(prm.ws_o + slot * T::DV + c) = make_float4(0.f, 0.f, 0.f, 0.f);
        if (c == 0) *reinterpret_cast<float2*>(prm.ws_ml + slot * 2) = make_float2(-INFINITY, 0.0f);
      }
      return;
    }
  }

  // Stage Q and the first kv tile; initialise row statistics and the row-index matrix.
  const bf16* q_b = prm.q + static_cast<long long>(batch) * prm.rows * T::D;
  const bf16* kv_b = prm.kv + static_cast<long long>(batch) * prm.t * T::D;
  stage_rows<T::D, T::DP, T::THREADS>(s_q, q_b, T::HB, row0, prm.rows);
  stage_rows<T::D, T::DP, T::THREADS>(s_kv0, kv_b, T::N, t_begin, t_end);
  cp_async_commit();
  for (int r = tid; r < T::HB; r += T::THREADS) {
    s_m[r] = -INFINITY;
    s_l[r] = 0.0f;
    s_alpha[r] = 0.0f;
  }
  for (int i = tid; i < 256; i += T::THREADS) s_s[i] = static_cast<float>(i / 16);
  __syncthreads();
  FragC row_of;  // row_of.x[i] = row (0..15) of accumulator element i, for every accumulator fragment
  wmma::load_matrix_sync(row_of, s_s, 16, wmma::mem_row_major);

  FragC acc[T::MF][T::NF];
#pragma unroll
  for (int mi = 0; mi < T::MF; ++mi)
#pragma unroll
    for (int ni = 0; ni < T::NF; ++ni) wmma::fill_fragment(acc[mi][ni], 0.0f);

  const int n_tiles = (t_end - t_begin + T::N - 1) / T::N;
  for (int it = 0; it < n_tiles; ++it) {
    // Tile `it` has landed for every thread, and every warp is past phase 3 of the previous tile, so the other
    // buffer (read by that phase) may be refilled and s_s (read in the previous phase 2) rewritten.
    cp_async_wait_all();
    __syncthreads();
    const int tile_start = t_begin + it * T::N;
    if (it + 1 < n_tiles) {
      stage_rows<T::D, T::DP, T::THREADS>(s_kv0 + ((it + 1) & 1) * T::KV_ELEMS, kv_b, T::N, tile_start + T::N, t_end);
      cp_async_commit();
    }
    const bf16* s_k = s_kv0 + (it & 1) * T::KV_ELEMS;

    // Phase 1: raw scores.
    if constexpr (T::KSPLIT > 1) {
      const int f = warp % T::S_FRAGS, ks = warp / T::S_FRAGS;
      score_fragment<T>(s_q, s_k, f / T::SF, f % T::SF, ks * T::KT / T::KSPLIT, (ks + 1) * T::KT / T::KSPLIT,
                        s_s + ks * T::HB * T::SLD);
    } else {
      for (int f = warp; f < T::S_FRAGS; f += T::NW) score_fragment<T>(s_q, s_k, f / T::SF, f % T::SF, 0, T::KT, s_s);
    }
    __syncthreads();

    // Phase 2: online softmax statistics and bf16 probabilities.
    const int n_valid = min(T::N, t_end - tile_start);
#pragma unroll 1
    for (int r = warp; r < T::HB; r += T::NW) {
      float sv[T::N / 32];
      float mx = -INFINITY;
#pragma unroll
      for (int jj = 0; jj < T::N / 32; ++jj) {
        const int j = lane + 32 * jj;
        float v = -INFINITY;
        if (j < n_valid) {
          v = 0.0f;
#pragma unroll
          for (int ks = 0; ks < T::KSPLIT; ++ks) v += s_s[ks * T::HB * T::SLD + r * T::SLD + j];
          v *= prm.scale_log2;
        }
        sv[jj] = v;
        mx = fmaxf(mx, v);
      }
      mx = warp_max(mx);
      const float m_old = s_m[r];
      const float m_new = fmaxf(m_old, mx);  // finite: the tile has at least one valid key
      float sum = 0.0f;
#pragma unroll
      for (int jj = 0; jj < T::N / 32; ++jj) {
        const bf16 pb = __float2bfloat16(exp2f(sv[jj] - m_new));  // masked keys: exp2(-inf) = 0
        s_p[r * T::PLD + lane + 32 * jj] = pb;
        sum += __bfloat162float(pb);  // sum what P V will use
      }
      sum = warp_sum(sum);
      if (lane == 0) {
        const float alpha = exp2f(m_old - m_new);
        s_m[r] = m_new;
        s_l[r] = s_l[r] * alpha + sum;
        s_alpha[r] = alpha;
      }
    }
    __syncthreads();

    // Phase 3: rescale and accumulate P V into this warp's columns.
#pragma unroll
    for (int mi = 0; mi < T::MF; ++mi)
#pragma unroll
      for (int ni = 0; ni < T::NF; ++ni)
#pragma unroll
        for (int i = 0; i < acc[mi][ni].num_elements; ++i)
          acc[mi][ni].x[i] *= s_alpha[mi * 16 + static_cast<int>(row_of.x[i])];
#pragma unroll
    for (int kk = 0; kk < T::SF; ++kk) {
      FragA a[T::MF];
#pragma unroll
      for (int mi = 0; mi < T::MF; ++mi) wmma::load_matrix_sync(a[mi], s_p + mi * 16 * T::PLD + kk * 16, T::PLD);
#pragma unroll
      for (int ni = 0; ni < T::NF; ++ni) {
        FragBRow b;
        wmma::load_matrix_sync(b, s_k + kk * 16 * T::DP + (warp * T::NF + ni) * 16, T::DP);
#pragma unroll
        for (int mi = 0; mi < T::MF; ++mi) wmma::mma_sync(acc[mi][ni], a[mi], b, acc[mi][ni]);
      }
    }
  }

  // Output: stage fp32 tile in shared memory (over Q and kv, no longer read), then 16-byte stores.
  __syncthreads();
#pragma unroll
  for (int mi = 0; mi < T::MF; ++mi)
#pragma unroll
    for (int ni = 0; ni < T::NF; ++ni)
      wmma::store_matrix_sync(s_o + mi * 16 * T::OLD + (warp * T::NF + ni) * 16, acc[mi][ni], T::OLD,
                              wmma::mem_row_major);
  __syncthreads();

  constexpr int VEC = 8;
  for (int i = tid; i < T::HB * (T::DV / VEC); i += T::THREADS) {
    const int r = i / (T::DV / VEC), c = (i % (T::DV / VEC)) * VEC;
    if (row0 + r >= prm.rows) continue;
    const float4 lo = *reinterpret_cast<const float4*>(s_o + r * T::OLD + c);
    const float4 hi = *reinterpret_cast<const float4*>(s_o + r * T::OLD + c + 4);
    if constexpr (kPartial) {
      const long long slot = (grow0 + r) * prm.num_splits + split;
      float* dst = prm.ws_o + slot * T::DV + c;
      *reinterpret_cast<float4*>(dst) = lo;
      *reinterpret_cast<float4*>(dst + 4) = hi;
      if (c == 0) *reinterpret_cast<float2*>(prm.ws_ml + slot * 2) = make_float2(s_m[r], s_l[r]);
    } else {
      const float inv_l = 1.0f / s_l[r];
      uint4 packed;
      auto* out2 = reinterpret_cast<__nv_bfloat162*>(&packed);
      out2[0] = __floats2bfloat162_rn(lo.x * inv_l, lo.y * inv_l);
      out2[1] = __floats2bfloat162_rn(lo.z * inv_l, lo.w * inv_l);
      out2[2] = __floats2bfloat162_rn(hi.x * inv_l, hi.y * inv_l);
      out2[3] = __floats2bfloat162_rn(hi.z * inv_l, hi.w * inv_l);
      *reinterpret_cast<uint4*>(prm.o + (grow0 + r) * T::DV + c) = packed;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// v3 stage 2: merge the splits of one query row.  o = sum_i w_i o_i / sum_i w_i l_i, w_i = exp2(m_i - max_k m_k);
// empty splits (m_i = -inf) get weight 0.
// ---------------------------------------------------------------------------------------------------------------

constexpr int kCombineThreads = 128;

__global__ void __launch_bounds__(kCombineThreads) mla_combine_kernel(const float* __restrict__ ws_o,
                                                                      const float* __restrict__ ws_ml,
                                                                      bf16* __restrict__ o, int dv, int num_splits) {
  const long long row = blockIdx.x;  // over b * s * h
  const float* ml = ws_ml + row * num_splits * 2;
  float m_max = -INFINITY;
  for (int i = 0; i < num_splits; ++i) m_max = fmaxf(m_max, ml[2 * i]);
  float l_total = 0.0f;
  for (int i = 0; i < num_splits; ++i) {
    const float m = ml[2 * i];
    l_total += (m == -INFINITY ? 0.0f : exp2f(m - m_max)) * ml[2 * i + 1];
  }
  const float inv_l = 1.0f / l_total;
  const float* o_row = ws_o + row * num_splits * dv;
  for (int c = threadIdx.x * 4; c < dv; c += kCombineThreads * 4) {
    float4 sum = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int i = 0; i < num_splits; ++i) {
      const float m = ml[2 * i];
      const float w = (m == -INFINITY ? 0.0f : exp2f(m - m_max)) * inv_l;
      const float4 v = *reinterpret_cast<const float4*>(o_row + static_cast<long long>(i) * dv + c);
      sum.x = fmaf(w, v.x, sum.x);
      sum.y = fmaf(w, v.y, sum.y);
      sum.z = fmaf(w, v.z, sum.z);
      sum.w = fmaf(w, v.w, sum.w);
    }
    uint2 packed;
    auto* out2 = reinterpret_cast<__nv_bfloat162*>(&packed);
    out2[0] = __floats2bfloat162_rn(sum.x, sum.y);
    out2[1] = __floats2bfloat162_rn(sum.z, sum.w);
    *reinterpret_cast<uint2*>(o + row * dv + c) = packed;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Host dispatch for the tensor-core tile
// ---------------------------------------------------------------------------------------------------------------

constexpr TileConfig kTileConfigs[] = {{16, 32, 0}, {32, 32, 0}, {32, 64, 0}, {64, 32, 0}};
constexpr TileConfig kDefaultTile = {64, 32, 0};
constexpr int kDefaultSplits = 4;

TileConfig resolve_tile(const TileConfig& in, bool want_splits) {
  TileConfig cfg = in;
  if (cfg.heads_per_block == 0) cfg.heads_per_block = kDefaultTile.heads_per_block;
  if (cfg.kv_rows_per_tile == 0) cfg.kv_rows_per_tile = kDefaultTile.kv_rows_per_tile;
  bool known = false;
  for (const TileConfig& c : kTileConfigs)
    known = known || (c.heads_per_block == cfg.heads_per_block && c.kv_rows_per_tile == cfg.kv_rows_per_tile);
  require(known, "unsupported tile " + to_string(cfg) + " (see mla_tile_configs())");
  if (want_splits) {
    if (cfg.num_splits == 0) cfg.num_splits = kDefaultSplits;
    require(cfg.num_splits >= 1 && cfg.num_splits <= kMaxSplits, "num_splits must be in 1..64");
  } else {
    cfg.num_splits = 1;
  }
  return cfg;
}

template <class T, bool kPartial>
void launch_tile(const TcParams& prm, int batches, cudaStream_t stream) {
  const auto kernel = mla_tc_kernel<T, kPartial>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(T::SMEM)));
  const dim3 grid((prm.rows + T::HB - 1) / T::HB, prm.num_splits, batches);
  kernel<<<grid, T::THREADS, T::SMEM, stream>>>(prm);
  CUDA_CHECK_LAUNCH();
}

template <int DV, int DR, bool kPartial>
void launch_tile_for_dims(const TcParams& prm, const TileConfig& cfg, int batches, cudaStream_t stream) {
  const int hb = cfg.heads_per_block, n = cfg.kv_rows_per_tile;
  // Warps per block: enough for 8 output fragments (64 accumulator registers) per warp at d = 512.
  if (hb == 16 && n == 32) return launch_tile<TcTile<DV, DR, 16, 32, 4>, kPartial>(prm, batches, stream);
  if (hb == 32 && n == 32) return launch_tile<TcTile<DV, DR, 32, 32, 8>, kPartial>(prm, batches, stream);
  if (hb == 32 && n == 64) return launch_tile<TcTile<DV, DR, 32, 64, 8>, kPartial>(prm, batches, stream);
  if (hb == 64 && n == 32) return launch_tile<TcTile<DV, DR, 64, 32, 16>, kPartial>(prm, batches, stream);
  require(false, "no kernel for tile " + to_string(cfg));
}

template <bool kPartial>
void launch_tile_any(const MlaArgs& a, const TcParams& prm, const TileConfig& cfg, cudaStream_t stream) {
  if (a.d == 512 && a.p == 64) return launch_tile_for_dims<512, 64, kPartial>(prm, cfg, a.b, stream);
  if (a.d == 256 && a.p == 32) return launch_tile_for_dims<256, 32, kPartial>(prm, cfg, a.b, stream);
  require(false, "tensor-core versions are compiled for (d, p) = (512, 64) and (256, 32) only");
}

TcParams make_params(const MlaArgs& a) {
  TcParams prm{};
  prm.q = a.q;
  prm.kv = a.kv;
  prm.o = a.o;
  prm.rows = static_cast<int>(query_rows(a));
  prm.t = a.t;
  prm.chunk = a.t;
  prm.num_splits = 1;
  prm.scale_log2 = mla_scale(a) * kLog2e;
  return prm;
}

// kv rows per split: ceil(t / splits) rounded up to whole tiles (trailing splits may be empty).
int split_chunk(const MlaArgs& a, const TileConfig& cfg) {
  const int per = (a.t + cfg.num_splits - 1) / cfg.num_splits;
  return (per + cfg.kv_rows_per_tile - 1) / cfg.kv_rows_per_tile * cfg.kv_rows_per_tile;
}

struct Workspace {
  float* o;
  float* ml;
};

Workspace carve_workspace(const MlaArgs& a, const TileConfig& cfg) {
  const std::size_t need = mla_v3_workspace_bytes(a, cfg);
  require(a.workspace != nullptr && a.workspace_bytes >= need,
          "v3 workspace too small: need " + std::to_string(need) + " bytes");
  require(aligned16(a.workspace), "workspace must be 16-byte aligned");
  auto* base = static_cast<float*>(a.workspace);
  return {base, base + static_cast<std::size_t>(a.b) * query_rows(a) * cfg.num_splits * a.d};
}

}  // namespace

// -----------------------------------------------------------------------------------------------------------------
// Public API
// -----------------------------------------------------------------------------------------------------------------

std::vector<TileConfig> mla_tile_configs() { return {std::begin(kTileConfigs), std::end(kTileConfigs)}; }

bool mla_tensor_core_supports(int d, int p) { return (d == 512 && p == 64) || (d == 256 && p == 32); }

std::string to_string(const TileConfig& cfg) {
  std::string s;
  auto add = [&s](const char* key, int v) { s += (s.empty() ? "" : " ") + std::string(key) + "=" + std::to_string(v); };
  if (cfg.heads_per_block > 0 || cfg.kv_rows_per_tile > 0) {
    add("hb", cfg.heads_per_block);
    add("n", cfg.kv_rows_per_tile);
  }
  if (cfg.num_splits > 0) add("splits", cfg.num_splits);
  if (cfg.softmax_threads > 0) add("softmax", cfg.softmax_threads);
  if (cfg.scores_algo > 0) add("qk_algo", cfg.scores_algo);
  if (cfg.output_algo > 0) add("pv_algo", cfg.output_algo);
  if (cfg.v5_schedule > 0) add("sched", cfg.v5_schedule);
  if (cfg.v5_cluster > 0) add("cluster", cfg.v5_cluster);
  if (cfg.v5_rescale > 0) add("rescale", cfg.v5_rescale);
  return s.empty() ? "default" : s;
}

float mla_scale(const MlaArgs& args) {
  return args.scale > 0.0f ? args.scale : 1.0f / std::sqrt(static_cast<float>(args.d + args.p));
}

void launch_mla_v1(const MlaArgs& a, cudaStream_t stream, const TileConfig& /*cfg: no tunables*/) {
  validate_common(a);
  require(a.d <= kV1Threads * kV1ColsPerThread, "v1 needs d <= 1024");
  const int dk = a.d + a.p;
  const std::size_t smem = (static_cast<std::size_t>(dk) + 2 * kV1Chunk) * sizeof(float);
  require(smem <= 48 * 1024, "v1 needs d+p <= 12160");
  const long long rows = static_cast<long long>(a.b) * query_rows(a);
  mla_v1_kernel<<<static_cast<unsigned>(rows), kV1Threads, smem, stream>>>(
      a.q, a.kv, a.o, static_cast<int>(query_rows(a)), a.t, a.d, dk, mla_scale(a) * kLog2e);
  CUDA_CHECK_LAUNCH();
}

void launch_mla_v2(const MlaArgs& a, cudaStream_t stream, const TileConfig& cfg_in) {
  validate_common(a);
  const TileConfig cfg = resolve_tile(cfg_in, false);
  launch_tile_any<false>(a, make_params(a), cfg, stream);
}

std::size_t mla_v3_workspace_bytes(const MlaArgs& a, const TileConfig& cfg_in) {
  const TileConfig cfg = resolve_tile(cfg_in, true);
  return static_cast<std::size_t>(a.b) * static_cast<std::size_t>(query_rows(a)) * cfg.num_splits *
         (static_cast<std::size_t>(a.d) + 2) * sizeof(float);
}

void launch_mla_partial(const MlaArgs& a, cudaStream_t stream, const TileConfig& cfg_in) {
  validate_common(a);
  const TileConfig cfg = resolve_tile(cfg_in, true);
  const Workspace ws = carve_workspace(a, cfg);
  TcParams prm = make_params(a);
  prm.ws_o = ws.o;
  prm.ws_ml = ws.ml;
  prm.chunk = split_chunk(a, cfg);
  prm.num_splits = cfg.num_splits;
  launch_tile_any<true>(a, prm, cfg, stream);
}

void launch_mla_combine(const MlaArgs& a, cudaStream_t stream, const TileConfig& cfg_in) {
  validate_common(a);
  const TileConfig cfg = resolve_tile(cfg_in, true);
  const Workspace ws = carve_workspace(a, cfg);
  const long long rows = static_cast<long long>(a.b) * query_rows(a);
  mla_combine_kernel<<<static_cast<unsigned>(rows), kCombineThreads, 0, stream>>>(ws.o, ws.ml, a.o, a.d,
                                                                                  cfg.num_splits);
  CUDA_CHECK_LAUNCH();
}

namespace {
template <class T, bool kPartial>
cudaError_t tile_attributes(cudaFuncAttributes& out) {
  return cudaFuncGetAttributes(&out, reinterpret_cast<const void*>(mla_tc_kernel<T, kPartial>));
}
template <int DV, int DR, bool kPartial>
cudaError_t tile_attributes_for_dims(const TileConfig& cfg, cudaFuncAttributes& out) {
  const int hb = cfg.heads_per_block, n = cfg.kv_rows_per_tile;
  if (hb == 16 && n == 32) return tile_attributes<TcTile<DV, DR, 16, 32, 4>, kPartial>(out);
  if (hb == 32 && n == 32) return tile_attributes<TcTile<DV, DR, 32, 32, 8>, kPartial>(out);
  if (hb == 32 && n == 64) return tile_attributes<TcTile<DV, DR, 32, 64, 8>, kPartial>(out);
  if (hb == 64 && n == 32) return tile_attributes<TcTile<DV, DR, 64, 32, 16>, kPartial>(out);
  return cudaErrorNotSupported;
}
template <bool kPartial>
cudaError_t tile_attributes_any(const MlaArgs& a, const TileConfig& cfg, cudaFuncAttributes& out) {
  if (a.d == 512 && a.p == 64) return tile_attributes_for_dims<512, 64, kPartial>(cfg, out);
  if (a.d == 256 && a.p == 32) return tile_attributes_for_dims<256, 32, kPartial>(cfg, out);
  return cudaErrorNotSupported;
}
}  // namespace

cudaError_t mla_kernel_attributes(MlaKernel k, const MlaArgs& a, const TileConfig& cfg_in, cudaFuncAttributes& out) {
  switch (k) {
    case MlaKernel::v1: return cudaFuncGetAttributes(&out, reinterpret_cast<const void*>(mla_v1_kernel));
    case MlaKernel::combine: return cudaFuncGetAttributes(&out, reinterpret_cast<const void*>(mla_combine_kernel));
    case MlaKernel::v2: return tile_attributes_any<false>(a, resolve_tile(cfg_in, false), out);
    case MlaKernel::partial: return tile_attributes_any<true>(a, resolve_tile(cfg_in, true), out);
  }
  return cudaErrorInvalidValue;
}

void launch_mla_v3(const MlaArgs& a, cudaStream_t stream, const TileConfig& cfg) {
  launch_mla_partial(a, stream, cfg);
  launch_mla_combine(a, stream, cfg);
}

}  // namespace mla
