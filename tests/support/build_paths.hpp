// Where this build's source tree, test fixtures and kprof binary are, for the tests and benchmarks (force-included
// into them by CMake). The paths are compiled into one file, build_paths.cpp, instead of being passed to every file
// as a definition: every other object is then the same in any checkout of the tree (a compiler cache shares them
// between worktrees), and only that one file depends on where the tree is.
#pragma once
#include <string>

namespace kprof_build_paths {
const std::string& source_dir();  // the repository root
const std::string& fixtures();    // tests/fixtures
const std::string& binary();      // the kprof command line of this build
}  // namespace kprof_build_paths

#define KPROF_SOURCE_DIR (::kprof_build_paths::source_dir())
#define KPROF_FIXTURES (::kprof_build_paths::fixtures())
#define KPROF_BINARY (::kprof_build_paths::binary())
