// The C API's JSON plumbing: running a request with every exception turned into an error reply, reading request
// fields into the session layer's specs, and the replies shared by analyze and the in-process window.
#pragma once
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>

#include "model/json_support.hpp"  // integer reads range-checked (not nlohmann/json.hpp directly)

#include "model/params.hpp"
#include "model/profile.hpp"
#include "plan/autotune_cache.hpp"
#include "session/publish.hpp"
#include "session/run_spec.hpp"

namespace kprof::capi {

// Parses `request` (NULL = {}), runs `fn`, returns {"ok": true, ...fn's fields} or {"ok": false, "error",
// "exit_code", "kind"} as a malloc'd string. Never throws. A request that is not an object, or holds a NUL byte
// (\u0000) in any string or field name, is a usage error before `fn` runs.
char* call(const char* request, const std::function<nlohmann::json(const nlohmann::json&)>& fn);

template <typename T>
T get_or(const nlohmann::json& j, const char* key, T fallback) {
  if (!j.is_object() || !j.contains(key) || j[key].is_null()) return fallback;
  return j[key].get<T>();
}

// {"b": 32, "dtype": "bf16"} or {"values": {...}, "dtype": ...}, names and values held to the command line's rule
// (ProblemParams::set): a usage error otherwise.
ProblemParams params_from(const nlohmann::json& j);
// Params read another way (an autotune key) held to the same rule: a usage error naming what is wrong.
void check_params(const ProblemParams& p);
// Every field of the request that is an option of the profiling commands (session/run_options.hpp, by its key:
// "out_root", "no_wait", ...) applied to `spec` as the command line applies it: strings and numbers as the flag's
// value, true for a flag (false leaves the default). A field that is neither an option nor in `own` (the request's
// other fields) is a usage error naming it, as an unknown flag is.
void apply_run_options(const nlohmann::json& r, session::PackageSpec& spec, std::initializer_list<std::string_view> own);

// What the C API offers, for bindings to read instead of keeping copies: the modes (name, purpose, whether they run
// in-process), the exit codes (code, kind, meaning) and the profiling options (name, alias, key, help, flag or
// value, which commands offer them, default).
nlohmann::json interface_description();

// An analysed run with what publish() made of it: dir, profile, contract (Markdown and JSON), roofline SVG,
// warnings, comparison.
nlohmann::json published_reply(const ProfileRun& run, const session::Published& p);
nlohmann::json cache_reply(const plan::AutotuneCache& cache);

}  // namespace kprof::capi
