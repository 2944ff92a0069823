// MLA decode v5: one fused Hopper kernel (sm_90a).  Scores, online softmax and P V stay on the SM.
//
// A block owns 64 query rows of one batch entry (the flattened (s, h) rows, so with h = 128 half the heads of one
// (b, s)) and walks the latent kv of that batch entry in tiles of BN rows.  Three warpgroups:
//   WG0  producer: one thread issues the TMA loads (Q once, then the kv tiles into a STAGES-deep ring of shared
//        memory buffers, each guarded by a "full" and an "empty" mbarrier).  It gives registers away (setmaxnreg).
//   WG1  softmax warpgroup: S = Q K^T (wgmma, both operands from shared memory, fp32 accumulators in registers),
//        online softmax in registers (log2 domain), P as bf16 register fragments, O[:, 0:256] += P V[:, 0:256]
//        (wgmma with A = P from registers).  It hands P (and the per-row rescale factor) to WG2 through shared
//        memory, written in the 128-byte-swizzled K-major layout that wgmma reads.
//   WG2  O[:, 256:512] += P V[:, 256:512] with both operands from shared memory.
// The kv tile is loaded once per block and shared by all 64 rows (and by the 32 blocks of the same batch entry
// through L2).  Shared memory: Q 72 KB + STAGES kv tiles (BN x 576 bf16) + P 8 KB: BN = 64 fits two stages,
// BN = 32 four.
//
// Schedules (template SCHED):
//   0  serial: WG1 per tile: S_i, softmax_i, hand-off, PV_i, wait.
//   1  overlapped: WG1 issues S_{i+1} before PV_i and runs softmax_{i+1} while PV_i is on the tensor cores
//      (P double-buffered in registers), so the tensor pipe has work during the softmax.
//   2  deferred: as 0, but S_{i+1} is issued right behind PV_i and one wait covers both.
//   3  split: WG1 and WG2 own alternate tiles: each computes S and the softmax of its tiles (the running max
//      passes between them with each tile) and both add P V for every tile to their half of O, so one
//      warpgroup's softmax overlaps the other's S GEMM.  P goes over the tile's rope chunk (read only by S).
// (v5_schedule in TileConfig is SCHED + 1.)  On the H200 the serial schedule is the fastest (kernels/mla/README.md).
// Options: CL = 2 pairs blocks in a cluster that multicasts each tile's TMA boxes to both; LAZY moves the running
// max only when it grows by more than kLazyRescale (O is then rescaled rarely); split-KV (SplitArgs, grid z) cuts
// the kv range into chunks whose partial results a combine kernel merges, for grids smaller than the GPU.
//
// Layouts (all 128-byte swizzled, as TMA writes them with CU_TENSOR_MAP_SWIZZLE_128B):
//   Q   9 chunks of [64 rows][64 cols] (8 KB each), chunk c = columns 64c..64c+63.   (K-major A operand)
//   kv  per stage 9 chunks of [BN rows][64 cols].  For S = Q K^T it is the K-major B operand; for O = P V the
//       value columns are an N-major B operand (imm-trans-b = 1): 64 columns per 128-byte row (LBO = chunk
//       stride), 8 kv rows per 1024-byte swizzle atom (SBO = 1024).
//   P   [64 rows][64 cols] bf16, 128-byte rows, 16-byte unit c of row r at c ^ (r % 8).  (K-major A operand)
#include "mla_kernels.cuh"
#include "mla_v5_wgmma.cuh"

#include "util/cuda_check.hpp"

#include <cuda.h>
#include <cudaTypedefs.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>

namespace mla {
namespace {

using bf16 = __nv_bfloat16;

constexpr int kD = 512, kP = 64, kDK = kD + kP;
constexpr int kBM = 64;               // query rows per block
constexpr int kChunks = kDK / 64;     // 64-column (128-byte) chunks of a q / kv row
constexpr int kThreads = 384;         // producer + 2 consumer warpgroups
constexpr int kQChunkBytes = kBM * 128;
constexpr int kQBytes = kChunks * kQChunkBytes;  // 73728
constexpr int kPBytes = kBM * 128;               // P tile, always 64 x 64 capacity
constexpr int kOPitch = kD * 2 + 16;             // bf16 output staging row pitch (bytes), in the Q region
static_assert(kBM * kOPitch <= kQBytes, "output staging must fit in the Q buffer");
constexpr float kLog2e = 1.4426950408889634f;


template <int BN, int STAGES>
struct V5Smem {
  static constexpr int KV_CHUNK = BN * 128;
  static constexpr int KV_STAGE = kChunks * KV_CHUNK;
  static constexpr int OFF_Q = 0;
  static constexpr int OFF_KV = kQBytes;
  static constexpr int OFF_P = OFF_KV + STAGES * KV_STAGE;
  static constexpr int OFF_SCALE = OFF_P + kPBytes;     // 64 floats
  static constexpr int OFF_BAR = OFF_SCALE + kBM * 4;   // q_full, full[STAGES], empty[STAGES]
  static constexpr int BYTES = OFF_BAR + (1 + 2 * STAGES) * 8;
  static constexpr int ALLOC = BYTES + 1024;            // room to align the dynamic base to 1024 bytes
  static_assert(KV_CHUNK % 1024 == 0, "swizzle atoms need 1024-byte aligned chunks");
};

// ---------------------------------------------------------------------------------------------------------------
// PTX wrappers (sm_90a).  Everything below is compiled only for the arch-specific target; on a plain sm_90 pass the
// kernel body is empty (and the host refuses to launch it on anything but compute capability 9.0).
// ---------------------------------------------------------------------------------------------------------------
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define MLA_V5_DEVICE 1
#endif

#ifdef MLA_V5_DEVICE
// Named barriers (0 is __syncthreads).
constexpr int kBarPFull = 1, kBarPEmpty = 2, kBarWg1 = 3, kBarWg2 = 4, kBarReady0 = 5;  // 5, 6: split schedule

__device__ __forceinline__ std::uint32_t smem_u32(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbar_init(std::uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(std::uint64_t* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_u32(bar)) : "memory");
}
__device__ __forceinline__ void mbar_wait(std::uint64_t* bar, unsigned parity) {
  asm volatile(
      "{\n.reg .pred done;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT_%=;\n}\n" ::"r"(smem_u32(bar)),
      "r"(parity)
      : "memory");
}

// 3D TMA tile load (coordinates innermost first) completing on an mbarrier.
__device__ __forceinline__ void tma_load_3d(void* dst, const CUtensorMap* map, int c0, int c1, int c2,
                                            std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4}], [%5];\n" ::
          "r"(smem_u32(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(smem_u32(bar))
      : "memory");
}

// The same, multicast: the box lands at the same shared-memory offset in every CTA of `mask` (cluster ranks) and
// completes on the mbarrier at the same offset in each.
__device__ __forceinline__ void tma_load_3d_mc(void* dst, const CUtensorMap* map, int c0, int c1, int c2,
                                               std::uint64_t* bar, std::uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3, %4}], [%5], %6;\n" ::
          "r"(smem_u32(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(smem_u32(bar)), "h"(mask)
      : "memory");
}
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
// Arrive on the mbarrier at the same offset in CTA `rank` of the cluster.
__device__ __forceinline__ void mbar_arrive_remote(std::uint64_t* bar, unsigned rank) {
  asm volatile(
      "{\n.reg .b32 ra;\nmapa.shared::cluster.u32 ra, %0, %1;\n"
      "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [ra];\n}\n" ::"r"(smem_u32(bar)),
      "r"(rank)
      : "memory");
}
__device__ __forceinline__ void cluster_sync_all() {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}

