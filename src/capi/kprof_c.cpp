// The C API (kprof_c.h): JSON in, JSON out, every exception turned into {"ok": false, ...}. It fills the session
// layer's specs like the command line does and calls the same functions; the in-process window is the one thing
// only it does (profile_window.cpp).
#include "capi/kprof_c.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "analyze/compare.hpp"
#include "api/profile_plan.hpp"
#include "capi/capi_json.hpp"
#include "capi/gpu_probe.hpp"
#include "capi/profile_window.hpp"
#include "plan/autotune_cache.hpp"
#include "plan/plan_json.hpp"
#include "render/comparison_markdown.hpp"
#include "session/analysis_context.hpp"
#include "session/analyze_inputs.hpp"
#include "session/artifact.hpp"
#include "session/run_spec.hpp"
#include "util/errors.hpp"

#if defined(KPROF_CAPI_NVTX)
#include <nvtx3/nvToolsExt.h>
#endif

#ifndef KPROF_VERSION
#define KPROF_VERSION "0.0.0"
#endif

using kprof::capi::call;
using kprof::capi::get_or;
using json = nlohmann::json;

namespace {

kprof::session::AnalyzeSpec analyze_spec(const json& r) {
  kprof::session::AnalyzeSpec s;
  if (r.contains("inputs")) {
    if (r["inputs"].is_string()) s.inputs.push_back(r["inputs"].get<std::string>());
    else s.inputs = r["inputs"].get<std::vector<std::string>>();
  }
  // Names, outputs and data files are `kprof run`'s options (session/run_options.hpp), read by their keys.
  kprof::session::PackageSpec options;
  kprof::capi::apply_run_options(r, options, {"inputs", "params", "write"});
  s.kernel = options.run.kernel;
  s.version = options.run.version;
  s.output = options.run.output;
  s.data = options.run.data;
  s.ncu = options.run.ncu;
  if (r.contains("params")) s.params = kprof::capi::params_from(r["params"]);
  s.write = get_or<bool>(r, "write", true);
  return s;
}

// The autotune key of a request, its params held to the command line's rule like any other request's.
kprof::plan::CacheKey cache_key(const json& r) {
  auto key = r.at("key").get<kprof::plan::CacheKey>();
  kprof::capi::check_params(key.params);
  return key;
}

}  // namespace

