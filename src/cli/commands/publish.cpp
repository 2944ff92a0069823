#include "cli/commands/publish.hpp"

#include <iostream>
#include <optional>

#include "analyze/analyze_run.hpp"
#include "analyze/compare.hpp"
#include "cli/commands/artifact.hpp"
#include "render/contract_markdown.hpp"
#include "render/devlog.hpp"
#include "render/json_output.hpp"
#include "util/fs.hpp"

namespace kprof::cli {

namespace fs = std::filesystem;

void append_devlog(const ProfileRun& run, const std::string& docs_dir, bool quiet) {
  fs::path file = fs::path(docs_dir) / (safe_name(run.kernel) + ".md");
  std::string existing = fs::exists(file) ? read_file(file) : render::devlog_header(run.kernel);
  auto previous = render::parse_last_devlog_entry(existing);
  write_file_atomic(file, existing + render::render_devlog_entry(run, previous));
  if (!quiet) std::cerr << "kprof: devlog entry appended to " << file.string() << "\n";
}

void publish_run(ProfileRun& run, const AnalysisContext& ctx, const PublishOptions& o,
                 const std::map<std::string, std::string>& files) {
  const bool quiet = o.common && o.common->quiet;
  analyze::analyze_run(run, ctx.devices, ctx.thresholds);
  std::optional<ProfileRun> base;
  std::optional<Comparison> cmp;
  if (!o.baseline.empty()) {
    base = load_artifact(o.baseline);
    cmp = analyze::compare_runs(*base, run, ctx.thresholds);
  }
  const Comparison* cmp_ptr = cmp ? &*cmp : nullptr;
  if (!o.dir.empty()) write_artifact(o.dir, run, cmp_ptr, files, base ? &*base : nullptr);
  if (o.devlog) append_devlog(run, o.docs_dir, quiet);
  if (quiet) return;
  for (const auto& w : run.warnings) std::cerr << "kprof: warning: " << w << "\n";
  if (!o.dir.empty()) std::cerr << "kprof: artifacts written to " << o.dir.string() << "\n";
  const bool as_json = o.common && o.common->json;
  std::cout << (as_json ? render::render_contract_json(run, cmp_ptr) : render::render_contract(run, cmp_ptr));
}

}  // namespace kprof::cli
