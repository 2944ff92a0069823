// Fix experiment for held-out set 47 on the calibration-pair harness: what the first fix of five single-kernel cases
// realises on the device, to calibrate the gains kprof estimates (bench/fix_experiments/README.md; bench/RESULTS.md
// 9zk). "before" is the case's code exactly as captured and labelled (diag_holdout47.cu, included here, its main()
// renamed), launched with the program's launch configuration, problem size and deterministic inputs; "after" applies
// only the first fix the blind labels name, as a first step (no rewrite into another algorithm). The fixes were
// written by a helper who did not read kprof's rules or estimates (formerly bench/fix_experiments/set47_fixes.cu):
//
//   prefill_qkv_proj_wmma_f16_4096x6144x4096   qkv_proj_wmma_f16: x / w tiles in shared memory with a 64-half
//                    (128 B) row pitch, 8-way bank conflicts on every load_matrix_sync  →  rows padded to BK + 8 = 72
//                    halves (144 B) and ldm = 72 in load_matrix_sync; nothing else changed.
//   kv_cache_append_paged_bf16_65536tok_8kvh   reshape_and_cache_flat: one thread per bf16 element, 64-bit div / mod
//                    →  one thread per 16 bytes (8 bf16, uint4 load / store), token / K|V / head / slot index math
//                    once per chunk in 32-bit (the slot mapping stays int64 in memory).
//   paged_attention_decode_gqa_bf16_16seqs_ctx16k   paged_attention_decode: 128 blocks each walking a whole 14-16k
//                    context  →  split-KV (flash-decoding): partitions of 512 tokens (32 pages; 28-32 partitions per
//                    sequence, grid 8 x 16 x 32) run the same per-block code and write (max, sum, unnormalised
//                    output) per partition in fp32; a second small kernel (a block per sequence and query head)
//                    combines them. before = the one kernel, after = both kernels in one timed call.
//   nf4_gemv_decode_gate_up_57344x8192   nf4_gemv_f16: 16-entry NF4 codebook in __constant__ memory indexed by each
//                    lane's own code  →  the 16 floats copied to shared memory at block start, looked up there.
//   topk_sampling_k50_256x128256_f32   topk_sample_rows: per-thread top-k lists indexed by the run-time k live in
//                    local memory  →  k a template parameter (50), fully unrolled insertion, and the merge takes the
//                    list's head at index 0 and shifts the list (unrolled) when the thread wins, so no array is ever
//                    indexed at run time and the lists stay in registers; the rest unchanged.
//
//     calib_pairs47 [rounds]   JSON on stdout (calib_pairs.cuh's format, that of examples/h100/fix-pairs/
//                              set47-timings.json, which bench/version_pairs.py reads): each case's median time before
//                              and after, CUDA events around the launch (the split-KV fix: around both launches) on the
//                              legacy default stream; each variant run once and the outputs compared first, then 5
//                              warm-up rounds (timed, discarded), then `rounds` (default 30) rounds of one call of each
//                              variant, alternating, the variant that goes first alternating between rounds. On stderr,
//                              per case, "<case>: check ok" or "<case>: check MISMATCH <first difference>" (exact for
//                              the copies and the sampling: same tokens, same top-k values and ids; within a tolerance
//                              for floating point). A case whose CUDA call fails gets "error" in place of its times
//                              (and "<case>: skipped (...)" on stderr) and makes the exit status 1; the others still
//                              run. Peak device memory about 1.4 GB (one case's buffers at a time).
// Without a CUDA device it says so and exits 0.
//
// Built on request by CMake (`--target calib_pairs47`), or by hand from this folder:
//     nvcc -std=c++17 -O3 -arch=sm_90 -lineinfo calib_pairs47.cu -o calib_pairs47
#define main diag_holdout47_main
#include "diag_holdout47.cu"
#undef main
// diag_holdout47.cu keeps its events in its Ctx: the driver brings a Timer for calib_pairs.cuh's event_ms.
#include "calib_pairs_driver.cuh"

static uint16_t half_bits(__half h) {
  uint16_t u;
  std::memcpy(&u, &h, sizeof u);
  return u;
}

// ===============================================================================================================
// 1. prefill_qkv_proj_wmma_f16_4096x6144x4096 (before: qkv_proj_wmma_f16)

