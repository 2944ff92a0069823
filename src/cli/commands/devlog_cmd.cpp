// kprof devlog: append an artifact's entry (with "vs Previous") to docs/kernels/<kernel>.md.
#include <iostream>

#include "cli/commands/commands.hpp"
#include "session/artifact.hpp"
#include "session/publish.hpp"
#include "util/errors.hpp"

namespace kprof::cli {

int cmd_devlog(const DevlogOptions& o) {
  ProfileRun run = session::load_artifact(o.artifact);
  auto file = session::append_devlog(run, o.docs_dir);
  if (!o.common.print.quiet) std::cerr << "kprof: devlog entry appended to " << file.string() << "\n";
  return kExitOk;
}

}  // namespace kprof::cli
