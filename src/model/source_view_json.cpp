// to_json and from_json of the types source_view.hpp declares with KPROF_JSON_DECLARE, compiled once here rather than
// in every file that includes the header (their fields, in order: a key per field, missing keys read back as the
// default).
#include "model/source_view.hpp"

namespace kprof {
KPROF_JSON_DEFINE(SourceCounters, values, text)
KPROF_JSON_DEFINE(SassInstruction, address, sass, counters)
KPROF_JSON_DEFINE(SourceLine, line, source, counters, sass)
KPROF_JSON_DEFINE(SourceFile, path, lines)
KPROF_JSON_DEFINE(SourceKernel, name, function, columns, files, sass)
KPROF_JSON_DEFINE(SourceView, kernels)
KPROF_JSON_DEFINE(HotLine, kernel, file, line, source, samples, share_pct)
}  // namespace kprof
