// Timing with CUDA events: warm-up launches, then `repeats` timed launches, each bracketed by events on one
// stream. The rate of each run (work / time) is kept; the median is the figure, min and max the spread.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "collect/peaks/peak_measurement.hpp"

namespace kprof::peaks {

struct TimingOptions {
  int warmup = 3;
  int repeats = 7;   // at least 5
};

// Milliseconds of each timed run of `launch` (which enqueues work on `stream`).
std::vector<double> time_runs(const std::function<void(cudaStream_t)>& launch, cudaStream_t stream,
                              const TimingOptions& opt);

// `work` units per run (bytes or FLOPs) over each run's time, scaled by `per_unit` (1e9 → GB/s, 1e12 → TFLOP/s).
PeakMeasurement summarize(const std::vector<double>& ms, double work, double per_unit, const std::string& method);

// Smallest power-of-two multiple of `start` for which one run of `launch(n)` takes at least `target_ms`.
long calibrate(const std::function<void(cudaStream_t, long)>& launch, cudaStream_t stream, long start,
               double target_ms, long limit);

}  // namespace kprof::peaks
