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
  return t.empty() || iequals(t, "n/a") || iequals(t, "no data") || t == "-";
}

namespace {

bool is_non_finite_word(std::string_view t) {
  if (!t.empty() && (t.front() == '-' || t.front() == '+')) t.remove_prefix(1);
  return iequals(t, "nan") || iequals(t, "inf") || iequals(t, "infinity");
}

// Commas in ncu's numbers are thousands separators: only in the integer part, the first group 1–3 digits (not a
// lone 0), every later group exactly three digits.
bool valid_grouping(std::string_view t) {
  if (!t.empty() && (t.front() == '-' || t.front() == '+')) t.remove_prefix(1);
  std::size_t int_end = t.find_first_of(".eE");
  std::string_view integer = t.substr(0, int_end);
  if (int_end != std::string_view::npos && t.find(',', int_end) != std::string_view::npos) return false;
  std::size_t first = integer.find(',');
  if (first == std::string_view::npos) return true;
  if (first == 0 || first > 3 || (first == 1 && integer[0] == '0')) return false;
  for (std::size_t pos = first; pos < integer.size(); pos += 4) {
    if (integer[pos] != ',' || pos + 4 > integer.size()) return false;  // fewer than three digits after a comma
    for (std::size_t k = pos + 1; k < pos + 4; ++k)
      if (!std::isdigit(static_cast<unsigned char>(integer[k]))) return false;
  }
  return true;
}

}  // namespace

// Allocation-free: this runs once per cell, millions of times for a large raw page.
ParsedCell parse_cell(std::string_view text) {
  // Most cells of a raw page are digits with at most a decimal point ("128", "93.75"): read in place.
  if (!text.empty() && text.size() <= 64 && text[0] >= '0' && text[0] <= '9') {
    bool plain = true;
    for (char c : text)
      if (!((c >= '0' && c <= '9') || c == '.')) { plain = false; break; }
    if (plain) {
      double v = 0;
      auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec == std::errc() && ptr == text.data() + text.size()) return {CellKind::number, v};
    }
  }
  std::string_view t = trim_view(text);
  if (t.empty() || iequals(t, "n/a") || iequals(t, "no data") || t == "-") return {CellKind::missing, 0};
  if (is_non_finite_word(t)) return {CellKind::not_finite, 0};
  if (t.size() > 64) return {CellKind::text, 0};
  char buf[64];
  std::size_t n = 0;
  bool comma = false;
  for (char c : t) {
    if (c == ',') { comma = true; continue; }
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'))
      return {CellKind::text, 0};  // also rejects "n/a", hex
    buf[n++] = c;
  }
  if (n == 0) return {CellKind::text, 0};
  const char* first = buf;
  if (*first == '+') ++first;  // from_chars does not take a leading '+'
  double v = 0;
  auto [ptr, ec] = std::from_chars(first, buf + n, v);
  if (ec == std::errc::result_out_of_range && ptr == buf + n) {
    // Underflow ("1e-999") is a tiny number, overflow ("1e999") is not finite.
    bool tiny = false;
    for (std::size_t i = 0; i + 1 < n; ++i)
      if ((buf[i] == 'e' || buf[i] == 'E') && buf[i + 1] == '-') tiny = true;
    if (!tiny) return {CellKind::not_finite, 0};
    return comma && !valid_grouping(t) ? ParsedCell{CellKind::decimal_comma, 0} : ParsedCell{CellKind::number, 0.0};
  }
  if (ec != std::errc() || ptr != buf + n) return {CellKind::text, 0};
  if (!std::isfinite(v)) return {CellKind::not_finite, 0};
  if (comma && !valid_grouping(t)) return {CellKind::decimal_comma, 0};
  return {CellKind::number, v};
}

std::optional<double> parse_number(const std::string& text) {
  ParsedCell c = parse_cell(text);
  if (c.kind != CellKind::number) return std::nullopt;
  return c.value;
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

MetricValue make_metric_value(const std::string& cell, const UnitScale& sc) { return make_metric_value(cell, sc, nullptr); }

MetricValue make_metric_value(const std::string& cell, const UnitScale& sc, CellKind* kind) {
  MetricValue mv;
  mv.unit = sc.base_unit;
  auto semi = cell.find(';');
  ParsedCell parsed;
  if (semi != std::string::npos) {
    mv.text = cell;
    parsed = parse_cell(std::string_view(cell).substr(0, semi));
  } else {
    parsed = parse_cell(cell);
  }
  if (kind) *kind = parsed.kind;
  std::optional<double> v;
  if (parsed.kind == CellKind::number) v = parsed.value;
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
