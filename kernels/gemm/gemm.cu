// Package `gemm`: C = A·B, bf16 inputs, fp32 accumulate and output. Three versions, each correct first:
//   v1 naive (one thread per output), v2 shared-memory tiles, v3 tensor cores through WMMA.
#include <mma.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

#include "util/cuda_check.hpp"
#include "core/host_data.hpp"
#include "gemm/gemm_kernels.hpp"

namespace kprof::kernels::gemm {

using bf16 = __nv_bfloat16;
using GemmFn = void (*)(const bf16*, const bf16*, float*, int, int, int);

// ---------------------------------------------------------------- v1: one thread per output element
__global__ void gemm_naive(const bf16* __restrict__ A, const bf16* __restrict__ B, float* __restrict__ C, int M,
                           int N, int K) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  const bf16* a = A + static_cast<size_t>(row) * K;
  float acc = 0.f;
  for (int kk = 0; kk < K; ++kk) acc = fmaf(__bfloat162float(a[kk]), __bfloat162float(B[static_cast<size_t>(kk) * N + col]), acc);
  C[static_cast<size_t>(row) * N + col] = acc;
}

// ---------------------------------------------------------------- v2: shared-memory tiles, 256 threads
// Block tile BM×BN, K step 16; thread (tx, ty) of a 16×16 grid owns outputs (ty + 16i, tx + 16j), so the warp's
// shared-memory reads of B are consecutive and those of A are broadcasts. A is stored transposed, padded by one.
template <int BM, int BN>
__global__ void __launch_bounds__(256) gemm_tiled(const bf16* __restrict__ A, const bf16* __restrict__ B,
                                                  float* __restrict__ C, int M, int N, int K) {
  constexpr int BK = 16, TM = BM / 16, TN = BN / 16;
  __shared__ float As[BK][BM + 1];
  __shared__ float Bs[BK][BN];
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;
  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int idx = tid; idx < BM * BK; idx += 256) {
      int i = idx / BK, kk = idx % BK, r = row0 + i, c = k0 + kk;
      As[kk][i] = (r < M && c < K) ? __bfloat162float(A[static_cast<size_t>(r) * K + c]) : 0.f;
    }
    for (int idx = tid; idx < BK * BN; idx += 256) {
      int kk = idx / BN, j = idx % BN, r = k0 + kk, c = col0 + j;
      Bs[kk][j] = (r < K && c < N) ? __bfloat162float(B[static_cast<size_t>(r) * N + c]) : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = As[kk][ty + 16 * i];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = Bs[kk][tx + 16 * j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      int r = row0 + ty + 16 * i, c = col0 + tx + 16 * j;
      if (r < M && c < N) C[static_cast<size_t>(r) * N + c] = acc[i][j];
    }
}

