#include "session/run_spec.hpp"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "util/errors.hpp"

namespace kprof::session {

namespace fs = std::filesystem;

std::string kernel_name(const RunSpec& spec) {
  if (!spec.kernel.empty()) return spec.kernel;
  const auto& cmd = spec.command;
  if (cmd.empty()) return "";
  std::string prog = fs::path(cmd[0]).filename().string();
  if (prog.rfind("python", 0) == 0)
    for (std::size_t i = 1; i < cmd.size(); ++i)
      if (cmd[i].size() > 3 && cmd[i].substr(cmd[i].size() - 3) == ".py") return fs::path(cmd[i]).stem().string();
  return prog;
}

std::string command_line(const std::vector<std::string>& cmd) {
  std::string s;
  for (const auto& a : cmd) s += (s.empty() ? "" : " ") + (a.find(' ') != std::string::npos ? "'" + a + "'" : a);
  return s;
}

CounterSource counter_source(const RunSpec& spec) {
  if (spec.counters) return *spec.counters;
  const char* e = std::getenv("KPROF_COUNTERS");
  // CUPTI's range profiler inside the program by default: the same hardware counters as ncu's at a fraction of
  // its start-up and replay cost (bench/RESULTS.md §1); ncu for SASS-level FLOP counts and graph-launched kernels.
  return e && *e ? parse_counter_source(e, "KPROF_COUNTERS") : CounterSource::Cupti;
}

bool is_python(const RunSpec& spec) {
  return !spec.command.empty() && fs::path(spec.command[0]).filename().string().rfind("python", 0) == 0;
}

std::map<std::string, DeclaredWork> declared_stages_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw ParseError(where, 0, "declared stages: expected an object of stage name -> work");
  std::map<std::string, DeclaredWork> out;
  for (const auto& [name, w] : j.items()) {
    if (!w.is_object()) throw ParseError(where, 0, "declared stage '" + name + "': expected an object");
    DeclaredWork d;
    for (const char* key : {"flops", "min_bytes"}) {
      if (!w.contains(key) || w[key].is_null()) continue;
      if (!w[key].is_number() || !std::isfinite(w[key].get<double>()) || w[key].get<double>() < 0)
        throw ParseError(where, 0, "declared stage '" + name + "': " + key + " must be a finite number >= 0");
      (std::string(key) == "flops" ? d.flops : d.min_bytes) = w[key].get<double>();
    }
    if (w.contains("precision") && !w["precision"].is_null()) {
      if (!w["precision"].is_string())
        throw ParseError(where, 0, "declared stage '" + name + "': precision must be a string");
      d.precision = w["precision"].get<std::string>();
    }
    out[name] = d;
  }
  return out;
}

std::map<std::string, DeclaredWork> declared_stages_from_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read " + path + " (--declared)", kExitBadInput);
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded()) throw ParseError(path, 0, "not valid JSON (--declared)");
  return declared_stages_from_json(j, path);
}

}  // namespace kprof::session
