#include "capi/capi_json.hpp"

#include <cstdlib>
#include <cstring>

#include "plan/plan_json.hpp"
#include "render/roofline_chart.hpp"
#include "render/roofline_svg.hpp"
#include "util/errors.hpp"

namespace kprof::capi {

using json = nlohmann::json;

namespace {

// Every reply leaves through here. A string that is not UTF-8 (a CSV cell, a path or a kernel name quoted in an
// error, a name in a profile) has each bad byte replaced with U+FFFD: a strict dump threw type_error 316 from inside
// call()'s handlers, which nothing caught, and the process (Python) was terminated.
char* to_c(const json& j) {
  std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace);
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out) std::memcpy(out, s.c_str(), s.size() + 1);
  return out;
}

json error_reply(const std::string& message, int exit_code, const char* kind) {
  return json{{"ok", false}, {"error", message}, {"exit_code", exit_code}, {"kind", kind}};
}

const char* kind_of(int code) {
  switch (code) {
    case kExitUsage: return "usage";
    case kExitBadInput: return "bad-input";
    case kExitNoGpu: return "no-gpu";
    case kExitNoTool: return "no-tool";
    case kExitNoPermission: return "no-permission";
    case kExitProgramFailed: return "program-failed";
    case kExitBusy: return "busy";
    case kExitInterrupted: return "interrupted";
    default: return "error";
  }
}

}  // namespace

char* call(const char* request, const std::function<json(const json&)>& fn) {
  try {
    json r = (request && *request) ? json::parse(request) : json::object();
    if (!r.is_object()) return to_c(error_reply("the request must be a JSON object", kExitUsage, "usage"));
    json out = fn(r);
    out["ok"] = true;
    return to_c(out);
  } catch (const Error& e) {
    return to_c(error_reply(e.what(), e.exit_code(), kind_of(e.exit_code())));
  } catch (const plan::PlanError& e) {
    return to_c(error_reply(e.what(), kExitUsage, "usage"));
  } catch (const json::exception& e) {
    return to_c(error_reply(std::string("bad request: ") + e.what(), kExitUsage, "usage"));
  } catch (const std::exception& e) {
    return to_c(error_reply(e.what(), kExitFailure, "error"));
  } catch (...) {
    return to_c(error_reply("unknown error", kExitFailure, "error"));
  }
}

ProblemParams params_from(const json& j) {
  ProblemParams p;
  if (!j.is_object()) throw Error("params must be an object of name → integer", kExitUsage);
  if (j.contains("values")) return j.get<ProblemParams>();
  for (const auto& [k, v] : j.items()) {
    if (k == "dtype") p.dtype = v.get<std::string>();
    else if (v.is_number_integer()) p.values[k] = v.get<std::int64_t>();
    else throw Error("params." + k + ": an integer is required", kExitUsage);
  }
  return p;
}

session::OutputSpec output_spec(const json& r) {
  session::OutputSpec o;
  o.out_root = get_or<std::string>(r, "out_root", o.out_root);
  o.out_dir = get_or<std::string>(r, "out_dir", "");
  o.baseline = get_or<std::string>(r, "baseline", "");
  o.devlog = get_or<bool>(r, "devlog", false);
  o.docs_dir = get_or<std::string>(r, "docs_dir", o.docs_dir);
  return o;
}

session::DataFiles data_files(const json& r) {
  return {get_or<std::string>(r, "devices", ""), get_or<std::string>(r, "thresholds", "")};
}

json published_reply(const ProfileRun& run, const session::Published& p) {
  json out;
  out["dir"] = p.dir.string();
  out["profile"] = json(run);
  out["contract_markdown"] = p.contract_markdown;
  out["contract"] = json::parse(p.contract_json, nullptr, /*allow_exceptions=*/false);
  auto chart = render::roofline_chart_for(run);
  out["roofline_svg"] = chart.points.empty() ? std::string() : render::render_roofline_svg(chart);
  out["warnings"] = p.warnings;
  out["comparison"] = p.comparison ? json(*p.comparison) : json(nullptr);
  return out;
}

json cache_reply(const plan::AutotuneCache& cache) {
  return json{{"path", cache.path().string()},
              {"file", json(cache.file())},
              {"best", cache.best() ? json(*cache.best()) : json(nullptr)},
              {"warnings", cache.warnings()}};
}

}  // namespace kprof::capi