extern "C" {

const char* kprof_version(void) { return KPROF_VERSION; }

void kprof_free(char* reply) { std::free(reply); }

char* kprof_interface(void) {
  return call(nullptr, [](const json&) {
    json j = kprof::capi::interface_description();
    j["version"] = KPROF_VERSION;
    return j;
  });
}

char* kprof_analyze(const char* request_json) {
  return call(request_json, [](const json& r) {
    auto a = kprof::session::analyze_inputs(analyze_spec(r));
    return kprof::capi::published_reply(a.run, a.published);
  });
}

char* kprof_compare(const char* request_json) {
  return call(request_json, [](const json& r) {
    for (const char* k : {"baseline", "current"})
      if (!r.contains(k)) throw kprof::Error(std::string("compare: \"") + k + "\" is required", kprof::kExitUsage);
    kprof::session::PackageSpec options;  // "devices", "thresholds": the options table's
    kprof::capi::apply_run_options(r, options, {"baseline", "current"});
    auto ctx = kprof::session::AnalysisContext::load(options.run.data);
    auto base = kprof::session::load_artifact(r["baseline"].get<std::string>());
    auto cur = kprof::session::load_artifact(r["current"].get<std::string>());
    auto cmp = kprof::analyze::compare_runs(base, cur, ctx.thresholds);
    return json{{"comparison", json(cmp)}, {"markdown", kprof::render::render_comparison(cmp)}};
  });
}

char* kprof_gpu_status(void) {
  return call(nullptr, [](const json&) {
    auto g = kprof::capi::probe_gpu();
    return json{{"gpus", g.count}, {"name", g.name}, {"reason", g.reason}};
  });
}

char* kprof_profile_begin(const char* request_json) {
  return call(request_json, [](const json& r) { return kprof::capi::begin_window(r); });
}

char* kprof_profile_end(const char* request_json) {
  return call(request_json, [](const json& r) { return kprof::capi::end_window(r); });
}

char* kprof_describe_plan(const char* request_json) {
  return call(request_json, [](const json& r) {
    kprof::ProblemParams params;
    if (r.contains("params")) params = kprof::capi::params_from(r["params"]);
    if (!params.dtype.empty())
      throw kprof::Error("describe_plan: \"params\" are integers (a package's dtype is its own)", kprof::kExitUsage);
    auto plan = kprof::api::describe_plan(get_or<std::string>(r, "package", ""), get_or<std::string>(r, "version", ""),
                                          params.values, get_or<std::string>(r, "kernels", ""));
    return json{{"plan", json(plan)}};
  });
}

char* kprof_profile_plan(const char* request_json) {
  return call(request_json, [](const json& r) {
    if (!r.contains("plan")) throw kprof::Error("profile_plan: \"plan\" is required", kprof::kExitUsage);
    auto plan = kprof::plan::plan_from_json(r["plan"].dump());
    kprof::capi::check_params(kprof::ProblemParams{plan.params, plan.dtype});
    kprof::api::ProfilePlanSettings s;
    json st = r.value("settings", json::object());
    s.exact_dir = get_or<std::string>(st, "exact_dir", "");
    s.kernels = get_or<std::string>(st, "kernels", "");
    s.cache_dir = get_or<std::string>(st, "cache_dir", "");
    s.retune = get_or<bool>(st, "retune", false);
    s.baseline = get_or<std::string>(st, "baseline", "");
    s.ncu = get_or<std::string>(st, "ncu", "ncu");
    s.counters = get_or<std::string>(st, "counters", "");
    s.no_wait = get_or<bool>(st, "no_wait", false);
    s.dry_run = get_or<bool>(st, "dry_run", false);
    s.autotune_only = get_or<bool>(st, "autotune", false);
    s.executor = get_or<std::string>(st, "executor", "local");
    s.chunk = get_or<int>(st, "chunk", 1);
    if (st.contains("sbatch_args")) {
      if (!st["sbatch_args"].is_array()) throw kprof::Error("\"sbatch_args\" must be a list of strings", kprof::kExitUsage);
      for (const auto& a : st["sbatch_args"]) {
        if (!a.is_string()) throw kprof::Error("\"sbatch_args\" must be a list of strings", kprof::kExitUsage);
        s.sbatch_args.push_back(a.get<std::string>());
      }
    }
    auto res = kprof::api::profile_plan(get_or<std::string>(r, "mode", std::string(kprof::mode_name(kprof::session::RunSpec{}.mode))), plan,
                                        get_or<std::string>(r, "out_dir", "out/profiles"),
                                        get_or<std::string>(r, "version", ""), get_or<int>(r, "bench_runs", 20), s);
    json out{{"exit_code", res.exit_code}, {"dir", res.artifact_dir.string()}, {"mode", res.mode},
             {"package", res.package}, {"version", res.version}, {"params", json(res.params)}};
    if (res.run) out["profile"] = json(*res.run);
    return out;
  });
}

char* kprof_autotune_load(const char* request_json) {
  return call(request_json, [](const json& r) {
    kprof::plan::AutotuneCache cache(get_or<std::string>(r, "root", ".cache/kernel-autotune"), cache_key(r));
    cache.load();
    return kprof::capi::cache_reply(cache);
  });
}

char* kprof_autotune_record(const char* request_json) {
  return call(request_json, [](const json& r) {
    kprof::plan::AutotuneCache cache(get_or<std::string>(r, "root", ".cache/kernel-autotune"), cache_key(r));
    cache.load();
    cache.record(r.at("entry").get<kprof::plan::TuneEntry>());
    return kprof::capi::cache_reply(cache);
  });
}

// NVTX reads NVTX_INJECTION64_PATH once, at this library's first NVTX call. A range pushed before any tool set it
// (a plan run before the first profiling window) would fix "nobody listens" for the whole process, and the ranges
// of every later window would be lost. So a range goes to NVTX only once the variable is set (by profile_begin's
// tracer, or by ncu / kprof run for the whole process); each pop matches its own push.
namespace {
thread_local std::vector<bool> nvtx_sent;
bool nvtx_listened() {
  const char* v = std::getenv("NVTX_INJECTION64_PATH");
  return v && *v;
}
}  // namespace

void kprof_nvtx_push(const char* name) {
#if defined(KPROF_CAPI_NVTX)
  const bool send = nvtx_listened();
  nvtx_sent.push_back(send);
  if (send) nvtxRangePushA(name ? name : "");
#else
  (void)name;
#endif
}

void kprof_nvtx_pop(void) {
#if defined(KPROF_CAPI_NVTX)
  bool sent = nvtx_listened();
  if (!nvtx_sent.empty()) {
    sent = nvtx_sent.back();
    nvtx_sent.pop_back();
  }
  if (sent) nvtxRangePop();
#endif
}

}  // extern "C"