// after: the tile rows padded to QP_LDS = BK + 8 halves (144 B: the 8 rows of a fragment load start 16 B apart, in
// different banks); the shared arrays, their row index and the ldm of load_matrix_sync use QP_LDS. 2 x 18 KB of
// static shared memory; fragment pointers stay 32-byte aligned (16 rows x 144 B, kk x 2 B = 32 B steps).
constexpr int QP_LDS = QP_BK + 8;
__global__ void __launch_bounds__(QP_THREADS) qkv_proj_wmma_f16_padded(__half* y, const __half* x, const __half* w,
                                                                       int M, int N, int K) {
  using namespace nvcuda;
  __shared__ __align__(128) __half xs[QP_BM * QP_LDS];
  __shared__ __align__(128) __half ws[QP_BN * QP_LDS];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int wm = warp / 4, wn = warp % 4;
  const int m0 = blockIdx.y * QP_BM, n0 = blockIdx.x * QP_BN;
  if (m0 >= M || n0 >= N) return;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][2];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

  for (int k0 = 0; k0 < K; k0 += QP_BK) {
    for (int c = tid; c < QP_BM * QP_BK / 8; c += QP_THREADS) {
      const int r = c / (QP_BK / 8), col = (c % (QP_BK / 8)) * 8;
      *reinterpret_cast<uint4*>(&xs[r * QP_LDS + col]) =
          *reinterpret_cast<const uint4*>(&x[(size_t)(m0 + r) * K + k0 + col]);
      *reinterpret_cast<uint4*>(&ws[r * QP_LDS + col]) =
          *reinterpret_cast<const uint4*>(&w[(size_t)(n0 + r) * K + k0 + col]);
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < QP_BK; kk += 16) {
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> bf[2];
#pragma unroll
      for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(bf[j], &ws[(wn * 32 + j * 16) * QP_LDS + kk], QP_LDS);
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> af;
        wmma::load_matrix_sync(af, &xs[(wm * 64 + i * 16) * QP_LDS + kk], QP_LDS);
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], af, bf[j], acc[i][j]);
      }
    }
    __syncthreads();
  }
  // Epilogue unchanged.
  float* stage = reinterpret_cast<float*>(xs) + warp * 256;
  const int r = lane / 2, c = (lane % 2) * 8;
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      wmma::store_matrix_sync(stage, acc[i][j], 16, wmma::mem_row_major);
      __syncwarp();
      uint4 v;
      __half2* h = reinterpret_cast<__half2*>(&v);
#pragma unroll
      for (int q = 0; q < 4; ++q) h[q] = __floats2half2_rn(stage[r * 16 + c + 2 * q], stage[r * 16 + c + 2 * q + 1]);
      *reinterpret_cast<uint4*>(&y[(size_t)(m0 + wm * 64 + i * 16 + r) * N + n0 + wn * 32 + j * 16 + c]) = v;
      __syncwarp();
    }
}

static void pair_qkv_proj(Pairs& P, const char* name, const char* change) {
  const size_t nx = (size_t)QP_M * QP_K, nw = (size_t)QP_N * QP_K, ny = (size_t)QP_M * QP_N;
  DevBuf<__half> x(nx), w(nw), yb(ny), ya(ny);
  fill_f16<<<2048, 256>>>(x, nx, 1301u, 1.0f, 0.0f);
  fill_f16<<<2048, 256>>>(w, nw, 1302u, 0.0625f, 0.0f);
  CK(cudaMemset(yb, 0, ny * sizeof(__half)));
  CK(cudaMemset(ya, 0xFF, ny * sizeof(__half)));
  const dim3 grid(QP_N / QP_BN, QP_M / QP_BM);
  auto before = [&] { qkv_proj_wmma_f16<<<grid, QP_THREADS>>>(yb, x, w, QP_M, QP_N, QP_K); };
  auto after = [&] { qkv_proj_wmma_f16_padded<<<grid, QP_THREADS>>>(ya, x, w, QP_M, QP_N, QP_K); };
  before();
  after();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  bool ok = true;
  {
    const std::vector<__half> hb = d2h(yb.p, ny), ha = d2h(ya.p, ny);
    char msg[256] = "";
    for (size_t i = 0; i < ny && ok; ++i)
      if (half_bits(hb[i]) != half_bits(ha[i])) {
        const float b = __half2float(hb[i]), a = __half2float(ha[i]);
        if (!close_to(a, b, 2e-3, 2e-3)) {
          std::snprintf(msg, sizeof msg, "y[%zu][%zu]: after %.6g, before %.6g", i / QP_N, i % QP_N, (double)a,
                        (double)b);
          ok = false;
        }
      }
    P.check(name, ok, msg);
  }
  std::vector<double> tb, ta;
  P.time(before, after, tb, ta);
  P.print(name, change, "CUDA events around the launch", tb, ta, ok);
}

// ===============================================================================================================
// 2. kv_cache_append_paged_bf16_65536tok_8kvh (before: reshape_and_cache_flat)

