// A stand-in libkprof_inject.so for testing the in-process window without a GPU: the same two exports as the real
// library. InitializeInjection notes the environment the C API set; each window writes a real kprof-trace/1 file
// (TraceBuffer, as the tracer does) with three launches of one kernel, and beside it <path>.env with the
// KPROF_* variables the library saw, so the test checks the mode's record kinds.
#include <cstdlib>
#include <fstream>
#include <string>

#include "collect/trace/trace_writer.hpp"

extern char** environ;

namespace {
int g_windows = 0;
std::string g_env;
}  // namespace

extern "C" int InitializeInjection(void) {
  for (char** e = environ; *e; ++e)
    if (std::string(*e).rfind("KPROF_", 0) == 0 || std::string(*e).rfind("NVTX_", 0) == 0) g_env += *e + std::string("\n");
  return 1;
}

extern "C" int kprof_inject_write_window(const char* path) {
  kprof::TraceBuffer b;
  auto name = b.intern("_Z11fake_kernelPfi");
  const std::uint64_t base = 1000000ull * static_cast<std::uint64_t>(++g_windows);
  for (int i = 0; i < 3; ++i) {
    auto& k = b.kernels.push();
    k = {};
    k.start = base + static_cast<std::uint64_t>(i) * 10000;
    k.end = k.start + 5000 + static_cast<std::uint64_t>(i) * 10;
    k.stream = 7;
    k.correlation = static_cast<std::uint32_t>(i + 1);
    k.name = name;
    k.grid[0] = 128; k.grid[1] = 1; k.grid[2] = 1;
    k.block[0] = 256; k.block[1] = 1; k.block[2] = 1;
  }
  kprof::TraceFileInfo info;
  info.process_name = "python";
  info.tracer_start_ns = base;
  info.tracer_end_ns = base + 100000;
  std::string error;
  if (!b.write_file(path, info, &error)) return 0;
  std::ofstream(std::string(path) + ".env") << g_env;
  return 1;
}
