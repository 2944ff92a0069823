// Writers released at once, for the concurrency tests (issue 24): `processes` forked children and `threads` threads
// of this process each call write(i, in_child) once, all waiting on one start signal so that they really overlap.
// Returns how many failed: a child that did not exit 0 (a throw in it exits 1) or a thread whose call threw.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <exception>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace kprof::test {

inline int run_concurrent_writers(int processes, int threads, const std::function<void(int i, bool in_child)>& write) {
  int go[2];
  if (::pipe(go) != 0) return processes + threads;
  std::vector<pid_t> children;
  for (int i = 0; i < processes; ++i) {
    pid_t pid = ::fork();
    if (pid == 0) {
      ::close(go[1]);
      char c;
      if (::read(go[0], &c, 1) != 1) ::_exit(2);
      try {
        write(i, true);
      } catch (...) {
        ::_exit(1);
      }
      ::_exit(0);
    }
    children.push_back(pid);
  }
  ::close(go[0]);
  std::atomic<bool> start{false};
  std::atomic<int> failures{0};
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i)
    pool.emplace_back([&, i] {
      while (!start.load()) std::this_thread::yield();
      try {
        write(i, false);
      } catch (const std::exception&) {
        ++failures;
      }
    });
  const std::string signal(static_cast<std::size_t>(processes), 'g');
  if (::write(go[1], signal.data(), signal.size()) != static_cast<ssize_t>(signal.size())) failures += processes;
  ::close(go[1]);
  start = true;
  for (auto& t : pool) t.join();
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failures;
  }
  return failures.load();
}

}  // namespace kprof::test
