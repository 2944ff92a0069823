// Host-side data helpers shared by packages: bf16 bit conversions, seeded non-zero random values, and the
// output positions a sampled reference checks.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

namespace kprof::kernels {

inline float bf16_to_float(std::uint16_t b) {
  std::uint32_t u = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Round to nearest even (finite inputs).
inline std::uint16_t float_to_bf16(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>(u >> 16);
}

// splitmix64: fast, seedable, good enough for test data.
struct SplitMix {
  std::uint64_t s;
  explicit SplitMix(std::uint64_t seed) : s(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [-1, 1) with |x| >= 1/64: never zero, so a kernel that skips work cannot look right.
  float nonzero_unit() {
    float u = static_cast<float>(next() >> 40) / static_cast<float>(1ull << 24) * 2.0f - 1.0f;
    if (u > -1.0f / 64 && u < 1.0f / 64) u = u < 0 ? -0.5f : 0.5f;
    return u;
  }
};

// Output positions (row, col) a sampled reference checks: the four corners, the last row and column (where
// partial tiles end), the diagonal, then seeded random positions, up to `count` in all.
inline std::vector<std::pair<std::int64_t, std::int64_t>> sample_positions(std::int64_t rows, std::int64_t cols,
                                                                          std::size_t count, std::uint64_t seed) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  auto add = [&](std::int64_t r, std::int64_t c) {
    if (out.size() < count && r >= 0 && c >= 0 && r < rows && c < cols) out.emplace_back(r, c);
  };
  add(0, 0);
  add(0, cols - 1);
  add(rows - 1, 0);
  add(rows - 1, cols - 1);
  for (std::int64_t i = 0; i < 64; ++i) {
    add(rows - 1, (cols - 1) * i / 63);
    add((rows - 1) * i / 63, cols - 1);
    add((rows - 1) * i / 63, (cols - 1) * i / 63);
  }
  SplitMix rng(seed ^ 0x5EEDull);
  while (out.size() < count && static_cast<std::uint64_t>(out.size()) < static_cast<std::uint64_t>(rows * cols))
    add(static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(rows)),
        static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(cols)));
  return out;
}

}  // namespace kprof::kernels
