// The gemm package's kernels as host-callable launchers (C = A·B; A m×k, B k×n row-major bf16, C fp32), and
// GemmData: device buffers, random inputs and the sampled float64 reference. gemm_bias_relu reuses both.
#pragma once
#include <cuda_bf16.h>

#include <cstdint>
#include <vector>

#include "core/package.hpp"

namespace kprof::kernels::gemm {

struct GemmArgs {
  const __nv_bfloat16* a = nullptr;
  const __nv_bfloat16* b = nullptr;
  float* c = nullptr;
  int m = 0, n = 0, k = 0;
};

// v1: one thread per output. v2: shared-memory tiles (tile space bm, bn). v3: WMMA tensor cores (bm, bn, wm, wn).
std::vector<TileConfig> tiled_space();
std::vector<TileConfig> wmma_space();
cudaError_t launch_naive(const GemmArgs& g, cudaStream_t s);
cudaError_t attributes_naive(cudaFuncAttributes& out);
cudaError_t launch_tiled(const TileConfig& c, const GemmArgs& g, cudaStream_t s);
cudaError_t attributes_tiled(const TileConfig& c, cudaFuncAttributes& out);
cudaError_t launch_wmma(const TileConfig& c, const GemmArgs& g, cudaStream_t s);
cudaError_t attributes_wmma(const TileConfig& c, cudaFuncAttributes& out);

// FLOPs 2mnk; minimum bytes 2(mk + kn) + 4mn (bf16 inputs read once, fp32 output written once).
plan::StageSpec gemm_stage(const Params& p, std::vector<TileConfig> space);
int checked_int(const Params& p, const char* name);  // throws std::invalid_argument past 2^31 - 1

// Reference: each sampled output recomputed on the host in float64 from the same bf16 inputs. Error measure:
// |c - ref| / Σ|a·b| over the dot product, bound 2^-14 (fp32 accumulation of bf16 products stays near
// sqrt(k)·2^-24; one dropped product already costs 1/k, caught for k < 16384). NaN fails.
constexpr double kGemmErrorBound = 1.0 / 16384;
constexpr std::size_t kSampledOutputs = 4096;

class GemmData {
 public:
  GemmData(const Params& p);
  ~GemmData();
  GemmData(const GemmData&) = delete;
  GemmData& operator=(const GemmData&) = delete;
  void setup(std::uint64_t seed);
  GemmArgs args() const { return {d_a_, d_b_, d_c_, m_, n_, k_}; }
  void poison_c();
  CheckResult check_c() const;
  // Sampled positions with their float64 reference and Σ|a·b| (for epilogue references).
  const std::vector<std::pair<std::int64_t, std::int64_t>>& samples() const { return samples_; }
  const std::vector<double>& reference() const { return ref_; }
  const std::vector<double>& reference_abs() const { return ref_abs_; }
  int m() const { return m_; }
  int n() const { return n_; }
  float* c() const { return d_c_; }

 private:
  int m_, n_, k_;
  __nv_bfloat16* d_a_ = nullptr;
  __nv_bfloat16* d_b_ = nullptr;
  float* d_c_ = nullptr;
  std::vector<std::pair<std::int64_t, std::int64_t>> samples_;
  std::vector<double> ref_, ref_abs_;
};

}  // namespace kprof::kernels::gemm
