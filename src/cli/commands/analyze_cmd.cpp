// kprof analyze: import ncu exports (or re-read an artifact), analyse, write the artifact, print the contract.
#include <filesystem>
#include <iostream>

#include "cli/commands/analysis_context.hpp"
#include "cli/commands/artifact.hpp"
#include "cli/commands/commands.hpp"
#include "cli/commands/publish.hpp"
#include "collect/ncu/ncu_import.hpp"
#include "render/source_markdown.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"

namespace kprof::cli {

namespace fs = std::filesystem;

AnalysisContext AnalysisContext::load(const CommonOptions& c) {
  AnalysisContext ctx{
      analyze::DeviceDb::load(c.devices_file.empty() ? std::nullopt : std::optional<fs::path>(c.devices_file)),
      analyze::Thresholds::load(c.thresholds_file.empty() ? std::nullopt
                                                          : std::optional<fs::path>(c.thresholds_file))};
  return ctx;
}

namespace {

// An artifact directory re-analysed as it is; anything else is a list of ncu CSV files.
ProfileRun load_inputs(const std::vector<std::string>& inputs, std::map<std::string, std::string>& copies) {
  if (inputs.size() == 1 && fs::is_directory(inputs[0])) {
    if (fs::exists(fs::path(inputs[0]) / "profile.json")) return load_artifact(inputs[0]);
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
  // A source page among the inputs gives each kernel its annotated source, as `kprof run --prof_type=ncu` does.
  for (const auto& k : imported.source.kernels) {
    std::string name = safe_name(k.function.empty() ? k.name : k.function);
    copies["source/" + name + ".md"] = render::render_annotated_source(k);
    copies["source/" + name + "_sass.csv"] = render::render_sass_csv(k);
  }
  return std::move(imported.run);
}

}  // namespace

int cmd_analyze(const AnalyzeOptions& o) {
  auto ctx = AnalysisContext::load(o.common);
  std::map<std::string, std::string> copies;
  ProfileRun run = load_inputs(o.inputs, copies);
  if (!o.kernel.empty()) run.kernel = o.kernel;
  if (o.version != "-" || run.version.empty()) run.version = o.version;
  if (!o.params.empty()) run.params = o.params;
  if (run.timestamp.empty()) run.timestamp = utc_timestamp();
  if (run.mode.empty() || run.mode == "import") run.mode = "analyze";
  PublishOptions po;
  po.common = &o.common;
  po.baseline = o.baseline;
  if (o.write) po.dir = artifact_dir(run, o.out_root, o.out_dir);
  po.devlog = o.devlog;
  po.docs_dir = o.docs_dir;
  publish_run(run, ctx, po, copies);
  return kExitOk;
}

}  // namespace kprof::cli
