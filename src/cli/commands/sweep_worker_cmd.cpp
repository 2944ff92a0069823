// kprof sweep-worker: the worker process of the gpus and slurm executors (session/sweep_worker.hpp).
#include <optional>

#include "cli/commands/commands.hpp"
#include "session/sweep_worker.hpp"

namespace kprof::cli {

int cmd_sweep_worker(const SweepWorkerOptions& o) {
  session::WorkerOptions w;
  w.spool = o.spool;
  w.name = o.name;
  w.executor = o.executor;
  if (o.array_index >= 0) w.array_index = o.array_index;
  w.chunk = o.chunk;
  w.no_wait = o.no_wait;
  w.log = stderr_log(o.quiet);
  return session::run_worker(w);
}

}  // namespace kprof::cli
