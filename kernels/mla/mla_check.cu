// mla_check: correctness and timing of every MLA decode version against a float64 reference.
//
//   mla_check [--b N] [--s N] [--t N] [--h N] [--d N] [--p N] [--typical] [--seed N] [--rows N] [--reps N]
//             [--warmup N] [--qrange X] [--versions LIST]
//
// Fresh random inputs each run (seed printed; --seed reproduces), output poisoned with NaN before each version,
// sampled rows checked against the reference, the whole output checked for unwritten/non-finite elements, and the
// output compared bit for bit after the timing runs (a change means a race).  v4 runs every value of each of its
// tunables (softmax block size, each GEMM's cuBLASLt algorithm) with the others at their defaults; v4bf is v4 with
// bf16 scores (an experiment: README.md); v5 runs every config of its tile space (and must refuse, with
// std::invalid_argument, a (d, p) it is not compiled for).  Exit code: 0 all run versions pass, 1 some version
// failed, 2 bad arguments or setup failure.
#include "bf16_host.hpp"
#include "util/cuda_check.hpp"
#include "mla_kernels.cuh"
#include "mla_reference.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <iterator>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Options {
  int b = 4, s = 2, t = 1024, h = 128, d = 512, p = 64;
  std::uint64_t seed = 0;
  bool seed_given = false;
  int sample_rows = 64;
  int reps = 10;
  int warmup = 3;
  float q_range = 6.0f;  // q ~ U(-q_range, q_range), kv ~ U(-1, 1): score std = q_range / 3 for any d+p
  std::vector<std::string> versions;  // empty: all
  bool wants(const std::string& v) const {
    return versions.empty() || std::find(versions.begin(), versions.end(), v) != versions.end();
  }
};

const char* const kAllVersions[] = {"v1", "v2", "v3", "v4", "v4bf", "v5"};

void usage() {
  std::puts(
      "usage: mla_check [--b N] [--s N] [--t N] [--h N] [--d N] [--p N] [--typical] [--seed N] [--rows N]\n"
      "                 [--reps N] [--warmup N] [--qrange X] [--versions LIST]\n"
      "  defaults: b=4 s=2 t=1024 h=128 d=512 p=64 (quick); --typical sets b=32 s=16 t=4096\n"
      "  --versions: comma-separated subset of v1,v2,v3,v4,v4bf,v5 (default: all; v4bf = v4 with bf16 scores)\n"
      "  --rows: query rows checked against the float64 reference (default 64, first and last always included)\n"
      "  --qrange: q ~ U(-X, X), kv ~ U(-1, 1); softmax logits then have std X/3 (default 6 -> 2)\n"
      "  exit code: 0 every version run passed, 1 a version failed, 2 bad arguments or setup failure");
}

