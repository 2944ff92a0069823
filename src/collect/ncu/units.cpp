#include "collect/ncu/units.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string_view>

namespace kprof::ncu {

namespace {

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Scale of a simple (non-compound) unit; nullopt when it is not one we convert.
std::optional<UnitScale> simple_scale(const std::string& u) {
  static const struct { const char* name; const char* base; double f; } table[] = {
      {"ns", "ns", 1},        {"nsecond", "ns", 1},   {"us", "ns", 1e3},       {"usecond", "ns", 1e3},
      {"ms", "ns", 1e6},      {"msecond", "ns", 1e6}, {"s", "ns", 1e9},        {"second", "ns", 1e9},
      {"byte", "byte", 1},    {"kbyte", "byte", 1e3}, {"mbyte", "byte", 1e6},  {"gbyte", "byte", 1e9},
      {"tbyte", "byte", 1e12}, {"pbyte", "byte", 1e15},
      {"kib", "byte", 1024.0}, {"mib", "byte", 1048576.0}, {"gib", "byte", 1073741824.0},
      {"tib", "byte", 1099511627776.0},
      {"hz", "hz", 1},        {"khz", "hz", 1e3},     {"mhz", "hz", 1e6},      {"ghz", "hz", 1e9},
      {"thz", "hz", 1e12},
  };
  // Byte units are case-sensitive in spirit ("Kbyte"), but ncu prints frequencies as "Ghz"/"Mhz": match case-blind.
  std::string l = lower(u);
  for (const auto& t : table)
    if (l == t.name) return UnitScale{t.base, t.f};
  return std::nullopt;
}

}  // namespace

namespace {

std::string_view trim_view(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != b[i]) return false;
  return true;
}

}  // namespace

bool is_missing(const std::string& text) {
  std::string_view t = trim_view(text);
  return t.empty() || iequals(t, "n/a") || iequals(t, "no data") || t == "-" || iequals(t, "nan") ||
         iequals(t, "-nan");
}

// Allocation-free: this runs once per cell, millions of times for a large raw page.
std::optional<double> parse_number(const std::string& text) {
  std::string_view t = trim_view(text);
  if (t.empty() || t.size() > 64) return std::nullopt;
  char buf[64];
  std::size_t n = 0;
  for (char c : t) {
    if (c == ',') continue;  // thousands separator
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'))
      return std::nullopt;  // also rejects "n/a", "nan", "inf", hex
    buf[n++] = c;
  }
  if (n == 0) return std::nullopt;
  const char* first = buf;
  if (*first == '+') ++first;  // from_chars does not take a leading '+'
  double v = 0;
  auto [ptr, ec] = std::from_chars(first, buf + n, v);
  if (ec != std::errc() || ptr != buf + n || !std::isfinite(v)) return std::nullopt;
  return v;
}

UnitScale unit_scale(const std::string& unit_in) {
  std::string unit = trim(unit_in);
  if (auto s = simple_scale(unit)) return *s;
  auto slash = unit.find('/');
  if (slash != std::string::npos && slash > 0) {
    std::string num = unit.substr(0, slash), den = unit.substr(slash);  // den keeps the '/'
    if (auto s = simple_scale(num)) {
      // Rates per second are normalised to "/s" ("Gbyte/second" and "Gbyte/s" both → byte/s).
      if (den == "/second") den = "/s";
      return UnitScale{s->base_unit + den, s->factor};
    }
  }
  return UnitScale{unit, 1};
}

MetricValue make_metric_value(const std::string& cell, const std::string& unit) {
  return make_metric_value(cell, unit_scale(unit));
}

MetricValue make_metric_value(const std::string& cell, const UnitScale& sc) {
  MetricValue mv;
  mv.unit = sc.base_unit;
  auto semi = cell.find(';');
  std::optional<double> v;
  if (semi != std::string::npos) {
    mv.text = cell;
    v = parse_number(cell.substr(0, semi));
  } else {
    v = parse_number(cell);
  }
  if (v) {
    mv.value = *v * sc.factor;
    mv.numeric = true;
  } else {
    mv.numeric = false;
    mv.value = 0;
    mv.text = trim(cell);
  }
  return mv;
}

}  // namespace kprof::ncu