// ---------------------------------------------------------------- v3: WMMA (HMMA) tensor cores
// Block tile BM×BN over a WM×WN grid of warps, K step 32. Tiles are staged in shared memory (16-byte loads when the
// tile is inside the matrix and rows are 16-byte aligned, guarded scalar loads otherwise); rows are padded by
// 8 elements (16 bytes), which keeps every fragment pointer 32-byte aligned. Each warp writes its 16×16
// accumulators through a shared scratch tile so partial tiles at the edges are stored with bounds checks.
template <int BM, int BN, int WM, int WN>
__global__ void __launch_bounds__(WM * WN * 32) gemm_wmma(const bf16* __restrict__ A, const bf16* __restrict__ B,
                                                        float* __restrict__ C, int M, int N, int K) {
  using namespace nvcuda;
  constexpr int BK = 32, NT = WM * WN * 32, FM = BM / (WM * 16), FN = BN / (WN * 16);
  constexpr int LDA = BK + 8, LDB = BN + 8;
  static_assert(FM >= 1 && FN >= 1 && BM % (WM * 16) == 0 && BN % (WN * 16) == 0, "tile shape");
  __shared__ __align__(128) bf16 As[BM * LDA];
  __shared__ __align__(128) bf16 Bs[BK * LDB];
  __shared__ __align__(128) float Cs[WM * WN][16 * 16];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int wr = warp / WN, wc = warp % WN;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[FM][FN];
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.f);

  const bf16 zero = __float2bfloat16(0.f);
  for (int k0 = 0; k0 < K; k0 += BK) {
    if (row0 + BM <= M && k0 + BK <= K && K % 8 == 0) {
      for (int idx = tid; idx < BM * BK / 8; idx += NT) {
        int i = idx / (BK / 8), c8 = idx % (BK / 8);
        *reinterpret_cast<uint4*>(&As[i * LDA + c8 * 8]) =
            *reinterpret_cast<const uint4*>(&A[static_cast<size_t>(row0 + i) * K + k0 + c8 * 8]);
      }
    } else {
      for (int idx = tid; idx < BM * BK; idx += NT) {
        int i = idx / BK, kk = idx % BK, r = row0 + i, c = k0 + kk;
        As[i * LDA + kk] = (r < M && c < K) ? A[static_cast<size_t>(r) * K + c] : zero;
      }
    }
    if (k0 + BK <= K && col0 + BN <= N && N % 8 == 0) {
      for (int idx = tid; idx < BK * BN / 8; idx += NT) {
        int kk = idx / (BN / 8), c8 = idx % (BN / 8);
        *reinterpret_cast<uint4*>(&Bs[kk * LDB + c8 * 8]) =
            *reinterpret_cast<const uint4*>(&B[static_cast<size_t>(k0 + kk) * N + col0 + c8 * 8]);
      }
    } else {
      for (int idx = tid; idx < BK * BN; idx += NT) {
        int kk = idx / BN, j = idx % BN, r = k0 + kk, c = col0 + j;
        Bs[kk * LDB + j] = (r < K && c < N) ? B[static_cast<size_t>(r) * N + c] : zero;
      }
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> af[FM];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major> bfr[FN];
#pragma unroll
      for (int i = 0; i < FM; ++i) wmma::load_matrix_sync(af[i], &As[(wr * FM * 16 + i * 16) * LDA + kk], LDA);
#pragma unroll
      for (int j = 0; j < FN; ++j) wmma::load_matrix_sync(bfr[j], &Bs[kk * LDB + wc * FN * 16 + j * 16], LDB);
#pragma unroll
      for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], af[i], bfr[j], acc[i][j]);
    }
    __syncthreads();
  }
  float* cs = Cs[warp];
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int j = 0; j < FN; ++j) {
      wmma::store_matrix_sync(cs, acc[i][j], 16, wmma::mem_row_major);
      __syncwarp();
      for (int e = lane; e < 256; e += 32) {
        int r = row0 + wr * FM * 16 + i * 16 + e / 16, c = col0 + wc * FN * 16 + j * 16 + e % 16;
        if (r < M && c < N) C[static_cast<size_t>(r) * N + c] = cs[e];
      }
      __syncwarp();
    }
}

// ---------------------------------------------------------------- config → instantiation
namespace {
int get(const TileConfig& c, const char* k) {
  auto it = c.find(k);
  return it == c.end() ? -1 : it->second;
}

struct Choice {
  GemmFn fn = nullptr;
  dim3 block;
  int bm = 0, bn = 0;
};

// The instantiated configs; the tile spaces below list exactly these.
#define KPROF_TILED_CONFIGS(X) X(32, 32) X(64, 64) X(128, 64) X(64, 128) X(128, 128)
#define KPROF_WMMA_CONFIGS(X) X(64, 64, 2, 2) X(128, 64, 2, 2) X(64, 128, 2, 2) X(128, 128, 2, 2) X(128, 128, 2, 4) X(256, 128, 4, 2)

Choice tiled_choice(const TileConfig& c) {
#define X(BM, BN) \
  if (get(c, "bm") == BM && get(c, "bn") == BN && c.size() == 2) return Choice{gemm_tiled<BM, BN>, dim3(256), BM, BN};
  KPROF_TILED_CONFIGS(X)
#undef X
  return {};
}

Choice wmma_choice(const TileConfig& c) {
#define X(BM, BN, WM, WN)                                                                               \
  if (get(c, "bm") == BM && get(c, "bn") == BN && get(c, "wm") == WM && get(c, "wn") == WN && c.size() == 4) \
    return Choice{gemm_wmma<BM, BN, WM, WN>, dim3(WM * WN * 32), BM, BN};
  KPROF_WMMA_CONFIGS(X)
#undef X
  return {};
}

cudaError_t launch_choice(const Choice& ch, const GemmArgs& g, cudaStream_t s) {
  if (!ch.fn) return kNotInstantiated;
  dim3 grid((g.n + ch.bn - 1) / ch.bn, (g.m + ch.bm - 1) / ch.bm);
  ch.fn<<<grid, ch.block, 0, s>>>(g.a, g.b, g.c, g.m, g.n, g.k);
  return cudaGetLastError();
}

cudaError_t attributes_of(const Choice& ch, cudaFuncAttributes& out) {
  if (!ch.fn) return kNotInstantiated;
  return cudaFuncGetAttributes(&out, reinterpret_cast<const void*>(ch.fn));
}
}  // namespace

