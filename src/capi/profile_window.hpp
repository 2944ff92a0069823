// In-process profiling for the Python package: a window opened by begin_window() and closed by end_window(),
// measured by libkprof_inject.so loaded into this process (dlopen, InitializeInjection), then assembled and
// published through the session layer exactly like `kprof run`'s collector files.
//
//   event, nsys   the CUPTI activity tracer (the mode's record kinds); each window writes trace.kptrace into its
//                 artifact directory and the next window starts empty
//   annotation    the CUPTI range profiler in counter mode with counter timing (`--timing counters --counters
//                 cupti`): one window per process, since the collector profiles the first launch of each kernel
//   ncu           not in-process: the Python package re-runs the script under `kprof run --prof-type=ncu`
//
// The library is one collector per process: tracer and counter windows cannot be mixed in one process.
#pragma once
#include "model/json_support.hpp"  // integer reads range-checked (not nlohmann/json.hpp directly)

namespace kprof::capi {

nlohmann::json begin_window(const nlohmann::json& request);
nlohmann::json end_window(const nlohmann::json& request);

}  // namespace kprof::capi
