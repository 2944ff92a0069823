#include "collect/clock/clock_state.hpp"

#include <charconv>
#include <cstdio>

#include "util/errors.hpp"

namespace kprof {

std::vector<std::string> clock_query_fields(const std::string& event_field) {
  return {"index",
          "name",
          "clocks.sm",
          "clocks.mem",
          "clocks.max.sm",
          "clocks.max.mem",
          "clocks.applications.graphics",
          "clocks.applications.memory",
          "clocks.default_applications.graphics",
          "clocks.default_applications.memory",
          event_field};
}

namespace {

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

bool is_unknown(const std::string& v) {
  return v.empty() || v == "N/A" || v == "[N/A]" || v == "[Not Supported]" || v == "Not Supported" ||
         v == "[Unknown Error]";
}

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : line) {
    if (c == ',') {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(trim(cur));
  return out;
}

}  // namespace

ClockState parse_clock_query(const std::string& text, int gpu, const std::string& source) {
  // Keep the first non-empty line: one GPU was asked for with -i.
  std::string line;
  long line_no = 0;
  for (size_t pos = 0; pos <= text.size();) {
    auto nl = text.find('\n', pos);
    std::string l = trim(text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos));
    ++line_no;
    if (!l.empty()) {
      line = l;
      break;
    }
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  if (line.empty()) throw ParseError(source, 0, "empty nvidia-smi clock query output");
  auto v = split_csv_line(line);
  const size_t expected = clock_query_fields().size();
  if (v.size() != expected)
    throw ParseError(source, line_no,
                     "expected " + std::to_string(expected) + " comma-separated values, got " +
                         std::to_string(v.size()) + ": '" + line + "'");

  auto mhz = [&](size_t i) -> std::optional<int> {
    if (is_unknown(v[i])) return std::nullopt;
    int x = 0;
    auto [p, ec] = std::from_chars(v[i].data(), v[i].data() + v[i].size(), x);
    if (ec != std::errc() || p != v[i].data() + v[i].size() || x < 0)
      throw ParseError(source, line_no, "field '" + clock_query_fields()[i] + "': not a clock in MHz: '" + v[i] + "'");
    return x;
  };

  ClockState s;
  s.gpu = gpu;
  s.name = v[1];
  s.sm_mhz = mhz(2);
  s.mem_mhz = mhz(3);
  s.max_sm_mhz = mhz(4);
  s.max_mem_mhz = mhz(5);
  s.app_sm_mhz = mhz(6);
  s.app_mem_mhz = mhz(7);
  s.default_app_sm_mhz = mhz(8);
  s.default_app_mem_mhz = mhz(9);
  if (!is_unknown(v[10])) {
    const std::string& r = v[10];
    size_t skip = (r.rfind("0x", 0) == 0 || r.rfind("0X", 0) == 0) ? 2 : 0;
    std::uint64_t mask = 0;
    auto [p, ec] = std::from_chars(r.data() + skip, r.data() + r.size(), mask, 16);
    if (ec != std::errc() || p != r.data() + r.size() || skip == 0)
      throw ParseError(source, line_no, "clock event reasons: not a hex mask: '" + r + "'");
    s.event_reasons = mask;
  }
  return s;
}

std::vector<std::string> decode_event_reasons(std::uint64_t mask) {
  // Bit values of nvmlClocksEventReasons (nvml.h).
  static const std::pair<std::uint64_t, const char*> kNames[] = {
      {0x1, "gpu_idle"},          {0x2, "applications_clocks_setting"}, {0x4, "sw_power_cap"},
      {0x8, "hw_slowdown"},       {0x10, "sync_boost"},                 {0x20, "sw_thermal_slowdown"},
      {0x40, "hw_thermal_slowdown"}, {0x80, "hw_power_brake_slowdown"}, {0x100, "display_clock_setting"},
  };
  std::vector<std::string> out;
  for (auto [bit, name] : kNames) {
    if (mask & bit) {
      out.emplace_back(name);
      mask &= ~bit;
    }
  }
  for (int b = 0; b < 64; ++b) {
    std::uint64_t bit = std::uint64_t{1} << b;
    if (mask & bit) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(bit));
      out.emplace_back(buf);
    }
  }
  return out;
}

}  // namespace kprof