__device__ __forceinline__ void named_sync(int id, int count) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}
__device__ __forceinline__ void named_arrive(int id, int count) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// Keeps the compiler from moving accesses of accumulator registers across wgmma issue / wait points.
template <int N>
__device__ __forceinline__ void reg_fence(float (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(r[i])::"memory");
}
template <int N>
__device__ __forceinline__ void reg_fence(std::uint32_t (&r)[N][4]) {
#pragma unroll
  for (int i = 0; i < N; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) asm volatile("" : "+r"(r[i][j])::"memory");
}

// Shared-memory matrix descriptor, 128-byte swizzle.  lbo/sbo in bytes.
__device__ __forceinline__ std::uint64_t make_desc(std::uint32_t addr, std::uint32_t lbo, std::uint32_t sbo) {
  std::uint64_t d = 0;
  d |= static_cast<std::uint64_t>((addr & 0x3FFFF) >> 4);
  d |= static_cast<std::uint64_t>((lbo & 0x3FFFF) >> 4) << 16;
  d |= static_cast<std::uint64_t>((sbo & 0x3FFFF) >> 4) << 32;
  d |= static_cast<std::uint64_t>(1) << 62;  // 128-byte swizzle
  return d;
}

__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

__device__ __forceinline__ std::uint32_t pack_bf16(float lo, float hi) {
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<std::uint32_t*>(&v);
}
#endif  // MLA_V5_DEVICE

// Per-thread state of the softmax warpgroup: a thread holds rows r0 = 16*warp + lane/4 and r0 + 8.
template <int BN>
struct SoftmaxState {
  float m[2];  // running max, log2 units
  float l[2];  // this thread's partial running sum (its columns only; quad-reduced at the end)
};

// S accumulators of one tile -> P fragments (bf16, A-operand layout for m64k16) and per-row rescale factors.
// Columns at or past `valid` (kv rows past t) count as -inf; only a partial last tile pays for the mask.  The max
// is taken on the raw scores (scale_log2 > 0 keeps the order) and the scale folded into the exponent's FFMA.
// Returns the tile's row maxima (scaled, quad-reduced) in tile_max, before they are merged with st.m.
// LAZY: the running max moves only when a tile's max exceeds it by more than kLazyRescale (log2 units), so that
// after the first tiles alpha is exactly 1 and the rescale of O is skipped; P = exp2(s - m) then stays <= 2^8,
// harmless in fp32 accumulators and bf16 P, and exact after the final division (numerator and l share m).
constexpr float kLazyRescale = 8.0f;

template <int BN, bool LAZY>
__device__ __forceinline__ void softmax_tile(float (&s)[BN / 2], std::uint32_t (&pa)[BN / 16][4], SoftmaxState<BN>& st,
                                             float (&alpha)[2], int valid, float scale_log2) {
#ifdef MLA_V5_DEVICE
  const int q = threadIdx.x % 4;
  if (valid < BN) {
#pragma unroll
    for (int j = 0; j < BN / 2; ++j) {
      const int col = (j / 4) * 8 + 2 * q + (j % 2);
      if (col >= valid) s[j] = -INFINITY;
    }
  }
  float mx[2] = {-INFINITY, -INFINITY};
#pragma unroll
  for (int j = 0; j < BN / 2; ++j) mx[(j / 2) % 2] = fmaxf(mx[(j / 2) % 2], s[j]);
  float neg_m[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 1));
    mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 2));
    float m_new = fmaxf(st.m[h], mx[h] * scale_log2);  // finite: every tile has a valid column
    if (LAZY && !(m_new - st.m[h] > kLazyRescale)) m_new = st.m[h];  // (m = -inf on the first tile: always moves)
    alpha[h] = fast_exp2(st.m[h] - m_new);  // 0 on the first tile (m = -inf), exactly 1 when m did not move
    st.m[h] = m_new;
    neg_m[h] = -m_new;
  }
  float sum[2] = {0.0f, 0.0f};
#pragma unroll
  for (int j = 0; j < BN / 2; ++j) {
    s[j] = fast_exp2(fmaf(s[j], scale_log2, neg_m[(j / 2) % 2]));
    sum[(j / 2) % 2] += s[j];
  }
#pragma unroll
  for (int h = 0; h < 2; ++h) st.l[h] = st.l[h] * alpha[h] + sum[h];
  // A fragment of k-step kk (kv columns 16kk..16kk+15): n8 blocks 2kk and 2kk+1 of the accumulator.
#pragma unroll
  for (int kk = 0; kk < BN / 16; ++kk) {
    pa[kk][0] = pack_bf16(s[8 * kk + 0], s[8 * kk + 1]);
    pa[kk][1] = pack_bf16(s[8 * kk + 2], s[8 * kk + 3]);
    pa[kk][2] = pack_bf16(s[8 * kk + 4], s[8 * kk + 5]);
    pa[kk][3] = pack_bf16(s[8 * kk + 6], s[8 * kk + 7]);
  }
#endif
}

