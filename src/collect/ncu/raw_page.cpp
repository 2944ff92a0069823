#include "collect/ncu/raw_page.hpp"

#include <fmt/format.h>

#include "collect/ncu/page_support.hpp"
#include "collect/ncu/units.hpp"
#include "util/errors.hpp"

namespace kprof::ncu {

namespace {

struct Table {
  const StreamItem* header = nullptr;
  LaunchColumns cols;
  std::vector<int> metric_columns;   // indices of metric columns
  std::vector<UnitScale> scales;     // per column
  bool expect_units = true;          // the row after a header may be the units row
  std::size_t rows = 0;
};

void start_table(Table& t, const StreamItem& header, const std::string& file) {
  t = Table{};
  t.header = &header;
  t.cols = LaunchColumns::locate(header.fields);
  if (!t.cols.has_launch_identity())
    throw ParseError(file, header.line, "raw page header lacks the \"ID\" and \"Kernel Name\" columns");
  for (int i = 0; i < static_cast<int>(header.fields.size()); ++i)
    if (!t.cols.is_launch_column(i) && !header.fields[i].empty()) t.metric_columns.push_back(i);
  t.scales.assign(header.fields.size(), UnitScale{});
}

}  // namespace

LaunchPage parse_raw_page(const CsvStream& stream) {
  LaunchPage page;
  page.file = stream.file;
  detail::collect_messages(stream, page);
  detail::LaunchIndex index(page);
  Table t;
  for (const auto& item : stream.items) {
    if (item.kind != ItemKind::record) continue;
    if (!t.header) { start_table(t, item, stream.file); continue; }
    if (item.fields == t.header->fields) {  // header repeated (another process / table)
      if (t.rows == 0) throw ParseError(stream.file, t.header->line, "header row without data rows");
      start_table(t, item, stream.file);
      continue;
    }
    detail::check_width(item, t.header->fields.size(), t.header->line, stream.file);
    const std::string id_cell = t.cols.id < static_cast<int>(item.fields.size()) ? item.fields[t.cols.id] : "";
    if (t.expect_units && id_cell.empty()) {  // units row: "", "", ..., "%", "byte", ...
      for (std::size_t i = 0; i < item.fields.size(); ++i) t.scales[i] = unit_scale(item.fields[i]);
      t.expect_units = false;
      continue;
    }
    t.expect_units = false;
    KernelLaunch& k = index.get_or_add(t.cols, item, stream.file);
    for (int i : t.metric_columns) {
      if (i >= static_cast<int>(item.fields.size())) break;
      const std::string& cell = item.fields[i];
      if (is_missing(cell)) continue;
      // The header is sorted in ncu's raw page, so inserting at the end is O(1) amortised.
      k.metrics.emplace_hint(k.metrics.end(), t.header->fields[i], make_metric_value(cell, t.scales[i]));
    }
    fill_launch_fields_from_metrics(k);
    ++t.rows;
  }
  if (!t.header) throw ParseError(stream.file, 0, "no CSV table found");
  if (t.rows == 0) throw ParseError(stream.file, t.header->line, "header row without data rows");
  return page;
}

}  // namespace kprof::ncu
