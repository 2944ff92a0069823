// How numbers look in every rendered text: one decimal for µs and %, "—" for anything unavailable (never 0).
#pragma once
#include <optional>
#include <string>

namespace kprof::render {

inline constexpr const char* kDash = "—";  // an unavailable value

std::string fmt_fixed(const std::optional<double>& v, int decimals);  // "82.4", or "—"
std::string fmt_us(const std::optional<double>& ns);                  // ns → µs, 1 decimal: "536.7" (never ms)
std::string fmt_pct(const std::optional<double>& pct);                // "82.4" (no sign), or "—"
// An estimated gain: whole percent ("38%"), "<1%" under one, and never "100%" for an estimate under 100.
std::string fmt_gain(double pct);
// An opportunity's gain as printed: fmt_gain, or "—" for an item kprof puts no figure on (Opportunity::estimated).
std::string fmt_gain(double pct, bool estimated);
// Generic magnitude: 1 decimal from 1 up, 3 significant digits below 1 ("0.00486"), "0.0" for zero.
std::string fmt_number(const std::optional<double>& v);
// A value with its unit: "%" → "82.4%", "B" → "2.13 GB", "ns" → "536.7 us", else "<number> <unit>".
std::string fmt_quantity(const std::optional<double>& v, const std::string& unit);
std::string fmt_bytes(double bytes);                                   // "2.13 GB" (decimal units)
// Signed relative change with its verdict: "-3.2% better", "+0.4% same", "—" when not comparable.
std::string fmt_change(const std::optional<double>& change_pct, const std::string& verdict);
std::string fmt_signed_pct(double change_pct);                         // "-3.2%", "+0.0%"

// At most `n` sentences of `text` (sentences end in ". ", "! " or "? ").
std::string first_sentences(const std::string& text, int n);

}  // namespace kprof::render