bool parse(int argc, char** argv, Options& opt) {
  for (int i = 1; i < argc; ++i) {
    std::string key = argv[i];
    std::string val;
    if (key == "--help" || key == "-h") {
      usage();
      std::exit(0);
    }
    if (key == "--typical") {
      opt.b = 32;
      opt.s = 16;
      opt.t = 4096;
      continue;
    }
    if (const auto eq = key.find('='); eq != std::string::npos) {
      val = key.substr(eq + 1);
      key = key.substr(0, eq);
    } else if (i + 1 < argc) {
      val = argv[++i];
    } else {
      std::fprintf(stderr, "mla_check: %s needs a value\n", key.c_str());
      return false;
    }
    char* end = nullptr;
    const long long n = std::strtoll(val.c_str(), &end, 10);
    const bool is_int = end != val.c_str() && *end == '\0';
    if (key == "--versions") {
      opt.versions.clear();
      std::size_t pos = 0;
      while (pos <= val.size()) {
        const std::size_t comma = std::min(val.find(',', pos), val.size());
        const std::string v = val.substr(pos, comma - pos);
        if (std::find(std::begin(kAllVersions), std::end(kAllVersions), v) == std::end(kAllVersions)) {
          std::fprintf(stderr, "mla_check: unknown version '%s' in --versions\n", v.c_str());
          return false;
        }
        opt.versions.push_back(v);
        pos = comma + 1;
      }
      continue;
    }
    if (key == "--qrange") {
      opt.q_range = std::strtof(val.c_str(), &end);
      if (*end != '\0' || !(opt.q_range > 0.0f)) return false;
      continue;
    }
    if (!is_int || n < 0 || n > (1LL << 31) - 1) {
      std::fprintf(stderr, "mla_check: bad value for %s: %s\n", key.c_str(), val.c_str());
      return false;
    }
    const int v = static_cast<int>(n);
    if (key == "--b") opt.b = v;
    else if (key == "--s") opt.s = v;
    else if (key == "--t") opt.t = v;
    else if (key == "--h") opt.h = v;
    else if (key == "--d") opt.d = v;
    else if (key == "--p") opt.p = v;
    else if (key == "--rows") opt.sample_rows = v;
    else if (key == "--reps") opt.reps = v;
    else if (key == "--warmup") opt.warmup = v;
    else if (key == "--seed") {
      opt.seed = static_cast<std::uint64_t>(n);
      opt.seed_given = true;
    } else {
      std::fprintf(stderr, "mla_check: unknown option %s\n", key.c_str());
      return false;
    }
  }
  if (opt.b < 1 || opt.s < 1 || opt.t < 1 || opt.h < 1 || opt.d < 8 || opt.reps < 1 || opt.sample_rows < 2) {
    std::fprintf(stderr, "mla_check: need b, s, t, h >= 1, d >= 8, reps >= 1, rows >= 2\n");
    return false;
  }
  if (opt.d % 8 != 0 || opt.p % 8 != 0) {
    std::fprintf(stderr, "mla_check: d and p must be multiples of 8\n");
    return false;
  }
  return true;
}

// splitmix64: fast, and good enough to fill tens of millions of test values.
struct Rng {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  float uniform(float lo, float hi) { return lo + (hi - lo) * static_cast<float>(next() >> 40) * 0x1.0p-24f; }
};

void fill_uniform(std::vector<std::uint16_t>& v, Rng& rng, float range) {
  for (auto& x : v) x = mla::float_to_bf16_bits(rng.uniform(-range, range));
}

template <class T>
struct DeviceBuffer {
  T* ptr = nullptr;
  std::size_t count = 0;
  explicit DeviceBuffer(std::size_t n) : count(n) { CUDA_CHECK(cudaMalloc(&ptr, std::max<std::size_t>(n, 1) * sizeof(T))); }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  std::size_t bytes() const { return count * sizeof(T); }
};

// One version as a sequence of stages (v3: partial, combine; v4: scores, softmax, output), each a launch on the
// stream.  `poison` (optional) fills the version's intermediate buffers with NaN before the checked run.
struct Version {
  std::string name;
  std::string config;
  bool supported = true;
  std::string skip_reason;
  std::vector<std::pair<std::string, std::function<void(cudaStream_t)>>> stages;
  std::function<void(cudaStream_t)> poison;
};

struct Timing {
  float total_ms = 0.0f;
  std::vector<float> stage_ms;
};

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5f * (v[n / 2 - 1] + v[n / 2]);
}

void run_once(const Version& ver, cudaStream_t stream) {
  for (const auto& stage : ver.stages) stage.second(stream);
}

