// The end every profiling command shares, whichever front end asked: analyse the run (with its trace when it has
// one), compare it with a baseline, render the mode's outputs, write the artifact directory and append the devlog
// entry. Nothing is printed here: the front end prints what Published holds.
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "model/comparison.hpp"
#include "model/profile.hpp"
#include "model/trace.hpp"
#include "session/analysis_context.hpp"
#include "session/artifact.hpp"
#include "session/mode_table.hpp"
#include "session/profile.hpp"
#include "session/run_spec.hpp"

namespace kprof::session {

struct Published {
  std::filesystem::path dir;          // the artifact directory; empty when none was written
  std::filesystem::path devlog_file;  // the devlog the entry went to; empty without --devlog
  bool devlog_appended = false;       // false: the devlog already had this artifact's entry
  std::optional<Comparison> comparison;
  std::string contract_markdown;      // the output contract, as Markdown and as JSON
  std::string contract_json;
  std::vector<Warning> warnings;  // the run's
};

// Analyses `run` (and `trace`, with its timeline when `outputs` asks for one), compares it with
// output.baseline, writes the artifact into `dir` (none when empty; staged and renamed into place, artifact.hpp:
// Published::dir says where it went) with `files` (written, or copied from their `from`) and the trace outputs `outputs` asks for,
// and appends the devlog entry when output.devlog. Names in `run` and `trace` are made valid UTF-8 first. SIGINT/SIGTERM while it writes: nothing is left, and the
// Error thrown carries 130/143.
Published publish_run(ProfileRun& run, const AnalysisContext& ctx, const OutputSpec& output,
                      const std::filesystem::path& dir, ExtraFiles files = {},
                      Trace* trace = nullptr, const ModeOutputs& outputs = {}, const SourceView* source = nullptr);

// profile()'s result, with its mode's outputs, into its staged artifact directory, which is then renamed into
// place (result.dir is updated); an interrupted run's becomes a marked partial <dir>.interrupted.
Published publish(ProfileResult& result, const OutputSpec& output);

// What profile.json keeps of the raw counters: each group's representative launch's (publish calls it after the
// analysis; every launch's stay in the artifact's raw inputs).
void keep_representative_metrics(ProfileRun& run);

// Appends one entry (with "vs Previous" from the file's last entry) to <docs_dir>/<kernel>.md; returns the file.
// The entry is marked with `artifact` (its directory, made absolute; an HTML comment under the heading), and the
// same artifact's entry is not appended twice (`appended` says whether it was); two artifacts with one heading
// (version, timestamp to the second, mode) each get theirs. Without `artifact`, the heading alone decides.
// Concurrent writers (threads, processes) each add their entry: the read-modify-write holds the folder's lock.
std::filesystem::path append_devlog(const ProfileRun& run, const std::string& docs_dir, bool* appended = nullptr,
                                    const std::filesystem::path& artifact = {});

}  // namespace kprof::session
