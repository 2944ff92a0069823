// kprof compare, kprof devlog, kprof devices.
#include <iostream>

#include "analyze/compare.hpp"
#include "cli/commands/analysis_context.hpp"
#include "cli/commands/artifact.hpp"
#include "cli/commands/commands.hpp"
#include "cli/commands/publish.hpp"
#include "render/comparison_markdown.hpp"
#include "render/devices_markdown.hpp"
#include "util/errors.hpp"

namespace kprof::cli {


int cmd_compare(const CompareOptions& o) {
  auto ctx = AnalysisContext::load(o.common);
  ProfileRun base = load_artifact(o.baseline);
  ProfileRun cur = load_artifact(o.current);
  Comparison cmp = analyze::compare_runs(base, cur, ctx.thresholds);
  if (o.common.json) std::cout << json(cmp).dump(2) << "\n";
  else std::cout << render::render_comparison(cmp);
  return kExitOk;
}

int cmd_devlog(const DevlogOptions& o) {
  ProfileRun run = load_artifact(o.artifact);
  append_devlog(run, o.docs_dir, o.common.quiet);
  return kExitOk;
}

int cmd_devices(const DevicesOptions& o) {
  auto ctx = AnalysisContext::load(o.common);
  if (!o.show.empty()) {
    const DeviceSpec* spec = ctx.devices.find(o.show);
    if (!spec) {
      DeviceInfo info;
      info.name = o.show;
      spec = ctx.devices.match(info);
    }
    if (!spec) throw Error("no device '" + o.show + "' (see `kprof devices` for the list)", kExitUsage);
    if (o.common.json) std::cout << json(*spec).dump(2) << "\n";
    else std::cout << render::render_device_detail(*spec);
    return kExitOk;
  }
  if (o.common.json) std::cout << json(ctx.devices.devices()).dump(2) << "\n";
  else std::cout << render::render_devices(ctx.devices.devices());
  return kExitOk;
}

}  // namespace kprof::cli
