// to_json and from_json of the types device_spec.hpp declares with KPROF_JSON_DECLARE, compiled once here rather than
// in every file that includes the header (their fields, in order: a key per field, missing keys read back as the
// default).
#include "model/device_spec.hpp"

namespace kprof {
KPROF_JSON_DEFINE(Peak, value, source)
KPROF_JSON_DEFINE(SmLimits, max_warps, max_blocks, registers, register_alloc_unit, shared_mem_bytes,
           shared_mem_reserved_per_block, shared_mem_alloc_unit)
KPROF_JSON_DEFINE(DeviceSpec, name, id, aliases, compute_capability, sm_count, boost_clock_mhz, memory_clock_mhz, l2_mb,
           memory_gb, sm_limits, datasheet, measured, notes)
KPROF_JSON_DEFINE(DeviceInfo, name, compute_capability, sm_count, sm_clock_mhz, memory_clock_mhz, matched_spec)
}  // namespace kprof
