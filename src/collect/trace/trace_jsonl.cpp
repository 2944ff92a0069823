// The CUPTI JSONL reader (the probe tracer's format, documented in trace_reader.hpp).
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <utility>
#include <unordered_map>
#include "collect/trace/trace_assembly.hpp"
#include "collect/trace/trace_reader.hpp"
#include "model/json_support.hpp"
#include "util/errors.hpp"

namespace kprof {

using namespace trace_format;

namespace {

class JsonlStrings {
 public:
  explicit JsonlStrings(std::string& blob) : blob_(blob) {}
  StringRef ref(const std::string& s) {
    if (s.empty()) return kNoString;
    if (auto it = refs_.find(s); it != refs_.end()) return it->second;
    auto r = static_cast<StringRef>(blob_.size());
    blob_ += s;
    blob_.push_back('\0');
    refs_.emplace(s, r);
    return r;
  }

 private:
  std::string& blob_;
  std::unordered_map<std::string, StringRef> refs_;
};

// An integer field that fits T: negative timestamps, fractions and out-of-range values are errors naming the field
// (nlohmann's get<T> would wrap them, or cast a float out of range, which is undefined).
template <typename T>
T integer(const json& v, const char* key) {
  auto bad = [&](const char* why) {
    return std::invalid_argument(fmt::format("field \"{}\": {} is {}", key, v.dump(), why));
  };
  if (v.is_number_unsigned()) {
    auto u = v.get<std::uint64_t>();
    if (!std::in_range<T>(u)) throw bad("out of range");
    return static_cast<T>(u);
  }
  if (v.is_number_integer()) {
    auto i = v.get<std::int64_t>();
    if (!std::in_range<T>(i)) throw bad(i < 0 ? "negative" : "out of range");
    return static_cast<T>(i);
  }
  if (!v.is_number_float()) throw bad("not a number");
  double d = v.get<double>();
  const double lo = std::numeric_limits<T>::is_signed ? -std::ldexp(1.0, std::numeric_limits<T>::digits) : 0.0;
  if (!std::isfinite(d) || d != std::floor(d)) throw bad("not an integer");
  if (d < lo || d >= std::ldexp(1.0, std::numeric_limits<T>::digits)) throw bad(d < 0 ? "negative" : "out of range");
  return static_cast<T>(d);
}

template <typename T>
T get(const json& j, const char* key, T fallback) {
  auto it = j.find(key);
  return it == j.end() || it->is_null() ? fallback : integer<T>(*it, key);
}

void dims(const json& j, const char* key, std::int32_t out[3]) {
  auto it = j.find(key);
  if (it == j.end()) return;
  if (!it->is_array() || it->size() != 3) throw std::invalid_argument(std::string("\"") + key + "\" is not [x,y,z]");
  for (int i = 0; i < 3; ++i) out[i] = integer<std::int32_t>((*it)[i], key);
}

}  // namespace

Trace parse_cupti_jsonl(std::string_view text, const std::string& source) {
  RawTrace raw;
  raw.source = source;
  raw.format = "cupti-jsonl";
  raw.header.errors = raw.header.process_name = kNoString;  // JSONL has no header
  JsonlStrings strings(raw.strings);
  std::map<std::string, std::size_t> skipped;
  long line_no = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    try {
      json j = json::parse(line);
      if (!j.is_object()) throw std::invalid_argument("not a JSON object");
      std::string kind = j.at("kind").get<std::string>();
      auto start = integer<std::uint64_t>(j.at("start"), "start");
      auto end = integer<std::uint64_t>(j.at("end"), "end");
      if (end < start) throw std::invalid_argument("end before start");
      const Span span{start, end, get<std::uint32_t>(j, "device", 0), get<std::uint32_t>(j, "context", 0),
                      get<std::uint32_t>(j, "stream", 0), get<std::uint32_t>(j, "corr", 0)};
      if (kind == "kernel") {
        RawKernel k{};
        set_span(k, span);
        k.name = strings.ref(j.at("name").get<std::string>());
        dims(j, "grid", k.grid);
        dims(j, "block", k.block);
        k.registers = get<std::int32_t>(j, "regs", 0);
        k.smem_static = get<std::int32_t>(j, "smem_static", 0);
        k.smem_dynamic = get<std::int32_t>(j, "smem_dyn", 0);
        k.graph_id = get<std::uint32_t>(j, "graph", 0);
        raw.kernels.push_back(k);
      } else if (kind == "memcpy") {
        RawMemcpy m{};
        set_span(m, span);
        m.bytes = integer<std::uint64_t>(j.at("bytes"), "bytes");
        m.copy_kind = static_cast<std::uint8_t>(get<int>(j, "copyKind", 0));
        // CUPTI's copy flags where the line has them; the probe tracer's lines do not, and a copy of unknown
        // asynchrony is read as asynchronous: no host wait is inferred from it (a blocking copy is a wait for the
        // range and program advice).
        m.flags = static_cast<std::uint8_t>(get<int>(j, "flags", 1));  // 1: CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC
        raw.memcpys.push_back(m);
      } else if (kind == "memset") {
        RawMemset m{};
        set_span(m, span);
        m.bytes = integer<std::uint64_t>(j.at("bytes"), "bytes");
        m.value = get<std::uint32_t>(j, "value", 0);
        raw.memsets.push_back(m);
      } else {
        ++skipped[kind];
      }
    } catch (const json::exception& e) {
      throw ParseError(source, line_no, std::string("bad CUPTI JSONL record: ") + e.what());
    } catch (const std::invalid_argument& e) {
      throw ParseError(source, line_no, std::string("bad CUPTI JSONL record: ") + e.what());
    }
  }
  for (const auto& [kind, n] : skipped)
    raw.warnings.push_back(std::to_string(n) + " record(s) of unsupported kind \"" + kind + "\" skipped");
  return assemble_trace(std::move(raw));
}

}  // namespace kprof