#ifdef MLA_V5_DEVICE
// WG1 -> WG2: P (swizzled K-major) and the per-row factors into shared memory.  Caller holds the P buffer
// (kBarPEmpty synced) and signals kBarPFull after.
template <int BN>
__device__ __forceinline__ void store_p(unsigned char* sp, float* sscale, const std::uint32_t (&pa)[BN / 16][4],
                                        const float (&alpha)[2], int warp, int lane) {
  const int r0 = 16 * warp + lane / 4, q = lane % 4;
#pragma unroll
  for (int kk = 0; kk < BN / 16; ++kk) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int r = r0 + 8 * (e % 2);
      const int unit = 2 * kk + e / 2;  // 16-byte unit (8 columns) along k
      *reinterpret_cast<std::uint32_t*>(sp + r * 128 + ((unit ^ (r % 8)) * 16) + 4 * q) = pa[kk][e];
    }
  }
  if (sscale != nullptr && q == 0) {
    sscale[r0] = alpha[0];
    sscale[r0 + 8] = alpha[1];
  }
}

__device__ __forceinline__ void scale_rows(float (&o)[128], float a0, float a1) {
#pragma unroll
  for (int j = 0; j < 128; ++j) o[j] *= ((j / 2) % 2) ? a1 : a0;
}

// O half (64 x 256 fp32 fragments) -> bf16 staging in shared memory -> 16-byte coalesced stores.
__device__ __forceinline__ void store_output(const float (&o)[128], unsigned char* stage, bf16* __restrict__ out,
                                             int half, int warp, int lane, int tid_in_wg, int bar_id, int row0,
                                             int rows_valid) {
  const int r0 = 16 * warp + lane / 4, q = lane % 4;
#pragma unroll
  for (int j = 0; j < 128; j += 2) {
    const int r = r0 + 8 * ((j / 2) % 2);
    const int col = half * 256 + (j / 4) * 8 + 2 * q;
    *reinterpret_cast<std::uint32_t*>(stage + r * kOPitch + col * 2) = pack_bf16(o[j], o[j + 1]);
  }
  named_sync(bar_id, 128);
  // 64 rows x 256 columns = 64 x 32 units of 16 bytes.
#pragma unroll 4
  for (int idx = tid_in_wg; idx < kBM * 32; idx += 128) {
    const int r = idx / 32, u = idx % 32;
    if (r < rows_valid) {
      const uint4 v = *reinterpret_cast<const uint4*>(stage + r * kOPitch + half * 512 + u * 16);
      *reinterpret_cast<uint4*>(out + static_cast<long long>(row0 + r) * kD + half * 256 + u * 8) = v;
    }
  }
}
#endif  // MLA_V5_DEVICE

// Split-KV (when the grid is too small for the GPU): block z of the grid takes kv tiles
// [z * chunk_tiles, (z + 1) * chunk_tiles) and writes its unnormalised O (fp32), running max (log2 units) and sum
// per query row into the workspace, [b, s*h, splits, d] then [b, s*h, splits, 2] (v3's layout); a combine kernel
// merges the splits.  num_splits == 1: no workspace, the output is written directly.
struct SplitArgs {
  float* ws_o = nullptr;
  float* ws_ml = nullptr;
  int chunk_tiles = 0;
  int num_splits = 1;
};

#ifdef MLA_V5_DEVICE
// O half (64 x 256 fp32 fragments) of one split -> workspace (8-byte stores: each quad writes 32 contiguous bytes).
__device__ __forceinline__ void store_partial(const float (&o)[128], float* __restrict__ ws_o, int half, int warp,
                                              int lane, long long grow0, int rows_valid, int num_splits, int split) {
  const int r0 = 16 * warp + lane / 4, q = lane % 4;
#pragma unroll
  for (int j = 0; j < 128; j += 2) {
    const int r = r0 + 8 * ((j / 2) % 2);
    if (r >= rows_valid) continue;
    const int col = half * 256 + (j / 4) * 8 + 2 * q;
    const long long slot = (grow0 + r) * num_splits + split;
    *reinterpret_cast<float2*>(ws_o + slot * kD + col) = make_float2(o[j], o[j + 1]);
  }
}
#endif

// Merge of the splits of one query row: o = sum_i w_i o_i / sum_i w_i l_i, w_i = exp2(m_i - max_k m_k).
__global__ void __launch_bounds__(128) mla_v5_combine_kernel(const float* __restrict__ ws_o,
                                                             const float* __restrict__ ws_ml, bf16* __restrict__ o,
                                                             int num_splits) {
  const long long row = blockIdx.x;
  const float* ml = ws_ml + row * num_splits * 2;
  float m_max = -INFINITY;
  for (int i = 0; i < num_splits; ++i) m_max = fmaxf(m_max, ml[2 * i]);
  float l = 0.0f;
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  const int c = threadIdx.x * 4;
  for (int i = 0; i < num_splits; ++i) {
    const float w = exp2f(ml[2 * i] - m_max);
    l += w * ml[2 * i + 1];
    const float4 v = *reinterpret_cast<const float4*>(ws_o + (row * num_splits + i) * kD + c);
    acc.x += w * v.x;
    acc.y += w * v.y;
    acc.z += w * v.z;
    acc.w += w * v.w;
  }
  const float inv = 1.0f / l;
  const __nv_bfloat162 lo = __floats2bfloat162_rn(acc.x * inv, acc.y * inv);
  const __nv_bfloat162 hi = __floats2bfloat162_rn(acc.z * inv, acc.w * inv);
  uint2 packed;
  packed.x = *reinterpret_cast<const unsigned*>(&lo);
  packed.y = *reinterpret_cast<const unsigned*>(&hi);
  *reinterpret_cast<uint2*>(o + row * kD + c) = packed;
}

