// The per-kernel development log (devlog.md): one entry per run, newest last, each comparing itself with the
// entry before it. The previous entry is parsed back from the Markdown, so the file is the only state.
#pragma once
#include <optional>
#include <string>
#include <vector>
#include "model/profile.hpp"

namespace kprof::render {

// The figures of one devlog entry, as printed (durations in µs, percentages in %).
struct DevlogEntry {
  std::string version;
  std::string timestamp;
  std::string mode;
  // "bf16, b=32, s=16, t=4096": the problem as the **Performance** line prints it ("b32_s16_t4096" in entries written
  // before the line carried the clock state); what "vs Previous" matches on, with the mode.
  std::string params;
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

// Every entry of a devlog, in file order. Tolerates "—" values, missing rows, CRLF line ends, "ms" durations and
// edited prose around the table.
std::vector<DevlogEntry> parse_devlog_entries(const std::string& devlog_markdown);

// The last entry of a devlog, or nullopt when it has none.
std::optional<DevlogEntry> parse_last_devlog_entry(const std::string& devlog_markdown);

// The entry "vs Previous" compares `run` with: the last one of the same mode and problem parameters written for
// another version, else the last one of the same mode and parameters (the same version again); nullopt when the
// devlog has none of that mode and those parameters (an event entry is no baseline for an annotation one, nor
// b=32 for b=64).
std::optional<DevlogEntry> previous_devlog_entry(const std::string& devlog_markdown, const ProfileRun& run);

// "bf16, b=32, s=16, t=4096" ("no parameters" without any): how an entry names its problem.
std::string devlog_params(const ProfileRun& run);

// The entry's figures computed from a run, exactly as render_devlog_entry prints them (before rounding).
DevlogEntry devlog_values(const ProfileRun& run);

}  // namespace kprof::render
