// FMA throughput of the CUDA cores: independent FMA chains per thread (enough ILP to hide pipe latency),
// every SM filled. Returns TFLOP/s (an FMA counts 2 FLOPs).
#pragma once
#include <cuda_runtime.h>

#include "collect/peaks/peak_measurement.hpp"
#include "device_facts.hpp"
#include "peak_timer.hpp"

namespace kprof::peaks {

PeakMeasurement measure_fp32_fma(const DeviceFacts& d, cudaStream_t s, const TimingOptions& opt);
PeakMeasurement measure_fp64_fma(const DeviceFacts& d, cudaStream_t s, const TimingOptions& opt);

}  // namespace kprof::peaks
