// A stable 64-bit hash of bytes (FNV-1a): the same input gives the same value in every process and build, which
// std::hash does not promise. For telling rows apart and for short stable names, not for security.
#pragma once
#include <cstdint>
#include <string_view>

namespace kprof {

inline constexpr std::uint64_t kFnv1aBasis = 1469598103934665603ull;

// Continues `h` over `bytes`; start from kFnv1aBasis.
inline std::uint64_t fnv1a(std::string_view bytes, std::uint64_t h = kFnv1aBasis) {
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace kprof
