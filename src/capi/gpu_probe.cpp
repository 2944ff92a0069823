#include "capi/gpu_probe.hpp"

#include <dlfcn.h>

namespace kprof::capi {

GpuProbe probe_gpu() {
  GpuProbe g;
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    g.reason = "no CUDA driver (libcuda.so.1 not found): this machine has no NVIDIA GPU driver";
    return g;
  }
  using InitFn = int (*)(unsigned);
  using CountFn = int (*)(int*);
  using GetFn = int (*)(int*, int);
  using NameFn = int (*)(char*, int, int);
  auto init = reinterpret_cast<InitFn>(dlsym(lib, "cuInit"));
  auto count = reinterpret_cast<CountFn>(dlsym(lib, "cuDeviceGetCount"));
  auto get = reinterpret_cast<GetFn>(dlsym(lib, "cuDeviceGet"));
  auto name = reinterpret_cast<NameFn>(dlsym(lib, "cuDeviceGetName"));
  if (!init || !count) {
    g.reason = "libcuda.so.1 lacks cuInit/cuDeviceGetCount";
    return g;
  }
  if (int rc = init(0); rc != 0) {
    g.reason = "cuInit failed (CUresult " + std::to_string(rc) + "): no usable GPU";
    return g;
  }
  int n = 0;
  if (count(&n) != 0 || n <= 0) {
    g.reason = "the CUDA driver reports no GPU";
    return g;
  }
  g.count = n;
  int dev = 0;
  char buf[256] = {};
  if (get && name && get(&dev, 0) == 0 && name(buf, sizeof buf, dev) == 0) g.name = buf;
  return g;  // the driver stays loaded: CUDA is about to be used in this process
}

}  // namespace kprof::capi
