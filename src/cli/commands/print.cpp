// What the command line prints of a published run: the session layer returns it (session/run_and_publish.hpp,
// session/publish.hpp) and prints nothing itself.
#include <iostream>

#include "cli/commands/commands.hpp"

namespace kprof::cli {

void print_published(const session::Published& p, const PrintOptions& print) {
  if (print.quiet) return;
  if (!p.devlog_file.empty())
    std::cerr << (p.devlog_appended ? "kprof: devlog entry appended to " : "kprof: devlog already has this entry: ")
              << p.devlog_file.string() << "\n";
  for (const auto& w : p.warnings) std::cerr << "kprof: warning: " << w.text << "\n";
  if (!p.dir.empty()) std::cerr << "kprof: artifacts written to " << p.dir.string() << "\n";
  std::cout << (print.json ? p.contract_json : p.contract_markdown);
}

int print_outcome(const session::RunOutcome& o, const PrintOptions& print) {
  for (const auto& l : o.dry_run_lines) std::cout << l << "\n";
  if (o.published) print_published(*o.published, print);
  if (!o.ending.empty()) std::cerr << o.ending << "\n";
  return o.exit_code;
}

}  // namespace kprof::cli
