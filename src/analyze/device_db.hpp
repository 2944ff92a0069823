// The device database: shipped datasheet peaks (data/devices.json) merged with the user's own entries,
// and matching of what a profile says about its GPU to one entry.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "model/device_spec.hpp"
#include "model/json_support.hpp"

namespace kprof::analyze {

class DeviceDb {
 public:
  // Shipped file (see data_files.hpp) merged with the user file: `user_file`, else $KPROF_DEVICES,
  // else ~/.config/kprof/devices.json when present.
  static DeviceDb load(const std::optional<std::filesystem::path>& user_file = std::nullopt);
  // Parses a devices document; `origin` names it in errors (ParseError, exit 3).
  static DeviceDb parse(const std::string& json_text, const std::string& origin);

  // Same id: the user entry overrides key by key (nested peak maps too); new ids are appended.
  void merge(const std::string& json_text, const std::string& origin);
  void merge_file(const std::filesystem::path& path);

  const std::vector<DeviceSpec>& devices() const { return specs_; }
  const DeviceSpec* find(const std::string& id) const;

  // Matching order: exact name/alias (case-insensitive); then a profile name that contains an alias, unless
  // the profile name carries a variant marker ("NVL", "PCIe", "MIG": different peaks) the entry does not;
  // then compute capability + SM count when exactly one entry fits. nullptr with `reason` otherwise.
  const DeviceSpec* match(const DeviceInfo& info, std::string* reason = nullptr) const;

 private:
  void rebuild(const std::string& origin);
  std::vector<json> raw_;  // entries as parsed, so user overrides merge key by key
  std::vector<DeviceSpec> specs_;
  std::vector<std::string> variant_markers_;
};

}  // namespace kprof::analyze
