// What the C API accepts in a request, held to what the command line accepts (issue 24). Each entry point is called
// as Python calls it (support/capi.hpp).
#include <gtest/gtest.h>

#include <climits>
#include <filesystem>
#include <string>

#include "model/json_support.hpp"
#include "support/capi.hpp"
#include "support/shell.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;
using kprof::test::capi;

namespace {

const fs::path kQuick = fs::path(KPROF_FIXTURES) / "h200-probe/quick.csv";
const fs::path kData = fs::path(KPROF_SOURCE_DIR) / "data";

fs::path dir(const std::string& name) {
  fs::path d = kprof::test::scratch_dir("capi_requests") / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// kprof_analyze of the quick export, nothing written, with `extra` fields.
json analyze_request(const json& extra) {
  json r{{"inputs", {kQuick.string()}}, {"write", false}};
  r.update(extra);
  return r;
}

// An artifact of the quick export at `at`, written through the C API.
fs::path artifact(const fs::path& at) {
  auto r = capi().call("analyze", json{{"inputs", {kQuick.string()}}, {"out_dir", at.string()}}.dump());
  EXPECT_EQ(r.value("ok", false), true) << r.dump();
  return at;
}

void expect_refused(const json& reply, const std::string& kind, const std::string& says, const std::string& what) {
  ASSERT_TRUE(reply.is_object()) << what;
  EXPECT_EQ(reply.value("ok", true), false) << what << ": " << reply.dump();
  EXPECT_EQ(reply.value("kind", ""), kind) << what << ": " << reply.dump();
  EXPECT_NE(reply.value("error", "").find(says), std::string::npos) << what << ": " << reply.dump();
}

}  // namespace

// Item 10: parameter names the command line refuses ("../../x", "a b", "") were taken by the C API.
TEST(CApiRequests, ParameterNamesFollowTheCommandLinesRule) {
  SKIP_UNDER_ASAN();
  ASSERT_NE(capi().handle, nullptr);
  const fs::path d = dir("names");
  for (const std::string name : {"../../x", "a b", "", "9b", "b/c"}) {
    // The command line refuses --NAME=1 ...
    auto cli = kprof::test::run_shell(
        std::string(KPROF_BINARY) + " analyze -q '" + kQuick.string() + "' '--" + name + "=1'", d);
    EXPECT_EQ(cli.code, 2) << "'" << name << "': " << cli.err;
    // ... and so does every request that carries parameters: both forms of "params", a plan's, an autotune key's.
    expect_refused(capi().call("analyze", analyze_request({{"params", {{name, 1}}}}).dump()), "usage",
                   "parameter name", "analyze '" + name + "'");
    expect_refused(capi().call("analyze", analyze_request({{"params", {{"values", {{name, 1}}}}}}).dump()), "usage",
                   "parameter name", "analyze values '" + name + "'");
    expect_refused(capi().call("describe_plan", json{{"package", "mla"},
                                                     {"kernels", (d / "no-kprof-kernels").string()},
                                                     {"params", {{name, 1}}}}.dump()),
                   "usage", "parameter name", "describe_plan '" + name + "'");
    expect_refused(capi().call("autotune_load", json{{"root", (d / "cache").string()},
                                                     {"key", {{"kernel", "k"}, {"params", {{"values", {{name, 1}}}}}}}}
                                                    .dump()),
                   "usage", "parameter name", "autotune_load '" + name + "'");
  }
  EXPECT_FALSE(fs::exists(d / "cache"));
  expect_refused(capi().call("analyze", analyze_request({{"params", {{"dtype", "../x"}}}}).dump()), "usage", "dtype",
                 "dtype");
  expect_refused(capi().call("analyze", analyze_request({{"params", {{"b", -1}}}}).dump()), "usage", "negative",
                 "negative value");
  // What the rule accepts goes through to the profile.
  auto ok = capi().call("analyze", analyze_request({{"params", {{"b", 32}, {"dtype", "bf16"}}}}).dump());
  ASSERT_EQ(ok.value("ok", false), true) << ok.dump();
  EXPECT_EQ(ok["profile"]["params"]["values"]["b"], 32);
  EXPECT_EQ(ok["profile"]["params"]["dtype"], "bf16");
}

// Item 10: "\u0000" in a path ended it where the path reached open(2); the rest was silently dropped.
TEST(CApiRequests, ANulByteInAPathIsRefusedNotTruncated) {
  SKIP_UNDER_ASAN();
  ASSERT_NE(capi().handle, nullptr);
  const fs::path d = dir("nul");
  const fs::path art = artifact(d / "art");
  // Each path is one that works when cut at the NUL: the request used to run on the cut path.
  auto cut = [](const fs::path& p) { return p.string() + std::string(1, '\0') + ".ignored"; };
  struct Case {
    const char* fn;
    const char* field;
    json request;
  };
  const Case cases[] = {
      {"analyze", "inputs", json{{"inputs", {cut(kQuick)}}, {"write", false}}},
      {"analyze", "out_dir", json{{"inputs", {kQuick.string()}}, {"out_dir", cut(d / "out")}}},
      {"analyze", "out_root", json{{"inputs", {kQuick.string()}}, {"out_root", cut(d / "root")}}},
      {"analyze", "baseline", analyze_request({{"baseline", cut(art)}})},
      {"analyze", "devices", analyze_request({{"devices", cut(kData / "devices.json")}})},
      {"analyze", "thresholds", analyze_request({{"thresholds", cut(kData / "thresholds.toml")}})},
      {"compare", "baseline", json{{"baseline", cut(art)}, {"current", art.string()}}},
      {"compare", "current", json{{"baseline", art.string()}, {"current", cut(art)}}},
      {"autotune_load", "root", json{{"root", cut(d / "cache")}, {"key", {{"kernel", "k"}}}}},
      {"autotune_record", "kernel",
       json{{"root", (d / "cache").string()},
            {"key", {{"kernel", "k" + std::string(1, '\0') + "x"}}},
            {"entry", {{"config", json::object()}, {"status", "ok"}, {"median_ms", 1.0}}}}},
  };
  for (const auto& c : cases) {
    const std::string text = c.request.dump();
    ASSERT_NE(text.find("\\u0000"), std::string::npos) << text;
    expect_refused(capi().call(c.fn, text), "usage", c.field, std::string(c.fn) + " " + c.field);
  }
  // Nothing was written at a cut name.
  for (const char* f : {"out", "root", "cache"}) EXPECT_FALSE(fs::exists(d / f)) << f;
}

// Item 9: an input path longer than PATH_MAX was an internal error (exit 1); the command line said exit 9.
TEST(CApiRequests, AnInputPathLongerThanPathMaxIsBadInput) {
  SKIP_UNDER_ASAN();
  ASSERT_NE(capi().handle, nullptr);
  const fs::path d = dir("long");
  const fs::path art = artifact(d / "art");
  std::string lng = d.string();
  while (lng.size() <= PATH_MAX) lng += "/" + std::string(200, 'x');
  lng += ".csv";
  struct Case {
    const char* fn;
    json request;
  };
  const Case cases[] = {
      {"analyze", json{{"inputs", {lng}}, {"write", false}}},
      {"analyze", json{{"inputs", {kQuick.string(), lng}}, {"write", false}}},
      {"analyze", analyze_request({{"baseline", lng}})},
      {"analyze", analyze_request({{"devices", lng}})},
      {"analyze", analyze_request({{"thresholds", lng}})},
      {"compare", json{{"baseline", lng}, {"current", art.string()}}},
      {"compare", json{{"baseline", art.string()}, {"current", lng}}},
  };
  for (const auto& c : cases) {
    auto r = capi().call(c.fn, c.request.dump());
    expect_refused(r, "bad-input", "too long", c.fn);
    EXPECT_EQ(r.value("exit_code", 0), 3) << r.dump();
  }
}

// An output path the file system refuses was an internal error too; the command line says "cannot write".
TEST(CApiRequests, AnOutputPathTheSystemRefusesIsCannotWriteAsOnTheCommandLine) {
  SKIP_UNDER_ASAN();
  ASSERT_NE(capi().handle, nullptr);
  const fs::path d = dir("long_out");
  std::string lng = d.string();
  while (lng.size() <= PATH_MAX) lng += "/" + std::string(200, 'x');
  // The command line: exit 9, the file system's refusal (cli/app.cpp).
  auto cli = kprof::test::run_shell(std::string(KPROF_BINARY) + " analyze -q '" + kQuick.string() + "' --out '" + lng +
                                        "'",
                                    d);
  EXPECT_EQ(cli.code, 9) << cli.err;
  // The C API said "internal error" (exit 1) for the same requests.
  struct Case {
    const char* fn;
    json request;
  };
  const Case cases[] = {
      {"analyze", json{{"inputs", {kQuick.string()}}, {"out_dir", lng}}},
      {"analyze", json{{"inputs", {kQuick.string()}}, {"out_root", lng}}},
      {"analyze", json{{"inputs", {kQuick.string()}}, {"write", false}, {"devlog", true}, {"docs_dir", lng}}},
      {"autotune_record", json{{"root", lng},
                               {"key", {{"kernel", "k"}}},
                               {"entry", {{"config", json::object()}, {"status", "ok"}, {"median_ms", 1.0}}}}},
      {"autotune_record", json{{"root", (d / "cache").string()},
                               {"key", {{"kernel", std::string(300, 'k')}}},
                               {"entry", {{"config", json::object()}, {"status", "ok"}, {"median_ms", 1.0}}}}},
  };
  for (const auto& c : cases) {
    auto r = capi().call(c.fn, c.request.dump());
    expect_refused(r, "cannot-write", "too long", c.fn);
    EXPECT_EQ(r.value("exit_code", 0), 9) << r.dump();
  }
}