template <int BN, int STAGES, int SCHED, int CL, int LAZY>
__global__ void __launch_bounds__(kThreads, 1)
    mla_v5_kernel(const __grid_constant__ CUtensorMap tmap_q, const __grid_constant__ CUtensorMap tmap_kv,
                  bf16* __restrict__ o, int rows_per_batch, int t_total, float scale_log2, const SplitArgs sa) {
#ifdef MLA_V5_DEVICE
  using L = V5Smem<BN, STAGES>;
  static_assert(SCHED != 3 || BN == 64, "the split schedule writes P (64 x 64) over the rope chunk of a 64-row tile");
  extern __shared__ unsigned char v5_smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(v5_smem_raw) + 1023) &
                                                         ~static_cast<std::uintptr_t>(1023));
  unsigned char* sq = smem + L::OFF_Q;
  unsigned char* skv = smem + L::OFF_KV;
  unsigned char* sp = smem + L::OFF_P;
  float* sscale = reinterpret_cast<float*>(smem + L::OFF_SCALE);
  std::uint64_t* q_full = reinterpret_cast<std::uint64_t*>(smem + L::OFF_BAR);
  std::uint64_t* full = q_full + 1;
  std::uint64_t* empty = full + STAGES;

  // The warpgroup index through a shuffle, so that the compiler sees it warp-uniform (wgmma in divergent code is
  // serialised).
  const int wg = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 128), 0), tid_in_wg = threadIdx.x % 128;
  const int warp = tid_in_wg / 32, lane = threadIdx.x % 32;
  const int row_tile = blockIdx.x, batch = blockIdx.y;
  const int row0 = row_tile * kBM;
  // This block's kv rows: [kv0, kv0 + t) (all of them without split-KV; the host makes no split empty).
  const int split = blockIdx.z;
  const int kv0 = split * sa.chunk_tiles * BN;
  const int t = min(t_total - kv0, sa.chunk_tiles * BN);
  const int n_tiles = (t + BN - 1) / BN;
  const bool partial = sa.num_splits > 1;
  const long long grow0 = static_cast<long long>(batch) * rows_per_batch + row0;  // global query row of tile row 0

  // CL = 2: a cluster of two blocks (consecutive row tiles of one batch entry) shares each kv tile: each block's
  // producer loads half of the tile's chunks and multicasts them to both, so L2 delivers every tile once per pair.
  // A stage is then free only when the consumers of both blocks have released it (empty counts 16 arrivals).
  const unsigned cta_rank = CL > 1 ? cluster_rank() : 0u;
  if (threadIdx.x == 0) {
    mbar_init(q_full, 1);
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], 8 * CL);  // lane 0 of each of the 8 consumer warps (of each block of the cluster)
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  if constexpr (CL > 1) cluster_sync_all();  // the peer's barriers exist before anything multicasts into it

  if (wg == 0) {
    // ------------------------------------------------------------------ producer
    asm volatile("setmaxnreg.dec.sync.aligned.u32 24;\n");
    if (tid_in_wg == 0) {
      asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<std::uint64_t>(&tmap_q)) : "memory");
      asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<std::uint64_t>(&tmap_kv)) : "memory");
      mbar_expect_tx(q_full, kQBytes);
      for (int c = 0; c < kChunks; ++c) tma_load_3d(sq + c * kQChunkBytes, &tmap_q, c * 64, row0, batch, q_full);
      for (int i = 0; i < n_tiles; ++i) {
        const int s = i % STAGES;
        if (i >= STAGES) mbar_wait(&empty[s], ((i / STAGES) & 1) ^ 1);
        mbar_expect_tx(&full[s], L::KV_STAGE);  // the whole tile lands here: our chunks and the peer's
        unsigned char* dst = skv + s * L::KV_STAGE;
        if constexpr (CL == 1) {
          for (int c = 0; c < kChunks; ++c)
            tma_load_3d(dst + c * L::KV_CHUNK, &tmap_kv, c * 64, kv0 + i * BN, batch, &full[s]);
        } else {
          for (int c = static_cast<int>(cta_rank); c < kChunks; c += CL)
            tma_load_3d_mc(dst + c * L::KV_CHUNK, &tmap_kv, c * 64, kv0 + i * BN, batch, &full[s],
                           static_cast<std::uint16_t>((1u << CL) - 1));
        }
      }
    }
  } else {  // consumers
    asm volatile("setmaxnreg.inc.sync.aligned.u32 240;\n");
    const int cw = wg - 1;  // consumer index: 0 owns output columns 0..255, 1 owns 256..511
    float oacc[128];
#pragma unroll
    for (int j = 0; j < 128; ++j) oacc[j] = 0.0f;
    const std::uint32_t sq_a = smem_u32(sq), skv_a = smem_u32(skv), sp_a = smem_u32(sp);
    // O *= alpha per row; with LAZY, skipped when alpha is 1 for every row of the warp (the usual case).
    auto rescale = [&](float a0, float a1) {
      if constexpr (LAZY != 0) {
        if (!__any_sync(0xffffffffu, a0 != 1.0f || a1 != 1.0f)) return;
      }
      scale_rows(oacc, a0, a1);
    };
    SoftmaxState<BN> st;
    st.m[0] = st.m[1] = -INFINITY;
    st.l[0] = st.l[1] = 0.0f;
    float sacc[BN / 2];
    std::uint32_t pa[BN / 16][4];
    float alpha[2];

    // O[:, half*256 .. +256] += P[64 x BN] V[BN x 256]: the value columns are chunks 4*half .. 4*half+3 of the stage.
    auto v_desc = [&](int s, int half, int kk) {
      return make_desc(skv_a + s * L::KV_STAGE + 4 * half * L::KV_CHUNK + kk * 16 * 128, L::KV_CHUNK, 1024);
    };
    // S = Q K_s^T: 9 chunks x 4 k-steps, descriptors = base + offsets in 16-byte units.  The bases pass through an
    // opaque move each tile, so that the compiler does not hoist all 36 descriptors into registers across tiles.
    auto issue_qk = [&](int s) {
#pragma unroll
      for (int j = 0; j < BN / 2; ++j) sacc[j] = 0.0f;
      std::uint64_t da0 = make_desc(sq_a, 16, 1024);
      std::uint64_t db0 = make_desc(skv_a + s * L::KV_STAGE, 16, 1024);
      asm volatile("mov.b64 %0, %0;\n" : "+l"(da0));
      asm volatile("mov.b64 %0, %0;\n" : "+l"(db0));
      reg_fence(sacc);
      wgmma_fence();
#pragma unroll
      for (int c = 0; c < kChunks; ++c) {
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) {
          const std::uint64_t da = da0 + static_cast<std::uint64_t>(c * (kQChunkBytes >> 4) + 2 * kk);
          const std::uint64_t db = db0 + static_cast<std::uint64_t>(c * (L::KV_CHUNK >> 4) + 2 * kk);
          if constexpr (BN == 64) v5::wgmma_m64n64k16_ss<0>(sacc, da, db, 1);
          else v5::wgmma_m64n32k16_ss<0>(sacc, da, db, 1);
        }
      }
      wgmma_commit();
    };
    // O_half += P V_half with P from this warpgroup's registers.
    auto issue_pv = [&](int s, std::uint32_t (&a)[BN / 16][4]) {
      reg_fence(oacc);
      reg_fence(a);
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < BN / 16; ++kk) v5::wgmma_m64n256k16_rs<1>(oacc, a[kk], v_desc(s, cw, kk), 1);
      wgmma_commit();
    };
    // O_half += P V_half with P from shared memory at p_addr (the swizzled 64 x 64 layout).
    auto issue_pv_smem = [&](int s, std::uint32_t p_addr) {
      reg_fence(oacc);
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < BN / 16; ++kk)
        v5::wgmma_m64n256k16_ss<1>(oacc, make_desc(p_addr + kk * 32, 16, 1024), v_desc(s, cw, kk), 1);
      wgmma_commit();
    };
    auto release = [&](int s) {
      __syncwarp();
      if (lane == 0) {
        mbar_arrive(&empty[s]);
        if constexpr (CL > 1) mbar_arrive_remote(&empty[s], cta_rank ^ 1u);
      }
    };
    const int r0 = 16 * warp + lane / 4;
    bf16* const out = o + static_cast<long long>(batch) * rows_per_batch * kD;

    if constexpr (SCHED == 3) {
      // ---------------------------------------------------------------- split: both warpgroups alike
      // Tile i is "owned" by consumer i % 2: it computes S_i, the softmax (from the running max m_{i-1} that the
      // other consumer published with tile i-1) and O_half += P_i V_half from registers; it publishes P_i (written
      // over the rope chunk of the tile's stage, which only S_i reads), alpha_i and m_i, and the other consumer
      // adds P_i V_otherhalf from shared memory.  While one consumer runs its softmax, the other's S GEMM keeps
      // the tensor cores busy.  Each consumer keeps the row sums of its own tiles (rescaled by every alpha); the
      // two halves of l are added at the end.
      float* rec = reinterpret_cast<float*>(sp);  // [2][m 64, alpha 64]; lsum [2][64] after it
      float* lsum = rec + 256;
      auto p_addr = [&](int s) { return skv_a + s * L::KV_STAGE + 8 * L::KV_CHUNK; };
      auto take_other = [&](int j) {  // tile j of the other consumer: its P, alpha, m
        if (j & 1) named_sync(kBarReady0 + 1, 256);
        else named_sync(kBarReady0, 256);
        const float* r = rec + (j & 1) * 128;
        st.m[0] = r[r0];
        st.m[1] = r[r0 + 8];
        const float a0 = r[64 + r0], a1 = r[64 + r0 + 8];
        rescale(a0, a1);
        st.l[0] *= a0;
        st.l[1] *= a1;
      };
      auto publish = [&](int i) {  // own tile i: P_i into the stage's rope chunk, then m_i, alpha_i
        const int s = i % STAGES;
        store_p<BN>(smem + L::OFF_KV + s * L::KV_STAGE + 8 * L::KV_CHUNK, nullptr, pa, alpha, warp, lane);
        if (lane % 4 == 0) {
          float* r = rec + (i & 1) * 128;
          r[r0] = st.m[0];
          r[r0 + 8] = st.m[1];
          r[64 + r0] = alpha[0];
          r[64 + r0 + 8] = alpha[1];
        }
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        if (i & 1) named_arrive(kBarReady0 + 1, 256);
        else named_arrive(kBarReady0, 256);
      };

      mbar_wait(q_full, 0);
      // No wgmma group stays in flight across a branch or the loop's back edge (ptxas would serialise them).
      int i = cw;  // first own tile
      if (cw == 0) {
        // Tile 0 has no predecessor: S_0, softmax, publish, O = P_0 V.
        mbar_wait(&full[0], 0);
        issue_qk(0);
        wgmma_wait<0>();
        reg_fence(sacc);
        softmax_tile<BN, LAZY != 0>(sacc, pa, st, alpha, t, scale_log2);
        publish(0);
        rescale(alpha[0], alpha[1]);
        issue_pv(0, pa);
        wgmma_wait<0>();
        reg_fence(oacc);
        reg_fence(pa);
        release(0);
        i = 2;
      }
      for (; i < n_tiles; i += 2) {  // own tile i >= 1
        const int s = i % STAGES, sp1 = (i - 1) % STAGES;
        mbar_wait(&full[s], (i / STAGES) & 1);
        issue_qk(s);                                    // [S_i]
        mbar_wait(&full[sp1], ((i - 1) / STAGES) & 1);  // (complete long ago) for the async-proxy data
        take_other(i - 1);
        issue_pv_smem(sp1, p_addr(sp1));  // [S_i] [P_{i-1} V]
        wgmma_wait<1>();                  // S_i done
        reg_fence(sacc);
        softmax_tile<BN, LAZY != 0>(sacc, pa, st, alpha, t - i * BN, scale_log2);
        publish(i);
        wgmma_wait<0>();  // P_{i-1} V done
        reg_fence(oacc);
        release(sp1);
        rescale(alpha[0], alpha[1]);
        issue_pv(s, pa);  // [P_i V]
        wgmma_wait<0>();
        reg_fence(oacc);
        reg_fence(pa);
        release(s);
      }
      if ((n_tiles - 1) % 2 != cw) {  // the last tile is the other consumer's
        const int j = n_tiles - 1, sj = j % STAGES;
        mbar_wait(&full[sj], (j / STAGES) & 1);
        take_other(j);
        issue_pv_smem(sj, p_addr(sj));
        wgmma_wait<0>();
        reg_fence(oacc);
        release(sj);
      }
      // l = both consumers' partial sums (same final max); the barrier also ends every S GEMM (Q is overwritten
      // by the output staging next).
      float lq[2];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        lq[h] = st.l[h];
        lq[h] += __shfl_xor_sync(0xffffffffu, lq[h], 1);
        lq[h] += __shfl_xor_sync(0xffffffffu, lq[h], 2);
      }
      if (lane % 4 == 0) {
        lsum[cw * 64 + r0] = lq[0];
        lsum[cw * 64 + r0 + 8] = lq[1];
      }
      named_sync(kBarPFull, 256);
      const float l0 = lsum[r0] + lsum[64 + r0], l1 = lsum[r0 + 8] + lsum[64 + r0 + 8];
      if (partial) {
        if (cw == 0 && lane % 4 == 0) {
          if (r0 < rows_per_batch - row0)
            *reinterpret_cast<float2*>(sa.ws_ml + ((grow0 + r0) * sa.num_splits + split) * 2) =
                make_float2(st.m[0], l0);
          if (r0 + 8 < rows_per_batch - row0)
            *reinterpret_cast<float2*>(sa.ws_ml + ((grow0 + r0 + 8) * sa.num_splits + split) * 2) =
                make_float2(st.m[1], l1);
        }
        store_partial(oacc, sa.ws_o, cw, warp, lane, grow0, rows_per_batch - row0, sa.num_splits, split);
      } else {
        scale_rows(oacc, 1.0f / l0, 1.0f / l1);
        store_output(oacc, sq, out, cw, warp, lane, tid_in_wg, kBarWg1 + cw, row0, rows_per_batch - row0);
      }
    } else if (cw == 0) {
      // ---------------------------------------------------------------- softmax warpgroup
      auto hand_off = [&]() {
        named_sync(kBarPEmpty, 256);
        store_p<BN>(sp, sscale, pa, alpha, warp, lane);
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        named_arrive(kBarPFull, 256);
      };

      mbar_wait(q_full, 0);
      if constexpr (SCHED == 0) {
        for (int i = 0; i < n_tiles; ++i) {
          const int s = i % STAGES;
          mbar_wait(&full[s], (i / STAGES) & 1);
          issue_qk(s);
          wgmma_wait<0>();
          reg_fence(sacc);
          softmax_tile<BN, LAZY != 0>(sacc, pa, st, alpha, t - i * BN, scale_log2);
          hand_off();
          rescale(alpha[0], alpha[1]);
          issue_pv(s, pa);
          wgmma_wait<0>();
          reg_fence(oacc);
          reg_fence(pa);
          release(s);
        }
      } else if constexpr (SCHED == 2) {
        // Serial, but S_{i+1} is issued right behind P_i V_i (no wait in between): one wait for both.
        mbar_wait(&full[0], 0);
        issue_qk(0);
        wgmma_wait<0>();
        reg_fence(sacc);
        softmax_tile<BN, LAZY != 0>(sacc, pa, st, alpha, t, scale_log2);
        hand_off();
        for (int i = 0; i + 1 < n_tiles; ++i) {
          const int s = i % STAGES, s1 = (i + 1) % STAGES;
          rescale(alpha[0], alpha[1]);
          issue_pv(s, pa);
          mbar_wait(&full[s1], ((i + 1) / STAGES) & 1);
          issue_qk(s1);
          wgmma_wait<0>();
          reg_fence(oacc);
          reg_fence(pa);
          reg_fence(sacc);
          release(s);
          softmax_tile<BN, LAZY != 0>(sacc, pa, st, alpha, t - (i + 1) * BN, scale_log2);
          hand_off();
        }
        const int s = (n_tiles - 1) % STAGES;
        rescale(alpha[0], alpha[1]);
        issue_pv(s, pa);
        wgmma_wait<0>();
        reg_fence(oacc);
        reg_fence(pa);
        release(s);
      } else {
        // Overlapped: tile 0's S, softmax and hand-off first.
        mbar_wait(&full[0], 0);
        issue_qk(0);
        wgmma_wait<0>();
        reg_fence(sacc);
        softmax_tile<BN, LAZY != 0>(sacc, pa, st, alpha, t, scale_log2);
        hand_off();
        float alpha_cur[2] = {alpha[0], alpha[1]};
        std::uint32_t pa_cur[BN / 16][4];
#pragma unroll
        for (int kk = 0; kk < BN / 16; ++kk)
#pragma unroll
          for (int e = 0; e < 4; ++e) pa_cur[kk][e] = pa[kk][e];
        // Steady state without branches around the wgmma groups (ptxas tracks the groups through wait<1> only on a
        // straight path): S_{i+1} issued, P_i V_i issued, wait<1> (S_{i+1} done), softmax_{i+1}, wait<0>.
        for (int i = 0; i + 1 < n_tiles; ++i) {
          const int s = i % STAGES, s1 = (i + 1) % STAGES;
          rescale(alpha_cur[0], alpha_cur[1]);  // P_{i-1} V_{i-1} completed at the end of the last iteration
          mbar_wait(&full[s1], ((i + 1) / STAGES) & 1);
          issue_qk(s1);         // S_{i+1}
          issue_pv(s, pa_cur);  // O += P_i V_i
          wgmma_wait<1>();
          reg_fence(sacc);
          softmax_tile<BN, LAZY != 0>(sacc, pa, st, alpha, t - (i + 1) * BN, scale_log2);
          hand_off();
          wgmma_wait<0>();
          reg_fence(oacc);
          reg_fence(pa_cur);
          release(s);
          alpha_cur[0] = alpha[0];
          alpha_cur[1] = alpha[1];
#pragma unroll
          for (int kk = 0; kk < BN / 16; ++kk)
#pragma unroll
            for (int e = 0; e < 4; ++e) pa_cur[kk][e] = pa[kk][e];
        }
        {  // the last tile's P V
          const int s = (n_tiles - 1) % STAGES;
          rescale(alpha_cur[0], alpha_cur[1]);
          issue_pv(s, pa_cur);
          wgmma_wait<0>();
          reg_fence(oacc);
          reg_fence(pa_cur);
          release(s);
        }
      }
      // Final normalisation: the row sums over the quad, 1/l to the other consumer through the scale buffer.
      // With split-KV: the running max and sum go to the workspace and O stays unnormalised (factor 1).
      float inv[2];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float l = st.l[h];
        l += __shfl_xor_sync(0xffffffffu, l, 1);
        l += __shfl_xor_sync(0xffffffffu, l, 2);
        inv[h] = partial ? 1.0f : 1.0f / l;
        if (partial && lane % 4 == 0 && r0 + 8 * h < rows_per_batch - row0)
          *reinterpret_cast<float2*>(sa.ws_ml + ((grow0 + r0 + 8 * h) * sa.num_splits + split) * 2) =
              make_float2(st.m[h], l);
      }
      named_sync(kBarPEmpty, 256);
      if (lane % 4 == 0) {
        sscale[r0] = inv[0];
        sscale[r0 + 8] = inv[1];
      }
      named_arrive(kBarPFull, 256);
      scale_rows(oacc, inv[0], inv[1]);
      if (partial) store_partial(oacc, sa.ws_o, 0, warp, lane, grow0, rows_per_batch - row0, sa.num_splits, split);
      else store_output(oacc, sq, out, 0, warp, lane, tid_in_wg, kBarWg1, row0, rows_per_batch - row0);
    } else {
      // ---------------------------------------------------------------- second P V warpgroup
      named_arrive(kBarPEmpty, 256);  // the P buffer starts free
      for (int i = 0; i < n_tiles; ++i) {
        const int s = i % STAGES;
        mbar_wait(&full[s], (i / STAGES) & 1);  // (complete long ago: WG1 used it for S_i) for the async-proxy data
        named_sync(kBarPFull, 256);
        rescale(sscale[r0], sscale[r0 + 8]);
        issue_pv_smem(s, sp_a);
        wgmma_wait<0>();
        reg_fence(oacc);
        named_arrive(kBarPEmpty, 256);
        release(s);
      }
      named_sync(kBarPFull, 256);
      scale_rows(oacc, sscale[r0], sscale[r0 + 8]);
      if (partial) store_partial(oacc, sa.ws_o, 1, warp, lane, grow0, rows_per_batch - row0, sa.num_splits, split);
      else store_output(oacc, sq, out, 1, warp, lane, tid_in_wg, kBarWg2, row0, rows_per_batch - row0);
    }
  }
  // No block of a cluster leaves while its peer may still multicast into it or arrive on its barriers.
  if constexpr (CL > 1) cluster_sync_all();
