#include "collect/peaks/peaks_import.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "util/errors.hpp"

namespace kprof {

namespace {
bool known(const std::string& key) {
  const auto& k = peak_keys();
  return std::find(k.begin(), k.end(), key) != k.end();
}
std::string unit_of(const std::string& key) {
  return key.size() > 5 && key.substr(key.size() - 5) == "_gbps" ? "GB/s" : "TFLOP/s";
}
}  // namespace

PeaksReport parse_peaks_json(const std::string& text, const std::string& source) {
  PeaksReport r;
  try {
    r = json::parse(text).get<PeaksReport>();
  } catch (const json::exception& e) {
    throw ParseError(source, 0, std::string("not a kprof-peaks JSON document: ") + e.what());
  }
  if (r.schema.rfind("kprof.peaks/", 0) != 0) throw ParseError(source, 0, "unknown schema '" + r.schema + "'");
  for (const auto& [key, m] : r.measured) {
    if (!(m.value > 0) || m.runs < 1 || m.min > m.value || m.value > m.max)
      throw ParseError(source, 0,
                       fmt::format("measured.{}: inconsistent figures (value {}, min {}, max {}, runs {})", key,
                                   m.value, m.min, m.max, m.runs));
  }
  return r;
}

std::map<std::string, Peak> peaks_from_report(const PeaksReport& report) {
  std::map<std::string, Peak> out;
  const std::string date = report.timestamp.substr(0, std::min<size_t>(10, report.timestamp.size()));
  for (const auto& [key, m] : report.measured) {
    if (!known(key)) continue;
    // A figure that is the fastest run (the DRAM roof) says so; the others are medians.
    std::string src = fmt::format("{} {}, {} of {} ({:.4g}..{:.4g} {})", report.tool, date,
                                  m.runs > 1 && m.value == m.max && m.max > m.min ? "fastest" : "median", m.runs, m.min,
                                  m.max, unit_of(key));
    if (!m.method.empty()) src += "; " + m.method;
    out[key] = Peak{m.value, src};
  }
  return out;
}

std::vector<std::string> merge_measured(DeviceSpec& spec, const PeaksReport& report) {
  std::vector<std::string> warnings;
  const auto& n = report.device.name;
  bool same = n.empty() || n == spec.name ||
              std::find(spec.aliases.begin(), spec.aliases.end(), n) != spec.aliases.end();
  if (!same) warnings.push_back("peaks were measured on '" + n + "', not on " + spec.name);
  const auto& info = peak_info_keys();
  for (const auto& [key, m] : report.measured)
    if (!known(key) && std::find(info.begin(), info.end(), key) == info.end()) warnings.push_back("unknown peak '" + key + "' ignored");
  for (auto& [key, peak] : peaks_from_report(report)) spec.measured[key] = peak;
  return warnings;
}

}  // namespace kprof
