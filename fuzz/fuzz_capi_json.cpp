// The C API's JSON requests (src/capi/kprof_c.h): the input's first byte picks the entry point ('a' analyze, 'c'
// compare, 'd' describe_plan, 'l' autotune_load, 'r' autotune_record; any other byte by its value modulo 5), the
// rest is the request as a C caller passes it (any bytes, not UTF-8 included). Every reply must be valid UTF-8
// JSON with "ok"; a failure must carry a documented exit code with its kind, and never "internal error": the
// inputs here are requests and files, no GPU and no tool is involved. A request that parses as an object is
// confined first: every path it names is moved into this process's scratch folder (reads under in/, which holds
// copies of a few small fixtures; writes under out/, emptied after each call) and the executables it names
// (ncu, kprof-kernels) into a folder where there are none, so the fuzzer never reads, writes or runs anything
// else. The path's bytes are kept (a NUL, a name longer than PATH_MAX, "..", not UTF-8).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "capi/kprof_c.h"
#include "fuzz_support.hpp"
#include "model/json_support.hpp"
#include "util/utf8.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using Entry = char* (*)(const char*);

struct EntryPoint {
  char letter;
  const char* name;
  Entry fn;
};
constexpr EntryPoint kEntries[] = {{'a', "analyze", kprof_analyze},
                                   {'c', "compare", kprof_compare},
                                   {'d', "describe_plan", kprof_describe_plan},
                                   {'l', "autotune_load", kprof_autotune_load},
                                   {'r', "autotune_record", kprof_autotune_record}};
constexpr std::size_t kEntryCount = sizeof kEntries / sizeof kEntries[0];

const EntryPoint& entry_for(std::uint8_t first) {
  for (const auto& e : kEntries)
    if (e.letter == static_cast<char>(first)) return e;
  return kEntries[first % kEntryCount];
}

// Request fields that name files read, files or folders written, and programs run.
constexpr const char* kReadFields[] = {"inputs", "baseline", "current", "devices", "thresholds", "declared",
                                            "counters_from"};
constexpr const char* kWriteFields[] = {"out_dir", "out_root", "docs_dir", "cache_dir", "root"};
constexpr const char* kToolFields[] = {"ncu", "kernels"};

struct Scratch {
  fs::path in, out, tools;
  Scratch() {
    const fs::path base = kprof::fuzz::scratch_file("unused", nullptr, 0).parent_path();
    in = base / "in";
    out = base / "out";
    tools = base / "no-tools";  // stays empty: nothing named there can run
    for (const auto& d : {in, out, tools, in / "artifact"}) fs::create_directories(d);
    // The smallest seeds of the parser targets: an ncu raw page of 27 columns, a profile.json of one kernel.
    const fs::path corpus = fs::path(KPROF_FUZZ_SOURCE_DIR) / "fuzz/corpus";
    const auto copy = [](const fs::path& from, const fs::path& to) {
      fs::copy_file(from, to, fs::copy_options::overwrite_existing);
    };
    copy(corpus / "fuzz_ncu_raw_page/probe_raw_small.csv", in / "raw.csv");
    copy(corpus / "fuzz_profile_json/profile.json", in / "artifact/profile.json");
    if (!kprof::fuzz::write_whole(in / "artifact/report.md", nullptr, 0)) std::abort();  // a complete artifact
    copy(corpus / "fuzz_devices/devices.json", in / "devices.json");
    copy(corpus / "fuzz_thresholds/thresholds.toml", in / "thresholds.toml");
    ::unsetenv("KPROF_KERNELS");
    ::setenv("PATH", tools.c_str(), 1);
  }
};

const Scratch& scratch() {
  static const Scratch s;
  return s;
}

// `path` below `root`, its bytes kept but unable to climb out: every ".." component becomes "_.", a leading "/" is
// dropped.
std::string below(const fs::path& root, const std::string& path) {
  std::string out = root.string() + "/";
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    std::string part = path.substr(start, end - start);
    if (part == "..") part = "_.";
    if (!part.empty()) out += part + (end < path.size() ? "/" : "");
    start = end + 1;
  }
  return out;
}