#else
  (void)tmap_q, (void)tmap_kv, (void)o, (void)rows_per_batch, (void)t_total, (void)scale_log2, (void)sa;
#endif
}

// ---------------------------------------------------------------------------------------------------------------
// Host side
// ---------------------------------------------------------------------------------------------------------------

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("mla v5: " + what);
}

PFN_cuTensorMapEncodeTiled_v12000 encode_fn() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
  static std::once_flag once;
  static cudaError_t err = cudaSuccess;
  std::call_once(once, [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    err = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q);
    if (err == cudaSuccess && q == cudaDriverEntryPointSuccess)
      fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  });
  if (fn == nullptr)
    throw std::runtime_error(std::string("mla v5: cuTensorMapEncodeTiled not available from the driver (") +
                             cudaGetErrorString(err) + ")");
  return fn;
}

// [dim2][dim1][576] bf16 tensor, boxes of [1][box_rows][64], 128-byte swizzle.
CUtensorMap make_map(const void* base, long long rows, long long batches, int box_rows) {
  CUtensorMap m;
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(kDK), static_cast<cuuint64_t>(rows),
                              static_cast<cuuint64_t>(batches)};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(kDK) * 2, static_cast<cuuint64_t>(rows) * kDK * 2};
  const cuuint32_t box[3] = {64, static_cast<cuuint32_t>(box_rows), 1};
  const cuuint32_t elem_strides[3] = {1, 1, 1};
  const CUresult r = encode_fn()(&m, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 3, const_cast<void*>(base), dims, strides, box,
                                 elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                 CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw std::runtime_error("mla v5: cuTensorMapEncodeTiled failed (CUresult " + std::to_string(r) + ")");
  return m;
}

