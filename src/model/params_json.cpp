// to_json and from_json of the types params.hpp declares with KPROF_JSON_DECLARE, compiled once here rather than
// in every file that includes the header (their fields, in order: a key per field, missing keys read back as the
// default).
#include "model/params.hpp"

namespace kprof {
KPROF_JSON_DEFINE(ProblemParams, values, dtype)
}  // namespace kprof
