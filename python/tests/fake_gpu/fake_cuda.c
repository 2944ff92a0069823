/* A stand-in libcuda.so.1 for testing the in-process profiling window without a GPU: one device, every call
 * succeeds. Only what kprof's C API (capi/gpu_probe.cpp) and the Python package (synchronize) call. */
#include <string.h>
int cuInit(unsigned flags) { (void)flags; return 0; }
int cuDeviceGetCount(int* n) { *n = 1; return 0; }
int cuDeviceGet(int* dev, int ordinal) { *dev = ordinal; return 0; }
int cuDeviceGetName(char* name, int len, int dev) {
  (void)dev;
  strncpy(name, "Fake GPU (test stand-in)", (size_t)len - 1);
  name[len - 1] = 0;
  return 0;
}
int cuCtxSynchronize(void) { return 0; }
