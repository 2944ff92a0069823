// Numbers and units as Nsight Compute prints them, converted to the base units the model stores.
//
// Conversions (factor to the base unit):
//   time   ns, nsecond → ns ×1; us, usecond → ×1e3; ms, msecond → ×1e6; s, second → ×1e9
//   bytes  byte ×1; Kbyte/Mbyte/Gbyte/Tbyte/Pbyte SI (×1e3 steps); KiB/MiB/GiB/TiB binary (×1024 steps)
//   freq   hz ×1; Khz, Mhz, Ghz (any case) ×1e3 steps → "hz"
//   rates  "<unit>/second" or "<unit>/s" style: numerator scaled as above, "/s" kept ("Gbyte/s" → byte/s ×1e9)
//   compound units ("Kbyte/block", "sector/ns", "%/Kbyte") scale by the prefix of the NUMERATOR only; the
//   denominator is kept as printed ("Kbyte/block" → "byte/block" ×1e3; "sector/ns" stays; "%/Kbyte" stays).
//   Anything else ("%", "cycle", "inst", "sector", "warp", "thread", "register/thread", "") is kept unchanged.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "model/metric.hpp"

namespace kprof::ncu {

// "1,046,904,576" → 1046904576, "63,612.12", "0.000000", "1e-05", "nan" / "n/a" / "no data" / "-" / "" → nullopt.
// Leading/trailing spaces are ignored; anything else non-numeric ("PolicySpread") → nullopt, and so are numbers
// whose commas are not thousands separators ("0,416320", "12,3,4") and values that are not finite ("inf", "1e999").
std::optional<double> parse_number(const std::string& text);

// What a cell holds, for the callers that must tell a value that does not exist from one that is wrong.
enum class CellKind {
  number,         // finite, thousands separators (if any) in groups of three
  missing,        // "", "n/a", "no data", "-"
  text,           // not a number at all ("PolicySpread", "(256, 1, 1)")
  decimal_comma,  // digits with commas that are not thousands separators: "0,416320", "12,3,4"
  not_finite,     // "nan", "inf", "-inf", or out of double's range ("1e999")
};
struct ParsedCell {
  CellKind kind = CellKind::missing;
  double value = 0;  // kind == number only
};
ParsedCell parse_cell(std::string_view text);

// True for the cells ncu prints when a value does not exist: "", "n/a", "no data", "-" (not "nan": a value that
// is not a number is reported, see collect/ncu/value_checks.hpp).
bool is_missing(const std::string& text);

struct UnitScale {
  std::string base_unit;  // unit after conversion
  double factor = 1;      // multiply the printed value by this
};
UnitScale unit_scale(const std::string& unit);

// A metric cell as printed plus its unit → MetricValue in base units. Per-instance values
// (`--print-metric-instances values`: "agg;v1;v2;...") keep the joined text in `text` and use the first
// value, which ncu prints as the aggregate over all instances, as `value`. Non-numeric cells
// ("PolicySpread", "no data") → numeric = false, text kept.
MetricValue make_metric_value(const std::string& cell, const std::string& unit);
MetricValue make_metric_value(const std::string& cell, const UnitScale& scale);  // scale computed once per column
// Same, also saying what the (first) value was: CellKind::decimal_comma / not_finite cells come back non-numeric.
MetricValue make_metric_value(const std::string& cell, const UnitScale& scale, CellKind* kind);

}  // namespace kprof::ncu
