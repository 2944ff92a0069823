// kprof analyze: import ncu exports (or re-read an artifact), analyse, write the artifact, print the contract.
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "cli/commands/commands.hpp"
#include "collect/ncu/ncu_import.hpp"
#include "render/source_markdown.hpp"
#include "session/artifact.hpp"
#include "session/assemble.hpp"
#include "session/publish.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"

namespace kprof::cli {

namespace fs = std::filesystem;

namespace {

struct Inputs {
  ProfileRun run;
  bool imported = false;  // from ncu CSV files (else an artifact read back)
};

// An artifact directory re-analysed as it is; anything else is a list of ncu CSV files.
Inputs load_inputs(const std::vector<std::string>& inputs, std::map<std::string, std::string>& copies) {
  if (inputs.size() == 1 && fs::is_directory(inputs[0])) {
    if (fs::exists(fs::path(inputs[0]) / "profile.json") || fs::exists(fs::path(inputs[0]) / session::kPartialMarker)) {
      ProfileRun run = session::load_artifact(inputs[0]);
      session::rederive_metrics(run);  // what the current kprof derives from the recorded counters
      return {std::move(run), false};
    }
    std::vector<std::string> csvs;
    for (const auto& e : fs::directory_iterator(inputs[0]))
      if (e.path().extension() == ".csv") csvs.push_back(e.path().string());
    std::sort(csvs.begin(), csvs.end());
    if (csvs.empty()) throw Error(inputs[0] + ": no profile.json and no .csv files in this directory", kExitBadInput);
    return load_inputs(csvs, copies);
  }
  for (const auto& f : inputs) {
    if (!fs::exists(f)) throw Error(f + ": no such file", kExitBadInput);
    if (fs::is_directory(f)) throw Error(f + ": pass either one artifact directory or CSV files", kExitUsage);
  }
  auto imported = ncu::import_ncu(inputs);
  for (const auto& f : inputs) copies["inputs/" + fs::path(f).filename().string()] = read_file(f);
  // A source page among the inputs gives each kernel its annotated source, as `kprof run --prof-type=ncu` does.
  for (const auto& k : imported.source.kernels) {
    std::string name = session::safe_name(k.function.empty() ? k.name : k.function);
    copies["source/" + name + ".md"] = render::render_annotated_source(k);
    copies["source/" + name + "_sass.csv"] = render::render_sass_csv(k);
  }
  return {std::move(imported.run), true};
}

}  // namespace

int cmd_analyze(const AnalyzeOptions& o) {
  auto ctx = session::AnalysisContext::load(o.common.data);
  // An artifact with its collectors' raw files is rebuilt from them: the current kprof's grouping, metrics and
  // analysis, and every output of its mode (timeline, CSVs, trace.json, source pages).
  if (o.inputs.size() == 1 && fs::is_directory(o.inputs[0]))
    if (auto r = session::reassemble_artifact(o.inputs[0])) {
      ProfileRun& run = r->assembled.run;
      if (!o.kernel.empty()) run.kernel = o.kernel;
      if (o.version != "-") run.version = o.version;
      if (!o.params.empty()) run.params = o.params;
      // A new artifact, named by the time of this analysis (the recorded time stays in profile.json).
      fs::path dir = o.write ? session::artifact_dir(run, o.output.out_root, o.output.out_dir, utc_timestamp())
                             : fs::path();
      // The raw files travel with the new artifact (always: it is staged apart, even when it replaces the input).
      std::map<std::string, std::string> raw;
      if (!dir.empty()) raw = session::source_files(o.inputs[0], false);
      auto p = session::publish_run(run, ctx, o.output, dir, std::move(raw),
                                    r->assembled.trace ? &*r->assembled.trace : nullptr, r->plan.outputs,
                                    &r->assembled.source);
      session::print_published(p, o.common.print.json, o.common.print.quiet, std::cout, std::cerr);
      return kExitOk;
    }
  std::map<std::string, std::string> copies;
  auto [run, imported] = load_inputs(o.inputs, copies);
  if (!imported && o.write) copies = session::source_files(o.inputs[0], true);  // an artifact read back: its inputs/ too
  if (!o.kernel.empty()) run.kernel = o.kernel;
  if (o.version != "-" || run.version.empty()) run.version = o.version;
  if (!o.params.empty()) run.params = o.params;
  if (run.timestamp.empty()) run.timestamp = utc_timestamp();
  if (imported || run.mode.empty()) run.mode = "analyze";  // what `kprof analyze` made of ncu's exports
  fs::path dir = o.write ? session::artifact_dir(run, o.output.out_root, o.output.out_dir, utc_timestamp()) : fs::path();
  auto p = session::publish_run(run, ctx, o.output, dir, std::move(copies));
  session::print_published(p, o.common.print.json, o.common.print.quiet, std::cout, std::cerr);
  return kExitOk;
}

}  // namespace kprof::cli
