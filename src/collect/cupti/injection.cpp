// Entry point the CUDA driver calls when CUDA_INJECTION64_PATH names this library (activity tracer, or the
// range-profiler counters when KPROF_COUNTERS_FILE is set), plus the exit paths:
// atexit writes the trace; SIGINT/SIGTERM write what was traced so far, then take the signal's previous action.
//
// The signal handler does no work itself and never waits: flushing CUPTI and writing a file are not
// async-signal-safe, and a forced flush can need a lock that the interrupted thread holds (on the H200 a handler
// that waited for the writer deadlocked in 7 of 44 Ctrl-Cs: the program hung until kprof killed it 10 s
// later, and the trace was lost). It hands the signal to a writer thread through a pipe and returns, so the
// interrupted thread goes on and releases what it holds. When the previous action was the default one (terminate),
// the writer writes the records CUPTI has already delivered (no flush, so a file exists whatever follows), then
// flushes and writes everything, then restores the default action and sends the signal again: the program ends of
// the same signal, its trace flushed. Otherwise (a program's own handler: Python turns SIGINT into
// KeyboardInterrupt; or SIG_IGN) the previous action is taken at once and the writer writes a snapshot; a program
// that survives gets the file rewritten, complete, at exit. A second signal while the writer works takes the
// default action at once, and so does the first after 5 s (a flush that never returns). A child made by fork()
// without exec inherits the handlers and the atexit entry but neither the writer nor a working CUPTI: its signals
// take the previous action at once and its exit writes nothing (the parent's file is the trace).
#include <cupti.h>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <unistd.h>
#include "collect/cupti/counter_mode.hpp"
#include "collect/cupti/cupti_tracer.hpp"