using V5Kernel = void (*)(CUtensorMap, CUtensorMap, bf16*, int, int, float, SplitArgs);

struct V5Variant {
  int kv_rows, stages, sched, cluster, lazy;
  V5Kernel kernel;
  int smem;
};

template <int BN, int STAGES, int SCHED, int CL, int LAZY>
V5Variant variant() {
  static_assert(V5Smem<BN, STAGES>::OFF_Q == 0 && V5Smem<BN, STAGES>::ALLOC <= 227 * 1024, "shared memory layout");
  static_assert(kLazyRescale > 0.0f && kLazyRescale <= 8.0f, "P = exp2(s - m) must stay far inside bf16/fp32 range");
  return {BN, STAGES, SCHED, CL, LAZY, &mla_v5_kernel<BN, STAGES, SCHED, CL, LAZY>, V5Smem<BN, STAGES>::ALLOC};
}

// The tile space; the default first (64-row kv tiles, serial schedule, no cluster: the fastest of the first two
// device runs; lazy rescale: new in the third).
const std::vector<V5Variant>& variants() {
  static const std::vector<V5Variant> v = {
      variant<64, 2, 0, 1, 1>(), variant<64, 2, 2, 1, 1>(), variant<64, 2, 3, 1, 1>(),  // lazy rescale
      variant<64, 2, 0, 1, 0>(), variant<64, 2, 2, 1, 0>(), variant<64, 2, 3, 1, 0>(), variant<64, 2, 1, 1, 0>(),
      variant<64, 2, 3, 2, 0>(), variant<64, 2, 0, 2, 0>(), variant<32, 4, 0, 1, 0>(), variant<32, 4, 2, 1, 0>()};
  return v;
}

