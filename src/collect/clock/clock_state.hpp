// GPU clock state as nvidia-smi reports it, and the parser for its CSV query output.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kprof {

struct ClockState {
  int gpu = 0;
  std::string name;
  std::optional<int> sm_mhz;                  // clocks.sm (current)
  std::optional<int> mem_mhz;                 // clocks.mem (current)
  std::optional<int> max_sm_mhz;              // clocks.max.sm
  std::optional<int> max_mem_mhz;             // clocks.max.mem
  std::optional<int> app_sm_mhz;              // clocks.applications.graphics
  std::optional<int> app_mem_mhz;             // clocks.applications.memory
  std::optional<int> default_app_sm_mhz;      // clocks.default_applications.graphics
  std::optional<int> default_app_mem_mhz;     // clocks.default_applications.memory
  std::optional<std::uint64_t> event_reasons; // clocks_event_reasons.active bit mask
};

// Fields asked of `nvidia-smi --query-gpu=...`, in the order parse_clock_query expects.
// `event_field` is "clocks_event_reasons.active" (driver >= 535) or the older "clocks_throttle_reasons.active".
std::vector<std::string> clock_query_fields(const std::string& event_field = "clocks_event_reasons.active");

// Parses the output of `nvidia-smi -i <gpu> --query-gpu=<clock_query_fields()> --format=csv,noheader,nounits`:
// one line, comma-separated; "[N/A]" / "N/A" / "[Not Supported]" read as unknown. Throws ParseError when the
// line does not have one value per field or a number is malformed.
ClockState parse_clock_query(const std::string& text, int gpu, const std::string& source = "nvidia-smi");

// Names of the bits set in a clocks_event_reasons mask ("gpu_idle", "sw_power_cap", ...); unknown bits as hex.
std::vector<std::string> decode_event_reasons(std::uint64_t mask);

}  // namespace kprof
