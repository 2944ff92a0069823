#include "core/runner.hpp"

#include <nvtx3/nvToolsExt.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <ranges>

#include "util/cuda_check.hpp"
#include "model/profile.hpp"
#include "plan/autotune_cache.hpp"
#include "util/fs.hpp"

namespace kprof::kernels {

namespace fs = std::filesystem;
using plan::TryStatus;
using plan::TuneEntry;

namespace {

void progress(const std::string& msg) { std::cerr << "[kprof-kernels] " << msg << std::endl; }

std::string fmt_ms(double ms) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4f ms", ms);
  return b;
}

const VersionEntry& find_entry(const std::string& package, const std::string& version, const PackageEntry** pkg_out) {
  const PackageEntry* pkg = Registry::find(package);
  if (!pkg) {
    auto name = [](const PackageEntry& p) { return p.info.name; };
    throw plan::PlanError(fmt::format("unknown package '{}' (packages: {})", package,
                                      fmt::join(Registry::all() | std::views::transform(name), ", ")));
  }
  *pkg_out = pkg;
  if (version.empty()) return pkg->versions.back();
  for (const auto& v : pkg->versions)
    if (v.info.name == version) return v;
  auto name = [](const VersionEntry& v) { return v.info.name; };
  throw plan::PlanError(fmt::format("unknown version '{}' of {} (versions: {})", version, package,
                                    fmt::join(pkg->versions | std::views::transform(name), ", ")));
}

// Writes a buffer larger than L2 (cudaMemsetAsync: a memset, not a kernel, so traces and ncu see no extra
// kernel) so that each sample starts with cold L2, as nvbench does.
class L2Flush {
 public:
  explicit L2Flush(std::size_t bytes) : bytes_(bytes) { CUDA_CHECK(cudaMalloc(&buf_, bytes_)); }
  ~L2Flush() { cudaFree(buf_); }
  void operator()(cudaStream_t s) { CUDA_CHECK(cudaMemsetAsync(buf_, ++value_ & 0xFF, bytes_, s)); }

 private:
  void* buf_ = nullptr;
  std::size_t bytes_;
  int value_ = 0;
};

struct Event {
  cudaEvent_t e{};
  Event() { CUDA_CHECK(cudaEventCreate(&e)); }
  ~Event() { cudaEventDestroy(e); }
  Event(const Event&) = delete;
};

double elapsed_ms(const Event& a, const Event& b) {
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, a.e, b.e));
  return ms;
}

std::map<std::string, double> resources_of(const cudaFuncAttributes& a) {
  return {{"registers", a.numRegs},
          {"static_smem_bytes", static_cast<double>(a.sharedSizeBytes)},
          {"local_bytes", static_cast<double>(a.localSizeBytes)},
          {"const_bytes", static_cast<double>(a.constSizeBytes)},
          {"max_threads_per_block", a.maxThreadsPerBlock},
          {"ptx_version", a.ptxVersion},
          {"binary_version", a.binaryVersion}};
}

struct Device {
  std::string name, cc;
  int sms = 0;
  std::size_t l2_bytes = 0;
};

Device current_device() {
  int dev = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  cudaDeviceProp p{};
  CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
  return {p.name, std::to_string(p.major) + "." + std::to_string(p.minor), p.multiProcessorCount,
          static_cast<std::size_t>(p.l2CacheSize)};
}

class Runner {
 public:
  Runner(const RunSettings& s, const PackageEntry& pkg, const VersionEntry& ver, plan::KernelPlan plan)
      : s_(s), pkg_(pkg), ver_(ver), plan_(std::move(plan)) {}

