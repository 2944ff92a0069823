// What the command line prints of a published run: the session layer returns it (session/run_and_publish.hpp,
// session/publish.hpp) and prints nothing itself.
#include <iostream>

#include "model/json_support.hpp"

#include "cli/commands/commands.hpp"

namespace kprof::cli {

void print_published(const session::Published& p, const PrintOptions& print) {
  // -q silences the notices; JSON asked for is still printed (`-q --json` is how an agent reads a run).
  if (print.quiet && !print.json) return;
  if (!print.quiet) {
    if (!p.devlog_file.empty())
      std::cerr << (p.devlog_appended ? "kprof: devlog entry appended to " : "kprof: devlog already has this entry: ")
                << p.devlog_file.string() << "\n";
    for (const auto& w : p.warnings) std::cerr << "kprof: warning: " << w.text << "\n";
    if (!p.dir.empty()) std::cerr << "kprof: artifacts written to " << p.dir.string() << "\n";
  }
  if (!print.json) {
    std::cout << p.contract_markdown;
    return;
  }
  // The contract with where it was written: an agent reads the artifact's other files from "dir" (null when
  // nothing was written).
  auto j = nlohmann::json::parse(p.contract_json, nullptr, /*allow_exceptions=*/false);
  if (j.is_object()) {
    j["dir"] = p.dir.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.dir.string());
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    std::cout << p.contract_json;
  }
}

int print_outcome(const session::RunOutcome& o, const PrintOptions& print) {
  if (!o.dry_run_lines.empty() && print.json) {
    // What a dry run would do, as data: {"dry_run": true, "lines": [...]} ("mode: ...", each collector's pass,
    // "outputs: ...", "artifacts: <dir>").
    nlohmann::json j{{"schema", "kprof.dry-run/1"}, {"dry_run", true}, {"dir", nullptr}, {"lines", o.dry_run_lines}};
    for (const auto& l : o.dry_run_lines)
      if (l.rfind("artifacts: ", 0) == 0) j["dir"] = l.substr(11);
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    for (const auto& l : o.dry_run_lines) std::cout << l << "\n";
  }
  if (o.published) print_published(*o.published, print);
  if (!o.ending.empty()) std::cerr << o.ending << "\n";
  return o.exit_code;
}

}  // namespace kprof::cli
