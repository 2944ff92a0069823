// The shipped devices file with every `measured` entry removed: tests of formulas pin datasheet figures, which do
// not move when `kprof peaks --measure` records new measurements in data/devices.json.
#pragma once
#include "model/json_support.hpp"  // integer reads range-checked (not nlohmann/json.hpp directly)

#include "analyze/device_db.hpp"
#include "util/fs.hpp"

inline std::string datasheet_devices_json() {
  auto doc = nlohmann::json::parse(kprof::read_file(KPROF_SOURCE_DIR + "/data/devices.json"));
  for (auto& d : doc["devices"]) d.erase("measured");
  return doc.dump();
}

inline kprof::analyze::DeviceDb datasheet_db() {
  return kprof::analyze::DeviceDb::parse(datasheet_devices_json(), "devices.json (datasheet only)");
}
