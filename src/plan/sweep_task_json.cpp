// to_json and from_json of the types sweep_task.hpp declares with KPROF_JSON_DECLARE, compiled once here rather than
// in every file that includes the header (their fields, in order: a key per field, missing keys read back as the
// default).
#include "plan/sweep_task.hpp"

namespace kprof::plan {
KPROF_JSON_DEFINE(SweepTask, id, package, version, params, mode, runs, tile_configs, argv, env, out_dir, log, stderr_to_log, needs_gpu,
           device_failure_codes)
KPROF_JSON_DEFINE(TaskResult, id, status, exit_code, signal, message, out_dir, host, gpu, gpu_name, worker, attempt, wall_s,
           started, finished)
KPROF_JSON_DEFINE(SweepFile, schema, tasks)
}  // namespace kprof::plan
