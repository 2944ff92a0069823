// What a report says about GPU clocks during a run: whether kprof locked them, and what they were.
#pragma once
#include <string>
#include <vector>
#include "model/json_support.hpp"

namespace kprof {

struct ClockRecord {
  bool locked = false;          // true only when kprof itself locked the clocks for this run
  double sm_mhz_before = 0;     // SM clock read before the run (0 when unknown)
  double mem_mhz_before = 0;
  double sm_mhz_after = 0;      // read after the run (before any restore)
  double mem_mhz_after = 0;
  std::vector<std::string> throttle_reasons;  // active clock event reasons seen after the run ("sw_power_cap")
};
KPROF_JSON_DECLARE(ClockRecord)

}  // namespace kprof
