// The device database and thresholds, loaded once per command, honouring the user's --devices / --thresholds.
#pragma once
#include "analyze/device_db.hpp"
#include "analyze/thresholds.hpp"
#include "session/run_spec.hpp"

namespace kprof::session {

struct AnalysisContext {
  analyze::DeviceDb devices;
  analyze::Thresholds thresholds;
  static AnalysisContext load(const DataFiles& files);
};

}  // namespace kprof::session
