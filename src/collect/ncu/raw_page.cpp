#include "collect/ncu/raw_page.hpp"

#include <fmt/format.h>
#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <new>

#include "collect/ncu/page_support.hpp"
#include "util/errors.hpp"
#include "util/hash.hpp"

namespace kprof::ncu {

namespace {

// Metrics the import reads from every launch before grouping (fill_launch_fields_from_metrics, the device
// attributes in ncu_import): kept in KernelLaunch::metrics even in compact mode.
bool needed_before_grouping(const std::string& name) {
  static const char* const names[] = {
      "gpu__time_duration.sum", "launch__registers_per_thread", "launch__shared_mem_per_block_static",
      "launch__shared_mem_per_block_dynamic", "launch__grid_dim_x", "launch__grid_dim_y", "launch__grid_dim_z",
      "launch__block_dim_x", "launch__block_dim_y", "launch__block_dim_z", "launch__sm_count",
      "device__attribute_display_name", "device__attribute_compute_capability_major",
      "device__attribute_compute_capability_minor", "device__attribute_multiprocessor_count",
      "device__attribute_clock_rate", "device__attribute_memory_clock_rate"};
  for (const char* n : names)
    if (name == n) return true;
  return false;
}

constexpr double kAbsent = std::numeric_limits<double>::quiet_NaN();

// A hash of the row's fields, each followed by a separator byte no CSV cell of ncu's holds.
std::uint64_t digest(const std::vector<std::string>& fields) {
  std::uint64_t h = kFnv1aBasis;
  for (const auto& f : fields) h = fnv1a("\x1f", fnv1a(f, h));
  return h;
}

}  // namespace

ValueArena::~ValueArena() {
  for (const auto& b : blocks_) ::munmap(b.base, b.mapped);
}

double* ValueArena::allocate(std::size_t n) {
  const std::size_t bytes = n * sizeof(double);
  if (blocks_.empty() || blocks_.back().size - blocks_.back().used < bytes) {
    constexpr std::size_t kHuge = std::size_t{2} << 20;
    std::size_t want = blocks_.empty() ? std::size_t{64} << 10 : std::min(blocks_.back().size * 2, std::size_t{32} << 20);
    want = std::max(want, (bytes + 4095) / 4096 * 4096);
    const bool huge = want >= kHuge;
    const std::size_t mapped = huge ? want + kHuge : want;  // room to align the data to 2 MiB
    void* base = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) throw std::bad_alloc();
    char* data = static_cast<char*>(base);
    if (huge) {
      data = reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(base) + kHuge - 1) & ~(kHuge - 1));
      ::madvise(data, want, MADV_HUGEPAGE);  // advice only: without huge pages the block still works
    }
    blocks_.push_back({base, mapped, data, want, 0});
  }
  Block& b = blocks_.back();
  double* p = reinterpret_cast<double*>(b.data + b.used);
  b.used += bytes;
  return p;
}

void CompactMetrics::expand_into(MetricMap& into) const {
  if (!table) return;
  for (std::size_t i = 0; i < table->names.size(); ++i) {
    if (std::isnan(values[i])) continue;
    MetricValue mv;
    mv.value = values[i];
    mv.unit = table->units[i];
    into.try_emplace(table->names[i], std::move(mv));
  }
  for (const auto& [col, mv] : others) into.try_emplace(table->names[col], mv);
}

struct RawPageReader::State {
  std::string file;
  bool compact = false;
  LaunchPage page;
  detail::LaunchIndex index{page};
  ValueWarnings bad_values;
  std::vector<CompactMetrics> compact_rows;
  std::shared_ptr<ValueArena> arena = std::make_shared<ValueArena>();

