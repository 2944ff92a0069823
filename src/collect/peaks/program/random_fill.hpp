// Random, non-zero device data (never time on zeros): a counter-based hash per element, so fills are cheap and
// reproducible. Values are uniform in [lo, hi) then converted to the element type.
#pragma once
#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

namespace kprof::peaks {

enum class ElemType { f32, f16, bf16, fp8_e4m3 };

void fill_random(void* dst, ElemType type, std::size_t count, std::uint32_t seed, float lo, float hi,
                 cudaStream_t stream);

// Fraction of the first `count` floats that are exactly zero (a fill that did not run shows 1.0).
double zero_fraction_f32(const float* dev, std::size_t count);

}  // namespace kprof::peaks