const V5Variant& pick(const TileConfig& cfg) {
  const V5Variant& def = variants().front();
  const int kv = cfg.kv_rows_per_tile ? cfg.kv_rows_per_tile : def.kv_rows;
  const int sched = cfg.v5_schedule ? cfg.v5_schedule - 1 : def.sched;
  const int cl = cfg.v5_cluster ? cfg.v5_cluster : def.cluster;
  const int lazy = cfg.v5_rescale ? cfg.v5_rescale - 1 : def.lazy;
  for (const auto& v : variants())
    if (v.kv_rows == kv && v.sched == sched && v.cluster == cl && v.lazy == lazy) return v;
  throw std::invalid_argument("mla v5: no kernel for kv_rows_per_tile " + std::to_string(cfg.kv_rows_per_tile) +
                              ", v5_schedule " + std::to_string(cfg.v5_schedule) + ", v5_cluster " +
                              std::to_string(cfg.v5_cluster) + ", v5_rescale " + std::to_string(cfg.v5_rescale) +
                              " (mla_v5_tile_configs() lists the kernels)");
}

void validate_v5(const MlaArgs& a) {
  require(a.q != nullptr && a.kv != nullptr && a.o != nullptr, "q, kv and o must be set");
  require(a.b > 0 && a.s > 0 && a.t > 0 && a.h > 0, "need b, s, t, h > 0");
  require(a.d == kD && a.p == kP, "compiled for d = 512, p = 64 only");
  const auto al = [](const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; };
  require(al(a.q) && al(a.kv) && al(a.o), "q, kv and o must be 16-byte aligned (TMA)");
  require(static_cast<long long>(a.b) * a.s * a.h <= INT_MAX, "b*s*h must fit in int");
  require(a.b <= 65535, "b must be <= 65535 (grid y)");
  int dev = 0, major = 0, minor = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
  require(major == 9 && minor == 0, "needs a compute capability 9.0 GPU (wgmma, TMA: compiled for sm_90a)");
}

}  // namespace

