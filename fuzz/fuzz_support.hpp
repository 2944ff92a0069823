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

// Parsers that only read paths get the input through a file private to this process, kept in memory (/dev/shm)
// where there is one: on a disk-backed /tmp half of each execution went to the block layer (write, truncate, discard),
// so these targets ran at half speed. The folder is removed when the fuzzer exits.
inline std::filesystem::path scratch_file(const std::string& name, const std::uint8_t* data, std::size_t size) {
  struct ScratchDir {
    std::filesystem::path path;
    ScratchDir() {
      std::error_code ec;
      const std::filesystem::path shm = "/dev/shm";
      const auto base = std::filesystem::is_directory(shm, ec) && ::access(shm.c_str(), W_OK) == 0
                            ? shm
                            : std::filesystem::temp_directory_path();
      path = base / ("kprof-fuzz-" + std::to_string(::getpid()));
      std::filesystem::create_directories(path);
    }
    ~ScratchDir() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static const ScratchDir scratch;
  const auto& dir = scratch.path;
  auto p = dir / name;
  std::FILE* f = std::fopen(p.c_str(), "wb");
  if (!f) std::abort();
  if (size && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  return p;
}

}  // namespace kprof::fuzz
