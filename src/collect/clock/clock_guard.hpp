// RAII clock lock for one profiling run: when kprof locks the clocks, they are restored on every exit path
// (destructor, exception unwinding, exit(), SIGINT, SIGTERM). SIGKILL cannot be caught: the state file it leaves
// lets `kprof clock reset` finish the job.
#pragma once
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "model/clock.hpp"

namespace kprof {

class ClockGuard {
 public:
  // Reads the clocks; when `lock` is true, records the state file, installs the restore handlers and locks
  // (plan_lock with `sm_mhz`). Throws Error when a lock command fails (after undoing what it did).
  // Only one guard may lock at a time in a process.
  ClockGuard(int gpu, bool lock, std::optional<int> sm_mhz = std::nullopt);
  ~ClockGuard();
  ClockGuard(const ClockGuard&) = delete;
  ClockGuard& operator=(const ClockGuard&) = delete;

  // Reads the clocks after the run into the record (sm/mem_mhz_after, event reasons); call before restore().
  const ClockRecord& finish();
  // Undo the lock now; idempotent and safe to call from a signal handler path.
  void restore() noexcept;

  const ClockRecord& record() const { return record_; }

 private:
  void restore_async_signal_safe() noexcept;
  static void on_signal(int sig);
  static void on_exit();

  int gpu_;
  ClockRecord record_;
  std::atomic<bool> active_{false};                 // a lock is in place and not yet restored
  std::vector<std::vector<std::string>> restore_cmds_;
  std::vector<std::vector<char*>> restore_argv_;    // prepared up front: a signal handler must not allocate
  std::string program_path_;                        // absolute path for execv
  std::string state_path_;
};

}  // namespace kprof
