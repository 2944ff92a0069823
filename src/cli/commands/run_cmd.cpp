// kprof run --prof-type=<mode> -- <command>: the session layer profiles (session/profile.hpp: a mode is a set of
// collectors, session/mode_table.hpp) and publishes; this prints. Whatever was measured is written even when the
// program fails or is interrupted.
#include <iostream>

#include "cli/commands/commands.hpp"
#include "session/profile.hpp"
#include "session/publish.hpp"
#include "util/errors.hpp"

namespace kprof::cli {

session::Log stderr_log(bool quiet) {
  return [quiet](session::LogLevel level, const std::string& m) {
    if (quiet && level == session::LogLevel::progress) return;
    std::cerr << "kprof: " << m << "\n";
  };
}

int cmd_run(const session::RunSpec& spec, const PrintOptions& print) {
  auto r = session::profile(spec);
  if (r.dry_run) {
    for (const auto& l : r.dry_run_lines) std::cout << l << "\n";
    return kExitOk;
  }
  auto p = session::publish(r, spec.output);
  session::print_published(p, print.json, print.quiet, std::cout, std::cerr);
  if (auto o = r.outcome(); !o.empty()) std::cerr << o << "\n";
  return r.exit_code;
}

}  // namespace kprof::cli
