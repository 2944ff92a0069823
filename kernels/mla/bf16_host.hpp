// bf16 <-> float on the host, as raw 16-bit patterns, so that host code needs no CUDA headers.
#pragma once

#include <cstdint>
#include <cstring>

namespace mla {

inline float bf16_bits_to_float(std::uint16_t bits) {
  const std::uint32_t u = static_cast<std::uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Round to nearest even, as __float2bfloat16_rn does; NaN stays a (quiet) NaN.
inline std::uint16_t float_to_bf16_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu) != 0) return static_cast<std::uint16_t>((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>(u >> 16);
}

// 0xFFFF is a NaN in bf16: the poison pattern for outputs that a kernel must overwrite.
inline constexpr std::uint16_t kBf16PoisonBits = 0xFFFFu;

}  // namespace mla
