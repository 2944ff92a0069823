// to_json and from_json of the types sweep_worker.hpp declares with KPROF_JSON_DECLARE, compiled once here rather than
// in every file that includes the header (their fields, in order: a key per field, missing keys read back as the
// default).
#include "session/sweep_worker.hpp"

namespace kprof::session {
KPROF_JSON_DEFINE(QueueEntry, attempt, failed_on, last)
}  // namespace kprof::session
