// Dense tensor-core rates through cuBLASLt: one large square GEMM (D = A·B, TN layout) per precision on random
// data. Returns TFLOP/s (2·n³ FLOPs per GEMM).
#pragma once
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "collect/peaks/peak_measurement.hpp"
#include "peak_timer.hpp"

namespace kprof::peaks {

// Precisions measured: "bf16", "fp16", "tf32", "fp8" (E4M3 inputs, bf16 output).
const std::vector<std::string>& gemm_precisions();

// Throws std::runtime_error when cuBLASLt has no algorithm for the precision on this GPU.
PeakMeasurement measure_gemm(const std::string& precision, int n, cudaStream_t s, const TimingOptions& opt);

}  // namespace kprof::peaks