std::vector<TileConfig> tiled_space() {
  std::vector<TileConfig> s;
#define X(BM, BN) s.push_back({{"bm", BM}, {"bn", BN}});
  KPROF_TILED_CONFIGS(X)
#undef X
  return s;
}

std::vector<TileConfig> wmma_space() {
  std::vector<TileConfig> s;
#define X(BM, BN, WM, WN) s.push_back({{"bm", BM}, {"bn", BN}, {"wm", WM}, {"wn", WN}});
  KPROF_WMMA_CONFIGS(X)
#undef X
  return s;
}

cudaError_t launch_naive(const GemmArgs& g, cudaStream_t s) {
  dim3 block(16, 16), grid((g.n + 15) / 16, (g.m + 15) / 16);
  gemm_naive<<<grid, block, 0, s>>>(g.a, g.b, g.c, g.m, g.n, g.k);
  return cudaGetLastError();
}
cudaError_t attributes_naive(cudaFuncAttributes& out) {
  return cudaFuncGetAttributes(&out, reinterpret_cast<const void*>(gemm_naive));
}
cudaError_t launch_tiled(const TileConfig& c, const GemmArgs& g, cudaStream_t s) { return launch_choice(tiled_choice(c), g, s); }
cudaError_t attributes_tiled(const TileConfig& c, cudaFuncAttributes& out) { return attributes_of(tiled_choice(c), out); }
cudaError_t launch_wmma(const TileConfig& c, const GemmArgs& g, cudaStream_t s) { return launch_choice(wmma_choice(c), g, s); }
cudaError_t attributes_wmma(const TileConfig& c, cudaFuncAttributes& out) { return attributes_of(wmma_choice(c), out); }

// ---------------------------------------------------------------- plan, data, reference
int checked_int(const Params& p, const char* name) {
  auto v = p.at(name);
  if (v <= 0 || v > std::numeric_limits<int>::max())
    throw std::invalid_argument(std::string("--") + name + " must be in 1 .. 2^31-1");
  return static_cast<int>(v);
}

plan::StageSpec gemm_stage(const Params& p, std::vector<TileConfig> space) {
  double m = checked_int(p, "m"), n = checked_int(p, "n"), k = checked_int(p, "k");
  plan::StageSpec s;
  s.name = "gemm";
  s.flops = 2.0 * m * n * k;
  s.min_bytes = 2.0 * (m * k + k * n) + 4.0 * m * n;
  s.precision = "bf16";
  s.tile_space = std::move(space);
  return s;
}

GemmData::GemmData(const Params& p) : m_(checked_int(p, "m")), n_(checked_int(p, "n")), k_(checked_int(p, "k")) {}

GemmData::~GemmData() {
  cudaFree(d_a_);  // teardown: errors here cannot be acted on
  cudaFree(d_b_);
  cudaFree(d_c_);
}

void GemmData::setup(std::uint64_t seed) {
  size_t na = static_cast<size_t>(m_) * k_, nb = static_cast<size_t>(k_) * n_, nc = static_cast<size_t>(m_) * n_;
  std::vector<std::uint16_t> a(na), b(nb);
  SplitMix rng(seed);
  for (auto& x : a) x = float_to_bf16(rng.nonzero_unit());
  for (auto& x : b) x = float_to_bf16(rng.nonzero_unit());
  CUDA_CHECK(cudaMalloc(&d_a_, na * 2));
  CUDA_CHECK(cudaMalloc(&d_b_, nb * 2));
  CUDA_CHECK(cudaMalloc(&d_c_, nc * 4));
  CUDA_CHECK(cudaMemcpy(d_a_, a.data(), na * 2, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_b_, b.data(), nb * 2, cudaMemcpyHostToDevice));
  samples_ = sample_positions(m_, n_, kSampledOutputs, seed);
  ref_.assign(samples_.size(), 0.0);
  ref_abs_.assign(samples_.size(), 0.0);
  for (size_t s = 0; s < samples_.size(); ++s) {
    auto [r, c] = samples_[s];
    double acc = 0, acc_abs = 0;
    for (int kk = 0; kk < k_; ++kk) {
      double prod = static_cast<double>(bf16_to_float(a[static_cast<size_t>(r) * k_ + kk])) *
                    static_cast<double>(bf16_to_float(b[static_cast<size_t>(kk) * n_ + c]));
      acc += prod;
      acc_abs += std::fabs(prod);
    }
    ref_[s] = acc;
    ref_abs_[s] = acc_abs;
  }
}

