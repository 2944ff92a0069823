// to_json and from_json of the types bench_table.hpp declares with KPROF_JSON_DECLARE, compiled once here rather than
// in every file that includes the header (their fields, in order: a key per field, missing keys read back as the
// default).
#include "model/bench_table.hpp"

namespace kprof {
KPROF_JSON_DEFINE(BenchStage, name, work, stream)
KPROF_JSON_DEFINE(BenchRun, package, version, point, params, plan_kind, stages, status, message, samples_ms, artifacts, device,
           host)
KPROF_JSON_DEFINE(BenchRow, package, version, point, params, plan_kind, status, message, runs, time_ms, tflops, gbps,
           bound_ms, pct_of_roof, bound_by, vs, speedup, verdict, p_value, test, samples_ms, artifacts, device, host)
KPROF_JSON_DEFINE(BenchTable, schema, device, peaks, alpha, min_samples, noise_pct, rows, notes, timestamp)
}  // namespace kprof
