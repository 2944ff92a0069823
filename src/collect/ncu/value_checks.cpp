#include "collect/ncu/value_checks.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

namespace kprof::ncu {

namespace {

constexpr double kPercentTolerance = 1.0;  // ncu prints 100.4% for a unit that was busy every cycle

const char* describe(ValueProblem p) {
  switch (p) {
    case ValueProblem::decimal_comma:
      return "not a number as ncu prints it (commas separate thousands in groups of three: a decimal comma?)";
    case ValueProblem::not_finite: return "not a finite number";
    case ValueProblem::negative_time: return "negative time";
    case ValueProblem::percent_out_of_range: return "percentage outside 0..100";
    case ValueProblem::implausible_time: return "a time longer than a day";
    case ValueProblem::not_a_number: return "not a number, though its unit says it is a quantity";
    case ValueProblem::wrong_unit: return "a unit of the wrong kind for this metric";
    default: return "";
  }
}

}  // namespace

bool is_bounded_percentage(const std::string& n) {
  // Occupancy is active warps over the most an SM holds: it cannot exceed 100. Shares of peak can: ncu prints
  // l1tex__throughput.avg.pct_of_peak_sustained_active = 150.86 on the H200 corpus fixtures.
  return n == "sm__warps_active.avg.pct_of_peak_sustained_active" || n == "sm__maximum_warps_per_active_cycle_pct" ||
         n == "Achieved Occupancy" || n == "Theoretical Occupancy";
}

bool unit_fits(const std::string& n, const std::string& unit) {
  if (unit.empty()) return true;
  if (n.rfind("gpu__time_duration", 0) == 0 || n == "Duration") return unit == "ns";
  const bool share = n.find(".pct") != std::string::npos ||
                     (n.size() > 4 && n.compare(n.size() - 4, 4, "_pct") == 0) || is_bounded_percentage(n);
  if (share) return unit == "%";
  return true;
}

ValueProblem check_value(const std::string& name, const MetricValue& v) {
  if (!v.numeric) return ValueProblem::none;
  if (!unit_fits(name, v.unit)) return ValueProblem::wrong_unit;
  if (!std::isfinite(v.value)) return ValueProblem::not_finite;
  if (v.unit == "ns" && v.value < 0) return ValueProblem::negative_time;
  if (v.unit == "ns" && v.value > kLongestTime) return ValueProblem::implausible_time;
  if (v.unit == "%" && (v.value < -kPercentTolerance || (v.value > 100 + kPercentTolerance && is_bounded_percentage(name))))
    return ValueProblem::percent_out_of_range;
  return ValueProblem::none;
}

bool is_skipped_cell(const std::string& name, const std::string& cell) {
  if (is_missing(cell)) return true;
  return name.rfind("derived_temp", 0) == 0 && parse_cell(cell).kind == CellKind::not_finite;
}

MetricValue make_checked_metric_value(const std::string& name, const std::string& cell, const UnitScale& scale,
                                      ValueProblem& problem) {
  CellKind kind = CellKind::missing;
  MetricValue mv = make_metric_value(cell, scale, &kind);
  if (kind == CellKind::decimal_comma) problem = ValueProblem::decimal_comma;
  else if (kind == CellKind::not_finite) problem = ValueProblem::not_finite;
  // Text under a unit ("0x10" nsecond, a 400-digit run): a quantity that could not be read. Per-instance values
  // ("1;2;3") keep their text and are read elsewhere.
  else if (kind == CellKind::text && !scale.base_unit.empty() && cell.find(';') == std::string::npos)
    problem = ValueProblem::not_a_number;
  else problem = check_value(name, mv);
  return mv;
}

std::string launch_label(const KernelLaunch& k) {
  return k.function.empty() ? std::to_string(k.id) : fmt::format("{} ({})", k.id, k.function);
}

void ValueWarnings::note(ValueProblem p, const std::string& file, long line, const std::string& field,
                         const std::string& cell, const std::string& launch) {
  if (p == ValueProblem::none) return;
  auto [it, fresh] = index_.try_emplace({static_cast<int>(p), field}, entries_.size());
  if (fresh) entries_.push_back(Entry{p, file, field, cell, line, 0});
  ++entries_[it->second].count;
  if (!launch.empty()) {
    auto& l = launches_[static_cast<int>(p)];
    if ((l.first.empty() || l.first.back() != launch) && l.seen.insert(launch).second && l.first.size() < 3)
      l.first.push_back(launch.size() > 60 ? launch.substr(0, 60) + "..." : launch);
  }
}

std::vector<std::string> ValueWarnings::messages() const {
  std::vector<std::string> out;
  std::map<int, std::size_t> fields_of;  // problem → fields with it
  for (const auto& e : entries_) ++fields_of[static_cast<int>(e.problem)];
  std::map<int, std::size_t> listed;
  for (const auto& e : entries_) {
    const int p = static_cast<int>(e.problem);
    if (listed[p]++ >= kListedFields && fields_of[p] > kListedFields + 1) continue;  // summed up below
    std::string where = e.line > 0 ? fmt::format("{}:{}", e.file, e.line) : e.file;
    std::string cell = e.cell.size() > 40 ? e.cell.substr(0, 40) + "..." : e.cell;
    out.push_back(fmt::format("{}: \"{}\" = \"{}\": {}; value left out{}", where, e.field, cell, describe(e.problem),
                              e.count > 1 ? fmt::format(" ({} cells like it)", e.count) : ""));
  }
  for (const auto& [p, n] : fields_of) {
    if (n <= kListedFields + 1) continue;
    const Entry* first = nullptr;
    std::size_t cells = 0, seen = 0;
    for (const auto& e : entries_)
      if (static_cast<int>(e.problem) == p) {
        if (++seen == kListedFields + 1) first = &e;
        if (seen > kListedFields) cells += e.count;
      }
    std::string from;
    if (auto l = launches_.find(p); l != launches_.end() && !l->second.first.empty()) {
      std::vector<std::string> names;
      for (const auto& label : l->second.first) names.push_back(fmt::format("launch {}", label));
      const std::size_t more = l->second.seen.size() - l->second.first.size();
      from = fmt::format("; in {}{}", fmt::join(names, ", "), more ? fmt::format(" and {} more", more) : "");
    }
    const bool nan = static_cast<ValueProblem>(p) == ValueProblem::not_finite;
    out.push_back(fmt::format(
        "{}: {} more fields ({} cells, the first at line {}) {}; values left out{}{}", first->file, n - kListedFields,
        cells, first->line, nan ? "are not finite numbers" : fmt::format("had the same problem ({})",
                                                                          describe(static_cast<ValueProblem>(p))),
        from,
        nan ? ". Nsight Compute prints nan for the metrics of a launch it could not measure (a kernel that faulted or "
              "was cut short)"
            : ""));
  }
  return out;
}

}  // namespace kprof::ncu
