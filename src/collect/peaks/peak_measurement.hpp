// One measured peak as kprof-peaks reports it: the median rate of several timed runs and their spread.
// Plain struct (no JSON here) so the CUDA sources can include it.
#pragma once
#include <string>

namespace kprof {

struct PeakMeasurement {
  double value = 0;     // median over runs, in the key's unit (GB/s for *_gbps, TFLOP/s for *_tflops)
  double min = 0;       // slowest run
  double max = 0;       // fastest run
  int runs = 0;         // timed runs (after warm-up)
  std::string method;   // what was timed: "float4 copy kernel, 2 x 2.00 GiB, read+write counted"
};

}  // namespace kprof
