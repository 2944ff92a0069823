// Package `mla`: multi-head latent attention decode, bf16 (kernels/mla/README.md for shapes and versions).
//   v1  one block per query row, fp32 math (single kernel)
//   v2  tensor cores (WMMA), heads x kv-row tiles in shared memory, online softmax (single kernel, tunable tile)
//   v3  split-KV: partial attention per kv split, then a combine kernel (KernelPipeline, tunable tile and splits)
// FLOPs = b*s*h*2*t*(2d+p); minimum bytes = KV cache + Q + O.
#include <cmath>
#include <cstdio>
#include <limits>

#include "util/cuda_check.hpp"
#include "core/host_data.hpp"
#include "core/package.hpp"
#include "mla_kernels.cuh"
#include "mla_reference.hpp"

namespace kprof::kernels::mla_pkg {

namespace {

int int_param(const Params& p, const char* name) {
  auto v = p.at(name);
  if (v <= 0 || v > std::numeric_limits<int>::max()) throw std::invalid_argument(std::string("--") + name + " out of range");
  return static_cast<int>(v);
}

::mla::MlaShape shape_of(const Params& p) {
  return {int_param(p, "b"), int_param(p, "s"), int_param(p, "t"), int_param(p, "h"), int_param(p, "d"),
          int_param(p, "p")};
}

::mla::TileConfig to_mla(const TileConfig& c) {
  ::mla::TileConfig t;
  if (auto it = c.find("heads"); it != c.end()) t.heads_per_block = it->second;
  if (auto it = c.find("kv_rows"); it != c.end()) t.kv_rows_per_tile = it->second;
  if (auto it = c.find("splits"); it != c.end()) t.num_splits = it->second;
  return t;
}

std::vector<TileConfig> tile_space(bool splits) {
  std::vector<TileConfig> out;
  // The default (64 x 32) first: the runner uses the first entry when nothing is tuned.
  std::vector<::mla::TileConfig> tiles = ::mla::mla_tile_configs();
  std::stable_sort(tiles.begin(), tiles.end(), [](const auto& a, const auto&) { return a.heads_per_block == 64; });
  for (const auto& t : tiles) {
    if (!splits) {
      out.push_back({{"heads", t.heads_per_block}, {"kv_rows", t.kv_rows_per_tile}});
      continue;
    }
    for (int sp : {4, 8, 16}) out.push_back({{"heads", t.heads_per_block}, {"kv_rows", t.kv_rows_per_tile}, {"splits", sp}});
  }
  return out;
}

class Instance final : public kernels::Instance {
 public:
  Instance(const Params& p, int version) : shape_(shape_of(p)), version_(version) {}
  ~Instance() override {
    for (void* b : {static_cast<void*>(q_), static_cast<void*>(kv_), static_cast<void*>(o_), ws_}) cudaFree(b);
  }
  void setup(std::uint64_t seed) override {
    const auto& sh = shape_;
    const std::size_t nq = static_cast<std::size_t>(sh.query_rows()) * sh.dk();
    const std::size_t nkv = static_cast<std::size_t>(sh.b) * sh.t * sh.dk();
    no_ = static_cast<std::size_t>(sh.query_rows()) * sh.d;
    SplitMix rng(seed);
    host_q_.resize(nq);
    host_kv_.resize(nkv);
    for (auto& v : host_q_) v = float_to_bf16(rng.nonzero_unit());
    for (auto& v : host_kv_) v = float_to_bf16(rng.nonzero_unit());
    CUDA_CHECK(cudaMalloc(&q_, nq * 2));
    CUDA_CHECK(cudaMalloc(&kv_, nkv * 2));
    CUDA_CHECK(cudaMalloc(&o_, no_ * 2));
    CUDA_CHECK(cudaMemcpy(q_, host_q_.data(), nq * 2, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(kv_, host_kv_.data(), nkv * 2, cudaMemcpyHostToDevice));
    if (version_ == 3) {
      // Workspace for the largest split count in the tile space.
      ::mla::TileConfig big;
      big.num_splits = 16;
      ws_bytes_ = ::mla::mla_v3_workspace_bytes(args(), big);
      CUDA_CHECK(cudaMalloc(&ws_, ws_bytes_));
    }
  }
  cudaError_t launch(int stage, const TileConfig& cfg, cudaStream_t s) override {
    ::mla::TileConfig tc = to_mla(cfg);
    try {
      if (version_ == 1) ::mla::launch_mla_v1(args(), s, tc);
      else if (version_ == 2) ::mla::launch_mla_v2(args(), s, tc);
      else if (stage == 0) {
        split_cfg_ = tc;  // the combine stage must use the partial stage's splits and tile
        ::mla::launch_mla_partial(args(), s, tc);
      } else {
        ::mla::launch_mla_combine(args(), s, split_cfg_);
      }
    } catch (const std::invalid_argument&) {
      return cudaErrorInvalidConfiguration;  // the launch function rejected the shape or config
    } catch (const std::exception&) {
      cudaError_t e = cudaGetLastError();
      return e == cudaSuccess ? cudaErrorLaunchFailure : e;
    }
    return cudaGetLastError();
  }
  cudaError_t attributes(int stage, const TileConfig& cfg, cudaFuncAttributes& out) override {
    using K = ::mla::MlaKernel;
    K k = version_ == 1 ? K::v1 : version_ == 2 ? K::v2 : stage == 0 ? K::partial : K::combine;
    cudaError_t e = ::mla::mla_kernel_attributes(k, args(), stage == 1 && version_ == 3 ? split_cfg_ : to_mla(cfg), out);
    return e == cudaErrorNotSupported ? kNotInstantiated : e;
  }
  void poison(int stage) override {
    // The output (and, before the partial stage, the workspace) full of NaN: nothing unwritten can pass.
    if (version_ != 3 || stage == 1) CUDA_CHECK(cudaMemset(o_, 0xFF, no_ * 2));
    if (version_ == 3 && stage == 0) CUDA_CHECK(cudaMemset(ws_, 0xFF, ws_bytes_));
  }
  // v3's partial stage has no output of its own to compare: its result is checked through the combine stage.
  CheckResult check(int stage) override {
    CheckResult r;
    if (version_ == 3 && stage == 0) {
      r.ok = true;
      r.detail = "partial results are checked through the combine stage";
      return r;
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<std::uint16_t> o(no_);
    CUDA_CHECK(cudaMemcpy(o.data(), o_, no_ * 2, cudaMemcpyDeviceToHost));
    auto rows = ::mla::mla_sample_rows(shape_, 64, 1234);
    auto ref = ::mla::mla_reference_rows(shape_, host_q_.data(), host_kv_.data(), rows, ::mla::mla_scale(args()));
    double err = ::mla::mla_relative_error(shape_, o.data(), rows, ref);
    long long bad = ::mla::mla_count_nonfinite(o.data(), static_cast<long long>(no_));
    r.bound = ::mla::kMlaErrorBound;
    r.max_error = std::isfinite(err) ? err : std::numeric_limits<double>::infinity();
    r.checked = rows.size() * static_cast<std::size_t>(shape_.d);
    char buf[160];
    std::snprintf(buf, sizeof buf, "||o - ref|| / ||ref|| = %.3g over %zu sampled rows; %lld non-finite outputs",
                  err, rows.size(), bad);
    r.detail = buf;
    r.ok = bad == 0 && ::mla::mla_error_passes(err);
    return r;
  }

 private:
  ::mla::MlaArgs args() const {
    ::mla::MlaArgs a;
    a.q = reinterpret_cast<const __nv_bfloat16*>(q_);
    a.kv = reinterpret_cast<const __nv_bfloat16*>(kv_);
    a.o = reinterpret_cast<__nv_bfloat16*>(o_);
    a.b = shape_.b, a.s = shape_.s, a.t = shape_.t, a.h = shape_.h, a.d = shape_.d, a.p = shape_.p;
    a.workspace = ws_;
    a.workspace_bytes = ws_bytes_;
    return a;
  }

  ::mla::MlaShape shape_;
  int version_;
  std::size_t no_ = 0, ws_bytes_ = 0;
  std::vector<std::uint16_t> host_q_, host_kv_;
  std::uint16_t *q_ = nullptr, *kv_ = nullptr, *o_ = nullptr;
  void* ws_ = nullptr;
  ::mla::TileConfig split_cfg_;
};

plan::KernelPlan mla_plan(const Params& p, int version) {
  auto sh = shape_of(p);
  const double flops = static_cast<double>(sh.query_rows()) * 2.0 * sh.t * (2.0 * sh.d + sh.p);
  const double kv_bytes = 2.0 * sh.b * sh.t * sh.dk();
  const double q_bytes = 2.0 * sh.query_rows() * sh.dk(), o_bytes = 2.0 * sh.query_rows() * sh.d;
  plan::KernelPlan kp;
  if (version < 3) {
    kp.kind = plan::PlanKind::single;
    plan::StageSpec st{"mla_decode", flops, kv_bytes + q_bytes + o_bytes, "bf16", 0, {}};
    if (version == 2) st.tile_space = tile_space(false);
    kp.stages.push_back(st);
    return kp;
  }
  // Split-KV: the partial stage writes per-split fp32 partials (d + 2 floats per row and split) that the combine
  // stage reads back; their traffic is real but not part of the problem's minimum, so the minimum stays with the
  // plan: inputs in the first stage, the output in the second.
  kp.kind = plan::PlanKind::pipeline;
  plan::StageSpec partial{"mla_partial", flops, kv_bytes + q_bytes, "bf16", 0, tile_space(true)};
  plan::StageSpec combine{"mla_combine", 0.0, o_bytes, "fp32", 0, {}};
  kp.stages = {partial, combine};
  return kp;
}

PackageEntry mla_package() {
  PackageEntry p;
  p.info.name = "mla";
  p.info.description = "multi-head latent attention decode: q [b,s,h,d+p] against a latent KV cache [b,t,d+p]";
  p.info.params = {{"b", 32, "batch"}, {"s", 16, "query tokens per sequence"}, {"t", 4096, "cached tokens"},
                   {"h", 128, "heads"}, {"d", 512, "latent (value) width"}, {"p", 64, "rope width"}};
  p.info.dtype = "bf16";
  const char* desc[] = {"straightforward: one block per query row, fp32 math, online softmax",
                        "tiled tensor cores (WMMA bf16, fp32 accumulate), flash-style online softmax",
                        "split-KV pipeline: partial attention per kv split, then combine"};
  for (int v = 1; v <= 3; ++v) {
    VersionEntry e;
    e.info = {"v" + std::to_string(v), desc[v - 1]};
    e.plan = [v](const Params& prm) { return mla_plan(prm, v); };
    e.create = [v](const Params& prm) { return std::make_unique<Instance>(prm, v); };
    p.versions.push_back(e);
  }
  return p;
}

}  // namespace

KPROF_REGISTER_PACKAGE(mla_package);

}  // namespace kprof::kernels::mla_pkg
