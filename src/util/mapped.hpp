// `f` applied to each element of `items`, as strings: what fmt::join prints where std::views::transform would do.
// clang 14 (the fuzz preset's compiler, in CI) cannot compile libstdc++ 12's ranges: what it builds (the libraries,
// tests, benchmarks and fuzz targets) uses none. kprof-kernels is built only with CUDA, by gcc.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace kprof {

template <class Range, class F>
std::vector<std::string> mapped(const Range& items, F&& f) {
  std::vector<std::string> out;
  for (const auto& x : items) out.push_back(std::invoke(f, x));
  return out;
}

}  // namespace kprof
