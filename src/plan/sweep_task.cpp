#include "plan/sweep_task.hpp"

#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "util/errors.hpp"

namespace kprof::plan {

std::string task_id(std::size_t index) { return fmt::format("{:04d}", index); }

std::vector<std::string> task_argv(const SweepTask& t, const std::string& out) {
  std::vector<std::string> argv = t.argv;
  const std::string token = kTaskOutToken;
  for (auto& a : argv)
    for (auto at = a.find(token); at != std::string::npos; at = a.find(token, at + out.size()))
      a.replace(at, token.size(), out);
  return argv;
}

SweepFile parse_sweep_file(const std::string& text, const std::string& origin) {
  SweepFile f;
  try {
    f = json::parse(text).get<SweepFile>();
  } catch (const json::exception& e) {
    throw ParseError(origin, 0, std::string("not a kprof.sweep/1 task list: ") + e.what());
  }
  if (f.schema != SweepFile{}.schema)
    throw ParseError(origin, 0, "schema '" + f.schema + "' (this kprof reads " + SweepFile{}.schema + ")");
  std::set<std::string> ids;
  for (std::size_t i = 0; i < f.tasks.size(); ++i) {
    const auto& t = f.tasks[i];
    if (t.id.empty() || t.id.find('/') != std::string::npos || t.id[0] == '.')
      throw ParseError(origin, 0, fmt::format("task {} has no usable id ('{}')", i, t.id));
    if (t.argv.empty()) throw ParseError(origin, 0, "task " + t.id + " has no command");
    if (t.out_dir.empty()) throw ParseError(origin, 0, "task " + t.id + " has no out_dir");
    // The worker replaces out_dir and writes the task's log inside it: an absolute folder, and a plain file name
    // that is not the params.json it writes there itself.
    if (!std::filesystem::path(t.out_dir).is_absolute())
      throw ParseError(origin, 0, "task " + t.id + ": out_dir '" + t.out_dir + "' is not an absolute path");
    if (!t.log.empty() && (t.log.find('/') != std::string::npos || t.log[0] == '.' || t.log == "params.json"))
      throw ParseError(origin, 0, "task " + t.id + ": log '" + t.log + "' is not a plain file name");
    if (!ids.insert(t.id).second) throw ParseError(origin, 0, "two tasks have the id " + t.id);
  }
  return f;
}

std::optional<TaskResult> parse_task_result(const std::string& text) {
  try {
    auto r = json::parse(text).get<TaskResult>();
    if (r.id.empty()) return std::nullopt;
    return r;
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

}  // namespace kprof::plan