// after: one thread per 16-byte chunk (8 bf16 of one head; head_dim a multiple of 8), uint4 load and store; the
// token / K|V / head / slot index math once per chunk in 32-bit (the sizes fit int; only the final element offsets
// are widened to 64 bits, one wide multiply-add each).
__global__ void reshape_and_cache_flat_vec16(__nv_bfloat16* k_cache, __nv_bfloat16* v_cache, const __nv_bfloat16* qkv,
                                             const int64_t* slot_mapping, int num_tokens, int num_q_heads,
                                             int num_kv_heads, int head_dim, int block_size) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int chunks_per_head = head_dim / 8;
  const int kv_chunks = num_kv_heads * chunks_per_head;  // 16-byte chunks of a token's K (or V) part
  const int per_token = 2 * kv_chunks;
  if (c >= num_tokens * per_token) return;
  const int token = c / per_token;
  const int r = c - token * per_token;  // chunk inside the token's K|V part of the row
  const int which = r >= kv_chunks ? 1 : 0;
  const int r2 = r - which * kv_chunks;
  const int head = r2 / chunks_per_head;
  const int d = (r2 - head * chunks_per_head) * 8;
  const int64_t slot64 = slot_mapping[token];
  if (slot64 < 0) return;  // a padding token has no cache slot
  const int slot = (int)slot64;
  const int block = slot / block_size;
  const int offset = slot - block * block_size;
  const int row_stride = (num_q_heads + 2 * num_kv_heads) * head_dim;
  const uint4 v = *reinterpret_cast<const uint4*>(qkv + (size_t)token * row_stride + (num_q_heads * head_dim + r * 8));
  __nv_bfloat16* cache = which == 0 ? k_cache : v_cache;
  *reinterpret_cast<uint4*>(cache + (size_t)((block * num_kv_heads + head) * block_size + offset) * head_dim + d) = v;
}

static void pair_kv_append(Pairs& P, const char* name, const char* change) {
  const size_t nqkv = (size_t)KA_TOKENS * KA_ROW, cache_elems = (size_t)KA_NBLOCKS * KA_HKV * KA_BS * KA_D;
  DevBuf<__nv_bfloat16> qkv(nqkv), kb(cache_elems), vb(cache_elems), ka(cache_elems), va(cache_elems);
  DevBuf<int64_t> slots(KA_TOKENS);
  fill_bf16<<<4096, 256>>>(qkv, nqkv, 1401u, 1.0f, 0.0f);
  CK(cudaMemset(kb, 0, cache_elems * sizeof(__nv_bfloat16)));
  CK(cudaMemset(vb, 0, cache_elems * sizeof(__nv_bfloat16)));
  CK(cudaMemset(ka, 0, cache_elems * sizeof(__nv_bfloat16)));
  CK(cudaMemset(va, 0, cache_elems * sizeof(__nv_bfloat16)));
  const std::vector<int> pool = shuffled(KA_NBLOCKS, 1402u);
  std::vector<int64_t> hslots(KA_TOKENS);
  for (int s = 0; s < KA_SEQS; ++s)
    for (int p = 0; p < KA_LEN; ++p)
      hslots[(size_t)s * KA_LEN + p] = (int64_t)pool[(size_t)s * (KA_LEN / KA_BS) + p / KA_BS] * KA_BS + p % KA_BS;
  CK(cudaMemcpy(slots, hslots.data(), hslots.size() * sizeof(int64_t), cudaMemcpyHostToDevice));
  const size_t n = (size_t)KA_TOKENS * 2 * KA_HKV * KA_D;
  const unsigned threads = 256, blocks_b = blocks_for(n, threads), blocks_a = blocks_for(n / 8, threads);
  auto before = [&] {
    reshape_and_cache_flat<<<blocks_b, threads>>>(kb, vb, qkv, slots, KA_TOKENS, KA_HQ, KA_HKV, KA_D, KA_BS);
  };
  auto after = [&] {
    reshape_and_cache_flat_vec16<<<blocks_a, threads>>>(ka, va, qkv, slots, KA_TOKENS, KA_HQ, KA_HKV, KA_D, KA_BS);
  };
  before();
  after();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  bool ok = true;
  {
    char msg[256] = "";
    for (int which = 0; which < 2 && ok; ++which) {
      const std::vector<__nv_bfloat16> b = d2h((which == 0 ? kb : vb).p, cache_elems),
                                       a = d2h((which == 0 ? ka : va).p, cache_elems);
      for (size_t i = 0; i < cache_elems && ok; ++i)
        if (std::memcmp(&a[i], &b[i], sizeof(__nv_bfloat16)) != 0) {
          uint16_t ua, ub;
          std::memcpy(&ua, &a[i], 2);
          std::memcpy(&ub, &b[i], 2);
          std::snprintf(msg, sizeof msg, "%c cache element %zu: after 0x%04x, before 0x%04x", which == 0 ? 'K' : 'V',
                        i, (unsigned)ua, (unsigned)ub);
          ok = false;
        }
    }
    P.check(name, ok, msg);
  }
  std::vector<double> tb, ta;
  P.time(before, after, tb, ta);
  P.print(name, change, "CUDA events around the launch", tb, ta, ok);
}

