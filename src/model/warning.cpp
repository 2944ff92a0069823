#include "model/warning.hpp"

#include <array>
#include <utility>

namespace kprof {

namespace {
constexpr std::array<std::pair<WarningCode, std::string_view>, 10> kNames{{
    {WarningCode::Other, "other"},
    {WarningCode::Trace, "trace"},
    {WarningCode::Counters, "counters"},
    {WarningCode::Ncu, "ncu"},
    {WarningCode::ProgramRun, "program-run"},
    {WarningCode::Clocks, "clocks"},
    {WarningCode::Filter, "filter"},
    {WarningCode::Declared, "declared"},
    {WarningCode::Device, "device"},
    {WarningCode::Implausible, "implausible"},
}};
}  // namespace

std::string_view warning_code_name(WarningCode code) {
  for (const auto& [c, name] : kNames)
    if (c == code) return name;
  return "other";
}

void to_json(json& j, const Warning& w) {
  j = json{{"code", warning_code_name(w.code)}, {"text", w.text}};
  if (!w.group.empty()) j["group"] = w.group;
}

void from_json(const json& j, Warning& w) {
  if (j.is_string()) {
    w = {WarningCode::Other, j.get<std::string>()};
    return;
  }
  w.text = j.at("text").get<std::string>();
  w.group = j.value("group", std::string());
  const auto code = j.value("code", std::string("other"));
  w.code = WarningCode::Other;
  for (const auto& [c, name] : kNames)
    if (name == code) w.code = c;
}

}  // namespace kprof
