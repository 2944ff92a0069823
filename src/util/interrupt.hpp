// SIGINT/SIGTERM while kprof works: the handler only records the signal. Whoever is waiting (a child process, the
// GPU lock) stops what it waits for; the session keeps what was measured as a marked partial artifact, and the
// command exits 130 (SIGINT) or 143 (SIGTERM).
#pragma once

namespace kprof {

// Installs the recording handler for SIGINT and SIGTERM (no SA_RESTART: blocking calls return EINTR); the
// previous handlers come back when the scope ends. Scopes nest.
class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
};

// The first SIGINT or SIGTERM received inside a scope (0 when none): kept after the scope ends.
int interrupt_signal();
// 130 for SIGINT, 143 for SIGTERM, 0 when not interrupted.
int interrupt_exit_code();

}  // namespace kprof
