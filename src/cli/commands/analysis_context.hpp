// Loads the device database and thresholds once per command, honouring --devices / --thresholds.
#pragma once
#include "analyze/device_db.hpp"
#include "analyze/thresholds.hpp"
#include "cli/commands/commands.hpp"

namespace kprof::cli {

struct AnalysisContext {
  analyze::DeviceDb devices;
  analyze::Thresholds thresholds;
  static AnalysisContext load(const CommonOptions& c);
};

}  // namespace kprof::cli