void GemmData::poison_c() { CUDA_CHECK(cudaMemset(d_c_, 0xFF, static_cast<size_t>(m_) * n_ * 4)); }  // all-ones = NaN

CheckResult GemmData::check_c() const {
  std::vector<float> c(static_cast<size_t>(m_) * n_);
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(c.data(), d_c_, c.size() * 4, cudaMemcpyDeviceToHost));
  CheckResult res;
  res.bound = kGemmErrorBound;
  res.checked = samples_.size();
  for (size_t s = 0; s < samples_.size(); ++s) {
    auto [r, col] = samples_[s];
    double got = c[static_cast<size_t>(r) * n_ + col];
    double err = std::fabs(got - ref_[s]) / ref_abs_[s];
    double e = std::isfinite(err) ? err : std::numeric_limits<double>::infinity();  // NaN output fails
    if (s == 0 || e > res.max_error) {
      res.max_error = e;
      char buf[200];
      std::snprintf(buf, sizeof buf, "C[%lld][%lld] = %.9g, reference %.9g (sum |a*b| %.6g)",
                    static_cast<long long>(r), static_cast<long long>(col), got, ref_[s], ref_abs_[s]);
      res.detail = buf;
    }
  }
  res.ok = res.max_error <= res.bound;
  return res;
}

// ---------------------------------------------------------------- the package
namespace {
class GemmInstance : public Instance {
 public:
  GemmInstance(const Params& p, int version) : data_(p), version_(version) {}
  void setup(std::uint64_t seed) override { data_.setup(seed); }
  cudaError_t launch(int, const TileConfig& c, cudaStream_t s) override {
    if (version_ == 1) return launch_naive(data_.args(), s);
    if (version_ == 2) return launch_tiled(c, data_.args(), s);
    return launch_wmma(c, data_.args(), s);
  }
  cudaError_t attributes(int, const TileConfig& c, cudaFuncAttributes& out) override {
    if (version_ == 1) return attributes_naive(out);
    if (version_ == 2) return attributes_tiled(c, out);
    return attributes_wmma(c, out);
  }
  void poison(int) override { data_.poison_c(); }
  CheckResult check(int) override { return data_.check_c(); }

 private:
  GemmData data_;
  int version_;
};

VersionEntry gemm_version(int v, const char* name, const char* description) {
  VersionEntry e;
  e.info = {name, description};
  e.plan = [v](const Params& p) {
    plan::KernelPlan kp;
    kp.kind = plan::PlanKind::single;
    kp.stages = {gemm_stage(p, v == 1 ? std::vector<TileConfig>{} : v == 2 ? tiled_space() : wmma_space())};
    return kp;
  };
  e.create = [v](const Params& p) { return std::make_unique<GemmInstance>(p, v); };
  return e;
}

PackageEntry gemm_package() {
  PackageEntry p;
  p.info.name = "gemm";
  p.info.description = "C = A*B (A m x k, B k x n, row-major), bf16 inputs, fp32 accumulate and output";
  p.info.params = {{"m", 4096, "rows of A and C"}, {"n", 4096, "columns of B and C"}, {"k", 4096, "inner dimension"}};
  p.info.dtype = "bf16";
  p.versions = {gemm_version(1, "v1", "naive: one thread per output, fp32 FMA from global memory"),
                gemm_version(2, "v2", "shared-memory tiles (bm x bn block tile, 16 x 16 threads, k step 16)"),
                gemm_version(3, "v3", "tensor cores via WMMA 16x16x16 bf16, fp32 accumulate (bm, bn, warp grid)")};
  return p;
}
}  // namespace

KPROF_REGISTER_PACKAGE(gemm_package);

}  // namespace kprof::kernels::gemm
