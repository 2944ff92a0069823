// to_json and from_json of the types plan_json.hpp declares with KPROF_JSON_DECLARE, compiled once here rather than
// in every file that includes the header (their fields, in order: a key per field, missing keys read back as the
// default).
#include "plan/plan_json.hpp"

namespace kprof::plan {
KPROF_JSON_DEFINE(StageSpec, name, flops, min_bytes, precision, stream, tile_space)
KPROF_JSON_DEFINE(KernelPlan, package, version, kind, params, dtype, stages)
KPROF_JSON_DEFINE(ParamSpec, name, default_value, description)
KPROF_JSON_DEFINE(VersionInfo, name, description)
KPROF_JSON_DEFINE(PackageInfo, name, description, versions, params, dtype)
}  // namespace kprof::plan
