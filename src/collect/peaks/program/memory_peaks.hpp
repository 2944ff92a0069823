// Bandwidth microbenchmarks: HBM copy (read+write counted), other read:write mixes, HBM read-only reduction, L2 re-reads of a working
// set a quarter of the L2, shared-memory reads. Each returns GB/s (1e9 byte/s).
#pragma once
#include <cuda_runtime.h>

#include "collect/peaks/peak_measurement.hpp"
#include "device_facts.hpp"
#include "peak_timer.hpp"

namespace kprof::peaks {

PeakMeasurement measure_dram_copy(const DeviceFacts& d, cudaStream_t s, const TimingOptions& opt);
PeakMeasurement measure_dram_memcpy(const DeviceFacts& d, cudaStream_t s, const TimingOptions& opt);
PeakMeasurement measure_dram_read(const DeviceFacts& d, cudaStream_t s, const TimingOptions& opt);
// Other read:write mixes and launch shapes a real kernel streams with, so the DRAM roof is what kernels attain:
// 2:1 (an elementwise add) over resident blocks or one float4 per thread, and a 1:1 copy one float4 per thread.
enum class DramMix { add_resident, add_flat, copy_flat };
PeakMeasurement measure_dram_mix(const DeviceFacts& d, cudaStream_t s, const TimingOptions& opt, DramMix mix);
PeakMeasurement measure_l2_read(const DeviceFacts& d, cudaStream_t s, const TimingOptions& opt);
PeakMeasurement measure_smem_read(const DeviceFacts& d, cudaStream_t s, const TimingOptions& opt);
// The host link: cudaMemcpyAsync between pinned host memory (cudaMallocHost) and the device, one direction, 256 MiB a
// run: the rate a copy from pinned memory reaches (program advice's "copy from pinned memory" compares pageable copies
// with it).
PeakMeasurement measure_host_link(cudaStream_t s, const TimingOptions& opt, bool to_device);
// Both directions at once: a 256 MiB upload on `s` and a 256 MiB read-back on a second stream, pinned, started
// together; the bytes of both over the time until both end. Twice the one-way rate where the two copy engines and the
// link run each direction at full rate; less where they share something (the host's memory, a virtualised link).
PeakMeasurement measure_host_link_both(cudaStream_t s, const TimingOptions& opt);

}  // namespace kprof::peaks
