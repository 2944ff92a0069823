// kprof devices: the known devices and their peaks (datasheet or measured), or every peak of one.
#include <iostream>

#include "cli/commands/commands.hpp"
#include "render/devices_markdown.hpp"
#include "session/analysis_context.hpp"
#include "util/errors.hpp"

namespace kprof::cli {

int cmd_devices(const DevicesOptions& o) {
  auto ctx = session::AnalysisContext::load(o.common.data);
  if (!o.show.empty()) {
    const DeviceSpec* spec = ctx.devices.find(o.show);
    if (!spec) {
      DeviceInfo info;
      info.name = o.show;
      spec = ctx.devices.match(info);
    }
    if (!spec) throw Error("no device '" + o.show + "' (see `kprof devices` for the list)", kExitUsage);
    if (o.common.print.json) std::cout << json(*spec).dump(2) << "\n";
    else std::cout << render::render_device_detail(*spec);
    return kExitOk;
  }
  if (o.common.print.json) std::cout << json(ctx.devices.devices()).dump(2) << "\n";
  else std::cout << render::render_devices(ctx.devices.devices());
  return kExitOk;
}

}  // namespace kprof::cli
