// The C API never terminates the process on bytes that are not UTF-8 (issue 24): a CSV cell, a path, a kernel
// name or an autotune key in Latin-1 gets an error reply that is valid JSON, as Python's ctypes caller reads it.
// Each entry point is called as Python calls it: from libkprof_c.so, loaded with dlopen.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "model/json_support.hpp"
#include "support/capi.hpp"
#include "support/shell.hpp"
#include "util/fs.hpp"

namespace fs = std::filesystem;
using kprof::test::capi;

namespace {

fs::path dir(const std::string& name) {
  fs::path d = kprof::test::scratch_dir("capi_utf8") / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// A JSON string literal holding `bytes` as they are (not \u-escaped): what a C caller may send.
std::string raw_string(const std::string& bytes) { return "\"" + bytes + "\""; }

}  // namespace

TEST(CApiInvalidUtf8, LibraryLoads) {
  SKIP_UNDER_ASAN();
  ASSERT_NE(capi().handle, nullptr) << ::dlerror();
}

TEST(CApiInvalidUtf8, ACsvCellNotUtf8IsABadInputReply) {
  SKIP_UNDER_ASAN();
  ASSERT_NE(capi().handle, nullptr);
  fs::path d = dir("cell");
  std::string csv = kprof::read_file(fs::path(KPROF_FIXTURES) / "h200-probe/quick.csv");
  // Every ID cell of the data rows becomes "\xff0".
  for (std::size_t at = csv.find("\n\"0\","); at != std::string::npos; at = csv.find("\n\"0\",", at + 1))
    csv.replace(at + 1, 3, "\"\xff" "0\"");
  kprof::write_file_atomic(d / "x.csv", csv);
  auto r = capi().call("analyze", R"({"inputs": [")" + (d / "x.csv").string() + R"("], "write": false})");
  ASSERT_TRUE(r.is_object());
  EXPECT_EQ(r.value("ok", true), false) << r.dump();
  EXPECT_EQ(r.value("kind", ""), "bad-input") << r.dump();
  EXPECT_EQ(r.value("exit_code", 0), 3) << r.dump();
}

TEST(CApiInvalidUtf8, ALatin1PathKernelOrKeyIsAnErrorReply) {
  SKIP_UNDER_ASAN();
  ASSERT_NE(capi().handle, nullptr);
  fs::path d = dir("latin1");
  const std::string latin1 = "caf\xe9";
  // Raw bytes inside the request: not JSON (RFC 8259 wants UTF-8): a usage error, quoted safely.
  for (const auto& [fn, request] : std::initializer_list<std::pair<const char*, std::string>>{
           {"analyze", R"({"inputs": [)" + raw_string((d / (latin1 + ".csv")).string()) + "]}"},
           {"analyze", R"({"inputs": [")" + (d / "none.csv").string() + R"("], "kernel": )" + raw_string(latin1) + "}"},
           {"compare", R"({"baseline": )" + raw_string(latin1) + R"(, "current": "x"})"},
           {"autotune_record", R"({"root": ")" + (d / "cache").string() + R"(", "key": {"kernel": )" +
                                   raw_string(latin1) + R"(}, "entry": {"config": {}, "status": "ok"}})"},
           {"autotune_load", R"({"root": ")" + (d / "cache").string() + R"(", "key": {"kernel": )" +
                                 raw_string(latin1) + "}}"}}) {
    auto r = capi().call(fn, request);
    ASSERT_TRUE(r.is_object()) << fn;
    EXPECT_EQ(r.value("ok", true), false) << fn << ": " << r.dump();
    EXPECT_EQ(r.value("kind", ""), "usage") << fn << ": " << r.dump();
  }
  // A path that is valid UTF-8 but names no file: bad input, named in the reply.
  auto r = capi().call("analyze", R"({"inputs": [")" + (d / "café.csv").string() + R"("]})");
  EXPECT_EQ(r.value("ok", true), false);
  EXPECT_EQ(r.value("kind", ""), "bad-input") << r.dump();
  EXPECT_NE(r.value("error", "").find("café.csv"), std::string::npos) << r.dump();
}
