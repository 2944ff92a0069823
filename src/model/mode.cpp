#include "model/mode.hpp"


namespace kprof {

namespace {
constexpr std::array<std::pair<Mode, std::string_view>, 6> kNames{{{Mode::Annotation, "annotation"},
                                                                    {Mode::Event, "event"},
                                                                    {Mode::Ncu, "ncu"},
                                                                    {Mode::Nsys, "nsys"},
                                                                    {Mode::Import, "import"},
                                                                    {Mode::Analyze, "analyze"}}};
}  // namespace

std::string_view mode_name(Mode mode) {
  for (const auto& [m, name] : kNames)
    if (m == mode) return name;
  return "analyze";
}

std::optional<Mode> mode_from_name(std::string_view name) {
  for (const auto& [m, n] : kNames)
    if (n == name) return m;
  return std::nullopt;
}

bool is_profiling_mode(Mode mode) {
  for (Mode m : kModes)
    if (m == mode) return true;
  return false;
}

void to_json(nlohmann::json& j, Mode mode) { j = std::string(mode_name(mode)); }

void from_json(const nlohmann::json& j, Mode& mode) {
  const auto& name = j.get_ref<const std::string&>();  // type_error for a non-string
  if (name.empty()) {
    mode = Mode::Analyze;
    return;
  }
  auto m = mode_from_name(name);
  if (!m) throw nlohmann::detail::type_error::create(302, "unknown mode '" + name + "'", &j);
  mode = *m;
}

}  // namespace kprof
