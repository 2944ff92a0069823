// The worker side of the executors (sweep_executor.hpp): running one task, and `kprof sweep-worker`, which runs the
// tasks of a spool folder for the gpus executor (pulling from its queue) or for one Slurm array task (its chunk).
//
// Spool layout (<out>/sweep/): tasks.json (the sweep, kprof.sweep/1); queue/<id> (gpus: a task waiting, its
// attempt and the workers it failed on); claimed/<worker>/<id> (taken by that worker); results/<id>.json (the
// TaskResult, written once the artifact is in place); workers/<name>.json (pid, host, GPU of each worker).
#pragma once
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "plan/sweep_task.hpp"
#include "session/run_spec.hpp"

namespace kprof::session {

// Who runs a task, recorded in its result and params.json.
struct WorkerIdentity {
  std::string name = "local";   // "local", "gpu1", "slurm 1234_7"
  std::string executor = "local";
  int attempt = 1;
};

// Runs one task here: the command with its output folder in a hidden staging folder beside out_dir
// (".<name>.partial-XXXXXX"), its stdout and stderr in <out>/<log>, then params.json (the params, host, GPU,
// clock state, executor, worker, attempt) and a rename into out_dir (replacing what an earlier attempt left).
// Interrupted (SIGINT/SIGTERM to this process, scancel), or the command killed by SIGINT/SIGTERM: the command is
// stopped, the staging folder removed, status "cancelled", nothing at out_dir. Throws Error(kExitCannotWrite) when the folders cannot be made.
plan::TaskResult run_task(const plan::SweepTask& task, const WorkerIdentity& who);

// Writes <spool>/results/<id>.json atomically.
void write_result(const std::filesystem::path& spool, const plan::TaskResult& r);
// Every result file of <spool>/results that reads, by id; those whose id `skip` says are known are not read again.
std::vector<plan::TaskResult> read_results(const std::filesystem::path& spool,
                                           const std::function<bool(const std::string&)>& skip = nullptr);

// The queue entry of a task: its attempt and the workers it failed on (they do not take it again).
// `last`: the result of the attempt that failed, which stands when no other worker is left to try it.
struct QueueEntry {
  int attempt = 1;
  std::vector<std::string> failed_on;
  std::optional<plan::TaskResult> last;
};
KPROF_JSON_DECLARE(QueueEntry)

// The queue's helpers, shared by the gpus coordinator and its workers.
std::filesystem::path queue_file(const std::filesystem::path& spool, const std::string& id);
QueueEntry read_queue_entry(const std::filesystem::path& file);  // a default entry when it does not read
// True when the device may have failed rather than the task (SweepTask::device_failure_codes, or a crash).
bool device_failure(const plan::SweepTask& t, const plan::TaskResult& r);

struct WorkerOptions {
  std::filesystem::path spool;
  std::string name;                  // "gpu0"; default: "slurm <job>_<index>" or the host
  std::optional<int> array_index;    // slurm: run tasks [index*chunk, (index+1)*chunk) of tasks.json
  int chunk = 1;
  std::string executor = "gpus";
  bool no_wait = false;
  Log log;
};
// Exit codes: 0 every task it took has a result (ok or failed), 4 its GPU failed (the task that showed it went back
// to the queue), 130/143 interrupted, 2/3 bad options or spool.
inline constexpr int kWorkerGpuFailed = 4;
int run_worker(const WorkerOptions& o);

}  // namespace kprof::session
