// kprof peaks --measure|--import: measured device peaks into devices.json and docs/devices/<id>.md.
#include <filesystem>
#include <iostream>
#include <unistd.h>

#include "analyze/data_files.hpp"
#include "cli/commands/commands.hpp"
#include "collect/gpu_presence.hpp"
#include "collect/peaks/peaks_import.hpp"
#include "render/device_page.hpp"
#include "session/analysis_context.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"
#include "util/process.hpp"

namespace kprof::cli {

namespace fs = std::filesystem;

int cmd_peaks(const PeaksOptions& o) {
  if (o.measure == !o.import_file.empty())
    throw Error("kprof peaks needs exactly one of --measure or --import FILE", kExitUsage);
  std::string json_file = o.import_file;
  if (o.measure) {
    require_gpu("kprof peaks --measure");
    fs::path self = executable_dir().value_or(fs::current_path());
    fs::path bench = self / "kprof-peaks";
    if (!fs::exists(bench)) bench = self / "src/collect/peaks/kprof-peaks";
    if (!fs::exists(bench))
      throw Error("kprof-peaks was not built (it needs the CUDA toolkit at build time)", kExitNoTool);
    json_file = (fs::temp_directory_path() / ("kprof-peaks-" + std::to_string(::getpid()) + ".json")).string();
    ProcessSpec spec;
    spec.argv = {bench.string(), "--out", json_file};
    auto r = run_process(spec);
    if (r.signaled || r.exit_code != 0) throw Error("kprof-peaks " + r.describe(), kExitProgramFailed);
  }
  PeaksReport report = parse_peaks_json(read_file(json_file), json_file);
  // Update the devices file in place: only the matched entry's "measured" map changes.
  fs::path devices_file = o.write_devices.empty() ? analyze::find_data_file("devices.json") : fs::path(o.write_devices);
  auto ctx = session::AnalysisContext::load(o.common.data);
  DeviceInfo info;
  info.name = report.device.name;
  const DeviceSpec* matched = o.device.empty() ? ctx.devices.match(info) : ctx.devices.find(o.device);
  if (!matched) throw Error("no device entry for '" + report.device.name + "': pass --device ID", kExitBadInput);
  DeviceSpec spec = *matched;
  for (const auto& w : merge_measured(spec, report)) std::cerr << "kprof: warning: " << w << "\n";
  // ordered_json keeps the file's key order, so the diff of devices.json shows only the measured figures.
  nlohmann::ordered_json doc;
  bool updated = false;
  try {
    doc = nlohmann::ordered_json::parse(read_file(devices_file));
    for (auto& d : doc.at("devices"))
      if (d.is_object() && d.value("id", std::string()) == spec.id) {
        d["measured"] = nlohmann::ordered_json::parse(json(spec.measured).dump());
        updated = true;
      }
  } catch (const nlohmann::ordered_json::exception& e) {
    throw ParseError(devices_file.string(), 0, std::string("cannot update the devices file: ") + e.what());
  }
  if (!updated) throw Error(devices_file.string() + " has no entry with id " + spec.id, kExitBadInput);
  write_file_atomic(devices_file, doc.dump(2) + "\n");
  fs::path page = fs::path(o.docs_dir) / (spec.id + ".md");
  write_file_atomic(page, render::render_device_page(spec));
  std::cout << "measured peaks for " << spec.name << " written to " << devices_file.string() << " and "
            << page.string() << "\n";
  for (const auto& [k, p] : spec.measured) std::cout << "  " << k << " = " << p.value << "  (" << p.source << ")\n";
  return kExitOk;
}

}  // namespace kprof::cli
