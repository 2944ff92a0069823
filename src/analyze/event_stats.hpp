// Per-kernel-name duration statistics and per-NVTX-range spans from a trace (every tracing mode's numbers; the
// result types are in model/trace_analysis.hpp).
#pragma once
#include "model/trace.hpp"
#include "model/trace_analysis.hpp"

namespace kprof::analyze {

EventStats compute_event_stats(const Trace& trace);

}  // namespace kprof::analyze
