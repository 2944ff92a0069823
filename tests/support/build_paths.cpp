#include "build_paths.hpp"

namespace kprof_build_paths {
const std::string& source_dir() {
  static const std::string s = KPROF_SOURCE_DIR_PATH;
  return s;
}
const std::string& fixtures() {
  static const std::string s = KPROF_FIXTURES_PATH;
  return s;
}
const std::string& binary() {
  static const std::string s = KPROF_BINARY_PATH;
  return s;
}
}  // namespace kprof_build_paths
