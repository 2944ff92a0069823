// to_json and from_json of the types autotune_cache.hpp declares with KPROF_JSON_DECLARE, compiled once here rather than
// in every file that includes the header (their fields, in order: a key per field, missing keys read back as the
// default).
#include "plan/autotune_cache.hpp"

namespace kprof::plan {
KPROF_JSON_DEFINE(TuneEntry, config, status, median_ms, min_ms, samples_ms, message, resources, measured_at)
KPROF_JSON_DEFINE(CacheKey, kernel, version, stage, device, params, source_hash)
KPROF_JSON_DEFINE(CacheFile, schema, key, entries, best, updated)
}  // namespace kprof::plan
