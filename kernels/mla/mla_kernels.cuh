// Multi-head latent attention (MLA) decode, bf16 in/out, fp32 accumulation.
//
//   q  [b, s, h, d+p]   bf16, row-major (one "query row" = one (b, s, h))
//   kv [b, t, d+p]      bf16, the latent cache; keys are all d+p columns, values are the first d
//   o  [b, s, h, d]     bf16
//
// For every query row: score_j = (q . kv_j) * scale over d+p columns, softmax over all t cached tokens (decode: no
// causal mask), o = sum_j softmax_j * kv_j[:d].  FLOPs = b*s*h*2*t*(2d+p).
//
// Four versions (see README.md): v1 one block per query row in fp32; v2 tensor cores (WMMA) over a tile of
// query rows against shared-memory kv tiles with an online softmax; v3 the v2 tile split over t (stage 1
// mla_partial) plus a merge (stage 2 mla_combine); v4 three stages per batch entry, S = Q KV^T and O = P V as
// strided-batched cuBLASLt GEMMs around a row softmax kernel (MlaV4Plan).  Every launch function validates its
// arguments, checks the launch, and throws std::runtime_error on any problem (std::invalid_argument for arguments
// or configurations it rejects); none synchronises.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace mla {

struct MlaArgs {
  const __nv_bfloat16* q = nullptr;   // [b, s, h, d+p], 16-byte aligned
  const __nv_bfloat16* kv = nullptr;  // [b, t, d+p],    16-byte aligned
  __nv_bfloat16* o = nullptr;         // [b, s, h, d],   16-byte aligned
  int b = 0, s = 0, t = 0, h = 128, d = 512, p = 64;
  float scale = 0.0f;  // <= 0 means 1/sqrt(d+p)
  // v3 only: fp32 scratch of at least mla_v3_workspace_bytes(args, cfg) bytes, 16-byte aligned.
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
};

// Tunables; 0 means "the version's default".  Versions ignore fields they do not use.
//   heads_per_block   v2/v3: query rows per block.  The tile runs over the flattened (s, h) rows of one batch
//                     entry, so with h a multiple of it a block holds heads of a single (b, s); with s > 1 it
//                     may also span consecutive s.  Every row of a block shares the kv tiles it stages.
//   kv_rows_per_tile  v2/v3: kv rows staged in shared memory per step (double-buffered with cp.async).
//   num_splits        v3: chunks t is split into (1..kMaxSplits); each chunk is one block of stage 1.
//                     v5: split-KV chunks (0 = chosen from the grid and the GPU, 1 = none, up to kMaxSplits).
//   softmax_threads   v4: threads per block of the row softmax (128, 256, 512, 1024; one block per row).
//   scores_algo       v4: which cuBLASLt algorithm runs S = Q KV^T: its 1-based rank in the heuristic's list
//                     (1 = cuBLASLt's first choice; at most MlaV4Plan::algo_count()).
//   output_algo       v4: the same for O = P V.
//   v5_schedule       v5: 1 = serial (per tile: scores, softmax, P V), 2 = overlapped (the next tile's scores are
//                     issued before this tile's P V, the softmax runs while P V is on the tensor cores), 3 = serial
//                     with the next tile's scores issued right behind this tile's P V (one wait for both), 4 = split
//                     (the two consumer warpgroups own alternate tiles' scores and softmax; kv tiles of 64 rows).
//   v5_cluster        v5: blocks per cluster sharing each kv tile through TMA multicast (1 or 2).
//   v5_rescale        v5: 1 = the running max follows every tile (O rescaled whenever it grows), 2 = lazy: the max
//                     moves only when it grows by more than 8 (log2 units), O is rescaled only then.
// Valid (heads_per_block, kv_rows_per_tile) pairs: mla_tile_configs().  Default: {64, 32}; v3 default splits 4;
// v4 defaults: 256 softmax threads, algorithm 1 for both GEMMs.
struct TileConfig {
  int heads_per_block = 0;
  int kv_rows_per_tile = 0;
  int num_splits = 0;
  int softmax_threads = 0;
  int scores_algo = 0;
  int output_algo = 0;
  int v5_schedule = 0;
  int v5_cluster = 0;
  int v5_rescale = 0;
};

