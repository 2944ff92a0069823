// Profiling inside the calling process (the C API's windows, and through them Python's kprof.profile): which modes
// can run there and what they collect. The policy is the session layer's, so that the C API only carries it out.
#pragma once
#include "session/run_spec.hpp"

namespace kprof::session {

// Whether `mode` can profile a window of the calling process. Nsight Compute replays kernels from outside the
// process: ncu cannot (Python re-runs its script under `kprof run --prof-type=ncu` instead).
bool runs_in_process(Mode mode);

// `spec` made into an in-process window's: annotation takes counters and timings from the CUPTI range profiler
// (no second, traced run of the program) for every kernel (no tracer pass to take shares from). A mode that cannot
// run in-process throws Error(kExitUsage) saying what to do instead.
RunSpec in_process_spec(RunSpec spec);

}  // namespace kprof::session
