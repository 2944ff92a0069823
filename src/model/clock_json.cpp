// to_json and from_json of the types clock.hpp declares with KPROF_JSON_DECLARE, compiled once here rather than
// in every file that includes the header (their fields, in order: a key per field, missing keys read back as the
// default).
#include "model/clock.hpp"

namespace kprof {
KPROF_JSON_DEFINE(ClockRecord, locked, sm_mhz_before, mem_mhz_before, sm_mhz_after, mem_mhz_after, throttle_reasons)
}  // namespace kprof
