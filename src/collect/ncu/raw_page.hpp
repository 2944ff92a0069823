// `ncu --csv --page raw`: one wide table, a header row of metric names, a units row, one row per launch.
#pragma once
#include "collect/ncu/csv_stream.hpp"
#include "collect/ncu/launch_columns.hpp"

namespace kprof::ncu {

// Every metric column becomes KernelLaunch::metrics[name] in base units (empty / "n/a" cells are skipped).
// A units row is recognised by its empty ID cell; without one, values are stored as printed with no unit.
// A repeated header row (several processes) starts a new table. Throws ParseError for a missing ID/Kernel Name
// header, a row with more fields than the header, a bad ID, or a header without data rows.
LaunchPage parse_raw_page(const CsvStream& stream);

}  // namespace kprof::ncu
