#include "model/regression_check.hpp"

namespace kprof {

std::string_view regression_status_name(RegressionStatus s) {
  switch (s) {
    case RegressionStatus::ok: return "ok";
    case RegressionStatus::regression: return "regression";
    case RegressionStatus::untested: return "untested";
    case RegressionStatus::noise: return "noise";
    case RegressionStatus::missing: return "missing";
  }
  return "ok";  // not reached: every status is named above
}

void to_json(json& j, RegressionStatus s) { j = std::string(regression_status_name(s)); }

void from_json(const json& j, RegressionStatus& s) {
  const auto name = j.get<std::string>();
  for (auto candidate : {RegressionStatus::ok, RegressionStatus::regression, RegressionStatus::untested,
                         RegressionStatus::noise, RegressionStatus::missing})
    if (regression_status_name(candidate) == name) {
      s = candidate;
      return;
    }
  throw nlohmann::detail::out_of_range::create(406, "unknown regression status \"" + name + "\"", &j);
}

}  // namespace kprof
