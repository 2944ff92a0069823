// The sweep model every executor runs (session/sweep_executor.hpp): a sweep is a list of tasks, each one command
// that writes one artifact directory; an executor runs them (here, on the GPUs of a node, on a Slurm cluster) and
// returns one TaskResult per task. The front ends (kprof bench, kprof <package> --executor) build the tasks and read
// the artifacts back exactly as they would after a local run, so the tables, rank tests and autotune cache are the
// same whichever executor ran them.
//
// The tasks travel as a file, <spool>/tasks.json (schema kprof.sweep/1), which workers on other processes or hosts
// read; each result is written as <spool>/results/<id>.json when the task's artifact is in place.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/json_support.hpp"
#include "model/params.hpp"

namespace kprof::plan {

// What a task does, for the reader of a result (the command is in argv either way).
enum class TaskMode { bench, tune, command };
NLOHMANN_JSON_SERIALIZE_ENUM(TaskMode, {{TaskMode::command, "command"}, {TaskMode::bench, "bench"}, {TaskMode::tune, "tune"}})

// Written in argv where the task's output directory goes: the runner puts its staging directory there, and renames
// it to out_dir once the command succeeded or failed, so that out_dir is never half-written.
inline constexpr char kTaskOutToken[] = "{out}";

struct SweepTask {
  std::string id;                      // "0007": the task's place in the sweep (results are named by it)
  std::string package, version;        // "" for a task that is not a package's
  ProblemParams params;
  TaskMode mode = TaskMode::command;
  int runs = 0;                        // bench: timed runs
  std::vector<int> tile_configs;       // tune: indices into each tuned stage's tile space
  std::vector<std::string> argv;       // the command; kTaskOutToken stands for the output directory
  std::map<std::string, std::string> env;  // added to the worker's environment
  std::string out_dir;                 // the artifact directory (absolute, on the shared out-root for slurm)
  std::string log = "log.txt";         // the command's stdout (and stderr), in the output directory
  bool stderr_to_log = true;           // false: stderr stays the worker's (kprof bench -v shows progress)
  bool needs_gpu = true;               // the worker takes the GPU's lock and records its clocks
  // Exit codes that may mean the GPU rather than the task failed (kprof-kernels: 1, a CUDA error): the gpus
  // executor runs such a task once more on another GPU, and retires a GPU that no longer answers nvidia-smi. A
  // crash (killed by a signal other than SIGINT/SIGTERM) counts too.
  std::vector<int> device_failure_codes;
};
KPROF_JSON_DECLARE(SweepTask)

// Where and how a task ran. `status`: ok (the command exited 0), failed (it did not: exit_code / signal say how),
// cancelled (the sweep was interrupted or the job cancelled before it finished), lost (no worker was left to run
// it, or its array task ended without a result).
struct TaskResult {
  std::string id;
  std::string status = "ok";
  int exit_code = 0;
  int signal = 0;
  std::string message;
  std::string out_dir;                 // where the artifact is ("" when none was kept)
  std::string host;
  std::string gpu;                     // the CUDA_VISIBLE_DEVICES the task ran with ("" when none)
  std::string gpu_name;                // nvidia-smi's name of that GPU, when it answered
  std::string worker;                  // "local", "gpu1", "slurm 1234_7"
  int attempt = 1;
  double wall_s = 0;
  std::string started, finished;       // ISO 8601 UTC
};
KPROF_JSON_DECLARE(TaskResult)

struct SweepFile {
  std::string schema = "kprof.sweep/1";
  std::vector<SweepTask> tasks;
};
KPROF_JSON_DECLARE(SweepFile)

// Task ids: the index, zero-padded to 4 digits ("0000"), so that a folder listing sorts as the sweep does.
std::string task_id(std::size_t index);

// The command with kTaskOutToken replaced by `out` (in whole words and inside words: "--out={out}").
std::vector<std::string> task_argv(const SweepTask& t, const std::string& out);

// Reads <spool>/tasks.json; throws ParseError (exit 3) naming the file for another schema, a task without an id or
// a command, or two tasks with one id.
SweepFile parse_sweep_file(const std::string& text, const std::string& origin);

// Reads a result file; nullopt when it is not one (workers write them atomically, but a file put there by anything
// else may hold anything).
std::optional<TaskResult> parse_task_result(const std::string& text);

}  // namespace kprof::plan
