#include "collect/gpu_presence.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <regex>

#include "util/errors.hpp"

namespace kprof {

namespace {
bool has_device_node() {
  std::error_code ec;
  if (std::filesystem::exists("/dev/dxg", ec)) return true;  // WSL
  static const std::regex node("nvidia[0-9]+");
  for (const auto& e : std::filesystem::directory_iterator("/dev", ec))
    if (std::regex_match(e.path().filename().string(), node)) return true;
  return false;
}
}  // namespace

std::optional<std::string> no_gpu_reason() {
  if (const char* a = std::getenv("KPROF_ASSUME_GPU"); a && std::string(a) == "1") return std::nullopt;
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) {
    std::string s(v);
    if (s.empty() || s == "-1" || s == "none") return "CUDA_VISIBLE_DEVICES=\"" + s + "\" hides every GPU";
  }
  if (!has_device_node()) return "no NVIDIA device node (/dev/nvidia0, ...) on this machine";
  void* lib = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!lib) {
    const char* e = ::dlerror();
    return std::string("the CUDA driver library libcuda.so.1 cannot be loaded") + (e ? std::string(": ") + e : "");
  }
  ::dlclose(lib);
  return std::nullopt;
}

void require_gpu(const std::string& what) {
  if (auto why = no_gpu_reason())
    throw Error(what + " needs an NVIDIA GPU, and none is usable: " + *why + " (exit 4; KPROF_ASSUME_GPU=1 skips this "
                "check)", kExitNoGpu);
}

}  // namespace kprof
