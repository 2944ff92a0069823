// Golden-file comparison: tests/golden/<name> pins a renderer's output.
// KPROF_UPDATE_GOLDEN=1 rewrites the file instead of comparing (then read the diff before committing).
#pragma once
#include <cstdlib>
#include <filesystem>
#include <string>
#include <gtest/gtest.h>

#include "util/fs.hpp"

namespace kprof::testing {

inline std::filesystem::path golden_path(const std::string& name) {
  return std::filesystem::path(KPROF_SOURCE_DIR) / "tests" / "golden" / name;
}

inline bool update_golden() {
  const char* v = std::getenv("KPROF_UPDATE_GOLDEN");
  return v && std::string(v) == "1";
}

// First differing line, for a readable failure message.
inline std::string first_difference(const std::string& want, const std::string& got) {
  std::size_t line = 1, i = 0;
  while (i < want.size() && i < got.size() && want[i] == got[i]) {
    if (want[i] == '\n') ++line;
    ++i;
  }
  auto line_at = [](const std::string& s, std::size_t pos) {
    std::size_t b = s.rfind('\n', pos == 0 ? 0 : pos - 1);
    b = (b == std::string::npos || pos == 0) ? 0 : b + 1;
    std::size_t e = s.find('\n', pos);
    return s.substr(b, e == std::string::npos ? std::string::npos : e - b);
  };
  return "line " + std::to_string(line) + "\n  golden: " + line_at(want, i) + "\n  actual: " + line_at(got, i);
}

inline void expect_golden(const std::string& name, const std::string& actual) {
  auto path = golden_path(name);
  if (update_golden()) {
    write_file_atomic(path, actual);
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(path)) << path << " missing: run with KPROF_UPDATE_GOLDEN=1 to create it";
  std::string want = read_file(path);
  EXPECT_TRUE(want == actual) << name << " differs from the golden file at " << first_difference(want, actual)
                              << "\n(run with KPROF_UPDATE_GOLDEN=1 to accept the new output)";
}

}  // namespace kprof::testing
