// to_json and from_json of the types peaks_report.hpp declares with KPROF_JSON_DECLARE, compiled once here rather than
// in every file that includes the header (their fields, in order: a key per field, missing keys read back as the
// default).
#include "collect/peaks/peaks_report.hpp"

namespace kprof {
KPROF_JSON_DEFINE(PeakMeasurement, value, min, max, runs, method)
KPROF_JSON_DEFINE(PeaksDevice, name, compute_capability, sm_count, sm_clock_mhz, memory_clock_mhz, memory_bus_width_bits,
           l2_bytes, memory_bytes, smem_per_sm_bytes, pci_bus_id, driver_version, runtime_version)
KPROF_JSON_DEFINE(PeaksReport, schema, tool, version, timestamp, device, measured, skipped, seconds)
}  // namespace kprof
