#include "capi/profile_window.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>

#include "capi/capi_json.hpp"
#include "capi/gpu_probe.hpp"
#include "collect/clock/gpu_lock.hpp"
#include "collect/trace/tracer_env.hpp"
#include "session/analysis_context.hpp"
#include "session/artifact.hpp"
#include "session/assemble.hpp"
#include "session/collector.hpp"
#include "session/in_process.hpp"
#include "session/injection.hpp"
#include "session/profile.hpp"
#include "session/publish.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"

namespace kprof::capi {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

using InitFn = int (*)();
using WriteFn = int (*)(const char*);

// What the process has loaded: the library and the collector it started (one per process).
struct Loaded {
  void* lib = nullptr;
  WriteFn write_window = nullptr;
  std::optional<session::CollectorKind> collector;
  int windows = 0;  // windows of that collector ended
};

struct Window {
  session::RunSpec spec;
  session::ModePlan plan;
  session::Collected collected;
  std::shared_ptr<session::ArtifactStage> stage;  // collected.dir is its staging directory until publish
  std::filesystem::path final_dir;
  std::optional<GpuLock> lock;
};

std::mutex g_mu;
Loaded g_loaded;
std::optional<Window> g_window;

// The request's options are the command line's (session/run_options.hpp, by their keys), with the same defaults;
// the window's own fields are the script, the parameters and the declared stages (an object, not a file).
session::RunSpec window_spec(const json& r) {
  session::PackageSpec spec;
  spec.run.kernel = "python";
  apply_run_options(r, spec, {"params", "script", "declared_stages"});
  // A Python program: driver API records too (its kernels are often launched through the driver API).
  spec.run.command = {"python", get_or<std::string>(r, "script", "<in-process>")};
  if (r.contains("params")) spec.run.params = params_from(r["params"]);
  if (r.contains("declared_stages"))
    spec.run.declared_stages = session::declared_stages_from_json(r["declared_stages"], "declared_stages");
  return session::in_process_spec(std::move(spec.run));
}

// The plan's collector that runs in-process (the mode's tracer, or its counter pass): the first one whose registry
// row can.
const session::CollectorRow& in_process_collector(const session::ModePlan& plan) {
  for (session::CollectorKind k : plan.collectors)
    if (const auto& row = session::collector_row(k); row.in_process_env) return row;
  throw Error(std::string(session::mode_name(plan.mode)) + " mode has no collector that runs in-process", kExitUsage);
}

void load_library(session::CollectorKind kind) {
  if (g_loaded.collector && *g_loaded.collector != kind)
    throw Error(std::string("this process already profiles with the ") +
                    std::string(session::collector_name(*g_loaded.collector)) +
                    " collector; CUPTI's tracer and range profiler cannot both run in one process: profile in this "
                    "mode from a new process",
                kExitUsage);
  if (g_loaded.lib) return;
  auto path = session::find_injection_library();
  if (!path)
    throw Error("libkprof_inject.so was not found: set KPROF_INJECT_LIB (the Python package sets it to the library "
                "it was installed with; it needs kprof built with the CUDA toolkit)",
                kExitNoTool);
  void* lib = dlopen(path->c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) throw Error(std::string("cannot load ") + path->string() + ": " + dlerror(), kExitNoTool);
  auto init = reinterpret_cast<InitFn>(dlsym(lib, "InitializeInjection"));
  auto write = reinterpret_cast<WriteFn>(dlsym(lib, "kprof_inject_write_window"));
  if (!init || !write)
    throw Error(path->string() + " has no kprof_inject_write_window: a libkprof_inject.so older than this C API",
                kExitNoTool);
  init();  // reads the KPROF_* variables set by begin_window, enables CUPTI in this process
  g_loaded.lib = lib;
  g_loaded.write_window = write;
  g_loaded.collector = kind;
}

}  // namespace

json begin_window(const json& r) {
  std::lock_guard<std::mutex> guard(g_mu);
  if (g_window) throw Error("a profiling window is already open in this process: end it first", kExitUsage);
  Window w;
  w.spec = window_spec(r);
  w.plan = session::plan_run(w.spec);
  const session::CollectorRow& row = in_process_collector(w.plan);
  const auto kind = row.kind;
  if (row.one_window_per_process && g_loaded.collector == kind && g_loaded.windows > 0)
    throw Error("annotation mode profiles one window per process in-process: CUPTI's range profiler, once set up, "
                "keeps counting the first launch of each kernel it has seen, so a second window would report the "
                "first one's counters. Profile again from a new process: a script per profile (a notebook: restart "
                "the kernel, or run the cell's code with `python -c`/a script), or `kprof run --prof-type=annotation "
                "-- python script.py`; event and nsys windows can follow in this process",
                kExitUsage);
  auto gpu = probe_gpu();
  if (gpu.count == 0) throw Error("no GPU: " + gpu.reason, kExitNoGpu);
  auto ctx_check = session::AnalysisContext::load(w.spec.data);  // a bad devices or thresholds file fails now
  (void)ctx_check;
  w.collected.timestamp = utc_timestamp();
  w.collected.gpu_name = gpu.name;
  // Staged like every artifact (session/artifact.hpp): the collector files go into a hidden directory that
  // becomes the artifact when the window is published.
  w.final_dir = session::artifact_dir_for(w.spec, w.collected.timestamp);
  w.stage = std::make_shared<session::ArtifactStage>(w.final_dir, !w.spec.output.out_dir.empty(), w.spec.output.replace);
  w.collected.dir = w.stage->dir();
  session::CollectorContext ctx{w.spec, w.plan, w.collected.dir};
  w.lock.emplace(GpuLock::acquire(visible_gpu(), !w.spec.no_wait, [](const std::string&) {}));
  if (!g_loaded.lib) {
    // The library reads its environment once, when it starts; what it writes at exit goes to a scratch file
    // (each window's file is written by end_window).
    for (const auto& [k, v] : row.in_process_env(ctx)) ::setenv(k.c_str(), v.c_str(), 1);
  }
  std::error_code ec;
  fs::remove(w.collected.dir / tracer_env::kFileName, ec);
  load_library(kind);
  std::string dir = w.collected.dir.string();
  g_window = std::move(w);
  return json{{"dir", dir}, {"collector", std::string(row.name)}};
}

json end_window(const json&) {
  std::lock_guard<std::mutex> guard(g_mu);
  if (!g_window) throw Error("no profiling window is open in this process", kExitUsage);
  Window w = std::move(*g_window);
  g_window.reset();
  const session::CollectorRow& row = session::collector_row(*g_loaded.collector);
  const fs::path trace_file = w.collected.dir / tracer_env::kFileName;
  int rc = g_loaded.write_window(trace_file.c_str());
  if (rc == 0) throw Error("libkprof_inject.so wrote no results for this window (see its messages above)", kExitFailure);
  ++g_loaded.windows;
  session::PassRecord pass{row.kind};
  if (!row.in_process_warning.empty()) pass.warnings.emplace_back(row.in_process_warning);
  w.collected.passes.push_back(std::move(pass));
  w.lock.reset();
  auto assembled = session::assemble(w.spec, w.plan, w.collected);
  session::ProfileResult r;
  r.plan = w.plan;
  r.dir = w.final_dir;
  r.stage = w.stage;
  r.run = std::move(assembled.run);
  r.trace = std::move(assembled.trace);
  r.source = std::move(assembled.source);
  r.context = session::AnalysisContext::load(w.spec.data);
  auto p = session::publish(r, w.spec.output);
  return published_reply(r.run, p);
}

}  // namespace kprof::capi
