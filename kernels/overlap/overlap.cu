// Package `overlap`: two independent stages, each a deliberately under-filled grid (half the SMs, one block each)
// of latency-bound work, so that running them on two streams overlaps them. v1 runs them one after the other on
// one stream (KernelPipeline without data flow), v2 on two streams (ConcurrentKernels); compare the plan times.
#include <cmath>
#include <cstdio>
#include <limits>

#include "util/cuda_check.hpp"
#include "core/host_data.hpp"
#include "core/package.hpp"

namespace kprof::kernels::overlap {

// Rotates each (u, v) pair `iters` times by a fixed angle: norm-preserving, so the result neither converges nor
// blows up, and every skipped iteration shows.
__global__ void rotate_chain(const float2* __restrict__ x, float2* __restrict__ y, int n, int iters, float c, float s) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float u = x[i].x, v = x[i].y;
    for (int t = 0; t < iters; ++t) {
      float u2 = fmaf(u, c, -v * s);
      v = fmaf(u, s, v * c);
      u = u2;
    }
    y[i] = make_float2(u, v);
  }
}

namespace {
constexpr int kThreads = 256;
constexpr double kAngle = 0.01;

int int_param(const Params& p, const char* name) {
  auto v = p.at(name);
  if (v <= 0 || v > std::numeric_limits<int>::max()) throw std::invalid_argument(std::string("--") + name + " out of range");
  return static_cast<int>(v);
}

class Instance final : public kernels::Instance {
 public:
  explicit Instance(const Params& p) : n_(int_param(p, "n")), iters_(int_param(p, "iters")) {}
  ~Instance() override {
    for (auto* b : {x_[0], x_[1], y_[0], y_[1]}) cudaFree(b);
  }
  void setup(std::uint64_t seed) override {
    int dev = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    blocks_ = std::max(1, sms / 2);
    SplitMix rng(seed);
    for (int st = 0; st < 2; ++st) {
      host_x_[st].resize(n_);
      for (auto& e : host_x_[st]) e = make_float2(rng.nonzero_unit(), rng.nonzero_unit());
      CUDA_CHECK(cudaMalloc(&x_[st], n_ * sizeof(float2)));
      CUDA_CHECK(cudaMalloc(&y_[st], n_ * sizeof(float2)));
      CUDA_CHECK(cudaMemcpy(x_[st], host_x_[st].data(), n_ * sizeof(float2), cudaMemcpyHostToDevice));
    }
  }
  cudaError_t launch(int stage, const TileConfig&, cudaStream_t s) override {
    rotate_chain<<<blocks_, kThreads, 0, s>>>(x_[stage], y_[stage], n_, iters_, c_, s_);
    return cudaGetLastError();
  }
  cudaError_t attributes(int, const TileConfig&, cudaFuncAttributes& out) override {
    return cudaFuncGetAttributes(&out, reinterpret_cast<const void*>(rotate_chain));
  }
  void poison(int stage) override { CUDA_CHECK(cudaMemset(y_[stage], 0xFF, n_ * sizeof(float2))); }
  // float64 replay of the same fp32 constants; error relative to the pair's norm, bound 8·iters·2^-24
  // (a few roundings per step, growing at most linearly).
  CheckResult check(int stage) override {
    std::vector<float2> y(n_);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(y.data(), y_[stage], n_ * sizeof(float2), cudaMemcpyDeviceToHost));
    CheckResult res;
    res.bound = std::max(1e-6, 8.0 * iters_ * std::ldexp(1.0, -24));
    auto picks = sample_positions(1, n_, 2048, 99 + stage);
    res.checked = picks.size();
    for (size_t k = 0; k < picks.size(); ++k) {
      int i = static_cast<int>(picks[k].second);
      double u = host_x_[stage][i].x, v = host_x_[stage][i].y, c = c_, s = s_;
      double norm = std::hypot(u, v);
      for (int t = 0; t < iters_; ++t) {
        double u2 = u * c - v * s;
        v = u * s + v * c;
        u = u2;
      }
      double err = std::hypot(y[i].x - u, y[i].y - v) / norm;
      double e = std::isfinite(err) ? err : std::numeric_limits<double>::infinity();
      if (k == 0 || e > res.max_error) {
        res.max_error = e;
        char buf[200];
        std::snprintf(buf, sizeof buf, "y[%d] = (%.7g, %.7g), reference (%.9g, %.9g)", i, y[i].x, y[i].y, u, v);
        res.detail = buf;
      }
    }
    res.ok = res.max_error <= res.bound;
    return res;
  }

 private:
  int n_, iters_, blocks_ = 1;
  float c_ = static_cast<float>(std::cos(kAngle)), s_ = static_cast<float>(std::sin(kAngle));
  std::vector<float2> host_x_[2];
  float2* x_[2] = {nullptr, nullptr};
  float2* y_[2] = {nullptr, nullptr};
};

plan::KernelPlan overlap_plan(const Params& p, bool concurrent) {
  double n = int_param(p, "n"), iters = int_param(p, "iters");
  plan::KernelPlan kp;
  kp.kind = concurrent ? plan::PlanKind::concurrent : plan::PlanKind::pipeline;
  for (int st = 0; st < 2; ++st) {
    plan::StageSpec s;
    s.name = st == 0 ? "rotate_a" : "rotate_b";
    s.flops = 6.0 * n * iters;  // per step: 2 mul + 2 fma
    s.min_bytes = 16.0 * n;     // read and write one float2 per element
    s.precision = "fp32";
    s.stream = concurrent ? st : 0;
    kp.stages.push_back(s);
  }
  return kp;
}

PackageEntry overlap_package() {
  PackageEntry p;
  p.info.name = "overlap";
  p.info.description = "two independent under-filled latency-bound kernels (half the SMs each): serial vs concurrent";
  p.info.params = {{"n", 1 << 21, "float2 elements per stage"}, {"iters", 512, "rotation steps per element"}};
  p.info.dtype = "fp32";
  VersionEntry v1, v2;
  v1.info = {"v1", "serial: both stages on one stream, one after the other"};
  v1.plan = [](const Params& prm) { return overlap_plan(prm, false); };
  v1.create = [](const Params& prm) { return std::make_unique<Instance>(prm); };
  v2.info = {"v2", "concurrent: each stage on its own stream, so the two half-filled grids share the GPU"};
  v2.plan = [](const Params& prm) { return overlap_plan(prm, true); };
  v2.create = v1.create;
  p.versions = {v1, v2};
  return p;
}
}  // namespace

KPROF_REGISTER_PACKAGE(overlap_package);

}  // namespace kprof::kernels::overlap