inline constexpr int kMaxSplits = 64;

// The instantiated tile shapes of v2/v3 (num_splits left 0) and the (d, p) pairs they are compiled for.
std::vector<TileConfig> mla_tile_configs();
bool mla_tensor_core_supports(int d, int p);
std::string to_string(const TileConfig& cfg);

// Effective softmax scale (args.scale, or 1/sqrt(d+p) when it is <= 0).
float mla_scale(const MlaArgs& args);

// v1: one 256-thread block per query row; fp32 dot products and online softmax over t in chunks of 64 keys.
// Needs (d+p) % 8 == 0 and d <= 1024.
void launch_mla_v1(const MlaArgs& args, cudaStream_t stream, const TileConfig& cfg = {});

// v2: one block per (tile of heads_per_block query rows, b); WMMA bf16 x bf16 -> fp32 for Q K^T and P V, online
// softmax in fp32, P rounded to bf16 for the second product.  Needs (d, p) in mla_tensor_core_supports.
void launch_mla_v2(const MlaArgs& args, cudaStream_t stream, const TileConfig& cfg = {});

// v3: split-KV.  Stage 1 writes per (b, row, split) the running max (log2 domain), the sum of exponentials and the
// unnormalised fp32 output into args.workspace; stage 2 merges the splits into o.  launch_mla_v3 runs both.
std::size_t mla_v3_workspace_bytes(const MlaArgs& args, const TileConfig& cfg = {});
void launch_mla_partial(const MlaArgs& args, cudaStream_t stream, const TileConfig& cfg = {});
void launch_mla_combine(const MlaArgs& args, cudaStream_t stream, const TileConfig& cfg = {});
void launch_mla_v3(const MlaArgs& args, cudaStream_t stream, const TileConfig& cfg = {});

// The kernel a launch function would run for `cfg`, for its resource usage (registers, shared memory, local bytes).
// cudaErrorNotSupported when no kernel is compiled for the shape or tile.
enum class MlaKernel { v1, v2, partial, combine };
cudaError_t mla_kernel_attributes(MlaKernel k, const MlaArgs& a, const TileConfig& cfg, cudaFuncAttributes& out);

// ---------------------------------------------------------------------------------------------------------------
// v4: per batch entry, the s*h query rows share one latent kv, so decode attention is two large GEMMs:
//   stage 1 (scores)   S = (Q KV^T) * scale * log2(e)   [b][s*h, t]   cuBLASLt strided-batched, bf16 x bf16 -> fp32
//   stage 2 (softmax)  P = softmax over t of each row of S, normalised, bf16 (one block per row, exp2)
//   stage 3 (output)   O = P V, V = KV[:, :d]           [b][s*h, d]   cuBLASLt strided-batched, bf16 out
// S and P live in buffers the plan owns (row pitch ld() = t rounded up to 64 elements), with the cuBLASLt handle,
// descriptors, heuristic algorithms and a 32 MiB workspace: all created once, in the constructor, for one shape.
// The scores are fp32 by default; ScoreType::bf16 halves their traffic but rounds every logit to 8 significant
// bits, an error that grows with the logits' magnitude (README.md: an experiment, not the package's v4).
// A plan's launches must not run concurrently with each other (they share S, P and the workspace).
// ---------------------------------------------------------------------------------------------------------------
enum class ScoreType { fp32, bf16 };
enum class V4Gemm { scores, output };

class MlaV4Plan {
 public:
  static constexpr int kMaxAlgos = 4;      // heuristic results kept per GEMM
  static constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;

