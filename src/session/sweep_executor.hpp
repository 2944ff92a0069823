// Executors: run a sweep's tasks (plan/sweep_task.hpp) and hand back one result per task.
//   local  this process, one task after another, under the GPU lock (what kprof bench always did; the default)
//   gpus   one worker process per visible GPU (`kprof sweep-worker`), each with its own CUDA_VISIBLE_DEVICES and
//          GPU lock; workers pull tasks from a queue in the spool folder (claimed by rename), a worker that dies is
//          reported and the tasks it held go back to the queue for the others
//   slurm  one `sbatch --array` job, one array task per task (or per --chunk tasks), each asking --gres=gpu:1; the
//          array tasks run `kprof sweep-worker --array-index N` and write into the spool folder and the out-root,
//          which must be on a file system the nodes share; squeue (and sacct where accounting is on) for state,
//          scancel on Ctrl-C
// Whichever ran a task, it ran through run_task (sweep_worker.hpp): its artifact is written into a staging folder
// and renamed into place, with params.json saying where it ran (host, GPU, clocks).
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "plan/sweep_task.hpp"
#include "session/run_spec.hpp"

namespace kprof::session {

enum class ExecutorKind { local, gpus, slurm };
// Throws Error(kExitUsage) naming `option` for another word.
ExecutorKind parse_executor(const std::string& name, const std::string& option = "--executor");
std::string_view executor_name(ExecutorKind k);

struct ExecutorOptions {
  ExecutorKind kind = ExecutorKind::local;
  std::filesystem::path spool;             // tasks.json, queue/, results/, logs (shared by the nodes for slurm)
  std::string kprof;                       // the kprof workers run ("" = this very binary)
  bool no_wait = false;                    // fail (exit 8) instead of waiting for a GPU lock
  int chunk = 1;                           // slurm: tasks per array task
  std::vector<std::string> sbatch_args;    // slurm: more sbatch options (--partition=..., --time=..., --account=...)
  Log log;
};

// Runs every task and returns their results in task order. `on_done` is called from this thread once per task as
// it finishes (gpus, slurm: in the order they finish). SIGINT/SIGTERM stop the sweep: workers are interrupted, a
// Slurm job is cancelled (scancel), and every unfinished task is returned "cancelled" with no artifact.
// Throws Error: kExitUsage (bad options), kExitNoGpu (gpus: no GPU visible), kExitNoTool (slurm: no sbatch),
// kExitBusy (local: --no-wait and the GPU is taken), kExitCannotWrite (the spool folder).
using TaskDone = std::function<void(const plan::TaskResult&)>;
std::vector<plan::TaskResult> run_sweep(const std::vector<plan::SweepTask>& tasks, const ExecutorOptions& options,
                                        const TaskDone& on_done = nullptr);

// The GPUs the gpus executor starts a worker for, as CUDA_VISIBLE_DEVICES values: $KPROF_SWEEP_GPUS when set
// (comma-separated; tests give stand-ins), else the entries of CUDA_VISIBLE_DEVICES, else nvidia-smi's indices.
// Empty when none is found.
std::vector<std::string> sweep_gpus();

// Where tasks, queue and results of one sweep go: <out>/sweep.
std::filesystem::path spool_dir(const std::filesystem::path& out);

}  // namespace kprof::session
