// kprof devlog: append an artifact's entry (with "vs Previous") to docs/kernels/<kernel>.md.
#include <iostream>

#include "cli/commands/commands.hpp"
#include "model/json_support.hpp"
#include "session/artifact.hpp"
#include "session/publish.hpp"
#include "util/errors.hpp"

namespace kprof::cli {

int cmd_devlog(const DevlogOptions& o) {
  ProfileRun run = session::load_artifact(o.artifact);
  bool appended = false;
  auto file = session::append_devlog(run, o.docs_dir, &appended, o.artifact);
  if (o.common.print.json) {
    std::cout << json{{"schema", "kprof.devlog/1"}, {"file", file.string()}, {"appended", appended}}.dump(2) << "\n";
    return kExitOk;
  }
  if (!o.common.print.quiet)
    std::cerr << (appended ? "kprof: devlog entry appended to " : "kprof: devlog already has this artifact's entry: ")
              << file.string() << "\n";
  return kExitOk;
}

}  // namespace kprof::cli
