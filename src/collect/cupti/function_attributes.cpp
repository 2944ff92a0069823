// A profiled kernel's resources and theoretical occupancy, as the driver reports them (kernel_record.hpp).
#include "collect/cupti/kernel_record.hpp"

namespace kprof::cupti {

void fill_function(KernelRecord& r, CUfunction f) {
  if (!f || r.has_function) return;
  r.has_function = true;
  // The runtime launches through library kernels: the handle in cuLaunchKernel's parameters is then a CUkernel
  // (accepted where a CUfunction is), which cuFuncGetAttribute rejects. Resolve it in the current context.
  int probe = 0;
  if (cuFuncGetAttribute(&probe, CU_FUNC_ATTRIBUTE_NUM_REGS, f) == CUDA_ERROR_INVALID_HANDLE) {
    CUfunction resolved = nullptr;
    if (cuKernelGetFunction(&resolved, reinterpret_cast<CUkernel>(f)) == CUDA_SUCCESS && resolved) f = resolved;
  }
  if (CUresult e = cuFuncGetAttribute(&r.registers, CU_FUNC_ATTRIBUTE_NUM_REGS, f); e != CUDA_SUCCESS) {
    const char* s = nullptr;
    cuGetErrorName(e, &s);
    r.error = std::string("cuFuncGetAttribute: ") + (s ? s : "error");
  }
  cuFuncGetAttribute(&r.smem_static, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f);
  cuFuncGetAttribute(&r.local_bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f);
  int threads = static_cast<int>(r.block[0] * r.block[1] * r.block[2]);
  CUdevice dev = 0;
  int sms = 0, max_threads_sm = 0;
  if (cuCtxGetDevice(&dev) == CUDA_SUCCESS) {
    cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    cuDeviceGetAttribute(&max_threads_sm, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, dev);
    r.device = static_cast<int>(dev);
  }
  int blocks = 0;
  if (threads > 0 &&
      cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, threads, static_cast<size_t>(r.smem_dynamic)) ==
          CUDA_SUCCESS) {
    r.max_blocks_per_sm = blocks;
    int warps_per_block = (threads + 31) / 32;
    if (max_threads_sm > 0) r.theoretical_occupancy_pct = 100.0 * blocks * warps_per_block / (max_threads_sm / 32.0);
    double grid = double(r.grid[0]) * r.grid[1] * r.grid[2];
    if (blocks > 0 && sms > 0) r.waves_per_sm = grid / (double(blocks) * sms);
  }
}

}  // namespace kprof::cupti
