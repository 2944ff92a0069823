// Helpers shared by the tests of src/collect/ncu.
#pragma once
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "util/errors.hpp"

namespace kprof::test {

inline std::string probe_fixture(const std::string& name) { return std::string(KPROF_FIXTURES) + "/h200-probe/" + name; }

// Runs `f`, expects a ParseError at `line` whose message contains `fragment`.
inline void expect_parse_error(const std::function<void()>& f, long line, const std::string& fragment) {
  try {
    f();
    ADD_FAILURE() << "expected ParseError at line " << line;
  } catch (const ParseError& e) {
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

}  // namespace kprof::test
