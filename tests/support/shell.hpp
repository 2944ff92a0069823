// Running a command line from a test: exit code, stdout and stderr (captured through files in a per-process
// scratch folder, so that the output of a crash is kept too).
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "util/fs.hpp"

namespace kprof::test {

struct ShellResult {
  int code = -1;  // exit status, -1 when killed by a signal
  std::string out, err;
};

// <tmp>/kprof_<tag>_<pid>, created on first use.
inline std::filesystem::path scratch_dir(const std::string& tag) {
  auto d = std::filesystem::temp_directory_path() / ("kprof_" + tag + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(d);
  return d;
}

inline ShellResult run_shell(const std::string& cmd, const std::filesystem::path& scratch) {
  static int n = 0;
  auto o = scratch / ("o" + std::to_string(n)), e = scratch / ("e" + std::to_string(n++));
  int st = std::system((cmd + " >" + o.string() + " 2>" + e.string()).c_str());
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, read_file(o), read_file(e)};
}

}  // namespace kprof::test