// Median over `reps` of the whole version and of each stage, after `warmup` untimed runs.
Timing time_version(const Version& ver, cudaStream_t stream, int warmup, int reps) {
  for (int i = 0; i < warmup; ++i) run_once(ver, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const std::size_t n_ev = ver.stages.size() + 1;
  std::vector<cudaEvent_t> ev(n_ev * reps);
  for (auto& e : ev) CUDA_CHECK(cudaEventCreate(&e));
  for (int r = 0; r < reps; ++r) {
    CUDA_CHECK(cudaEventRecord(ev[r * n_ev], stream));
    for (std::size_t s = 0; s < ver.stages.size(); ++s) {
      ver.stages[s].second(stream);
      CUDA_CHECK(cudaEventRecord(ev[r * n_ev + s + 1], stream));
    }
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<float> total(reps);
  std::vector<std::vector<float>> per_stage(ver.stages.size(), std::vector<float>(reps));
  for (int r = 0; r < reps; ++r) {
    CUDA_CHECK(cudaEventElapsedTime(&total[r], ev[r * n_ev], ev[r * n_ev + n_ev - 1]));
    for (std::size_t s = 0; s < ver.stages.size(); ++s)
      CUDA_CHECK(cudaEventElapsedTime(&per_stage[s][r], ev[r * n_ev + s], ev[r * n_ev + s + 1]));
  }
  for (auto& e : ev) CUDA_CHECK(cudaEventDestroy(e));
  Timing t;
  t.total_ms = median(total);
  for (auto& s : per_stage) t.stage_ms.push_back(median(s));
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  if (!parse(argc, argv, opt)) {
    usage();
    return 2;
  }
  if (!opt.seed_given) opt.seed = (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();

  const mla::MlaShape shape{opt.b, opt.s, opt.t, opt.h, opt.d, opt.p};
  const long long q_elems = shape.query_rows() * shape.dk();
  const long long kv_elems = static_cast<long long>(opt.b) * opt.t * shape.dk();
  const long long o_elems = shape.query_rows() * opt.d;
  const double flops = static_cast<double>(shape.query_rows()) * 2.0 * opt.t * (2.0 * opt.d + opt.p);
  const double min_bytes = 2.0 * static_cast<double>(q_elems + kv_elems + o_elems);

  int failed = 0, passed = 0, skipped = 0;
  try {
    int dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
    std::printf("mla_check: MLA decode, bf16 in/out, fp32 accumulate\n");
    std::printf("device: %s (sm_%d%d, %d SMs, L2 %.0f MB, %zu KB smem/block opt-in)%s\n", prop.name, prop.major,
                prop.minor, prop.multiProcessorCount, prop.l2CacheSize / 1e6, prop.sharedMemPerBlockOptin / 1024,
                prop.major == 9 && prop.minor == 0 ? "" : "  WARNING: built for sm_90 only");
    std::printf("shape: b=%d s=%d t=%d h=%d d=%d p=%d  (query rows %lld, scale 1/sqrt(%d))\n", opt.b, opt.s, opt.t,
                opt.h, opt.d, opt.p, shape.query_rows(), shape.dk());
    std::printf("work: %.4g GFLOP = b*s*h*2*t*(2d+p); minimum bytes %.4g MB = kv %.4g + q %.4g + o %.4g\n",
                flops / 1e9, min_bytes / 1e6, 2.0 * kv_elems / 1e6, 2.0 * q_elems / 1e6, 2.0 * o_elems / 1e6);
    if (min_bytes < static_cast<double>(prop.l2CacheSize))
      std::printf("note: the data fit in L2 (%.1f MB < %.0f MB): GB/s here is not HBM bandwidth (try --typical)\n",
                  min_bytes / 1e6, prop.l2CacheSize / 1e6);
    std::printf("inputs: seed %llu, q ~ U(-%.3g, %.3g), kv ~ U(-1, 1) (softmax logits std ~%.2g)\n",
                static_cast<unsigned long long>(opt.seed), opt.q_range, opt.q_range, opt.q_range / 3.0);
    std::printf(
        "pass: rel_err = ||out-ref||/||ref|| over %lld sampled rows (all d columns, float64 reference) <= %.0e\n"
        "      (bf16 operands and outputs with fp32 accumulation: expect 1e-3..1e-2; NaN never passes), every\n"
        "      output element written and finite (output poisoned with NaN first), output bit-identical after the\n"
        "      timing runs.  time: median of %d after %d warm-up runs, CUDA events.\n",
        std::min<long long>(opt.sample_rows, shape.query_rows()), mla::kMlaErrorBound, opt.reps, opt.warmup);

    // Inputs.
    Rng rng{opt.seed};
    std::vector<std::uint16_t> h_q(q_elems), h_kv(kv_elems), h_o(o_elems), h_o_again(o_elems);
    fill_uniform(h_q, rng, opt.q_range);
    fill_uniform(h_kv, rng, 1.0f);
    DeviceBuffer<__nv_bfloat16> d_q(q_elems), d_kv(kv_elems), d_o(o_elems);
    CUDA_CHECK(cudaMemcpy(d_q.ptr, h_q.data(), d_q.bytes(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_kv.ptr, h_kv.data(), d_kv.bytes(), cudaMemcpyHostToDevice));

    mla::MlaArgs args;
    args.q = d_q.ptr;
    args.kv = d_kv.ptr;
    args.o = d_o.ptr;
    args.b = opt.b;
    args.s = opt.s;
    args.t = opt.t;
    args.h = opt.h;
    args.d = opt.d;
    args.p = opt.p;

    // Versions.
    const bool tc_ok = mla::mla_tensor_core_supports(opt.d, opt.p);
    const std::string tc_skip = "tensor-core kernels are compiled for (d,p) = (512,64), (256,32)";
    std::vector<Version> versions;
    if (opt.wants("v1")) {
      Version v{"v1", "-", opt.d <= 1024, "v1 needs d <= 1024", {}, {}};
      v.stages.push_back({"", [&args](cudaStream_t st) { mla::launch_mla_v1(args, st); }});
      versions.push_back(std::move(v));
    }
    if (opt.wants("v2")) {
      for (const mla::TileConfig& tile : mla::mla_tile_configs()) {
        Version v{"v2", mla::to_string(tile), tc_ok, tc_skip, {}, {}};
        v.stages.push_back({"", [&args, tile](cudaStream_t st) { mla::launch_mla_v2(args, st, tile); }});
        versions.push_back(std::move(v));
      }
    }
    std::vector<mla::TileConfig> v3_configs;
    if (opt.wants("v3")) {
      for (int splits : {1, 2, 4, 8}) v3_configs.push_back({64, 32, splits});
      v3_configs.push_back({32, 64, 4});
      v3_configs.push_back({16, 32, 16});
    }
    std::size_t ws_bytes = 0;
    if (tc_ok)
      for (const mla::TileConfig& cfg : v3_configs) ws_bytes = std::max(ws_bytes, mla::mla_v3_workspace_bytes(args, cfg));
    // v5's split-KV workspace (0 for configs without splits) shares the buffer.
    if (opt.wants("v5") && mla::mla_v5_supports(opt.d, opt.p))
      for (const mla::TileConfig& cfg : mla::mla_v5_tile_configs())
        ws_bytes = std::max(ws_bytes, mla::mla_v5_workspace_bytes(args, cfg));
    DeviceBuffer<unsigned char> d_ws(ws_bytes);
    args.workspace = d_ws.ptr;
    args.workspace_bytes = d_ws.bytes();
    for (const mla::TileConfig& cfg : v3_configs) {
      Version v{"v3", mla::to_string(cfg), tc_ok, tc_skip, {}, {}};
      v.stages.push_back({"partial", [&args, cfg](cudaStream_t st) { mla::launch_mla_partial(args, st, cfg); }});
      v.stages.push_back({"combine", [&args, cfg](cudaStream_t st) { mla::launch_mla_combine(args, st, cfg); }});
      versions.push_back(std::move(v));
    }
    if (!v3_configs.empty())
      std::printf("v3 workspace: %.4g MB (largest of the split counts tried)\n", static_cast<double>(ws_bytes) / 1e6);

    // v4: one plan per score type (S, P, cuBLASLt state made once), then every value of each tunable with the
    // others at their defaults.  A plan that cannot be made (no cuBLASLt algorithm, no memory) is one failed line.
    std::vector<std::unique_ptr<mla::MlaV4Plan>> v4_plans;
    for (const auto& [name, type] : {std::pair<std::string, mla::ScoreType>{"v4", mla::ScoreType::fp32},
                                     std::pair<std::string, mla::ScoreType>{"v4bf", mla::ScoreType::bf16}}) {
      if (!opt.wants(name)) continue;
      const char* label = type == mla::ScoreType::fp32 ? "fp32 scores" : "bf16 scores (experiment)";
      std::unique_ptr<mla::MlaV4Plan> plan;
      try {
        plan = std::make_unique<mla::MlaV4Plan>(args, type);
      } catch (const std::exception& e) {
        const std::string msg = e.what();
        Version v{name, "plan", true, "", {}, {}};
        v.stages.push_back({"", [msg](cudaStream_t) -> void { throw std::runtime_error(msg); }});
        versions.push_back(std::move(v));
        continue;
      }
      const mla::MlaV4Plan* pl = plan.get();
      std::printf("%s (%s): S %.4g MB + P %.4g MB, row pitch %lld\n", name.c_str(), label,
                  static_cast<double>(pl->scores_bytes()) / 1e6, static_cast<double>(pl->probs_bytes()) / 1e6, pl->ld());
      for (int r = 1; r <= pl->algo_count(mla::V4Gemm::scores); ++r)
        std::printf("  scores GEMM qk_algo=%d: %s\n", r, pl->algo_description(mla::V4Gemm::scores, r).c_str());
      for (int r = 1; r <= pl->algo_count(mla::V4Gemm::output); ++r)
        std::printf("  output GEMM pv_algo=%d: %s\n", r, pl->algo_description(mla::V4Gemm::output, r).c_str());
      std::vector<mla::TileConfig> cfgs;
      auto v4cfg = [](int threads, int qk, int pv) {
        mla::TileConfig c;
        c.softmax_threads = threads;
        c.scores_algo = qk;
        c.output_algo = pv;
        return c;
      };
      const std::vector<int> threads = mla::mla_v4_softmax_threads();  // the default first
      for (int th : threads) cfgs.push_back(v4cfg(th, 1, 1));
      if (type == mla::ScoreType::fp32) {  // the experiment only at the defaults
        for (int r = 2; r <= pl->algo_count(mla::V4Gemm::scores); ++r) cfgs.push_back(v4cfg(threads[0], r, 1));
        for (int r = 2; r <= pl->algo_count(mla::V4Gemm::output); ++r) cfgs.push_back(v4cfg(threads[0], 1, r));
      } else {
        cfgs.resize(1);
      }
      for (const mla::TileConfig& cfg : cfgs) {
        Version v{name, mla::to_string(cfg), true, "", {}, {}};
        v.stages.push_back({"scores", [&args, pl, cfg](cudaStream_t st) { pl->launch_scores(args, st, cfg); }});
        v.stages.push_back({"softmax", [&args, pl, cfg](cudaStream_t st) { pl->launch_softmax(args, st, cfg); }});
        v.stages.push_back({"output", [&args, pl, cfg](cudaStream_t st) { pl->launch_output(args, st, cfg); }});
        v.poison = [pl](cudaStream_t st) { pl->poison(st); };
        versions.push_back(std::move(v));
      }
      v4_plans.push_back(std::move(plan));
    }

    // v5: every tile config of its tile space.  Shapes it is not compiled for must be refused with
    // std::invalid_argument before anything runs: that is checked here, and the refusal is a SKIP line.
    if (opt.wants("v5")) {
      if (mla::mla_v5_supports(opt.d, opt.p)) {
        for (const mla::TileConfig& tile : mla::mla_v5_tile_configs()) {
          Version v{"v5", mla::to_string(tile), true, "", {}, {}};
          v.stages.push_back({"", [&args, tile](cudaStream_t st) { mla::launch_mla_v5(args, st, tile); }});
          versions.push_back(std::move(v));
        }
      } else {
        Version v{"v5", "default", false, "", {}, {}};
        try {
          mla::launch_mla_v5(args, nullptr);
          v.supported = true;  // accepted a shape it has no kernel for: a failure
          v.stages.push_back({"", [](cudaStream_t) -> void {
                                throw std::runtime_error("v5 accepted a (d, p) it is not compiled for");
                              }});
        } catch (const std::invalid_argument& e) {
          v.skip_reason = std::string("refused (std::invalid_argument): ") + e.what();
        }
        versions.push_back(std::move(v));
      }
    }

    // Reference.
    const std::vector<long long> rows = mla::mla_sample_rows(shape, opt.sample_rows, opt.seed ^ 0x5eedull);
    const std::vector<double> ref =
        mla::mla_reference_rows(shape, h_q.data(), h_kv.data(), rows, 1.0 / std::sqrt(static_cast<double>(shape.dk())));

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    std::printf("\n%-4s %-32s %9s %9s %-6s %10s %9s %9s  %s\n", "ver", "config", "rel_err", "nonfinite", "result",
                "median_ms", "TFLOP/s", "GB/s", "notes");
    for (const Version& ver : versions) {
      if (!ver.supported) {
        ++skipped;
        std::printf("%-4s %-32s %9s %9s %-6s %10s %9s %9s  %s\n", ver.name.c_str(), ver.config.c_str(), "-", "-",
                    "SKIP", "-", "-", "-", ver.skip_reason.c_str());
        continue;
      }
      try {
        CUDA_CHECK(cudaMemsetAsync(d_o.ptr, 0xFF, d_o.bytes(), stream));  // bf16 0xFFFF = NaN
        if (d_ws.count > 0) CUDA_CHECK(cudaMemsetAsync(d_ws.ptr, 0xFF, d_ws.bytes(), stream));  // fp32 NaN
        if (ver.poison) ver.poison(stream);
        run_once(ver, stream);
        CUDA_CHECK(cudaStreamSynchronize(stream));
        CUDA_CHECK(cudaMemcpy(h_o.data(), d_o.ptr, d_o.bytes(), cudaMemcpyDeviceToHost));
        const double err = mla::mla_relative_error(shape, h_o.data(), rows, ref);
        const long long nonfinite = mla::mla_count_nonfinite(h_o.data(), o_elems);

        const Timing tm = time_version(ver, stream, opt.warmup, opt.reps);
        CUDA_CHECK(cudaMemcpy(h_o_again.data(), d_o.ptr, d_o.bytes(), cudaMemcpyDeviceToHost));
        const bool stable = std::memcmp(h_o.data(), h_o_again.data(), h_o.size() * sizeof(std::uint16_t)) == 0;

        const bool ok = mla::mla_error_passes(err) && nonfinite == 0 && stable;
        ok ? ++passed : ++failed;
        std::string notes;
        if (ver.stages.size() > 1) {
          for (std::size_t s = 0; s < ver.stages.size(); ++s) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "%s%s %.4f ms", s ? ", " : "", ver.stages[s].first.c_str(), tm.stage_ms[s]);
            notes += buf;
          }
        }
        if (!stable) notes += (notes.empty() ? "" : "; ") + std::string("OUTPUT CHANGED ACROSS RUNS (race?)");
        if (nonfinite) notes += (notes.empty() ? "" : "; ") + std::string("unwritten or non-finite outputs");
        const double sec = tm.total_ms * 1e-3;
        std::printf("%-4s %-32s %9.3e %9lld %-6s %10.4f %9.2f %9.1f  %s\n", ver.name.c_str(), ver.config.c_str(), err,
                    nonfinite, ok ? "PASS" : "FAIL", tm.total_ms, flops / sec / 1e12, min_bytes / sec / 1e9,
                    notes.c_str());
      } catch (const std::exception& e) {
        ++failed;
        std::printf("%-4s %-32s %9s %9s %-6s %10s %9s %9s  error: %s\n", ver.name.c_str(), ver.config.c_str(), "-",
                    "-", "FAIL", "-", "-", "-", e.what());
      }
      std::fflush(stdout);
    }
    cudaStreamDestroy(stream);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mla_check: setup failed: %s\n", e.what());
    return 2;
  }

  std::printf("\nsummary: %d passed, %d failed, %d skipped -> %s\n", passed, failed, skipped,
              failed == 0 && passed > 0 ? "OK" : "FAILED");
  return failed == 0 && passed > 0 ? 0 : 1;
}