namespace {

int g_request_pipe[2] = {-1, -1};
struct sigaction g_previous[2];
constexpr int kSignals[2] = {SIGINT, SIGTERM};
pid_t g_pid = 0;  // the process CUDA loaded this library in (a fork()ed child inherits the handlers, not the writer)
std::atomic<bool> g_started{false};
std::atomic<int> g_ending_signal{0};  // the signal the writer ends the program with once the file is written
std::atomic<bool> g_writer_busy{false};
bool g_counter_mode = false;  // KPROF_COUNTERS_FILE set: range-profiler counters instead of activity tracing
constexpr auto kWriterLimit = std::chrono::seconds(5);  // then the program ends without a complete write

void write_results(bool interrupted) {
  if (g_counter_mode) kprof::cupti::write_counters(interrupted);
  else kprof::cupti::Tracer::instance().write_snapshot(interrupted);
}

// Default action, unblocked on this thread, raised here: the process ends of `sig` whatever other threads block.
[[noreturn]] void die_of(int sig) {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
  raise(sig);
  _exit(128 + sig);  // not reached
}

void writer_thread() {
  char c;
  for (;;) {
    ssize_t n = ::read(g_request_pipe[0], &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    const int ending = g_ending_signal.load();
    if (ending) {
      // A flush that never returns (a hung kernel) must not keep the program alive after its Ctrl-C.
      try {
        std::thread([ending] {
          std::this_thread::sleep_for(kWriterLimit);
          die_of(ending);
        }).detach();
      } catch (...) {
      }
      // First what CUPTI has already handed over: a trace file exists even if the flush below never returns.
      if (!g_counter_mode) kprof::cupti::Tracer::instance().write_delivered(/*interrupted=*/true, /*wait_ms=*/2000);
    }
    write_results(/*interrupted=*/true);
    if (ending) {
      // The exit path may be writing the same file (the signal came during exit): let it finish the rename.
      if (!g_counter_mode) kprof::cupti::Tracer::instance().wait_idle(/*wait_ms=*/3000);
      die_of(ending);
    }
    g_writer_busy.store(false);
  }
}

bool default_action(const struct sigaction& a) { return !(a.sa_flags & SA_SIGINFO) && a.sa_handler == SIG_DFL; }

void chain(int sig, siginfo_t* info, void* uctx) {
  int i = sig == SIGINT ? 0 : 1;
  const struct sigaction& prev = g_previous[i];
  if (prev.sa_flags & SA_SIGINFO) {
    if (prev.sa_sigaction) prev.sa_sigaction(sig, info, uctx);
  } else if (prev.sa_handler == SIG_IGN) {
    return;
  } else if (prev.sa_handler == SIG_DFL) {
    sigaction(sig, &prev, nullptr);  // restore the default action and die of the same signal
    raise(sig);
  } else {
    prev.sa_handler(sig);
  }
}

void on_signal(int sig, siginfo_t* info, void* uctx) {
  int saved_errno = errno;
  // A child made by fork() without exec has this handler but no writer thread: the previous action, now.
  if (::getpid() != g_pid) {
    errno = saved_errno;
    chain(sig, info, uctx);
    return;
  }
  const bool dies = default_action(g_previous[sig == SIGINT ? 0 : 1]);
  int expected = 0;
  // A second signal while the writer is at work: the previous action, now.
  if (dies && !g_ending_signal.compare_exchange_strong(expected, sig)) {
    errno = saved_errno;
    chain(sig, info, uctx);
    return;
  }
  g_writer_busy.store(true);  // before the writer wakes: the exit path waits for it from now on
  char c = 1;
  const bool handed_over = g_request_pipe[1] >= 0 && ::write(g_request_pipe[1], &c, 1) == 1;
  if (!handed_over && !dies) g_writer_busy.store(false);
  errno = saved_errno;
  if (!dies || !handed_over) chain(sig, info, uctx);
}

void install_signal_handlers() {
  // Close-on-exec (a program that execs keeps no stray descriptor); the write end never blocks a handler.
  if (::pipe2(g_request_pipe, O_CLOEXEC) != 0) {
    std::fprintf(stderr, "kprof tracer: no pipe; Ctrl-C will lose the trace\n");
    g_request_pipe[0] = g_request_pipe[1] = -1;
    return;
  }
  ::fcntl(g_request_pipe[1], F_SETFL, ::fcntl(g_request_pipe[1], F_GETFL) | O_NONBLOCK);
  // The writer must not take the signals itself (it would ask itself to write): it starts with them blocked.
  sigset_t block, previous;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &block, &previous);
  bool started = true;
  try {
    std::thread(writer_thread).detach();
  } catch (...) {
    started = false;
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (!started) {  // no writer: the signals keep their actions (Ctrl-C loses the trace, as without this library)
    std::fprintf(stderr, "kprof tracer: no writer thread; Ctrl-C will lose the trace\n");
    ::close(g_request_pipe[0]);
    ::close(g_request_pipe[1]);
    g_request_pipe[0] = g_request_pipe[1] = -1;
    return;
  }
  for (int i = 0; i < 2; ++i) {
    // The previous action is read before ours is installed: a signal in between sees it, not a zeroed one.
    sigaction(kSignals[i], nullptr, &g_previous[i]);
    struct sigaction sa {};
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(kSignals[i], &sa, nullptr);
  }
}

void at_exit() {
  // A child made by fork() without exec: CUPTI does not work there (a flush could wait forever on a lock some
  // thread of the parent held at the fork), and its copy of the records would replace the parent's file.
  if (::getpid() != g_pid) return;
  // A snapshot the writer is taking (after a signal) finishes first: a write that started then would otherwise
  // return at once and leave that snapshot as the file.
  const auto deadline = std::chrono::steady_clock::now() + kWriterLimit;
  while (g_writer_busy.load() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  write_results(/*interrupted=*/g_ending_signal.load() != 0);
}

}  // namespace

// NVTX ranges reach CUPTI only through the libcupti that NVTX_INJECTION64_PATH names, and only the instance this
// tracer uses records them. A process can hold two copies (PyTorch ships its own libcupti.so.13; whichever was
// loaded first satisfies this library's dependency), so point NVTX at the copy actually bound here. NVTX reads the
// variable at its first call, so this covers every range opened after CUDA initialises.
void point_nvtx_at_our_cupti() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cuptiActivityEnable), &info) && info.dli_fname && *info.dli_fname) {
    const char* current = std::getenv("NVTX_INJECTION64_PATH");
    if (!current || std::strcmp(current, info.dli_fname) != 0) setenv("NVTX_INJECTION64_PATH", info.dli_fname, 1);
  }
}

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  if (g_started.exchange(true)) return 1;  // the driver may call it once per process; be safe
  g_pid = ::getpid();
  auto counters = kprof::cupti::CounterOptions::from_env();
  g_counter_mode = !counters.output.empty();
  if (g_counter_mode) {
    point_nvtx_at_our_cupti();  // the NVTX stack attributes launches to stages
    if (!kprof::cupti::start_counter_collection(counters))
      std::fprintf(stderr, "kprof counters: counter collection unavailable; writing what it reports\n");
  } else {
    auto options = kprof::cupti::TracerOptions::from_env();
    if (options.nvtx) point_nvtx_at_our_cupti();
    if (!kprof::cupti::Tracer::instance().start(options))
      std::fprintf(stderr, "kprof tracer: CUPTI activity tracing unavailable; writing what it reports\n");
  }
  std::atexit(at_exit);
  install_signal_handlers();
  return 1;
}

// In-process profiling (capi/, the Python package): the C API loads this library with dlopen, calls
// InitializeInjection itself and, at the end of each profiling window, this. Tracer mode writes the window's trace
// to `path` and starts the next window empty (returns 1); counter mode writes KPROF_COUNTERS_FILE (returns 2);
// 0 when nothing was started or the file could not be written.
extern "C" __attribute__((visibility("default"))) int kprof_inject_write_window(const char* path) {
  if (!g_started.load()) return 0;
  if (g_counter_mode) {
    kprof::cupti::write_counters(/*interrupted=*/false);
    return 2;
  }
  return kprof::cupti::Tracer::instance().write_window(path ? path : "") ? 1 : 0;
}
