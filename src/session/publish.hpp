// The end every profiling command shares, whichever front end asked: analyse the run (with its trace when it has
// one), compare it with a baseline, render the mode's outputs, write the artifact directory and append the devlog
// entry. Nothing is printed here: the front end prints what Published holds (print_published).
#pragma once
#include <filesystem>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>

#include "model/comparison.hpp"
#include "model/profile.hpp"
#include "model/trace.hpp"
#include "session/analysis_context.hpp"
#include "session/mode_table.hpp"
#include "session/profile.hpp"
#include "session/run_spec.hpp"

namespace kprof::session {

struct Published {
  std::filesystem::path dir;          // the artifact directory; empty when none was written
  std::filesystem::path devlog_file;  // the devlog the entry went to; empty without --devlog
  std::optional<Comparison> comparison;
  std::string contract_markdown;      // the output contract, as Markdown and as JSON
  std::string contract_json;
  std::vector<std::string> warnings;  // the run's
};

// Analyses `run` (and `trace`, with its timeline when `outputs` asks for one), compares it with
// output.baseline, writes the artifact into `dir` (none when empty) with `files` (name → content) and the trace
// outputs `outputs` asks for, and appends the devlog entry when output.devlog.
Published publish_run(ProfileRun& run, const AnalysisContext& ctx, const OutputSpec& output,
                      const std::filesystem::path& dir, std::map<std::string, std::string> files = {},
                      const Trace* trace = nullptr, const ModeOutputs& outputs = {}, const SourceView* source = nullptr);

// profile()'s result, with its mode's outputs, into its artifact directory.
Published publish(ProfileResult& result, const OutputSpec& output);

// Appends one entry (with "vs Previous" from the file's last entry) to <docs_dir>/<kernel>.md; returns the file.
std::filesystem::path append_devlog(const ProfileRun& run, const std::string& docs_dir);

// What a front end prints after publishing, as the command line always has: the devlog file, the warnings and
// the artifact directory on `err`, the contract (Markdown, or JSON) on `out`; nothing when quiet.
void print_published(const Published& p, bool json, bool quiet, std::ostream& out, std::ostream& err);

}  // namespace kprof::session
