// kprof analyze: import ncu exports (or re-read an artifact), analyse, write the artifact, print the contract.
#include <filesystem>
#include <iostream>

#include "analyze/analyze_run.hpp"
#include "analyze/compare.hpp"
#include "cli/commands/analysis_context.hpp"
#include "cli/commands/artifact.hpp"
#include "cli/commands/commands.hpp"
#include "collect/ncu/ncu_import.hpp"
#include "render/contract_markdown.hpp"
#include "render/devlog.hpp"
#include "render/json_output.hpp"
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

void append_devlog(const ProfileRun& run, const std::string& docs_dir, bool quiet) {
  fs::path file = fs::path(docs_dir) / (safe_name(run.kernel) + ".md");
  std::string existing = fs::exists(file) ? read_file(file) : render::devlog_header(run.kernel);
  auto previous = render::parse_last_devlog_entry(existing);
  write_file_atomic(file, existing + render::render_devlog_entry(run, previous));
  if (!quiet) std::cerr << "kprof: devlog entry appended to " << file.string() << "\n";
}

int cmd_analyze(const AnalyzeOptions& o) {
  auto ctx = AnalysisContext::load(o.common);
  std::map<std::string, std::string> copies;
  ProfileRun run = load_inputs(o.inputs, copies);
  if (!o.kernel.empty()) run.kernel = o.kernel;
  if (o.version != "-" || run.version.empty()) run.version = o.version;
  if (!o.params.empty()) run.params = o.params;
  if (run.timestamp.empty()) run.timestamp = utc_timestamp();
  if (run.mode.empty() || run.mode == "import") run.mode = "analyze";
  analyze::analyze_run(run, ctx.devices, ctx.thresholds);

  std::optional<Comparison> cmp;
  std::optional<ProfileRun> base;
  if (!o.baseline.empty()) {
    base = load_artifact(o.baseline);
    cmp = analyze::compare_runs(*base, run, ctx.thresholds);
  }
  const Comparison* cmp_ptr = cmp ? &*cmp : nullptr;

  if (o.write) {
    fs::path dir = artifact_dir(run, o.out_root, o.out_dir);
    write_artifact(dir, run, cmp_ptr, copies, base ? &*base : nullptr);
    if (!o.common.quiet) std::cerr << "kprof: artifacts written to " << dir.string() << "\n";
  }
  if (o.devlog) append_devlog(run, o.docs_dir, o.common.quiet);
  if (!o.common.quiet) {
    for (const auto& w : run.warnings) std::cerr << "kprof: warning: " << w << "\n";
    std::cout << (o.common.json ? render::render_contract_json(run, cmp_ptr) : render::render_contract(run, cmp_ptr));
  }
  return kExitOk;
}

}  // namespace kprof::cli
