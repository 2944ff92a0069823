// bench/bench_all's table: one section per package, one row per version and sweep point (time with its spread,
// TFLOP/s, GB/s, % of roof, speedup and verdict against the previous version). JSON is the BenchTable itself.
#pragma once
#include <string>

#include "model/bench_table.hpp"

namespace kprof::render {

std::string render_bench_markdown(const BenchTable& table);
std::string render_bench_json(const BenchTable& table);  // json(table), indented, newline-terminated

// A time in milliseconds with 4 significant digits ("124.4", "5.91", "0.0645"); "—" when absent.
std::string fmt_ms(const std::optional<double>& ms);

}  // namespace kprof::render