  // The current table.
  bool have_header = false;
  std::vector<std::string> header;
  long header_line = 0;
  LaunchColumns cols;
  std::vector<int> metric_columns;  // indices of metric columns in the row
  std::vector<UnitScale> scales;    // per metric column
  std::vector<char> eager;          // per metric column: needed_before_grouping
  std::vector<char> derived_temp;   // per metric column: a derived_temp* metric (is_skipped_cell)
  std::vector<char> bad_unit;       // per metric column: its unit does not fit the metric (unit_fits)
  std::size_t repeated_rows = 0;    // rows equal to an earlier row of the same launch, left out
  long first_repeat_line = 0, first_repeat_of = 0;
  std::shared_ptr<RawTable> table;
  bool expect_units = true;  // the row after a header may be the units row
  std::size_t rows = 0;

  void start_table(StreamItem& h) {
    if (have_header && rows == 0) throw ParseError(file, header_line, "header row without data rows");
    cols = LaunchColumns::locate(h.fields);
    if (!cols.has_launch_identity())
      throw ParseError(file, h.line, "raw page header lacks the \"ID\" and \"Kernel Name\" columns");
    header = std::move(h.fields);
    header_line = h.line;
    have_header = true;
    metric_columns.clear();
    for (int i = 0; i < static_cast<int>(header.size()); ++i)
      if (!cols.is_launch_column(i) && !header[i].empty()) metric_columns.push_back(i);
    scales.assign(metric_columns.size(), UnitScale{});
    bad_unit.assign(metric_columns.size(), 0);
    eager.clear();
    derived_temp.clear();
    for (int i : metric_columns) {
      eager.push_back(needed_before_grouping(header[i]));
      derived_temp.push_back(header[i].rfind("derived_temp", 0) == 0);
    }
    expect_units = true;
    rows = 0;
    make_table();
  }

  void make_table() {
    auto t = std::make_shared<RawTable>();
    for (std::size_t m = 0; m < metric_columns.size(); ++m) {
      t->names.push_back(header[metric_columns[m]]);
      t->units.push_back(scales[m].base_unit);
    }
    table = std::move(t);
  }

  void add_row(const StreamItem& row) {
    detail::check_width(row, header.size(), header_line, file, /*exact=*/true);
    const std::string& id_cell = row.fields[cols.id];
    if (expect_units && id_cell.empty()) {  // units row: "", "", ..., "%", "byte", ...
      for (std::size_t m = 0; m < metric_columns.size(); ++m) {
        scales[m] = unit_scale(row.fields[metric_columns[m]]);
        bad_unit[m] = !unit_fits(header[metric_columns[m]], scales[m].base_unit);
      }
      expect_units = false;
      make_table();
      return;
    }
    expect_units = false;
    const std::size_t before = page.launches.size();
    KernelLaunch& k = index.get_or_add(cols, row, file);
    const std::size_t slot = static_cast<std::size_t>(&k - page.launches.data());
    const bool fresh = page.launches.size() > before;
    const std::uint64_t h = digest(row.fields);
    if (!fresh) {
      // ncu lists each launch once on the raw page. The same row again is a repeated export (kept once); a
      // different row under the same process and ID is a second export or rewritten IDs, and merging the two would
      // lose launches without a word.
      const LaunchContext& first = page.contexts[slot];
      if (first.row_digest != h)
        throw ParseError(file, row.line,
                         fmt::format("launch ID {} of process {} was already listed, with other values, on line {}: "
                                     "this page holds more than one export, or its IDs were rewritten; analyse "
                                     "each export on its own",
                                     k.id, first.pid, first.line));
      if (repeated_rows++ == 0) {
        first_repeat_line = row.line;
        first_repeat_of = first.line;
      }
      ++rows;
      return;
    }
    page.contexts[slot].row_digest = h;
    CompactMetrics* cm = nullptr;
    if (compact) {
      compact_rows.emplace_back();
      cm = &compact_rows.back();
      cm->table = table;
      cm->arena = arena;
      cm->values = arena->allocate(metric_columns.size());
      std::fill_n(cm->values, metric_columns.size(), kAbsent);
    }
    for (std::size_t m = 0; m < metric_columns.size(); ++m) {
      const std::string& cell = row.fields[metric_columns[m]];
      const std::string& name = header[metric_columns[m]];
      if (bad_unit[m]) {
        if (!is_missing(cell)) bad_values.note(ValueProblem::wrong_unit, file, row.line, name, cell, launch_label(k));
        continue;
      }
      if (cm) {
        // The common cell, a plain number: no MetricValue built unless the value needs a closer look. The cell is
        // parsed once; a skipped cell (is_skipped_cell) is one parse_cell calls missing, or a derived_temp metric's
        // non-finite value. Anything else that is not a number (text, "a;b" per-instance values, a decimal comma)
        // takes the general path below.
        ParsedCell pc = parse_cell(cell);
        if (pc.kind == CellKind::missing || (pc.kind == CellKind::not_finite && derived_temp[m])) continue;
        if (pc.kind == CellKind::number) {
          const double v = pc.value * scales[m].factor;
          if (v < 0 || v > 100) {
            MetricValue probe{v, scales[m].base_unit, "", true};
            if (ValueProblem p = check_value(name, probe); p != ValueProblem::none) {
              bad_values.note(p, file, row.line, name, cell, launch_label(k));
              continue;
            }
          }
          cm->values[m] = v;
          if (eager[m]) k.metrics.try_emplace(name, MetricValue{v, scales[m].base_unit, "", true});
          continue;
        }
      } else if (is_skipped_cell(name, cell)) {
        continue;
      }
      ValueProblem problem;
      MetricValue mv = make_checked_metric_value(name, cell, scales[m], problem);
      if (problem != ValueProblem::none) {
        bad_values.note(problem, file, row.line, name, cell, launch_label(k));
        continue;
      }
      if (cm) {
        const bool plain = mv.numeric && mv.text.empty();
        if (plain) cm->values[m] = mv.value;
        if (eager[m]) k.metrics.try_emplace(name, mv);
        if (!plain) cm->others.emplace_back(static_cast<std::uint32_t>(m), std::move(mv));
      } else {
        // The header is sorted in ncu's raw page, so inserting at the end is O(1) amortised.
        k.metrics.emplace_hint(k.metrics.end(), name, std::move(mv));
      }
    }
    fill_launch_fields_from_metrics(k);
    ++rows;
  }
};

