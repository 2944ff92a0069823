// Trace → Chrome/Perfetto JSON ({"traceEvents":[...],"displayTimeUnit":"ns"}), viewable in ui.perfetto.dev or
// chrome://tracing. Layout: one process per GPU ("GPU 0") with one thread per stream (kernels, copies, memsets);
// the host process with, per host thread, one track of CUDA API calls (+ synchronisation waits) and one of NVTX
// ranges; CUPTI overhead on its own track. Flow arrows (ph s → f, id = correlation id) link each launching API
// call to its GPU work. ts/dur are µs relative to the trace start, printed with ns precision.
// Streamed with fmt into one string buffer: no JSON tree, ~1M events/s.
#pragma once
#include <string>
#include "model/trace.hpp"

namespace kprof::render {

std::string render_chrome_trace(const Trace& trace);

}  // namespace kprof::render
