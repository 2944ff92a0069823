#include "model/source_view.hpp"

#include <algorithm>

namespace kprof {

std::optional<std::size_t> SourceKernel::column(const std::string& name) const {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == name) return i;
  return std::nullopt;
}

std::optional<double> SourceKernel::value(const SourceCounters& c, const std::string& column_name) const {
  auto i = column(column_name);
  if (!i || *i >= c.values.size()) return std::nullopt;
  return c.values[*i];
}

std::vector<HotLine> hottest_lines(const SourceView& view, std::size_t n, const std::string& function,
                                   const std::string& metric) {
  std::vector<HotLine> all;
  for (const auto& k : view.kernels) {
    if (!function.empty() && k.function != function) continue;
    auto col = k.column(metric);
    if (!col) continue;
    double total = 0;
    std::size_t first = all.size();
    for (const auto& f : k.files)
      for (const auto& l : f.lines) {
        if (*col >= l.counters.values.size() || !l.counters.values[*col]) continue;
        double v = *l.counters.values[*col];
        total += v;
        all.push_back(HotLine{k.function, f.path, l.line, l.source, v, 0});
      }
    for (std::size_t i = first; i < all.size(); ++i) all[i].share_pct = total > 0 ? all[i].samples / total * 100 : 0;
  }
  std::stable_sort(all.begin(), all.end(), [](const HotLine& a, const HotLine& b) { return a.samples > b.samples; });
  if (all.size() > n) all.resize(n);
  return all;
}

}  // namespace kprof
