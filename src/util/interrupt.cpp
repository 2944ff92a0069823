#include "util/interrupt.hpp"

#include <csignal>

#include "util/errors.hpp"

namespace kprof {

namespace {
volatile std::sig_atomic_t g_signal = 0;
int g_depth = 0;
struct sigaction g_old_int {}, g_old_term {};
void on_signal(int sig) {
  if (!g_signal) g_signal = sig;
}
}  // namespace

InterruptScope::InterruptScope() {
  if (g_depth++ > 0) return;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, &g_old_int);
  ::sigaction(SIGTERM, &sa, &g_old_term);
}

InterruptScope::~InterruptScope() {
  if (--g_depth > 0) return;
  ::sigaction(SIGINT, &g_old_int, nullptr);
  ::sigaction(SIGTERM, &g_old_term, nullptr);
}

int interrupt_signal() { return g_signal; }

int interrupt_exit_code() {
  if (g_signal == SIGINT) return kExitInterrupted;
  if (g_signal == SIGTERM) return kExitTerminated;
  return 0;
}

}  // namespace kprof
