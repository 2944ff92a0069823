#include "collect/ncu/details_page.hpp"

#include "collect/ncu/page_support.hpp"
#include "collect/ncu/units.hpp"
#include "collect/ncu/value_checks.hpp"
#include "util/errors.hpp"

namespace kprof::ncu {

namespace {

struct Columns {
  LaunchColumns launch;
  int section = -1, metric = -1, unit = -1, value = -1;
  int rule = -1, rule_type = -1, rule_desc = -1, speedup_type = -1, speedup = -1;
};

Columns locate(const std::vector<std::string>& h) {
  Columns c;
  c.launch = LaunchColumns::locate(h);
  for (int i = 0; i < static_cast<int>(h.size()); ++i) {
    auto set = [&](int& slot) { if (slot < 0) slot = i; };
    if (h[i] == "Section Name") set(c.section);
    else if (h[i] == "Metric Name") set(c.metric);
    else if (h[i] == "Metric Unit") set(c.unit);
    else if (h[i] == "Metric Value") set(c.value);
    else if (h[i] == "Rule Name") set(c.rule);
    else if (h[i] == "Rule Type") set(c.rule_type);
    else if (h[i] == "Rule Description") set(c.rule_desc);
    else if (h[i] == "Estimated Speedup Type") set(c.speedup_type);
    else if (h[i] == "Estimated Speedup") set(c.speedup);
  }
  return c;
}

}  // namespace

LaunchPage parse_details_page(const CsvStream& stream) {
  LaunchPage page;
  page.file = stream.file;
  detail::collect_messages(stream, page);
  detail::LaunchIndex index(page);
  const StreamItem* header = nullptr;
  Columns c;
  std::size_t rows = 0;
  ValueWarnings bad_values;
  for (const auto& item : stream.items) {
    if (item.kind != ItemKind::record) continue;
    if (!header) {
      header = &item;
      c = locate(item.fields);
      if (!c.launch.has_launch_identity() || c.metric < 0 || c.value < 0)
        throw ParseError(stream.file, item.line,
                         "details/metrics header lacks one of \"ID\", \"Kernel Name\", \"Metric Name\", "
                         "\"Metric Value\"");
      continue;
    }
    if (item.fields == header->fields) continue;  // header repeated by a second process
    detail::check_width(item, header->fields.size(), header->line, stream.file);
    auto cell = [&](int i) -> const std::string& {
      static const std::string empty;
      return i >= 0 && i < static_cast<int>(item.fields.size()) ? item.fields[i] : empty;
    };
    KernelLaunch& k = index.get_or_add(c.launch, item, stream.file);
    ++rows;
    if (!cell(c.rule).empty()) {
      RuleResult r;
      r.section = cell(c.section);
      r.name = cell(c.rule);
      r.type = cell(c.rule_type);
      r.description = cell(c.rule_desc);
      r.speedup_type = cell(c.speedup_type);
      r.speedup_pct = parse_number(cell(c.speedup));
      k.rules.push_back(std::move(r));
      continue;
    }
    const std::string& name = cell(c.metric);
    if (name.empty()) continue;
    const std::string& value = cell(c.value);
    ValueProblem problem = ValueProblem::none;
    MetricValue mv;
    if (name.rfind("derived_temp", 0) == 0 && is_skipped_cell(name, value)) continue;
    if (!is_missing(value)) mv = make_checked_metric_value(name, value, unit_scale(cell(c.unit)), problem);
    if (problem != ValueProblem::none) {
      bad_values.note(problem, stream.file, item.line, name, value, launch_label(k));
      continue;
    }
    if (name.find("__") != std::string::npos) {
      if (!is_missing(value)) k.metrics.insert_or_assign(name, std::move(mv));
    } else {
      if (is_missing(value)) mv = make_metric_value(value, cell(c.unit));
      SectionMetric s;
      s.section = cell(c.section);
      s.name = name;
      s.unit = mv.unit;
      if (mv.numeric) s.value = mv.value;
      s.text = mv.numeric ? mv.text : value;
      k.sections.push_back(std::move(s));
    }
  }
  if (!header) throw ParseError(stream.file, 0, "no CSV table found");
  if (rows == 0) throw ParseError(stream.file, header->line, "header row without data rows");
  for (auto& k : page.launches) fill_launch_fields_from_metrics(k);
  page.warnings = bad_values.messages();
  return page;
}

}  // namespace kprof::ncu
