#include "render/number_format.hpp"

#include <cmath>
#include <fmt/format.h>

namespace kprof::render {

std::string fmt_fixed(const std::optional<double>& v, int decimals) {
  if (!v || !std::isfinite(*v)) return kDash;
  double x = *v;
  // "-0.0" reads as a regression that is not there.
  if (std::fabs(x) < 0.5 * std::pow(10.0, -decimals)) x = 0;
  return fmt::format("{:.{}f}", x, decimals);
}

std::string fmt_us(const std::optional<double>& ns) {
  if (!ns) return kDash;
  return fmt_fixed(*ns / 1000.0, 1);
}

std::string fmt_pct(const std::optional<double>& pct) { return fmt_fixed(pct, 1); }

std::string fmt_number(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return kDash;
  if (*v == 0 || std::fabs(*v) >= 1) return fmt_fixed(v, 1);
  return fmt::format("{:.3g}", *v);
}

std::string fmt_bytes(double bytes) {
  static const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  int u = 0;
  double x = bytes;
  while (std::fabs(x) >= 1000 && u < 4) {
    x /= 1000;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} B", x) : fmt::format("{:.2f} {}", x, units[u]);
}

std::string fmt_quantity(const std::optional<double>& v, const std::string& unit) {
  if (!v || !std::isfinite(*v)) return kDash;
  if (unit == "%") return fmt_fixed(v, 1) + "%";
  if (unit == "B" || unit == "byte") return fmt_bytes(*v);
  if (unit == "ns") return fmt_us(v) + " us";
  if (unit.empty()) return fmt_number(v);
  return fmt_number(v) + " " + unit;
}

std::string fmt_signed_pct(double change_pct) {
  if (std::fabs(change_pct) < 0.05) change_pct = 0;
  return fmt::format("{:+.1f}%", change_pct);
}

std::string fmt_change(const std::optional<double>& change_pct, const std::string& verdict) {
  if (!change_pct || !std::isfinite(*change_pct)) return kDash;
  std::string s = fmt_signed_pct(*change_pct);
  return verdict.empty() || verdict == "info" ? s : s + " " + verdict;
}

std::string first_sentences(const std::string& text, int n) {
  int seen = 0;
  for (std::size_t i = 0; i + 1 < text.size(); ++i) {
    char c = text[i];
    if ((c == '.' || c == '!' || c == '?') && text[i + 1] == ' ') {
      if (++seen == n) return text.substr(0, i + 1);
    }
  }
  return text;
}

std::string fmt_gain(double pct, bool estimated) { return estimated ? fmt_gain(pct) : std::string(kDash); }

std::string fmt_gain(double pct) {
  if (!(pct > 0)) return "0%";
  if (pct < 1) return "<1%";
  double shown = std::floor(pct + 0.5);
  if (shown >= 100 && pct < 100) shown = 99;
  return fmt::format("{:.0f}%", shown);
}

}  // namespace kprof::render