std::vector<TileConfig> mla_v5_tile_configs() {
  // Every kernel with the split count chosen from the grid (num_splits 0), then the default kernel with fixed splits.
  std::vector<TileConfig> out;
  auto add = [&out](const V5Variant& v, int splits) {
    TileConfig c;
    c.heads_per_block = kBM;
    c.kv_rows_per_tile = v.kv_rows;
    c.v5_schedule = v.sched + 1;
    c.v5_cluster = v.cluster;
    c.v5_rescale = v.lazy + 1;
    c.num_splits = splits;
    out.push_back(c);
  };
  for (const auto& v : variants()) add(v, 0);
  for (int sp : {1, 2, 4, 8}) add(variants().front(), sp);
  return out;
}

bool mla_v5_supports(int d, int p) { return d == kD && p == kP; }

cudaError_t mla_v5_attributes(const TileConfig& cfg, cudaFuncAttributes& out) {
  try {
    return cudaFuncGetAttributes(&out, reinterpret_cast<const void*>(pick(cfg).kernel));
  } catch (const std::invalid_argument&) {
    return cudaErrorNotSupported;
  }
}

namespace {

struct SplitPlan {
  int splits = 1;
  int chunk_tiles = 0;
};

// cfg.num_splits, or (0) as many splits as keep one wave of blocks under the multiprocessor count: none when the
// grid already fills the GPU.  Never more splits than kv tiles; the chunks are whole tiles and none is empty.
SplitPlan plan_splits(const MlaArgs& a, const V5Variant& v, int requested) {
  require(requested >= 0 && requested <= kMaxSplits, "num_splits must be in 0..64 (0 = from the grid)");
  const int n_tiles = (a.t + v.kv_rows - 1) / v.kv_rows;
  int want = requested;
  if (want == 0) {
    int dev = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const int row_tiles = (a.s * a.h + kBM - 1) / kBM;
    const long long blocks = static_cast<long long>(a.b) * ((row_tiles + v.cluster - 1) / v.cluster * v.cluster);
    want = blocks >= sms ? 1 : static_cast<int>(sms / blocks);
  }
  want = std::max(1, std::min({want, n_tiles, kMaxSplits}));
  SplitPlan p;
  p.chunk_tiles = (n_tiles + want - 1) / want;
  p.splits = (n_tiles + p.chunk_tiles - 1) / p.chunk_tiles;
  return p;
}

}  // namespace

std::size_t mla_v5_workspace_bytes(const MlaArgs& args, const TileConfig& cfg) {
  const SplitPlan p = plan_splits(args, pick(cfg), cfg.num_splits);
  if (p.splits == 1) return 0;
  return static_cast<std::size_t>(args.b) * static_cast<std::size_t>(args.s) * args.h * p.splits * (kD + 2) *
         sizeof(float);
}

void launch_mla_v5(const MlaArgs& args, cudaStream_t stream, const TileConfig& cfg) {
  validate_v5(args);
  require(cfg.heads_per_block == 0 || cfg.heads_per_block == kBM, "heads_per_block must be 64 (or 0)");
  const V5Variant& v = pick(cfg);
  const int rows_per_batch = args.s * args.h;
  const SplitPlan sp = plan_splits(args, v, cfg.num_splits);
  SplitArgs sa;
  sa.num_splits = sp.splits;
  sa.chunk_tiles = sp.chunk_tiles;
  const long long rows = static_cast<long long>(args.b) * rows_per_batch;
  if (sp.splits > 1) {
    const std::size_t need = mla_v5_workspace_bytes(args, cfg);
    require(args.workspace != nullptr && args.workspace_bytes >= need,
            "split-KV workspace too small: need " + std::to_string(need) + " bytes (mla_v5_workspace_bytes)");
    require((reinterpret_cast<std::uintptr_t>(args.workspace) & 15u) == 0, "workspace must be 16-byte aligned");
    sa.ws_o = static_cast<float*>(args.workspace);
    sa.ws_ml = sa.ws_o + rows * sp.splits * kD;
  }
  const CUtensorMap tq = make_map(args.q, rows_per_batch, args.b, kBM);
  const CUtensorMap tkv = make_map(args.kv, args.t, args.b, v.kv_rows);
  CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(v.kernel), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  v.smem));
  // The softmax scale as mla_scale() gives it (kept here: this library links nothing else of mla's).
  const float scale = args.scale > 0.0f ? args.scale : 1.0f / std::sqrt(static_cast<float>(args.d + args.p));
  const float scale_log2 = scale * kLog2e;
  const int row_tiles = (rows_per_batch + kBM - 1) / kBM;
  // With clusters the row tiles are padded to a multiple of the cluster: a padding block loads zero rows of q
  // (TMA fills out-of-bounds boxes with zeros), shares its kv loads with its peer and writes nothing.
  const dim3 grid((row_tiles + v.cluster - 1) / v.cluster * v.cluster, args.b, sp.splits);
  if (v.cluster == 1) {
    v.kernel<<<grid, kThreads, v.smem, stream>>>(tq, tkv, args.o, rows_per_batch, args.t, scale_log2, sa);
  } else {
    cudaLaunchConfig_t lc{};
    lc.gridDim = grid;
    lc.blockDim = dim3(kThreads);
    lc.dynamicSmemBytes = static_cast<std::size_t>(v.smem);
    lc.stream = stream;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = static_cast<unsigned>(v.cluster);
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    lc.attrs = attr;
    lc.numAttrs = 1;
    CUDA_CHECK(cudaLaunchKernelEx(&lc, v.kernel, tq, tkv, args.o, rows_per_batch, args.t, scale_log2, sa));
  }
  CUDA_CHECK_LAUNCH();
  if (sp.splits > 1) {
    mla_v5_combine_kernel<<<static_cast<unsigned>(rows), 128, 0, stream>>>(sa.ws_o, sa.ws_ml, args.o, sp.splits);
    CUDA_CHECK_LAUNCH();
  }
}

}  // namespace mla
