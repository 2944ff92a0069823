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
  bool die_with_parent = false;                // SIGKILL the child when this process dies (a sweep worker's task:
                                               // a killed worker leaves no task running, or writing, behind it)
};

// Runs to completion. Throws Error(kExitNoTool) when argv[0] cannot be executed.
ProcessResult run_process(const ProcessSpec& spec);

// A child started without waiting for it (the sweep executors' workers): its own process group, stdout/stderr to
// files as run_process does. try_wait() reaps it without blocking; the destructor kills and reaps a child still
// running (SIGKILL to its group), so no worker outlives the sweep that started it.
class ChildProcess {
 public:
  // Throws Error(kExitNoTool) when argv[0] cannot be executed, CannotWrite for an output file.
  explicit ChildProcess(const ProcessSpec& spec);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  int pid() const { return pid_; }
  // The result once it has exited (reaped: later calls return the same), nullopt while it runs.
  std::optional<ProcessResult> try_wait();
  // A signal to its whole group (nothing when it has exited).
  void signal_group(int sig);

 private:
  int pid_ = -1;
  std::optional<ProcessResult> done_;
  double started_ = 0;
};

// Finds an executable on PATH (or returns the argument when it contains '/'); nullopt when absent.
std::optional<std::string> find_executable(const std::string& name);

}  // namespace kprof
