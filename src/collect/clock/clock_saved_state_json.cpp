// to_json and from_json of the types clock_saved_state.hpp declares with KPROF_JSON_DECLARE, compiled once here rather than
// in every file that includes the header (their fields, in order: a key per field, missing keys read back as the
// default).
#include "collect/clock/clock_saved_state.hpp"

namespace kprof {
KPROF_JSON_DEFINE(SavedClockState, schema, gpu, name, timestamp, locked_by, sm_mhz_before, mem_mhz_before, app_sm_mhz_before,
           app_mem_mhz_before, locked_sm_mhz, locked_mem_mhz)
}  // namespace kprof
