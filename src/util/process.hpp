// Running a child program (the profiled command, ncu, nvidia-smi) with its output captured to files.
// The child runs in its own process group: SIGINT/SIGTERM to kprof are passed on to that group (util/interrupt.hpp),
// kprof waits for it and reports that it was interrupted, so whatever was measured before can still be written.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kprof {

struct ProcessResult {
  int exit_code = -1;        // valid when !signaled
  bool signaled = false;
  int signal = 0;            // terminating signal when signaled
  bool interrupted = false;  // kprof itself received SIGINT/SIGTERM while waiting
  double wall_seconds = 0;
  std::string describe() const;  // "exited with code 3", "killed by signal 11 (Segmentation fault)"
};

struct ProcessSpec {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env_set;  // added to / overriding the inherited environment
  std::string stdout_file;                     // "" = inherit
  std::string stderr_file;                     // "" = inherit; "=stdout" = same file as stdout
};

// Runs to completion. Throws Error(kExitNoTool) when argv[0] cannot be executed.
ProcessResult run_process(const ProcessSpec& spec);

// Finds an executable on PATH (or returns the argument when it contains '/'); nullopt when absent.
std::optional<std::string> find_executable(const std::string& name);

}  // namespace kprof
