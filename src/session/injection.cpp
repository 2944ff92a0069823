#include "session/injection.hpp"

#include <cstdlib>
#include <vector>

#include "util/errors.hpp"
#include "util/fs.hpp"

namespace kprof::session {

namespace fs = std::filesystem;

namespace {
fs::path exe_dir() { return executable_dir().value_or(fs::current_path()); }
}  // namespace

std::optional<fs::path> find_injection_library() {
  if (const char* e = std::getenv("KPROF_INJECT_LIB")) return fs::path(e);
  for (auto p : {exe_dir() / "libkprof_inject.so", exe_dir() / "../lib/libkprof_inject.so",
                 exe_dir() / "src/collect/cupti/libkprof_inject.so"})
    if (fs::exists(p)) return fs::weakly_canonical(p);
  return std::nullopt;
}

std::optional<fs::path> find_cupti_library() {
  if (const char* e = std::getenv("KPROF_CUPTI_LIB")) return fs::path(e);
  std::vector<fs::path> roots;
  if (const char* h = std::getenv("CUDA_HOME")) roots.emplace_back(h);
  roots.emplace_back("/usr/local/cuda");
  for (const auto& r : roots)
    for (auto sub : {"lib64/libcupti.so", "extras/CUPTI/lib64/libcupti.so", "lib/libcupti.so",
                     "targets/x86_64-linux/lib/libcupti.so"})
      if (fs::exists(r / sub)) return r / sub;
  return std::nullopt;
}

ProcessSpec injected_program(const RunSpec& spec, const std::string& missing) {
  auto inject = find_injection_library();
  if (!inject)
    throw Error(missing + ": libkprof_inject.so was not found next to kprof (build kprof with the CUDA toolkit "
                "present, or set KPROF_INJECT_LIB)", kExitNoTool);
  ProcessSpec p;
  p.argv = spec.command;
  p.env_set["CUDA_INJECTION64_PATH"] = inject->string();
  if (auto cupti = find_cupti_library()) p.env_set["NVTX_INJECTION64_PATH"] = cupti->string();
  return p;
}

}  // namespace kprof::session
