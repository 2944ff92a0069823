#include "session/analysis_context.hpp"

#include <filesystem>
#include <optional>

namespace kprof::session {

namespace fs = std::filesystem;

AnalysisContext AnalysisContext::load(const DataFiles& f) {
  return AnalysisContext{
      analyze::DeviceDb::load(f.devices_file.empty() ? std::nullopt : std::optional<fs::path>(f.devices_file)),
      analyze::Thresholds::load(f.thresholds_file.empty() ? std::nullopt : std::optional<fs::path>(f.thresholds_file))};
}

}  // namespace kprof::session