  int run() {
    dev_ = current_device();
    progress(plan_.package + " " + plan_.version + " (" + plan::plan_kind_name(plan_.kind) + ", " +
             std::to_string(plan_.stages.size()) + " stage(s)) on " + dev_.name + " sm_" + dev_.cc);
    if (!s_.out_dir.empty()) write_file_atomic(s_.out_dir / "plan.json", json(plan_).dump(2) + "\n");
    inst_ = ver_.create(plan_.params);
    inst_->setup(s_.seed);
    int nstreams = 1;
    for (const auto& st : plan_.stages) nstreams = std::max(nstreams, st.stream + 1);
    streams_.resize(nstreams);
    for (auto& st : streams_) CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    flush_ = std::make_unique<L2Flush>(std::max<std::size_t>(dev_.l2_bytes * 2, 64u << 20));

    chosen_.resize(plan_.stages.size());
    json tiling_notes = json::object();
    for (std::size_t i = 0; i < plan_.stages.size(); ++i) {
      // A stage may read what earlier ones wrote: run those first, but only when this stage is tuned now (a
      // profiled run must launch nothing outside the plan's NVTX ranges).
      if (plan_.kind == plan::PlanKind::pipeline && s_.tune && !plan_.stages[i].tile_space.empty())
        run_stages_before(i);
      choose_config(i);
    }
    if (s_.check) {
      for (std::size_t i = 0; i < plan_.stages.size(); ++i) {
        inst_->poison(static_cast<int>(i));
        CUDA_CHECK(inst_->launch(static_cast<int>(i), chosen_[i], stream_of(i)));
        CUDA_CHECK(cudaDeviceSynchronize());
        CheckResult r = inst_->check(static_cast<int>(i));
        checks_.push_back({{"stage", plan_.stages[i].name}, {"ok", r.ok}, {"max_error", r.max_error},
                           {"bound", r.bound}, {"checked_outputs", r.checked}, {"worst", r.detail}});
        if (!r.ok) {
          std::cerr << "kprof-kernels: WRONG RESULT: " << plan_.package << " " << plan_.version << " stage "
                    << plan_.stages[i].name << " config " << plan::config_label(chosen_[i]) << ": error "
                    << r.max_error << " > bound " << r.bound << " (" << r.detail << "); not timed\n";
          write_json("check.json", checks_);
          return kKernelsWrongResult;
        }
        progress("check " + plan_.stages[i].name + ": ok (max error " + std::to_string(r.max_error) + " <= " +
                 std::to_string(r.bound) + ", " + std::to_string(r.checked) + " outputs)");
      }
      write_json("check.json", checks_);
    }
    write_compiled();
    if (s_.runs > 0) time_plan();
    return 0;
  }

 private:
  cudaStream_t stream_of(std::size_t i) const { return streams_[plan_.stages[i].stream]; }

  void run_stages_before(std::size_t i) {
    for (std::size_t j = 0; j < i; ++j) CUDA_CHECK(inst_->launch(static_cast<int>(j), chosen_[j], stream_of(j)));
    CUDA_CHECK(cudaDeviceSynchronize());
  }

  plan::CacheKey cache_key(const plan::StageSpec& st) const {
    plan::CacheKey k;
    k.kernel = plan_.package;
    k.version = plan_.version;
    k.stage = st.name;
    k.device = plan::device_key(dev_.name, dev_.cc);
    k.params.values = plan_.params;
    k.params.dtype = plan_.dtype;
    k.source_hash = build_hash();
    return k;
  }

