// Plausibility of the metric values profilers print, so a wrong value is never analysed silently: a decimal comma
// ("0,416320"), a value that is not finite ("nan", "inf"), a negative time or percentage, an occupancy above
// 100 (+1 for ncu's rounding), a time longer than a day, text where a unit says a number belongs ("0x10", a
// 400-digit run), or a unit that does not fit the metric (a duration in "furlong"). Such a value is left out and
// reported once per field and problem, with the first file and line and how many cells had it — a 200 MB page with
// one broken column gives one warning, not a million.
#pragma once
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "collect/ncu/units.hpp"
#include "model/metric.hpp"
#include "model/profile.hpp"

namespace kprof::ncu {

enum class ValueProblem {
  none,
  decimal_comma,
  not_finite,
  negative_time,
  percent_out_of_range,
  implausible_time,  // a time longer than kLongestTime: no kernel launch Nsight Compute measured ran a day
  not_a_number,      // text in a cell whose unit says it is a quantity
  wrong_unit,        // a unit of the wrong kind for the metric (a duration not in a time unit)
};

// Longer than this (ns) is not a kernel's time: one day.
inline constexpr double kLongestTime = 86400e9;

// Whether `base_unit` (after unit_scale) fits the metric: a duration (gpu__time_duration.*, the details page's
// "Duration") is a time, a share (".pct", "_pct", "Achieved Occupancy") a percentage. An empty unit (a page printed
// without its units row) fits everything; so does any unit of a metric kprof does not know the kind of.
bool unit_fits(const std::string& metric_name, const std::string& base_unit);

// Percentages that cannot exceed 100: achieved and theoretical occupancy (raw names and the details page's labels).
// Other percentages are only checked for being negative: ncu's shares of peak, hit rates and
// derived__pct_occupancy_per_block_size exceed 100 on real runs (H200 fixtures: l1tex__throughput.avg 150.86%,
// .max shares up to 493%, L2 hit rate 191%, 5706), and the analysis judges those (analyze/plausibility).
bool is_bounded_percentage(const std::string& metric_name);

// Problem of a converted numeric value (base units: "ns" for times, "%" for percentages).
ValueProblem check_value(const std::string& metric_name, const MetricValue& v);

// Cells left out without a word: missing ones (is_missing) and "nan" in ncu's scratch metrics derived_tempMetricN,
// which ncu prints that way for every launch of a `--set full` run (H200 fixtures) and kprof never reads.
bool is_skipped_cell(const std::string& metric_name, const std::string& cell);

// make_metric_value plus check_value: `problem` says why the cell must be left out (none when it is plausible,
// missing or plain text such as "PolicySpread").
MetricValue make_checked_metric_value(const std::string& metric_name, const std::string& cell, const UnitScale& scale,
                                      ValueProblem& problem);

// "3 (wild_store)": a launch's ID and function, as ValueWarnings names it.
std::string launch_label(const KernelLaunch& k);

class ValueWarnings {
 public:
  // `launch` names the launch the cell belongs to ("3 (wild_store)"), for the summary line below; "" when unknown.
  void note(ValueProblem p, const std::string& file, long line, const std::string& field, const std::string& cell,
            const std::string& launch = "");
  bool empty() const { return entries_.empty(); }
  // One line per (field, problem), in order of first occurrence:
  //   raw.csv:7: "gpu__time_duration.sum" = "-5,000": negative time; value left out (3 cells)
  // A problem found in more than kListedFields fields is listed for the first kListedFields and summed up in one
  // more line naming the launches it came from: a launch Nsight Compute could not measure (a kernel that faulted)
  // has "nan" in every one of its ~1 700 fields, and that is one fact, not 1 700 warnings.
  std::vector<std::string> messages() const;
  static constexpr std::size_t kListedFields = 3;

 private:
  struct Entry {
    ValueProblem problem;
    std::string file, field, cell;
    long line = 0;
    std::size_t count = 0;
  };
  std::vector<Entry> entries_;
  std::map<std::pair<int, std::string>, std::size_t> index_;
  struct Launches {
    std::vector<std::string> first;      // the first few launch labels, in order of first occurrence
    std::set<std::string> seen;          // every label (counted, not listed)
  };
  std::map<int, Launches> launches_;     // by problem
};

}  // namespace kprof::ncu
