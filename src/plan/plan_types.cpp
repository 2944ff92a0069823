#include "plan/plan_types.hpp"

namespace kprof::plan {

std::string config_label(const TileConfig& c) {
  std::string out;
  for (const auto& [k, v] : c) out += (out.empty() ? "" : "_") + k + std::to_string(v);
  return out.empty() ? "default" : out;
}

const char* plan_kind_name(PlanKind k) {
  switch (k) {
    case PlanKind::single: return "single";
    case PlanKind::pipeline: return "pipeline";
    case PlanKind::concurrent: return "concurrent";
  }
  return "single";
}

}  // namespace kprof::plan
