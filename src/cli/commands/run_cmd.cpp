// kprof run --prof-type=<mode> -- <command>: the session layer profiles (session/profile.hpp: a mode is a set of
// collectors, session/mode_table.hpp) and publishes (session/run_and_publish.hpp); this prints. Whatever was measured is written even when the
// program fails or is interrupted.
#include <iostream>

#include "cli/commands/commands.hpp"

namespace kprof::cli {

session::Log stderr_log(bool quiet) {
  return [quiet](session::LogLevel level, const std::string& m) {
    if (quiet && level == session::LogLevel::progress) return;
    std::cerr << "kprof: " << m << "\n";
  };
}

int cmd_run(const session::RunSpec& spec, const PrintOptions& print) {
  return print_outcome(session::run_and_publish(spec), print);
}

}  // namespace kprof::cli
