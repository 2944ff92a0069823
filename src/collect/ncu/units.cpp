#include "collect/ncu/units.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

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

bool is_missing(const std::string& text) {
  std::string l = lower(trim(text));
  return l.empty() || l == "n/a" || l == "no data" || l == "-" || l == "nan" || l == "-nan";
}

std::optional<double> parse_number(const std::string& text) {
  std::string t = trim(text);
  if (t.empty() || is_missing(t)) return std::nullopt;
  std::string digits;
  digits.reserve(t.size());
  for (char c : t)
    if (c != ',') digits.push_back(c);
  if (digits.empty()) return std::nullopt;
  // strtod accepts "1e-05", "-3.5"; reject hex/inf/nan spellings and trailing junk.
  for (char c : digits)
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'))
      return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(digits.c_str(), &end);
  if (end != digits.c_str() + digits.size() || !std::isfinite(v)) return std::nullopt;
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
  std::string first = cell;
  auto semi = cell.find(';');
  if (semi != std::string::npos) {
    mv.text = cell;
    first = cell.substr(0, semi);
  }
  if (auto v = parse_number(first)) {
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
