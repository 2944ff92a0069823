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
// so these targets ran at half speed. The folder is removed when the fuzzer exits normally; one left by a crash
// (libFuzzer ends with _Exit) is removed by the next run, whose process finds its pid gone. A write that fails in
// /dev/shm (full: 64 MB in a default container) goes to /tmp instead.
inline std::filesystem::path scratch_dir_in(const std::filesystem::path& base) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(base, ec)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("kprof-fuzz-", 0) == 0 && !std::filesystem::exists("/proc/" + n.substr(11), ec))
      std::filesystem::remove_all(e.path(), ec);  // a dead fuzzer's
  }
  auto dir = base / ("kprof-fuzz-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir, ec);
  return dir;
}

inline bool write_whole(const std::filesystem::path& p, const std::uint8_t* data, std::size_t size) {
  std::FILE* f = std::fopen(p.c_str(), "wb");
  if (!f) return false;
  const bool ok = (!size || std::fwrite(data, 1, size, f) == size);
  return std::fclose(f) == 0 && ok;
}

inline std::filesystem::path scratch_file(const std::string& name, const std::uint8_t* data, std::size_t size) {
  struct ScratchDirs {
    std::filesystem::path memory, disk;
    ScratchDirs() {
      std::error_code ec;
      const std::filesystem::path shm = "/dev/shm";
      if (std::filesystem::is_directory(shm, ec) && ::access(shm.c_str(), W_OK) == 0) memory = scratch_dir_in(shm);
      disk = scratch_dir_in(std::filesystem::temp_directory_path());
    }
    ~ScratchDirs() {
      std::error_code ec;
      if (!memory.empty()) std::filesystem::remove_all(memory, ec);
      std::filesystem::remove_all(disk, ec);
    }
  };
  static const ScratchDirs scratch;
  // Each file always in the same place (a target may rely on its folder), unless the memory one cannot be written.
  if (!scratch.memory.empty()) {
    auto p = scratch.memory / name;
    if (write_whole(p, data, size)) return p;
  }
  auto p = scratch.disk / name;
  if (!write_whole(p, data, size)) std::abort();
  return p;
}

}  // namespace kprof::fuzz