// ===============================================================================================================
// 3. paged_attention_decode_gqa_bf16_16seqs_ctx16k (before: paged_attention_decode)

// after (split-KV / flash-decoding): blockIdx.z picks a partition of PA_PART tokens; the block runs the original
// per-block code over its partition only and, instead of normalising, writes the partition's max, sum and
// unnormalised output (relative to that max) in fp32. Partitions past the context exit at once.
constexpr int PA_PART = 512;                                    // tokens per partition (32 pages)
constexpr int PA_MAX_PARTS = PA_MAX_BLOCKS * PA_BS / PA_PART;   // 32
static_assert(PA_PART % PA_BS == 0 && PA_MAX_PARTS == 32, "the combine kernel gives a lane to each partition");
__global__ void __launch_bounds__(PA_WARPS * 32) paged_attention_decode_split(
    float* part_acc, float* part_m, float* part_l, const __nv_bfloat16* q, const __nv_bfloat16* k_cache,
    const __nv_bfloat16* v_cache, const int* block_tables, const int* context_lens, int max_blocks_per_seq,
    float scale) {
  __shared__ float s_m[PA_WARPS][PA_GROUP], s_l[PA_WARPS][PA_GROUP];
  __shared__ float s_acc[PA_WARPS][PA_GROUP][PA_D];
  const int kvh = blockIdx.x, seq = blockIdx.y, part = blockIdx.z;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int len = context_lens[seq];
  const int t_begin = part * PA_PART;
  if (t_begin >= len) return;  // the whole block: this partition is past the context
  const int t_end = min(len, t_begin + PA_PART);
  const int* table = block_tables + (size_t)seq * max_blocks_per_seq;

  float qv[PA_GROUP][4], m[PA_GROUP], l[PA_GROUP], acc[PA_GROUP][4];
#pragma unroll
  for (int g = 0; g < PA_GROUP; ++g) {
    const uint2 raw = *reinterpret_cast<const uint2*>(q + ((size_t)seq * PA_HQ + kvh * PA_GROUP + g) * PA_D + lane * 4);
    const __nv_bfloat162* h = reinterpret_cast<const __nv_bfloat162*>(&raw);
    const float2 a = __bfloat1622float2(h[0]), b = __bfloat1622float2(h[1]);
    qv[g][0] = a.x * scale;
    qv[g][1] = a.y * scale;
    qv[g][2] = b.x * scale;
    qv[g][3] = b.y * scale;
    m[g] = -INFINITY;
    l[g] = 0.0f;
#pragma unroll
    for (int d = 0; d < 4; ++d) acc[g][d] = 0.0f;
  }
  for (int t = t_begin + warp; t < t_end; t += PA_WARPS) {
    const int blk = table[t / PA_BS];
    const size_t base = (((size_t)blk * PA_BS + t % PA_BS) * PA_HKV + kvh) * PA_D + lane * 4;
    const uint2 kraw = *reinterpret_cast<const uint2*>(k_cache + base);
    const uint2 vraw = *reinterpret_cast<const uint2*>(v_cache + base);
    const __nv_bfloat162* kh = reinterpret_cast<const __nv_bfloat162*>(&kraw);
    const __nv_bfloat162* vh = reinterpret_cast<const __nv_bfloat162*>(&vraw);
    const float2 k01 = __bfloat1622float2(kh[0]), k23 = __bfloat1622float2(kh[1]);
    const float2 v01 = __bfloat1622float2(vh[0]), v23 = __bfloat1622float2(vh[1]);
    const float kf[4] = {k01.x, k01.y, k23.x, k23.y}, vf[4] = {v01.x, v01.y, v23.x, v23.y};
#pragma unroll
    for (int g = 0; g < PA_GROUP; ++g) {
      float s = qv[g][0] * kf[0] + qv[g][1] * kf[1] + qv[g][2] * kf[2] + qv[g][3] * kf[3];
      s = warp_sum(s);
      const float m_new = fmaxf(m[g], s);
      const float alpha = __expf(m[g] - m_new), p = __expf(s - m_new);
      l[g] = l[g] * alpha + p;
#pragma unroll
      for (int d = 0; d < 4; ++d) acc[g][d] = acc[g][d] * alpha + p * vf[d];
      m[g] = m_new;
    }
  }
#pragma unroll
  for (int g = 0; g < PA_GROUP; ++g) {
    if (lane == 0) {
      s_m[warp][g] = m[g];
      s_l[warp][g] = l[g];
    }
#pragma unroll
    for (int d = 0; d < 4; ++d) s_acc[warp][g][lane * 4 + d] = acc[g][d];
  }
  __syncthreads();
  // Warp g combines query head g of the group over the block's 4 warps (warp 0 always has a token).
  const int g = warp;
  float mx = -INFINITY;
  for (int w = 0; w < PA_WARPS; ++w) mx = fmaxf(mx, s_m[w][g]);
  float denom = 0.0f, o[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int w = 0; w < PA_WARPS; ++w) {
    const float f = s_m[w][g] == -INFINITY ? 0.0f : __expf(s_m[w][g] - mx);
    denom += s_l[w][g] * f;
#pragma unroll
    for (int d = 0; d < 4; ++d) o[d] += s_acc[w][g][lane * 4 + d] * f;
  }
  const size_t pidx = ((size_t)seq * PA_HQ + kvh * PA_GROUP + g) * PA_MAX_PARTS + part;
  if (lane == 0) {
    part_m[pidx] = mx;
    part_l[pidx] = denom;
  }
  reinterpret_cast<float4*>(part_acc + pidx * PA_D)[lane] = make_float4(o[0], o[1], o[2], o[3]);
}
// The reduction: a 128-thread block per (query head, sequence); warp 0 turns the partitions' maxima and sums into
// weights exp(m_p - M) and 1 / sum_p l_p exp(m_p - M); thread d then sums the partitions' outputs of dimension d.
__global__ void __launch_bounds__(PA_D) paged_attention_combine(__nv_bfloat16* out, const float* part_acc,
                                                                const float* part_m, const float* part_l,
                                                                const int* context_lens) {
  __shared__ float s_w[PA_MAX_PARTS];
  __shared__ float s_inv;
  const int hq = blockIdx.x, seq = blockIdx.y, d = threadIdx.x;
  const int nparts = (context_lens[seq] + PA_PART - 1) / PA_PART;
  const size_t base = ((size_t)seq * PA_HQ + hq) * PA_MAX_PARTS;
  if (threadIdx.x < 32) {
    const int p = threadIdx.x;
    const float mp = p < nparts ? part_m[base + p] : -INFINITY;
    const float M = warp_max(mp);
    const float wgt = p < nparts ? __expf(mp - M) : 0.0f;
    const float den = warp_sum(p < nparts ? part_l[base + p] * wgt : 0.0f);
    s_w[p] = wgt;
    if (p == 0) s_inv = 1.0f / den;
  }
  __syncthreads();
  float o = 0.0f;
#pragma unroll 8
  for (int p = 0; p < nparts; ++p) o += s_w[p] * part_acc[(base + p) * PA_D + d];
  out[((size_t)seq * PA_HQ + hq) * PA_D + d] = __float2bfloat16_rn(o * s_inv);
}