// A path-like value moved below `root`: strings and numbers (the options table takes both), in lists too.
void confine(json& v, const fs::path& root) {
  if (v.is_string()) v = below(root, v.get<std::string>());
  else if (v.is_number()) v = below(root, v.dump());
  else if (v.is_array())
    for (auto& e : v) confine(e, root);
}

// Paths moved into the scratch folder. The write fields that a request leaves out (or null) would take their
// defaults relative to the working directory (out/profiles, docs, .cache/kernel-autotune): they are set to the
// write folder; ncu left out is looked for on PATH (this process's is an empty folder), kprof-kernels is named in
// that folder (left out, it would be looked for beside this executable too).
void confine_request(json& r, const EntryPoint& e) {
  const Scratch& s = scratch();
  for (auto f : kReadFields)
    if (r.contains(f)) confine(r[f], s.in);
  for (auto f : kWriteFields)
    if (r.contains(f)) confine(r[f], s.out);
  for (auto f : kToolFields)
    if (r.contains(f)) confine(r[f], s.tools);
  auto by_default = [&](const char* f) {
    if (!r.contains(f) || r[f].is_null()) r[f] = (s.out / f).string();
  };
  if (e.fn == kprof_analyze) by_default("out_root"), by_default("docs_dir");
  if (e.fn == kprof_autotune_load || e.fn == kprof_autotune_record) by_default("root");
  if (e.fn == kprof_describe_plan && (!r.contains("kernels") || r["kernels"].is_null()))
    r["kernels"] = (s.tools / "kprof-kernels").string();
}

[[noreturn]] void finding(const EntryPoint& e, const std::string& request, const std::string& reply,
                          const char* what) {
  std::fprintf(stderr, "fuzz_capi_json: kprof_%s: %s\nrequest: %s\nreply: %s\n", e.name, what, request.c_str(),
               reply.c_str());
  std::abort();
}

// The reply's contract (kprof_c.h): UTF-8 JSON, "ok"; on failure "error", a documented exit code other than
// "internal error" and that code's kind.
void check_reply(const EntryPoint& e, const std::string& request, const char* reply) {
  if (!reply) finding(e, request, "", "no reply");
  const std::string text = reply;
  if (!kprof::is_valid_utf8(text)) finding(e, request, text, "the reply is not UTF-8");
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("ok") || !j["ok"].is_boolean()) finding(e, request, text, "no \"ok\"");
  if (j["ok"].get<bool>()) return;
  if (!j.contains("error") || !j["error"].is_string()) finding(e, request, text, "a failure without \"error\"");
  if (!j.contains("exit_code") || !j["exit_code"].is_number_integer())
    finding(e, request, text, "a failure without an integer \"exit_code\"");
  const int code = j["exit_code"].get<int>();
  bool documented = false;
  for (const auto& c : kprof::kExitCodes) documented = documented || c.code == code;
  if (!documented || code == kprof::kExitOk) finding(e, request, text, "an undocumented exit code");
  if (code == kprof::kExitFailure) finding(e, request, text, "\"internal error\" for a request or an input");
  if (!j.contains("kind") || j["kind"] != kprof::exit_kind(code)) finding(e, request, text, "a wrong \"kind\"");
}

void empty_write_folder() {
  std::error_code ec;
  for (fs::directory_iterator it(scratch().out, ec), end; !ec && it != end; it.increment(ec))
    fs::remove_all(it->path(), ec);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  (void)scratch();
  const EntryPoint& e = entry_for(data[0]);
  // What a C caller passes: the bytes up to the first NUL.
  std::string request = kprof::fuzz::as_text(data + 1, size - 1);
  request.resize(std::char_traits<char>::length(request.c_str()));
  json parsed = json::parse(request, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_object()) {
    confine_request(parsed, e);
    request = parsed.dump();
  }
  char* reply = e.fn(request.c_str());
  static const bool print = std::getenv("KPROF_FUZZ_PRINT") != nullptr;  // what a seed reaches, when reading one
  if (print) std::fprintf(stderr, "kprof_%s(%s)\n-> %s\n", e.name, request.c_str(), reply ? reply : "(null)");
  check_reply(e, request, reply);
  kprof_free(reply);
  empty_write_folder();
  return 0;
}