  // For args' shape (b, s, t, h, d, p) and the alignment of its q, kv and o pointers (later launches need pointers
  // at least as aligned).  Throws std::invalid_argument for unusable shapes or when cuBLASLt has no algorithm,
  // std::runtime_error for CUDA / cuBLASLt failures.
  explicit MlaV4Plan(const MlaArgs& args, ScoreType scores = ScoreType::fp32);
  ~MlaV4Plan();
  MlaV4Plan(const MlaV4Plan&) = delete;
  MlaV4Plan& operator=(const MlaV4Plan&) = delete;

  void launch_scores(const MlaArgs& args, cudaStream_t stream, const TileConfig& cfg = {}) const;
  void launch_softmax(const MlaArgs& args, cudaStream_t stream, const TileConfig& cfg = {}) const;
  void launch_output(const MlaArgs& args, cudaStream_t stream, const TileConfig& cfg = {}) const;
  void launch(const MlaArgs& args, cudaStream_t stream, const TileConfig& cfg = {}) const;  // all three

  int algo_count(V4Gemm g) const;                          // 1..kMaxAlgos
  std::string algo_description(V4Gemm g, int rank) const;  // cuBLASLt's algo id, tile, split-k, workspace
  // The softmax kernel launch_softmax would run for cfg (it depends on t and the block size).
  cudaError_t softmax_attributes(const TileConfig& cfg, cudaFuncAttributes& out) const;

  void poison(cudaStream_t stream) const;  // S and P filled with NaN (0xFF bytes)
  void poison_scores(cudaStream_t stream) const;
  void poison_probs(cudaStream_t stream) const;
  ScoreType score_type() const;
  long long ld() const;                    // row pitch of S and P in elements
  const void* scores() const;              // [b, s*h, ld] float or bf16 (by score_type); columns >= t unused
  const __nv_bfloat16* probs() const;      // [b, s*h, ld] bf16; columns t..(t rounded up to 8)-1 are 0, later unused
  std::size_t scores_bytes() const;
  std::size_t probs_bytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The softmax block sizes v4 accepts (its tile space); the default first.
std::vector<int> mla_v4_softmax_threads();

// ---------------------------------------------------------------------------------------------------------------
// v5 (mla_v5.cu): one fused Hopper kernel (sm_90a: wgmma, TMA, mbarriers, setmaxnreg).  A block of 64 query rows
// of one batch entry walks that entry's latent kv in tiles of kv_rows_per_tile rows (64: two shared-memory stages,
// 32: four), fed by a TMA producer warpgroup; one consumer warpgroup computes S = Q K^T and the online softmax and
// O[:, :256] += P V, the other O[:, 256:] += P V with P handed over in shared memory.  Compiled for d = 512, p = 64
// only (mla_v5_supports); needs a compute capability 9.0 GPU.  Throws std::invalid_argument for shapes or tiles it
// does not take.  Tile space: mla_v5_tile_configs() (kv_rows_per_tile, v5_schedule, v5_cluster; the default first).
// ---------------------------------------------------------------------------------------------------------------
// Split-KV (num_splits: 0 = as many splits as fill one wave when the grid of b * ceil(s*h/64) blocks is smaller
// than the GPU, else the given count, at most the kv tiles) needs args.workspace of mla_v5_workspace_bytes(args, cfg)
// bytes (0 without splits): per (row, split) the unnormalised fp32 output, running max and sum (v3's layout), merged
// by a second kernel in the same launch function.
std::vector<TileConfig> mla_v5_tile_configs();
bool mla_v5_supports(int d, int p);
std::size_t mla_v5_workspace_bytes(const MlaArgs& args, const TileConfig& cfg = {});
void launch_mla_v5(const MlaArgs& args, cudaStream_t stream, const TileConfig& cfg = {});
// The kernel launch_mla_v5 would run for cfg (cudaErrorNotSupported for a tile it does not have).
cudaError_t mla_v5_attributes(const TileConfig& cfg, cudaFuncAttributes& out);

}  // namespace mla
