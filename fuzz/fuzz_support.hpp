// Shared by the libFuzzer targets: an input is either accepted or rejected with kprof::Error (which names the
// file and line). Any other exception escaping a parser is a finding, as are sanitizer reports and crashes.
#pragma once
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "util/errors.hpp"

namespace kprof::fuzz {

inline std::string as_text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// Runs `parse`; kprof::Error is the documented rejection and is swallowed, everything else escapes to libFuzzer.
template <class F>
void accept_or_reject(F&& parse) {
  try {
    parse();
  } catch (const kprof::Error&) {
  }
}

// Parsers that only read paths get the input through a file private to this process.
inline std::filesystem::path scratch_file(const std::string& name, const std::uint8_t* data, std::size_t size) {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("kprof-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  auto p = dir / name;
  std::FILE* f = std::fopen(p.c_str(), "wb");
  if (!f) std::abort();
  if (size && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  return p;
}

}  // namespace kprof::fuzz