  void choose_config(std::size_t i) {
    const auto& st = plan_.stages[i];
    if (st.tile_space.empty()) return;  // nothing to tune: the kernel has one shape
    plan::AutotuneCache cache(s_.cache_dir, cache_key(st));
    cache.load();
    for (const auto& w : cache.warnings()) std::cerr << "kprof-kernels: warning: " << w << "\n";
    if (s_.retune && !s_.configs) cache.clear();
    std::string source = "cache";
    auto in_range = [&](std::size_t c) {
      return !s_.configs || (static_cast<int>(c) >= s_.configs->first && static_cast<int>(c) < s_.configs->second);
    };
    if (s_.tune) {
      for (std::size_t c = 0; c < st.tile_space.size(); ++c) {
        if (!in_range(c)) continue;
        const auto& cfg = st.tile_space[c];
        std::string where = "stage " + st.name + " config " + std::to_string(c + 1) + "/" +
                            std::to_string(st.tile_space.size()) + " " + plan::config_label(cfg);
        if (const TuneEntry* e = s_.retune && s_.configs ? nullptr : cache.find(cfg)) {
          progress(where + ": cached (" + json(e->status).get<std::string>() +
                   (e->median_ms ? ", " + fmt_ms(*e->median_ms) : std::string()) + ")");
          continue;
        }
        source = "tuned";
        TuneEntry e = try_config(i, cfg);
        progress(where + ": " + json(e.status).get<std::string>() +
                 (e.median_ms ? " " + fmt_ms(*e.median_ms) + " median of " + std::to_string(e.samples_ms.size())
                              : " (" + e.message + ")"));
        cache.record(e);
        if (e.status == TryStatus::launch_failed && e.message.find("[sticky]") != std::string::npos)
          throw std::runtime_error("the CUDA context is lost after " + where + " (" + e.message +
                                   "); the try is recorded in " + cache.path().string() + ", rerun to continue");
      }
    }
    auto best = cache.best();
    if (!best) {
      if (s_.tune && !s_.configs) {
        bool any_wrong = std::any_of(cache.entries().begin(), cache.entries().end(),
                                     [](const TuneEntry& e) { return e.status == TryStatus::wrong_result; });
        if (any_wrong)
          throw WrongResult("no config of stage " + st.name + " produced a correct result (see " +
                            cache.path().string() + ")");
        throw std::runtime_error("no config of stage " + st.name + " ran (see " + cache.path().string() + ")");
      }
      std::cerr << "kprof-kernels: warning: stage " << st.name << " has no tuned config in " << cache.path().string()
                << "; using the default " << plan::config_label(st.tile_space.front()) << "\n";
      best = st.tile_space.front();
      source = "default (not tuned)";
    }
    chosen_[i] = *best;
    const TuneEntry* be = cache.find(*best);
    json chosen{{"stage", st.name}, {"config", *best}, {"label", plan::config_label(*best)}, {"source", source},
                {"cache_file", cache.path().string()}, {"source_hash", build_hash()}};
    if (be && be->median_ms) chosen["median_ms"] = *be->median_ms;
    write_json("tiling/" + st.name + ".json", chosen);
    json all = cache.file();
    all["note"] = "every config tried; times are per launch (ms), CUDA events, L2 flushed before each sample";
    write_json("tiling/" + st.name + "/autotuning.json", all);
  }

 public:
  struct WrongResult : std::runtime_error {
    using std::runtime_error::runtime_error;
  };

 private:
  TuneEntry try_config(std::size_t i, const TileConfig& cfg) {
    TuneEntry e;
    e.config = cfg;
    int si = static_cast<int>(i);
    cudaStream_t s = stream_of(i);
    cudaFuncAttributes attr{};
    cudaError_t ae = inst_->attributes(si, cfg, attr);
    if (ae == kNotInstantiated) {
      e.status = TryStatus::compile_failed;
      e.message = "config not instantiated in this build (kernels are compiled at build time)";
      return e;
    }
    CUDA_CHECK(ae);
    e.resources = resources_of(attr);
    inst_->poison(si);
    cudaError_t le = inst_->launch(si, cfg, s);
    if (le == cudaSuccess) le = cudaStreamSynchronize(s);
    if (le != cudaSuccess) {
      bool resources = le == cudaErrorLaunchOutOfResources || le == cudaErrorInvalidConfiguration;
      e.status = resources ? TryStatus::exceeds_resources : TryStatus::launch_failed;
      e.message = std::string(cudaGetErrorName(le)) + ": " + cudaGetErrorString(le) + (is_sticky(le) ? " [sticky]" : "");
      if (!is_sticky(le)) (void)cudaGetLastError();  // clear the non-sticky error
      return e;
    }
    CheckResult r = inst_->check(si);
    if (!r.ok) {
      e.status = TryStatus::wrong_result;
      e.message = "error " + std::to_string(r.max_error) + " > bound " + std::to_string(r.bound) + ": " + r.detail;
      return e;
    }
    e.message = "check ok: max error " + std::to_string(r.max_error);
    Event a, b;
    for (int w = 0; w < 2; ++w) CUDA_CHECK(inst_->launch(si, cfg, s));  // warm-up
    for (int k = 0; k < s_.tune_samples; ++k) {
      (*flush_)(s);
      CUDA_CHECK(cudaEventRecord(a.e, s));
      CUDA_CHECK(inst_->launch(si, cfg, s));
      CUDA_CHECK(cudaEventRecord(b.e, s));
      CUDA_CHECK(cudaEventSynchronize(b.e));
      e.samples_ms.push_back(elapsed_ms(a, b));
    }
    auto st = SampleStats::of(e.samples_ms);
    e.median_ms = st.median;
    e.min_ms = st.min;
    return e;
  }

