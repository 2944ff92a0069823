#include "analyze/data_files.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <system_error>
#include <vector>

#include "util/errors.hpp"
#include "util/fs.hpp"

namespace kprof::analyze {

namespace fs = std::filesystem;

std::vector<fs::path> data_search_dirs() {
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("KPROF_DATA_DIR"); env && *env) dirs.emplace_back(env);
  if (auto dir = executable_dir()) {
    dirs.push_back(*dir / ".." / "share" / "kprof");
    dirs.push_back(*dir / ".." / ".." / "data");
  }
  dirs.push_back(fs::path(KPROF_SOURCE_DIR) / "data");
  return dirs;
}

fs::path find_data_file(const std::string& name) {
  std::vector<std::string> tried;
  for (const auto& dir : data_search_dirs()) {
    std::error_code ec;
    auto p = dir / name;
    if (fs::is_regular_file(p, ec)) return p.lexically_normal();
    tried.push_back(p.lexically_normal().string());
  }
  throw Error(
      fmt::format("cannot find shipped data file {} (tried {}); set KPROF_DATA_DIR", name, fmt::join(tried, ", ")),
      kExitBadInput);
}

std::optional<fs::path> find_user_file(const std::optional<fs::path>& explicit_path, const char* env_var,
                                       const std::string& name) {
  std::optional<fs::path> asked;
  if (explicit_path && !explicit_path->empty()) asked = *explicit_path;
  else if (const char* env = env_var ? std::getenv(env_var) : nullptr; env && *env) asked = fs::path(env);
  std::error_code ec;
  if (asked) {
    if (!fs::is_regular_file(input_status(*asked)))
      throw Error("cannot read " + asked->string() + ": no such file", kExitBadInput);
    return asked;
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    auto p = fs::path(home) / ".config" / "kprof" / name;
    if (fs::is_regular_file(p, ec)) return p;
  }
  return std::nullopt;
}

}  // namespace kprof::analyze
