// kprof analyze: import ncu exports (or re-read an artifact), analyse, write the artifact, print the contract.
// The work is session::analyze_inputs (shared with the C API); this prints.
#include <iostream>

#include "cli/commands/commands.hpp"
#include "session/analyze_inputs.hpp"
#include "util/errors.hpp"

namespace kprof::cli {

int cmd_analyze(const AnalyzeOptions& o) {
  session::AnalyzeSpec spec;
  spec.inputs = o.inputs;
  spec.kernel = o.kernel;
  spec.version = o.version;
  spec.params = o.params;
  spec.output = o.output;
  spec.data = o.common.data;
  spec.write = o.write;
  spec.ncu = o.ncu;
  auto a = session::analyze_inputs(spec);
  print_published(a.published, o.common.print);
  return kExitOk;
}

}  // namespace kprof::cli