  void write_json(const std::string& rel, const json& j) {
    if (!s_.out_dir.empty()) write_file_atomic(s_.out_dir / rel, j.dump(2) + "\n");
  }

  // compiled/<stage>/resources.json: what the compiler made of the chosen config (kernels are compiled at build
  // time by nvcc into this executable; see kernels/README.md).
  void write_compiled() {
    for (std::size_t i = 0; i < plan_.stages.size(); ++i) {
      cudaFuncAttributes attr{};
      CUDA_CHECK(inst_->attributes(static_cast<int>(i), chosen_[i], attr));
      json j{{"stage", plan_.stages[i].name}, {"config", chosen_[i]}, {"resources", resources_of(attr)},
             {"compiled", "at build time by nvcc into kprof-kernels"}, {"nvcc_flags", build_flags()},
             {"source_hash", build_hash()}, {"device", dev_.name}, {"compute_capability", dev_.cc}};
      write_json("compiled/" + plan_.stages[i].name + "/resources.json", j);
    }
  }

  // One execution of the plan: stage i inside NVTX range "<stage name>", CUDA events around each stage and the
  // whole plan. Concurrent stages wait on the plan's start event on their own stream; stream 0 joins them.
  struct PlanSample {
    double gpu_ms = 0, wall_ms = 0;
    std::vector<double> stage_ms;
  };
  PlanSample run_plan_once() {
    std::size_t n = plan_.stages.size();
    std::vector<std::unique_ptr<Event>> s0(n), s1(n);
    for (std::size_t i = 0; i < n; ++i) s0[i] = std::make_unique<Event>(), s1[i] = std::make_unique<Event>();
    Event start, end;
    cudaStream_t main = streams_[0];
    (*flush_)(main);
    CUDA_CHECK(cudaDeviceSynchronize());
    auto t0 = std::chrono::steady_clock::now();
    CUDA_CHECK(cudaEventRecord(start.e, main));
    for (std::size_t i = 0; i < n; ++i) {
      cudaStream_t s = stream_of(i);
      if (s != main) CUDA_CHECK(cudaStreamWaitEvent(s, start.e, 0));
      nvtxRangePushA(plan_.stages[i].name.c_str());
      CUDA_CHECK(cudaEventRecord(s0[i]->e, s));
      CUDA_CHECK(inst_->launch(static_cast<int>(i), chosen_[i], s));
      CUDA_CHECK(cudaEventRecord(s1[i]->e, s));
      nvtxRangePop();
    }
    for (std::size_t i = 0; i < n; ++i)
      if (stream_of(i) != main) CUDA_CHECK(cudaStreamWaitEvent(main, s1[i]->e, 0));
    CUDA_CHECK(cudaEventRecord(end.e, main));
    CUDA_CHECK(cudaEventSynchronize(end.e));
    auto t1 = std::chrono::steady_clock::now();
    PlanSample ps;
    ps.gpu_ms = elapsed_ms(start, end);
    ps.wall_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    for (std::size_t i = 0; i < n; ++i) ps.stage_ms.push_back(elapsed_ms(*s0[i], *s1[i]));
    return ps;
  }