static void pair_paged_attention(Pairs& P, const char* name, const char* change) {
  const size_t cache_elems = (size_t)PA_NBLOCKS * PA_BS * PA_HKV * PA_D, nq = (size_t)PA_SEQS * PA_HQ * PA_D;
  const size_t nparts = (size_t)PA_SEQS * PA_HQ * PA_MAX_PARTS;
  DevBuf<__nv_bfloat16> kc(cache_elems), vc(cache_elems), q(nq), ob(nq), oa(nq);
  DevBuf<float> pacc(nparts * PA_D), pm(nparts), pl(nparts);
  DevBuf<int> tables((size_t)PA_SEQS * PA_MAX_BLOCKS), lens(PA_SEQS);
  fill_bf16<<<4096, 256>>>(kc, cache_elems, 1502u, 1.0f, 0.0f);
  fill_bf16<<<4096, 256>>>(vc, cache_elems, 1503u, 0.5f, 0.25f);
  fill_bf16<<<64, 256>>>(q, nq, 1504u, 2.0f, 0.0f);
  CK(cudaMemset(ob, 0, nq * sizeof(__nv_bfloat16)));
  CK(cudaMemset(oa, 0, nq * sizeof(__nv_bfloat16)));
  const std::vector<int> pool = shuffled(PA_NBLOCKS, 1505u);
  std::vector<int> htables((size_t)PA_SEQS * PA_MAX_BLOCKS, 0), hlens(PA_SEQS);
  size_t next = 0;
  for (int s = 0; s < PA_SEQS; ++s) {
    hlens[s] = pa_len(s);
    for (int b = 0; b < (hlens[s] + PA_BS - 1) / PA_BS; ++b) htables[(size_t)s * PA_MAX_BLOCKS + b] = pool[next++];
  }
  CK(cudaMemcpy(tables, htables.data(), htables.size() * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(lens, hlens.data(), hlens.size() * sizeof(int), cudaMemcpyHostToDevice));
  const float scale = 1.0f / std::sqrt((float)PA_D);
  const dim3 grid(PA_HKV, PA_SEQS), grid_split(PA_HKV, PA_SEQS, PA_MAX_PARTS), grid_combine(PA_HQ, PA_SEQS);
  auto before = [&] {
    paged_attention_decode<<<grid, PA_WARPS * 32>>>(ob, q, kc, vc, tables, lens, PA_MAX_BLOCKS, scale);
  };
  auto after = [&] {
    paged_attention_decode_split<<<grid_split, PA_WARPS * 32>>>(pacc, pm, pl, q, kc, vc, tables, lens, PA_MAX_BLOCKS,
                                                                 scale);
    paged_attention_combine<<<grid_combine, PA_D>>>(oa, pacc, pm, pl, lens);
  };
  before();
  after();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  bool ok = true;
  {
    const std::vector<__nv_bfloat16> hb = d2h(ob.p, nq), ha = d2h(oa.p, nq);
    char msg[256] = "";
    for (size_t i = 0; i < nq && ok; ++i) {
      const float b = bf16_to_float(hb[i]), a = bf16_to_float(ha[i]);
      if (!std::isfinite(b) || !close_to(a, b, 2e-3, 1e-2)) {  // the program's tolerance against its reference
        std::snprintf(msg, sizeof msg, "out[seq %zu][head %zu][%zu]: after %.6g, before %.6g", i / (PA_HQ * PA_D),
                      i / PA_D % PA_HQ, i % PA_D, (double)a, (double)b);
        ok = false;
      }
    }
    P.check(name, ok, msg);
  }
  std::vector<double> tb, ta;
  P.time(before, after, tb, ta);
  P.print(name, change, "CUDA events around the launch (after: around both launches)", tb, ta, ok);
}

// ===============================================================================================================
// 4. nf4_gemv_decode_gate_up_57344x8192 (before: nf4_gemv_f16)

// after: the 16 levels copied from constant to shared memory at block start (the existing barrier after the x
// staging covers it) and looked up there: 16 words in 16 distinct banks, lanes with equal codes broadcast.
__global__ void __launch_bounds__(NF4_THREADS) nf4_gemv_f16_smem_levels(__half* y, const uint32_t* wq,
                                                                        const __half* absmax, const __half* x, int N,
                                                                        int K) {
  extern __shared__ uint4 xs_raw[];
  __shared__ float s_levels[16];
  const __half* xs = reinterpret_cast<const __half*>(xs_raw);
  if (threadIdx.x < 16) s_levels[threadIdx.x] = c_nf4_levels[threadIdx.x];
  for (int i = threadIdx.x; i < K / 8; i += blockDim.x) xs_raw[i] = reinterpret_cast<const uint4*>(x)[i];
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row = blockIdx.x * (blockDim.x / 32) + warp;
  if (row >= N) return;
  const uint32_t* wrow = wq + (size_t)row * (K / 8);
  const __half* srow = absmax + (size_t)row * (K / NF4_BLOCK);
  float acc = 0.0f;
  for (int w = lane; w < K / 8; w += 32) {
    const uint32_t packed = __ldg(wrow + w);
    const float scale = __half2float(srow[w / (NF4_BLOCK / 8)]);
    const uint4 xv = *reinterpret_cast<const uint4*>(xs + w * 8);
    const __half2* xh = reinterpret_cast<const __half2*>(&xv);
#pragma unroll
    for (int e = 0; e < 8; e += 2) {
      const float2 xf = __half22float2(xh[e / 2]);
      acc += s_levels[(packed >> (4 * e)) & 15u] * scale * xf.x;
      acc += s_levels[(packed >> (4 * e + 4)) & 15u] * scale * xf.y;
    }
  }
  acc = warp_sum(acc);
  if (lane == 0) y[row] = __float2half_rn(acc);
}

static void pair_nf4_gemv(Pairs& P, const char* name, const char* change) {
  const size_t words = (size_t)NF4_N * NF4_K / 8, nabs = (size_t)NF4_N * (NF4_K / NF4_BLOCK);
  DevBuf<uint32_t> wq(words);
  DevBuf<__half> absmax(nabs), x(NF4_K), yb(NF4_N), ya(NF4_N);
  fill_u32<<<4096, 256>>>(wq, words, 1701u);
  std::vector<__half> habs(nabs), hx(NF4_K);
  for (size_t i = 0; i < nabs; ++i) habs[i] = __float2half_rn(nf4_absmax(i));
  for (int k = 0; k < NF4_K; ++k) hx[k] = __float2half_rn(nf4_x(k));
  CK(cudaMemcpy(absmax, habs.data(), nabs * sizeof(__half), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(x, hx.data(), NF4_K * sizeof(__half), cudaMemcpyHostToDevice));
  CK(cudaMemset(yb, 0, NF4_N * sizeof(__half)));
  CK(cudaMemset(ya, 0xFF, NF4_N * sizeof(__half)));
  const unsigned blocks = NF4_N / (NF4_THREADS / 32);
  const size_t smem = NF4_K * sizeof(__half);
  auto before = [&] { nf4_gemv_f16<<<blocks, NF4_THREADS, smem>>>(yb, wq, absmax, x, NF4_N, NF4_K); };
  auto after = [&] { nf4_gemv_f16_smem_levels<<<blocks, NF4_THREADS, smem>>>(ya, wq, absmax, x, NF4_N, NF4_K); };
  before();
  after();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  bool ok = true;
  {
    const std::vector<__half> hb = d2h(yb.p, NF4_N), ha = d2h(ya.p, NF4_N);
    char msg[256] = "";
    for (int i = 0; i < NF4_N && ok; ++i) {
      const float b = __half2float(hb[i]), a = __half2float(ha[i]);
      if (half_bits(hb[i]) != half_bits(ha[i]) && !close_to(a, b, 1e-3, 2e-3)) {
        std::snprintf(msg, sizeof msg, "y[%d]: after %.6g, before %.6g", i, (double)a, (double)b);
        ok = false;
      }
    }
    P.check(name, ok, msg);
  }
  std::vector<double> tb, ta;
  P.time(before, after, tb, ta);
  P.print(name, change, "CUDA events around the launch", tb, ta, ok);
}

// ===============================================================================================================
// 5. topk_sampling_k50_256x128256_f32 (before: topk_sample_rows)

// after: k = K a template parameter; the list initialisation and the per-candidate compare-and-swap loop fully
// unrolled, so tv / ti are registers. The merge read tv[head] / ti[head] with a run-time head, which would put the
// lists back in local memory; instead the head is always element 0 and the winning thread shifts its list down by
// one (unrolled register moves, -INF / -1 in from the back): the same sequence of heads as head < k ? tv[head] :
// -INF. Everything else unchanged.
template <int K>
__global__ void __launch_bounds__(TK_THREADS) topk_sample_rows_reg(int* tokens, float* topk_vals, int* topk_ids,
                                                                   const float* logits, const float* uniforms,
                                                                   int vocab, float temperature) {
  __shared__ float s_val[K];
  __shared__ int s_id[K];
  __shared__ float r_val[TK_THREADS / 32];
  __shared__ int r_who[TK_THREADS / 32];
  __shared__ int s_winner;
  float tv[K];
  int ti[K];
#pragma unroll
  for (int j = 0; j < K; ++j) {
    tv[j] = -INFINITY;
    ti[j] = -1;
  }
  const float* row = logits + (size_t)blockIdx.x * vocab;
  for (int i = threadIdx.x; i < vocab; i += blockDim.x) {
    float v = row[i];
    int id = i;
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const float a = tv[j];
      const int ai = ti[j];
      const bool gt = v > a;
      tv[j] = gt ? v : a;
      ti[j] = gt ? id : ai;
      v = gt ? a : v;
      id = gt ? ai : id;
    }
  }
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll 1
  for (int r = 0; r < K; ++r) {
    float v = tv[0];
    int who = threadIdx.x;
    for (int o = 16; o > 0; o >>= 1) {
      const float ov = __shfl_xor_sync(0xffffffffu, v, o);
      const int ow = __shfl_xor_sync(0xffffffffu, who, o);
      if (ov > v || (ov == v && ow < who)) {
        v = ov;
        who = ow;
      }
    }
    if (lane == 0) {
      r_val[warp] = v;
      r_who[warp] = who;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      float bv = r_val[0];
      int bw = r_who[0];
      for (int w = 1; w < TK_THREADS / 32; ++w)
        if (r_val[w] > bv) {
          bv = r_val[w];
          bw = r_who[w];
        }
      s_val[r] = bv;
      s_winner = bw;
    }
    __syncthreads();
    if (threadIdx.x == s_winner) {
      s_id[r] = ti[0];
#pragma unroll
      for (int j = 0; j + 1 < K; ++j) {
        tv[j] = tv[j + 1];
        ti[j] = ti[j + 1];
      }
      tv[K - 1] = -INFINITY;
      ti[K - 1] = -1;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    float total = 0.0f;
    for (int j = 0; j < K; ++j) total += expf((s_val[j] - s_val[0]) / temperature);
    const float target = uniforms[blockIdx.x] * total;
    float run = 0.0f;
    int pick = K - 1;
    for (int j = 0; j < K; ++j) {
      run += expf((s_val[j] - s_val[0]) / temperature);
      if (run > target) {
        pick = j;
        break;
      }
    }
    tokens[blockIdx.x] = s_id[pick];
  }
  for (int j = threadIdx.x; j < K; j += blockDim.x) {
    topk_vals[(size_t)blockIdx.x * K + j] = s_val[j];
    topk_ids[(size_t)blockIdx.x * K + j] = s_id[j];
  }
}

static void pair_topk(Pairs& P, const char* name, const char* change) {
  constexpr int k = 50;
  const float temperature = 0.8f;
  DevBuf<float> logits((size_t)TK_ROWS * TK_VOCAB), uniforms(TK_ROWS), vb((size_t)TK_ROWS * k), va((size_t)TK_ROWS * k);
  DevBuf<int> tb_(TK_ROWS), ta_(TK_ROWS), ib((size_t)TK_ROWS * k), ia((size_t)TK_ROWS * k);
  fill_tk_logits<<<4096, 256>>>(logits, TK_ROWS, TK_VOCAB);
  std::vector<float> hu(TK_ROWS);
  for (int r = 0; r < TK_ROWS; ++r) hu[r] = tk_uniform(r);
  CK(cudaMemcpy(uniforms, hu.data(), TK_ROWS * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemset(ta_, 0xFF, TK_ROWS * sizeof(int)));
  CK(cudaMemset(ia, 0xFF, (size_t)TK_ROWS * k * sizeof(int)));
  CK(cudaMemset(va, 0, (size_t)TK_ROWS * k * sizeof(float)));
  auto before = [&] {
    topk_sample_rows<<<TK_ROWS, TK_THREADS>>>(tb_, vb, ib, logits, uniforms, TK_VOCAB, k, temperature);
  };
  auto after = [&] {
    topk_sample_rows_reg<k><<<TK_ROWS, TK_THREADS>>>(ta_, va, ia, logits, uniforms, TK_VOCAB, temperature);
  };
  before();
  after();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  bool ok = true;
  {
    const std::vector<int> htb = d2h(tb_.p, TK_ROWS), hta = d2h(ta_.p, TK_ROWS);
    const std::vector<int> hib = d2h(ib.p, (size_t)TK_ROWS * k), hia = d2h(ia.p, (size_t)TK_ROWS * k);
    const std::vector<float> hvb = d2h(vb.p, (size_t)TK_ROWS * k), hva = d2h(va.p, (size_t)TK_ROWS * k);
    char msg[256] = "";
    for (int r = 0; r < TK_ROWS && ok; ++r) {
      if (htb[r] != hta[r]) {
        std::snprintf(msg, sizeof msg, "row %d: sampled token after %d, before %d", r, hta[r], htb[r]);
        ok = false;
      }
      for (int j = 0; j < k && ok; ++j) {
        const size_t i = (size_t)r * k + j;
        if (hib[i] != hia[i] || hvb[i] != hva[i]) {
          std::snprintf(msg, sizeof msg, "row %d top-%d: after (%d, %.6g), before (%d, %.6g)", r, j, hia[i],
                        (double)hva[i], hib[i], (double)hvb[i]);
          ok = false;
        }
      }
    }
    P.check(name, ok, msg);
  }
  std::vector<double> tb, ta;
  P.time(before, after, tb, ta);
  P.print(name, change, "CUDA events around the launch", tb, ta, ok);
}

// ===============================================================================================================

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 30;
  try {
    cudaDeviceProp prop;
    if (!calib::first_device(prop)) return 0;
    Pairs P(rounds, 5);
    calib::print_header(prop.name, rounds);
    P.run("prefill_qkv_proj_wmma_f16_4096x6144x4096", "64-half smem rows -> padded to BK+8", pair_qkv_proj);
    P.run("kv_cache_append_paged_bf16_65536tok_8kvh", "thread/bf16 int64 div -> 16 B/thread, 32-bit index",
          pair_kv_append);
    P.run("paged_attention_decode_gqa_bf16_16seqs_ctx16k",
          "whole context per block -> split-KV 512-token partitions + combine", pair_paged_attention);
    P.run("nf4_gemv_decode_gate_up_57344x8192", "NF4 codebook __constant__ -> shared memory", pair_nf4_gemv);
    P.run("topk_sampling_k50_256x128256_f32", "run-time-k lists in local memory -> template K, registers", pair_topk);
    calib::print_footer();
    return P.failed == 0 ? 0 : 1;
  } catch (const CaseSkip& e) {  // outside the pairs: the device query or the events
    std::fprintf(stderr, "calib_pairs47: %s\n", e.why.c_str());
    return 1;
  }
}
