// The counters file and the environment of the collector that writes it, in one place for the three parties:
// libkprof_inject.so in counter mode (collect/cupti/counter_*: reads the variables, writes the file), the importer
// (counters_import: reads the file) and the session layer (session/collectors: sets every variable, reads the
// file back through the importer). No dependencies: the injected library includes it too.
//
// File: JSON, written atomically after every profiled launch and at exit; schema kprof.counters/1:
//   { schema, pid, process, cupti_api_version, chip, device: {name, compute_capability, sm_count}, replay,
//     passes, setup_ms, setup_steps_ms{step: ms}, metrics[], units{metric: CUPTI dimension}, unsupported[], launches_seen,
//     launches_profiled, launches_captured, interrupted, errors[], error_count,
//     kernels: [{ mangled, invocation, order, context, device, grid[3], block[3], shared_mem_dynamic, nvtx[],
//                 values{metric: value}, ranges_in_image, ranges_dropped, replay_wall_ms, api, stream?,
//                 registers?, shared_mem_static?, local_bytes_per_thread?, max_blocks_per_sm?,
//                 theoretical_occupancy_pct?, waves_per_sm?, non_finite[]?, error? }] }
#pragma once
#include <cstddef>

namespace kprof::counters_format {

inline constexpr char kSchema[] = "kprof.counters/1";
inline constexpr char kFileName[] = "counters.json";  // its name in the artifact directory

// Environment of the collector. KPROF_COUNTERS_FILE set and non-empty switches libkprof_inject.so from activity
// tracing to counters. kprof sets every variable (empty = the default) so that nothing exported in the shell
// applies unseen.
inline constexpr char kEnvFile[] = "KPROF_COUNTERS_FILE";        // the file to write
inline constexpr char kEnvMetrics[] = "KPROF_COUNTERS_METRICS";  // comma-separated metric names
inline constexpr char kEnvKernel[] = "KPROF_COUNTERS_KERNEL";    // ECMAScript regex searched in the base name
inline constexpr char kEnvNvtx[] = "KPROF_COUNTERS_NVTX";        // "a" or "a/b": b pushed directly inside a
inline constexpr char kEnvAll[] = "KPROF_COUNTERS_ALL";          // "1": every selected launch, not the first per name
inline constexpr char kEnvSkip[] = "KPROF_COUNTERS_SKIP";        // selected launches to pass over first
inline constexpr char kEnvCount[] = "KPROF_COUNTERS_COUNT";      // stop after this many profiled launches (0: no limit)
inline constexpr char kEnvMax[] = "KPROF_COUNTERS_MAX";          // launches profiled at most
inline constexpr std::size_t kDefaultMaxKernels = 512;
inline constexpr std::size_t kMaxKernelsLimit = 100000;          // KPROF_COUNTERS_MAX is clamped to 1..this
inline constexpr char kEnvImage[] = "KPROF_COUNTERS_IMAGE";      // ranges one counter image holds before renewal
inline constexpr std::size_t kDefaultImageRanges = 32;
inline constexpr std::size_t kMaxImageRanges = 512;              // KPROF_COUNTERS_IMAGE is clamped to 1..this

// Keys of the document (top level, then per kernel).
namespace key {
inline constexpr char schema[] = "schema";
inline constexpr char pid[] = "pid";
inline constexpr char process[] = "process";
inline constexpr char cupti_api_version[] = "cupti_api_version";
inline constexpr char chip[] = "chip";
inline constexpr char device[] = "device";
inline constexpr char device_name[] = "name";
inline constexpr char device_cc[] = "compute_capability";
inline constexpr char device_sms[] = "sm_count";
inline constexpr char replay[] = "replay";
inline constexpr char passes[] = "passes";
inline constexpr char setup_ms[] = "setup_ms";
// a kernel's {select, start, launch (attributes inside), stop, decode, evaluate, write: ms}
inline constexpr char phases_ms[] = "phases_ms";
inline constexpr char setup_steps_ms[] = "setup_steps_ms";  // {step: ms}, setup_ms by step
inline constexpr char metrics[] = "metrics";
inline constexpr char units[] = "units";
inline constexpr char unsupported[] = "unsupported";
inline constexpr char launches_seen[] = "launches_seen";
inline constexpr char launches_profiled[] = "launches_profiled";
inline constexpr char launches_captured[] = "launches_captured";
inline constexpr char interrupted[] = "interrupted";
inline constexpr char errors[] = "errors";
inline constexpr char error_count[] = "error_count";
inline constexpr char kernels[] = "kernels";

inline constexpr char mangled[] = "mangled";
inline constexpr char invocation[] = "invocation";
inline constexpr char order[] = "order";
inline constexpr char context[] = "context";
inline constexpr char kernel_device[] = "device";
inline constexpr char grid[] = "grid";
inline constexpr char block[] = "block";
inline constexpr char shared_mem_dynamic[] = "shared_mem_dynamic";
inline constexpr char nvtx[] = "nvtx";
inline constexpr char values[] = "values";
inline constexpr char ranges_in_image[] = "ranges_in_image";
inline constexpr char ranges_dropped[] = "ranges_dropped";
inline constexpr char replay_wall_ms[] = "replay_wall_ms";
inline constexpr char api[] = "api";
inline constexpr char stream[] = "stream";
inline constexpr char registers[] = "registers";
inline constexpr char shared_mem_static[] = "shared_mem_static";
inline constexpr char local_bytes_per_thread[] = "local_bytes_per_thread";
inline constexpr char max_blocks_per_sm[] = "max_blocks_per_sm";
inline constexpr char theoretical_occupancy_pct[] = "theoretical_occupancy_pct";
inline constexpr char waves_per_sm[] = "waves_per_sm";
inline constexpr char non_finite[] = "non_finite";
inline constexpr char error[] = "error";
}  // namespace key

}  // namespace kprof::counters_format
