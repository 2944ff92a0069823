// Nsight Compute: the annotation metric list once per kernel (ncu-metrics, annotation mode) or --set full with the
// source (ncu-full, ncu mode). Its CSV pages land in ncu/ (and ncu mode's own report, profile.ncu-rep).
#include <fmt/format.h>

#include <algorithm>

#include "collect/ncu/ncu_driver.hpp"
#include "collect/ncu/ncu_import.hpp"
#include "session/assemble.hpp"
#include "session/collectors/collectors.hpp"
#include "util/errors.hpp"

namespace kprof::session {

namespace fs = std::filesystem;

namespace {

ncu::NcuRunOptions ncu_options(const CollectorContext& ctx, bool full) {
  ncu::NcuRunOptions o;
  o.collection = full ? ncu::NcuCollection::full_set : ncu::NcuCollection::metric_list;
  o.command = ctx.spec.command;
  o.work_dir = (ctx.dir / "ncu").string();
  o.ncu = ctx.spec.ncu;
  o.clock_control = ctx.spec.clock_control;
  o.kernel_regex = ctx.spec.filters.kernel_regex;
  // Annotation: counters for the kernels that matter only (ncu mode profiles every kernel group).
  if (!full)
    if (std::string significant = significant_kernels(ctx, nullptr, false); !significant.empty())
      o.kernel_regex = significant;
  o.nvtx_include = ctx.spec.filters.nvtx_include;
  o.launch_skip = ctx.spec.filters.launch_skip;
  o.launch_count = ctx.spec.filters.launch_count;
  o.first_launch_per_kernel = !ctx.spec.filters.all_launches;
  o.mangled_identity = ctx.spec.filters.kernel_regex.empty();
  if (!full) o.metrics = annotation_metrics();
  // --set full lacks the tensor-pipe metric without HFMA2.MMA (the diagnosis falls back to one that counts it).
  else o.metrics = {"sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_active"};
  return o;
}

class NcuPass : public Collector {
 public:
  explicit NcuPass(bool full) : full_(full) {}
  CollectorKind kind() const override { return full_ ? CollectorKind::NcuFull : CollectorKind::NcuMetrics; }
  std::vector<std::string> describe(const CollectorContext& ctx) const override {
    const std::string which = ctx.spec.filters.all_launches ? "every launch"
                                                            : "one launch per kernel and launch configuration";
    return {full_ ? "ncu-full: Nsight Compute --set full with source, " + which +
                        " → ncu/profile.ncu-rep, ncu/ncu_{raw,details,source,session}.csv"
                  : "ncu-metrics: Nsight Compute, the annotation metric list, " + which + " → ncu/ncu_raw.csv",
            "ncu run: " + command_line(ncu::ncu_collect_args(ncu_options(ctx, full_)))};
  }
  void run(CollectorContext& ctx, Collected& c) override {
    auto opt = ncu_options(ctx, full_);
    ctx.log(LogLevel::progress, "Nsight Compute run (" + std::string(mode_name(ctx.plan.mode)) + ")");
    std::error_code ec;
    for (auto f : {"ncu_raw.csv", "ncu_details.csv", "ncu_source.csv", "ncu_session.csv", "profile.ncu-rep"})
      fs::remove(fs::path(opt.work_dir) / f, ec);
    auto nr = ncu::run_ncu(opt);
    PassRecord p{kind()};
    p.process = nr.process;
    for (const auto& m : nr.messages)
      if (m.rfind("==ERROR==", 0) == 0) p.warnings.push_back("ncu: " + m);
    if (!nr.failure.empty()) p.warnings.push_back("ncu: " + nr.failure);
    p.failure = nr.failure;
    c.passes.push_back(std::move(p));
  }

