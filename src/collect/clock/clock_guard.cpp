#include "collect/clock/clock_guard.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <sys/wait.h>
#include <unistd.h>

#include "collect/clock/clock_plan.hpp"
#include "collect/clock/clock_saved_state.hpp"
#include "collect/clock/nvidia_smi.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"

namespace kprof {

namespace {

std::atomic<ClockGuard*> g_guard{nullptr};
pid_t g_owner_pid = 0;  // handlers act only in the process that locked, never in a forked child
struct sigaction g_old_int {};
struct sigaction g_old_term {};
bool g_atexit_registered = false;

std::string resolve_on_path(const std::string& prog) {
  if (prog.find('/') != std::string::npos) return prog;
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find(':', start);
    std::string dir = p.substr(start, end == std::string::npos ? std::string::npos : end - start);
    std::string cand = (dir.empty() ? "." : dir) + "/" + prog;
    if (::access(cand.c_str(), X_OK) == 0) return cand;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return prog;
}

}  // namespace

ClockGuard::ClockGuard(int gpu, bool lock, std::optional<int> sm_mhz) : gpu_(gpu) {
  ClockState s = query_clocks(gpu);
  record_.sm_mhz_before = s.sm_mhz.value_or(0);
  record_.mem_mhz_before = s.mem_mhz.value_or(0);
  if (!lock) return;

  if (g_guard.load()) throw Error("a clock lock is already held by this process");
  if (auto prior = load_clock_state(gpu))
    throw Error("GPU " + std::to_string(gpu) + " clocks were locked by " + prior->locked_by + " at " +
                    prior->timestamp + " and not restored (" + clock_state_path(gpu).string() +
                    "); run `kprof clock reset --gpu " + std::to_string(gpu) + " --yes` first",
                kExitBusy);

  const std::string program = nvidia_smi_program();
  ClockPlan plan = plan_lock(s, sm_mhz, program);

  SavedClockState saved = state_before_lock(s, plan);

  program_path_ = resolve_on_path(program);
  state_path_ = clock_state_path(gpu).string();
  restore_cmds_ = plan_reset(gpu, saved, program_path_).commands;
  for (auto& cmd : restore_cmds_) {
    std::vector<char*> argv;
    for (auto& a : cmd) argv.push_back(a.data());
    argv.push_back(nullptr);
    restore_argv_.push_back(std::move(argv));
  }

  save_clock_state(saved);
  g_owner_pid = ::getpid();
  g_guard.store(this);
  active_.store(true);
  struct sigaction sa {};
  sa.sa_handler = &ClockGuard::on_signal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, &g_old_int);
  ::sigaction(SIGTERM, &sa, &g_old_term);
  if (!g_atexit_registered) {
    std::atexit(&ClockGuard::on_exit);
    g_atexit_registered = true;
  }

  for (const auto& cmd : plan.commands) {
    auto r = run_command(cmd);
    if (r.exit_code != 0) {
      restore();
      throw Error("cannot lock GPU clocks: '" + shell_command(cmd) + "' failed (exit " + std::to_string(r.exit_code) +
                      "): " + r.out + r.err,
                  (r.out + r.err).find("ermission") != std::string::npos ? kExitNoPermission : kExitFailure);
    }
  }
  record_.locked = true;
}

ClockGuard::~ClockGuard() { restore(); }

const ClockRecord& ClockGuard::finish() {
  try {
    ClockState s = query_clocks(gpu_);
    record_.sm_mhz_after = s.sm_mhz.value_or(0);
    record_.mem_mhz_after = s.mem_mhz.value_or(0);
    record_.throttle_reasons = s.event_reasons ? decode_event_reasons(*s.event_reasons) : std::vector<std::string>{};
  } catch (const Error&) {
    // The record stays without "after" figures; the run itself is not affected.
  }
  return record_;
}

void ClockGuard::restore() noexcept {
  if (!active_.exchange(false)) return;
  ::sigaction(SIGINT, &g_old_int, nullptr);
  ::sigaction(SIGTERM, &g_old_term, nullptr);
  bool ok = true;
  for (const auto& cmd : restore_cmds_) ok = run_command(cmd).exit_code == 0 && ok;
  if (ok) ::unlink(state_path_.c_str());  // on failure the state file stays for `kprof clock reset`
  g_guard.store(nullptr);
}

void ClockGuard::restore_async_signal_safe() noexcept {
  if (!active_.exchange(false)) return;
  bool ok = true;
  for (auto& argv : restore_argv_) {
    pid_t pid = ::fork();
    if (pid == 0) {
      ::execv(program_path_.c_str(), argv.data());
      ::_exit(127);
    }
    int status = 0;
    while (pid > 0 && ::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    ok = ok && pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  if (ok) ::unlink(state_path_.c_str());
  g_guard.store(nullptr);
}

void ClockGuard::on_signal(int sig) {
  ClockGuard* g = g_guard.load();
  if (g && ::getpid() == g_owner_pid) g->restore_async_signal_safe();
  // Hand the signal to whoever handled it before us (default: terminate with this signal).
  ::sigaction(sig, sig == SIGINT ? &g_old_int : &g_old_term, nullptr);
  ::raise(sig);
}

void ClockGuard::on_exit() {
  ClockGuard* g = g_guard.load();
  if (g && ::getpid() == g_owner_pid) g->restore();
}

}  // namespace kprof
