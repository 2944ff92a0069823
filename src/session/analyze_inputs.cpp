#include "session/analyze_inputs.hpp"

#include <cstring>
#include <cstdlib>
#include <cerrno>
#include <algorithm>
#include <filesystem>
#include <set>
#include <unistd.h>

#include "collect/ncu/ncu_driver.hpp"
#include "collect/ncu/ncu_import.hpp"
#include "render/source_markdown.hpp"
#include "session/analysis_context.hpp"
#include "session/artifact.hpp"
#include "session/assemble.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"
#include "util/process.hpp"

namespace kprof::session {

namespace fs = std::filesystem;

namespace {

struct Inputs {
  ProfileRun run;
  bool imported = false;  // from ncu CSV files (else an artifact read back)
};

bool is_report(const std::string& f) { return fs::path(f).extension() == ".ncu-rep"; }

// An Nsight Compute report → its CSV pages, exported by `ncu --import` into a scratch directory.
std::vector<std::string> export_report(const std::string& report, const std::string& ncu) {
  auto exe = find_executable(ncu);
  if (!exe)
    throw Error(report + ": reading an Nsight Compute report needs `" + ncu +
                    "` (Nsight Compute) on PATH, and it is not there. Fix: install Nsight Compute or pass --ncu PATH; "
                    "or, where ncu is installed, export the pages and analyse those: ncu --import " + report +
                    " --csv --page raw --print-units base > raw.csv (and --page details), then kprof analyze raw.csv "
                    "details.csv",
                kExitNoTool);
  // A folder only this call made (mkdtemp: 0700, an unpredictable name), not a predictable name another user could
  // create first.
  std::string pattern = (fs::temp_directory_path() / "kprof_ncu_import_XXXXXX").string();
  if (!::mkdtemp(pattern.data()))
    throw Error("cannot create a scratch folder for `ncu --import` in " + fs::temp_directory_path().string() + ": " +
                    std::strerror(errno),
                kExitCannotWrite);
  const fs::path dir = pattern;
  std::vector<std::string> messages;
  auto files = ncu::export_report_pages(*exe, report, dir.string(), messages);
  if (files.empty()) {
    std::string why;
    for (const auto& m : messages) why += "\n  " + m;
    throw Error(report + ": `" + *exe + " --import` exported no page" + why, kExitBadInput);
  }
  return files;
}

// An artifact directory re-analysed as it is; anything else is a list of ncu CSV files (or .ncu-rep reports,
// exported to CSV by ncu first). `copy_inputs`: the input files go into `copies` for the artifact, as copies made
// when it is written (not at all when nothing is written: a 200 MB page read whole again cost a quarter of the
// import's time).
Inputs load_inputs(const std::vector<std::string>& inputs, ExtraFiles& copies, const std::string& ncu,
                   bool copy_inputs) {
  if (inputs.empty()) throw Error("analyze: no input (an artifact directory or ncu CSV files)", kExitUsage);
  if (inputs.size() == 1 && fs::is_directory(input_status(inputs[0]))) {
    if (fs::exists(input_status(fs::path(inputs[0]) / "profile.json")) ||
        fs::exists(input_status(fs::path(inputs[0]) / kPartialMarker))) {
      ProfileRun run = load_artifact(inputs[0]);
      rederive_metrics(run);  // what the current kprof derives from the recorded counters
      return {std::move(run), false};
    }
    std::vector<std::string> csvs;
    for (const auto& e : fs::directory_iterator(inputs[0]))
      if (e.path().extension() == ".csv") csvs.push_back(e.path().string());
    std::sort(csvs.begin(), csvs.end());
    if (csvs.empty()) throw Error(inputs[0] + ": no profile.json and no .csv files in this directory", kExitBadInput);
    return load_inputs(csvs, copies, ncu, copy_inputs);
  }
  for (const auto& f : inputs) {
    const fs::file_status st = input_status(f);
    if (!fs::exists(st)) throw Error(f + ": no such file", kExitBadInput);
    if (fs::is_directory(st)) throw Error(f + ": pass either one artifact directory or CSV files", kExitUsage);
    // A pipe is read (ncu ... | kprof analyze /dev/stdin); a device is not an export (/dev/zero never ends).
    if (!fs::is_regular_file(st) && !fs::is_fifo(st))
      throw Error(f + ": not a file (a device or socket); pass the exported CSV files", kExitBadInput);
  }
  std::vector<std::string> csvs;
  std::vector<std::string> reports;
  std::set<fs::path> scratch;  // ncu --import's export directories, removed once their pages are read
  struct RemoveScratch {
    std::set<fs::path>& dirs;
    ~RemoveScratch() {
      std::error_code ec;
      for (const auto& d : dirs) fs::remove_all(d, ec);
    }
  } remove_scratch{scratch};
  for (const auto& f : inputs) {
    if (!is_report(f)) {
      csvs.push_back(f);
      continue;
    }
    reports.push_back(f);
    for (auto& page : export_report(f, ncu)) {
      scratch.insert(fs::path(page).parent_path());
      csvs.push_back(std::move(page));
    }
  }
  auto imported = ncu::import_ncu(csvs);
  // The inputs travel with the artifact: the CSV files, and each report beside them under its own name.
  // The user's files are copied when the artifact is written; pages exported from a report into a scratch
  // directory are read now (it is removed on return).
  auto in_scratch = [&](const std::string& f) { return scratch.count(fs::path(f).parent_path()) > 0; };
  // Two inputs of one name (a/raw.csv b/raw.csv) are kept as inputs/raw.csv and inputs/raw-2.csv.
  auto input_name = [&](const std::string& f) {
    const fs::path name = fs::path(f).filename();
    std::string key = "inputs/" + name.string();
    for (int n = 2; copies.count(key); ++n)
      key = "inputs/" + name.stem().string() + "-" + std::to_string(n) + name.extension().string();
    return key;
  };
  if (copy_inputs)
    for (const auto& f : csvs) {
      if (fs::is_fifo(fs::status(f))) {  // read once, already: nothing left to copy
        imported.run.warnings.push_back({WarningCode::Ncu, f + " is a pipe: its content is not kept under inputs/"});
        continue;
      }
      copies[input_name(f)] = in_scratch(f) ? ExtraFile(read_file(f)) : ExtraFile::copy_of(f);
    }
  for (const auto& f : reports) {
    std::string kept;
    if (copy_inputs) {
      kept = input_name(f);
      copies[kept] = ExtraFile::copy_of(f);
    }
    imported.run.warnings.push_back({WarningCode::Ncu, "imported from the Nsight Compute report " + f +
                                                           (copy_inputs ? " (kept as " + kept + "; " : " (") +
                                                           "open it in ncu-ui for the full detail)"});
  }
  // A source page among the inputs gives each kernel its annotated source, as `kprof run --prof-type=ncu` does.
  for (const auto& k : imported.source.kernels) {
    std::string name = safe_name(k.function.empty() ? k.name : k.function);
    copies["source/" + name + ".md"] = render::render_annotated_source(k);
    copies["source/" + name + "_sass.csv"] = render::render_sass_csv(k);
  }
  return {std::move(imported.run), true};
}

}  // namespace

Analyzed analyze_inputs(const AnalyzeSpec& o) {
  auto ctx = AnalysisContext::load(o.data);
  // An artifact with its collectors' raw files is rebuilt from them: the current kprof's grouping, metrics and
  // analysis, and every output of its mode (timeline, CSVs, trace.json, source pages).
  if (o.inputs.size() == 1 && fs::is_directory(input_status(o.inputs[0])))
    if (auto r = reassemble_artifact(o.inputs[0])) {
      ProfileRun& run = r->assembled.run;
      if (!o.kernel.empty()) run.kernel = o.kernel;
      if (o.version != "-") run.version = o.version;
      if (!o.params.empty()) run.params = o.params;
      // A new artifact, named by the time of this analysis (the recorded time stays in profile.json).
      fs::path dir = o.write ? artifact_dir(run, o.output.out_root, o.output.out_dir, utc_timestamp()) : fs::path();
      // The raw files travel with the new artifact (always: it is staged apart, even when it replaces the input).
      ExtraFiles raw;
      if (!dir.empty()) raw = source_files(o.inputs[0]);
      auto p = publish_run(run, ctx, o.output, dir, std::move(raw),
                           r->assembled.trace ? &*r->assembled.trace : nullptr, r->plan.outputs,
                           &r->assembled.source);
      return {std::move(run), std::move(p)};
    }
  ExtraFiles copies;
  auto [run, imported] = load_inputs(o.inputs, copies, o.ncu, o.write);
  if (!imported && o.write) copies = source_files(o.inputs[0]);  // an artifact read back: its inputs/ too
  if (!o.kernel.empty()) run.kernel = o.kernel;
  if (o.version != "-" || run.version.empty()) run.version = o.version;
  if (!o.params.empty()) run.params = o.params;
  if (run.timestamp.empty()) run.timestamp = utc_timestamp();
  if (imported) run.mode = Mode::Analyze;  // what `kprof analyze` made of ncu's exports
  fs::path dir = o.write ? artifact_dir(run, o.output.out_root, o.output.out_dir, utc_timestamp()) : fs::path();
  auto p = publish_run(run, ctx, o.output, dir, std::move(copies));
  return {std::move(run), std::move(p)};
}

}  // namespace kprof::session