 private:
  bool full_;
};

// The pages ncu left in ncu/, raw first (the order the importer merges in).
std::vector<std::string> ncu_csv_files(const fs::path& dir) {
  std::vector<std::string> files;
  for (auto page : {"ncu_raw.csv", "ncu_details.csv", "ncu_source.csv", "ncu_session.csv"}) {
    fs::path p = dir / "ncu" / page;
    std::error_code ec;
    if (fs::exists(p) && fs::file_size(p, ec) > 0) files.push_back(p.string());
  }
  return files;
}

void read_ncu_pass(Assembled& a, const PassReading& r) {
  const fs::path& dir = r.collected.dir;
  const bool reanalysis = r.collected.reanalysis;
  auto csv = ncu_csv_files(dir);
  if (csv.empty()) {
    if (r.pass.failure.empty()) a.run.warnings.push_back({WarningCode::Ncu, "ncu produced no CSV output"});
    return;
  }
  ncu::NcuImport imported;
  const bool stopped = r.pass.process && r.pass.process->interrupted;
  for (;;) {
    try {
      imported = ncu::import_ncu(csv);
      break;
    } catch (const ParseError& e) {
      // A page other than raw that holds no table is left out, the rest read: on the H200, ncu's source page of
      // a PyTorch program (no kernel built with -lineinfo) held only "No lineinfo available" warnings, and
      // dropping every page for it lost all the counters of the run.
      // A re-analysis reads finished runs only: it leaves out a page that holds no table (what ncu wrote for
      // kernels without -lineinfo), not one that is inconsistent with the others.
      const auto failed = std::find(csv.begin(), csv.end(), e.file());
      const bool no_table = std::string(e.what()).find("no Nsight Compute CSV table") != std::string::npos;
      if (!stopped && failed != csv.end() && fs::path(*failed).filename() != "ncu_raw.csv" &&
          (!reanalysis || no_table)) {
        a.run.warnings.push_back({WarningCode::Ncu, fmt::format("ncu/{} left out ({}); the other pages are read",
                                             fs::path(*failed).filename().string(), e.what())});
        csv.erase(failed);
        if (!csv.empty()) continue;
      }
      // What the earlier passes measured is still written. An ncu stopped by Ctrl-C/SIGTERM (SIGTERM on the
      // H200: an empty raw page) or one that failed leaves pages it never finished; a re-analysis reads only
      // finished runs.
      if (reanalysis) throw;
      a.run.warnings.push_back({WarningCode::Ncu, std::string(stopped ? "ncu was interrupted before its output was complete; "
                                                   : "ncu's output not read: ") +
                               e.what()});
      return;
    }
  }
  a.run.device = imported.run.device;
  for (const auto& w : imported.run.warnings) a.run.warnings.push_back(w);
  if (a.trace) {
    std::vector<KernelLaunch> launches;
    for (auto& s : imported.run.stages)
      for (auto& g : s.kernels)
        for (auto& l : g.launches) launches.push_back(l);
    use_counter_launches(a, std::move(launches));
  } else {
    a.run.stages = std::move(imported.run.stages);
  }
  a.source = std::move(imported.source);
  // ncu mode keeps Nsight Compute's own report beside the CSV pages: the report names it (open it in ncu-ui).
  if (fs::exists(dir / "ncu" / "profile.ncu-rep")) a.run.sources.push_back("ncu/profile.ncu-rep");
}

bool has_ncu_pages(const fs::path& dir) { return !ncu_csv_files(dir).empty(); }

}  // namespace

CollectorRow ncu_metrics_row() {
  return {
      .kind = CollectorKind::NcuMetrics,
      .name = "ncu-metrics",
      .planned = [](const ModeEntry&, const RunSpec& spec) { return counter_source(spec) == CounterSource::Ncu; },
      .make = []() -> std::unique_ptr<Collector> { return std::make_unique<NcuPass>(false); },
      .warnings = WarningCode::Ncu,
      .raw_files = {"ncu/ncu_raw.csv"},
      .read = read_ncu_pass,
      .probe = has_ncu_pages,
      .replay_when_absent = true,
  };
}

CollectorRow ncu_full_row() {
  return {
      .kind = CollectorKind::NcuFull,
      .name = "ncu-full",
      .planned = [](const ModeEntry&, const RunSpec&) { return true; },
      .make = []() -> std::unique_ptr<Collector> { return std::make_unique<NcuPass>(true); },
      .warnings = WarningCode::Ncu,
      .raw_files = {"ncu/ncu_raw.csv", "ncu/ncu_details.csv", "ncu/ncu_source.csv", "ncu/ncu_session.csv",
                    "ncu/profile.ncu-rep"},
      .read = read_ncu_pass,
      .probe = has_ncu_pages,
      .replay_when_absent = true,
      .feeds = {OutputInput::source_page},
  };
}

}  // namespace kprof::session
