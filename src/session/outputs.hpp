// The output table: every file kprof renders into an artifact, one row each (its name, when it applies, how it is
// rendered). write_artifact(), publish()'s mode outputs, the dry run's list and a re-analysis' set of derived files
// all read the table; none of them names an output. Adding an output is one row in outputs.cpp (README.md: "How to
// add an output file").
#pragma once
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "model/comparison.hpp"
#include "model/profile.hpp"
#include "model/source_view.hpp"
#include "model/trace.hpp"
#include "model/trace_analysis.hpp"
#include "session/artifact.hpp"
#include "session/mode_table.hpp"

namespace kprof::session {

// The output contract, rendered once: what contract.md and contract.json hold and what publish() returns.
struct Contract {
  std::string markdown;  // ends with `extra`
  std::string json;
  std::string extra;     // Markdown that contract.md and report.md end with (nsys: the timeline's headline)
};
Contract contract_for(const ProfileRun& run, const Comparison* vs_baseline, const std::string& extra = {});

// What the outputs are rendered from.
struct OutputSources {
  const ProfileRun& run;
  const Comparison* comparison = nullptr;
  const ProfileRun* baseline = nullptr;      // its kernels go on the roofline chart too
  const Contract* contract = nullptr;        // run outputs: the contract rendered once
  const Trace* trace = nullptr;              // what the tracer fed
  const TraceAnalysis* analysis = nullptr;   // the trace's statistics (and timeline, when the mode asks for one)
  const SourceView* source = nullptr;        // ncu's source page
};

struct OutputRow {
  std::string_view name;       // the file, or the folder of its files ("source/")
  std::string_view listed_as;  // what the dry run says of it ("": its name)
  // What it is rendered from: the run alone (written again from profile.json by every write, so never carried by a
  // re-analysis), or what a collector feeds (kept by a re-analysis that lacks that input).
  OutputInput input = OutputInput::run;
  bool ModeOutputs::*mode = nullptr;         // the mode's switch for it; null: every mode
  bool ModeOutputs::*listed_with = nullptr;  // the dry run lists it only under this switch (null: whenever written)
  // Adds its file(s) to `files`; none when the run has nothing for it (no trace, no kernel on the roofline, ...).
  void (*render)(const OutputSources& from, ExtraFiles& files) = nullptr;
};
// In the order the dry run lists them and write_artifact writes them.
const std::vector<OutputRow>& output_rows();

// The outputs `outputs` asks for that are rendered from what the collectors fed (the trace, ncu's source page).
ExtraFiles render_mode_outputs(const ModeOutputs& outputs, const OutputSources& from);

// The files rendered from the run alone (and the staging marker): what a re-analysis writes again rather than
// carries.
std::set<std::string> derived_outputs();

}  // namespace kprof::session