RawPageReader::RawPageReader(std::string file, bool compact) : s_(std::make_unique<State>()) {
  s_->file = std::move(file);
  s_->compact = compact;
  s_->page.file = s_->file;
}

RawPageReader::~RawPageReader() = default;

void RawPageReader::add(StreamItem& item) {
  State& s = *s_;
  if (item.kind == ItemKind::profiler) { s.page.profiler_messages.push_back(item.text); return; }
  if (item.kind == ItemKind::text) {
    if (s.page.program_output.size() < LaunchPage::kKeptOutputLines) s.page.program_output.push_back(item.text);
    return;
  }
  if (!s.have_header || item.fields == s.header) {  // first header, or the header repeated (another process)
    s.start_table(item);
    return;
  }
  s.add_row(item);
}

LaunchPage RawPageReader::finish() {
  State& s = *s_;
  if (!s.have_header) throw ParseError(s.file, 0, "no CSV table found");
  if (s.rows == 0) throw ParseError(s.file, s.header_line, "header row without data rows");
  s.page.warnings = s.bad_values.messages();
  if (s.repeated_rows > 0)
    s.page.warnings.push_back(fmt::format("{}:{}: {} row{} repeat{} earlier rows exactly (the first repeats line {}): "
                                          "each launch kept once; was the same export given twice?",
                                          s.file, s.first_repeat_line, s.repeated_rows, s.repeated_rows == 1 ? "" : "s",
                                          s.repeated_rows == 1 ? "s" : "", s.first_repeat_of));
  return std::move(s.page);
}

std::vector<CompactMetrics> RawPageReader::take_compact() { return std::move(s_->compact_rows); }

LaunchPage parse_raw_page(const CsvStream& stream) {
  RawPageReader reader(stream.file, /*compact=*/false);
  for (const auto& item : stream.items) {
    StreamItem copy = item;  // the reader may move from what it is given
    reader.add(copy);
  }
  return reader.finish();
}

}  // namespace kprof::ncu
