#include "session/run_spec.hpp"

#include <cstdlib>
#include <filesystem>

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

}  // namespace kprof::session
