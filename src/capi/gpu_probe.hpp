// Whether this process can use a CUDA GPU, asked of the driver (libcuda.so.1, loaded with dlopen so the library
// needs no CUDA to build or load): the Python package's NoGpuError comes from here.
#pragma once
#include <string>

namespace kprof::capi {

struct GpuProbe {
  int count = 0;       // devices the driver reports (0 when none, or no driver)
  std::string name;    // device 0's name
  std::string reason;  // why count is 0
};

GpuProbe probe_gpu();

}  // namespace kprof::capi
