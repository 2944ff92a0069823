// How a program is started with libkprof_inject.so inside it: the CUDA driver loads the library named by
// CUDA_INJECTION64_PATH, NVTX reaches CUPTI through NVTX_INJECTION64_PATH, and the library's environment (its
// KPROF_TRACE_* or KPROF_COUNTERS_* variables, collect/trace/tracer_env.hpp and
// collect/counters/counters_format.hpp) chooses tracer or counter mode and what they record.
#pragma once
#include <filesystem>
#include <optional>
#include <string>

#include "session/run_spec.hpp"
#include "util/process.hpp"

namespace kprof::session {

// libkprof_inject.so: $KPROF_INJECT_LIB, next to the executable, in ../lib, or where the build tree puts it.
std::optional<std::filesystem::path> find_injection_library();
// libcupti for NVTX_INJECTION64_PATH: $KPROF_CUPTI_LIB, else under $CUDA_HOME or /usr/local/cuda.
std::optional<std::filesystem::path> find_cupti_library();

// The program with the library injected and NVTX pointed at libcupti; `missing` says what cannot be done when the
// library is not found (thrown as Error(kExitNoTool)).
ProcessSpec injected_program(const RunSpec& spec, const std::string& missing);

}  // namespace kprof::session
