#include "capi/capi_json.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <utility>
#include <vector>

#include "plan/plan_json.hpp"
#include "render/roofline_chart.hpp"
#include "render/roofline_svg.hpp"
#include "session/in_process.hpp"
#include "session/mode_table.hpp"
#include "session/run_options.hpp"
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

// A request's strings reach C calls (open, stat, exec) where a NUL byte ends them: "a.csv\u0000x" named a.csv and
// the rest was silently dropped. No command line can carry one either, so a string or a field name holding one is
// refused, naming where it is ("inputs[1]", "key.kernel"). Iterative: a request may nest deeper than the stack.
void refuse_nul_bytes(const json& request) {
  std::vector<std::pair<const json*, std::string>> todo{{&request, ""}};
  auto refuse = [](const std::string& where) {
    throw Error("request field \"" + where + "\" holds a NUL byte (\\u0000): a path or a name would end there",
                kExitUsage);
  };
  while (!todo.empty()) {
    auto [j, where] = std::move(todo.back());
    todo.pop_back();
    if (j->is_string()) {
      if (j->get_ref<const std::string&>().find('\0') != std::string::npos) refuse(where);
    } else if (j->is_object()) {
      for (auto it = j->begin(); it != j->end(); ++it) {
        std::string at = where.empty() ? it.key() : where + "." + it.key();
        if (it.key().find('\0') != std::string::npos) refuse(at);
        todo.emplace_back(&it.value(), std::move(at));
      }
    } else if (j->is_array()) {
      for (std::size_t i = 0; i < j->size(); ++i) todo.emplace_back(&(*j)[i], where + "[" + std::to_string(i) + "]");
    }
  }
}

json error_reply(const std::string& message, int exit_code) {
  return json{{"ok", false}, {"error", message}, {"exit_code", exit_code}, {"kind", exit_kind(exit_code)}};
}

}  // namespace

char* call(const char* request, const std::function<json(const json&)>& fn) {
  try {
    json r = (request && *request) ? json::parse(request) : json::object();
    if (!r.is_object()) return to_c(error_reply("the request must be a JSON object", kExitUsage));
    refuse_nul_bytes(r);
    json out = fn(r);
    out["ok"] = true;
    return to_c(out);
  } catch (const Error& e) {
    return to_c(error_reply(e.what(), e.exit_code()));
  } catch (const plan::PlanError& e) {
    return to_c(error_reply(e.what(), kExitUsage));
  } catch (const json::exception& e) {
    return to_c(error_reply(std::string("bad request: ") + e.what(), kExitUsage));
  } catch (const std::filesystem::filesystem_error& e) {
    // The file system refused (a name too long, a path under a file, no space): "cannot write", as the command line
    // says (cli/app.cpp), not a bug in kprof. Inputs are looked at before (util/fs.hpp's input_status: bad input).
    return to_c(error_reply(e.what(), kExitCannotWrite));
  } catch (const std::exception& e) {
    return to_c(error_reply(e.what(), kExitFailure));
  } catch (...) {
    return to_c(error_reply("unknown error", kExitFailure));
  }
}

ProblemParams params_from(const json& j) {
  if (!j.is_object()) throw Error("params must be an object of name → integer", kExitUsage);
  ProblemParams p;
  if (j.contains("values")) {
    p = j.get<ProblemParams>();
    check_params(p);
    return p;
  }
  try {
    for (const auto& [k, v] : j.items()) {
      if (k == "dtype") p.set(k, v.get<std::string>());
      else if (v.is_number_integer()) p.set(k, v.get<std::int64_t>());
      else throw Error("params." + k + ": an integer is required", kExitUsage);
    }
  } catch (const std::invalid_argument& e) {
    throw Error(std::string("params: ") + e.what(), kExitUsage);
  }
  return p;
}

void check_params(const ProblemParams& p) {
  try {
    p.check();
  } catch (const std::invalid_argument& e) {
    throw Error(std::string("params: ") + e.what(), kExitUsage);
  }
}

void apply_run_options(const json& r, session::PackageSpec& spec, std::initializer_list<std::string_view> own) {
  for (const auto& [key, value] : r.items()) {
    if (std::find(own.begin(), own.end(), key) != own.end() || value.is_null()) continue;
    const session::RunOption* o = session::find_run_option(key);
    if (!o || o->key != key) throw Error("unknown request field \"" + key + "\"", kExitUsage);
    if (o->flag) {
      if (!value.is_boolean()) throw Error("\"" + key + "\" must be true or false", kExitUsage);
      if (value.get<bool>()) o->set(spec, "");
    } else if (value.is_string()) {
      o->set(spec, value.get<std::string>());
    } else if (value.is_number()) {
      o->set(spec, value.dump());
    } else {
      throw Error("\"" + key + "\" must be a string or a number", kExitUsage);
    }
  }
}

json interface_description() {
  json modes = json::array();
  for (Mode m : kModes)
    modes.push_back({{"name", mode_name(m)},
                     {"purpose", session::mode_entry(m).purpose},
                     {"in_process", session::runs_in_process(m)}});
  json codes = json::array();
  for (const auto& e : kExitCodes) codes.push_back({{"code", e.code}, {"kind", e.kind}, {"meaning", e.meaning}});
  json options = json::array();
  const session::PackageSpec defaults;
  for (const auto& o : session::run_options())
    options.push_back({{"name", o.name},
                       {"alias", o.alias},
                       {"key", o.key},
                       {"help", o.help},
                       {"flag", o.flag},
                       {"run", o.on_run},
                       {"package", o.on_package},
                       {"default", o.default_of ? json(o.default_of(defaults)) : json(nullptr)}});
  return json{{"modes", modes}, {"exit_codes", codes}, {"run_options", options}};
}

json published_reply(const ProfileRun& run, const session::Published& p) {
  json out;
  out["dir"] = p.dir.string();
  out["profile"] = json(run);
  out["contract_markdown"] = p.contract_markdown;
  out["contract"] = json::parse(p.contract_json, nullptr, /*allow_exceptions=*/false);
  auto chart = render::roofline_chart_for(run);
  out["roofline_svg"] = chart.points.empty() ? std::string() : render::render_roofline_svg(chart);
  json texts = json::array(), codes = json::array();
  for (const auto& w : p.warnings) {
    texts.push_back(w.text);
    codes.push_back(warning_code_name(w.code));
  }
  out["warnings"] = texts;  // Python's Result.warnings: the sentences
  out["warning_codes"] = codes;
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