  void time_plan() {
    progress("timing the plan: 1 warm-up + " + std::to_string(s_.runs) + " runs, L2 flushed before each");
    run_plan_once();  // warm-up (inside the stage ranges too, so traces attribute it to its stage)
    std::vector<double> gpu, wall, overhead;
    std::vector<std::vector<double>> stage(plan_.stages.size());
    for (int r = 0; r < s_.runs; ++r) {
      auto ps = run_plan_once();
      gpu.push_back(ps.gpu_ms);
      wall.push_back(ps.wall_ms);
      overhead.push_back(ps.wall_ms - ps.gpu_ms);
      for (std::size_t i = 0; i < stage.size(); ++i) stage[i].push_back(ps.stage_ms[i]);
    }
    auto g = SampleStats::of(gpu), w = SampleStats::of(wall), o = SampleStats::of(overhead);
    json stages = json::array();
    for (std::size_t i = 0; i < stage.size(); ++i) {
      const auto& st = plan_.stages[i];
      auto ss = SampleStats::of(stage[i]);
      double sec = ss.median * 1e-3;
      json j{{"name", st.name}, {"config", chosen_[i]}, {"gpu_ms", ss}, {"samples_ms", stage[i]},
             {"tflops", sec > 0 ? st.flops / sec * 1e-12 : 0.0}, {"gbps_min_bytes", sec > 0 ? st.min_bytes / sec * 1e-9 : 0.0}};
      stages.push_back(j);
      std::printf("%s %s stage %s: %.4f ms median (min %.4f, %d runs) %.2f TFLOP/s %.1f GB/s(min bytes) config %s\n",
                  plan_.package.c_str(), plan_.version.c_str(), st.name.c_str(), ss.median, ss.min, s_.runs,
                  j["tflops"].get<double>(), j["gbps_min_bytes"].get<double>(), plan::config_label(chosen_[i]).c_str());
    }
    std::printf("%s %s plan (%s): %.4f ms GPU median, %.4f ms wall, host overhead %.4f ms\n", plan_.package.c_str(),
                plan_.version.c_str(), plan::plan_kind_name(plan_.kind), g.median, w.median, o.median);
    std::fflush(stdout);
    json t{{"schema", "kprof.kernels.timings/1"}, {"package", plan_.package}, {"version", plan_.version},
           {"kind", plan_.kind}, {"params", plan_.params}, {"dtype", plan_.dtype},
           {"device", {{"name", dev_.name}, {"compute_capability", dev_.cc}, {"sm_count", dev_.sms},
                       {"l2_bytes", dev_.l2_bytes}}},
           {"runs", s_.runs}, {"method", "CUDA events per stage and around the plan; L2 flushed (memset of 2x L2) "
                                         "before each run; 1 warm-up run; wall = host clock from the first event "
                                         "record to the plan's end event; host overhead = wall - GPU"},
           {"plan", {{"gpu_ms", g}, {"wall_ms", w}, {"host_overhead_ms", o}, {"samples_ms", gpu}}},
           {"stages", stages}, {"checks", checks_}, {"timestamp", utc_timestamp()}};
    write_json("timings.json", t);
  }

  const RunSettings& s_;
  const PackageEntry& pkg_;
  const VersionEntry& ver_;
  plan::KernelPlan plan_;
  Device dev_;
  std::unique_ptr<Instance> inst_;
  std::vector<cudaStream_t> streams_;
  std::unique_ptr<L2Flush> flush_;
  std::vector<TileConfig> chosen_;
  json checks_ = json::array();
};

}  // namespace

plan::KernelPlan describe(const std::string& package, const std::string& version, const ProblemParams& given) {
  const PackageEntry* pkg = nullptr;
  const VersionEntry& ver = find_entry(package, version, &pkg);
  ProblemParams resolved = plan::resolve_params(pkg->info, given);
  plan::KernelPlan p;
  try {
    p = ver.plan(resolved.values);
  } catch (const std::invalid_argument& e) {
    throw plan::PlanError(e.what());
  }
  p.package = pkg->info.name;
  p.version = ver.info.name;
  p.params = resolved.values;
  p.dtype = resolved.dtype;
  plan::validate_plan(p);
  return p;
}

int run_version(const RunSettings& s) {
  const PackageEntry* pkg = nullptr;
  const VersionEntry& ver = find_entry(s.package, s.version, &pkg);
  auto p = describe(s.package, s.version, s.params);
  Runner r(s, *pkg, ver, std::move(p));
  try {
    return r.run();
  } catch (const Runner::WrongResult& e) {
    std::cerr << "kprof-kernels: WRONG RESULT: " << e.what() << "\n";
    return kKernelsWrongResult;
  }
}

}  // namespace kprof::kernels
