// `ncu --csv --page raw`: one wide table, a header row of metric names, a units row, one row per launch.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "collect/ncu/csv_stream.hpp"
#include "collect/ncu/launch_columns.hpp"
#include "collect/ncu/units.hpp"
#include "collect/ncu/value_checks.hpp"

namespace kprof::ncu {

// Every metric column becomes KernelLaunch::metrics[name] in base units (empty / "n/a" cells are skipped).
// A units row is recognised by its empty ID cell; without one, values are stored as printed with no unit.
// A repeated header row (several processes) starts a new table. Throws ParseError for a missing ID/Kernel Name
// header, a row with more or fewer fields than the header, a bad ID, an empty kernel name, or a header without
// data rows. Implausible values (collect/ncu/value_checks.hpp) are left out and listed in LaunchPage::warnings.
LaunchPage parse_raw_page(const CsvStream& stream);

// One table's metric columns, shared by the launches read from it.
struct RawTable {
  std::vector<std::string> names;  // metric name per metric column
  std::vector<std::string> units;  // base unit per metric column
};

// Storage for the compact rows' values: a few large blocks instead of one allocation per launch (a 200 MB page
// has 12,670 launches of 2,240 values). Blocks grow from 64 KiB to 32 MiB; those of 2 MiB and more are asked for
// as transparent huge pages, so filling them costs one page fault per 2 MiB instead of one per 4 KiB (malloc and
// first-touch page faults were a quarter of the 200 MB page's import time).
class ValueArena {
 public:
  ValueArena() = default;
  ValueArena(const ValueArena&) = delete;
  ValueArena& operator=(const ValueArena&) = delete;
  ~ValueArena();
  double* allocate(std::size_t n);  // n doubles, not initialised; valid while the arena lives

 private:
  struct Block {
    void* base;          // as mapped
    std::size_t mapped;  // bytes mapped
    char* data;          // first usable byte (2 MiB-aligned in blocks given huge pages)
    std::size_t size;    // usable bytes from data
    std::size_t used;
  };
  std::vector<Block> blocks_;
};

// A launch's metrics kept compact: one double per metric column of its table (NaN where the cell was missing or is
// held in `others`), plus the cells that are not plain numbers (text, per-instance values). A `--set full` launch
// takes ~18 KB this way instead of ~600 KB as a MetricMap, so a page of any length fits in memory; the launches
// the analysis keeps are expanded (stage grouping keeps a few per kernel).
struct CompactMetrics {
  std::shared_ptr<const RawTable> table;
  std::shared_ptr<ValueArena> arena;  // owns `values`
  double* values = nullptr;           // table->names.size() values
  std::vector<std::pair<std::uint32_t, MetricValue>> others;  // metric column → value

  bool empty() const { return !table; }
  // Adds every metric `into` does not have yet (as MetricMap::try_emplace).
  void expand_into(MetricMap& into) const;
};

// The raw page read item by item (stream_csv_file's items, in order). With `compact`, launch metrics go to
// take_compact() (parallel to finish().launches) and KernelLaunch::metrics holds only the few every launch needs
// before grouping (duration, launch shape, device attributes); without, finish() equals parse_raw_page.
class RawPageReader {
 public:
  RawPageReader(std::string file, bool compact);
  ~RawPageReader();
  void add(StreamItem& item);
  LaunchPage finish();
  std::vector<CompactMetrics> take_compact();  // after finish()

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace kprof::ncu
