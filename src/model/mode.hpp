// What made a run: one of the four profiling modes, or an analysis of someone else's exports. The one enum every
// layer uses for it; its name is what the command line takes, the artifact path holds and profile.json records.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "model/json_support.hpp"

namespace kprof {

enum class Mode {
  Annotation,  // counters of each distinct kernel, roofline, ranked opportunities
  Event,       // precise durations of every launch
  Ncu,         // Nsight Compute --set full
  Nsys,        // the timeline
  Import,      // ncu CSV exports read by the importer (before `kprof analyze` publishes them)
  Analyze,     // what `kprof analyze` made of exports that no kprof mode collected
};
// The modes a program is profiled in (kprof run --prof-type, the APIs' mode argument).
inline constexpr std::array<Mode, 4> kModes{Mode::Annotation, Mode::Event, Mode::Ncu, Mode::Nsys};

// "annotation", "event", "ncu", "nsys", "import", "analyze".
std::string_view mode_name(Mode mode);
// The mode of that name, any of the six; nullopt for anything else.
std::optional<Mode> mode_from_name(std::string_view name);
// One of kModes (not import/analyze).
bool is_profiling_mode(Mode mode);

// JSON: the name. An empty string (profile.json of kprof before the enum, from `kprof analyze`) reads as Analyze;
// an unknown name is a type error, which the artifact reader reports with the field's path.
void to_json(nlohmann::json& j, Mode mode);
void from_json(const nlohmann::json& j, Mode& mode);

}  // namespace kprof
