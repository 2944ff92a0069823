// The per-kernel development log (devlog.md): one entry per run, newest last, each comparing itself with the
// entry before it. The previous entry is parsed back from the Markdown, so the file is the only state.
#pragma once
#include <optional>
#include <string>
#include "model/profile.hpp"

namespace kprof::render {

// The figures of one devlog entry, as printed (durations in µs, percentages in %).
struct DevlogEntry {
  std::string version;
  std::string timestamp;
  std::string mode;
  std::optional<double> duration_us;
  std::optional<double> tflops;
  std::optional<double> dram_gbps;
  std::optional<double> occupancy_pct;
  std::optional<double> tc_util_pct;
  // The entry's first insight (its name as printed, already Markdown) and its estimate of the run, % (the item's
  // "(Y% of the run)" where the entry printed one, else its estimate): the next entry, which documents the change
  // made after it, records "est. X% → realised Y%".
  std::string first_insight;
  std::optional<double> first_insight_est_pct;
};

// Title block for a new devlog file.
std::string devlog_header(const std::string& kernel);

// One entry, ending in a blank line so that entries appended one after another stay apart.
// "vs Previous": relative change for duration and throughputs, percentage points for occupancy and TC util;
// "first entry" when there is no previous entry, "—" when either side lacks the value.
std::string render_devlog_entry(const ProfileRun& run, const std::optional<DevlogEntry>& previous);

// The last entry of a devlog, or nullopt when it has none. Tolerates "—" values, missing rows, CRLF line ends,
// "ms" durations and edited prose around the table.
std::optional<DevlogEntry> parse_last_devlog_entry(const std::string& devlog_markdown);

// The entry's figures computed from a run, exactly as render_devlog_entry prints them (before rounding).
DevlogEntry devlog_values(const ProfileRun& run);

}  // namespace kprof::render
