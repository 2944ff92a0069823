#include "collect/clock/clock_saved_state.hpp"

#include <cstdlib>

#include "util/errors.hpp"
#include "util/fs.hpp"

namespace kprof {

std::filesystem::path clock_state_path(int gpu) {
  std::filesystem::path base;
  if (const char* x = std::getenv("XDG_STATE_HOME"); x && *x) {
    base = x;
  } else if (const char* h = std::getenv("HOME"); h && *h) {
    base = std::filesystem::path(h) / ".local" / "state";
  } else {
    base = "/tmp";
  }
  return base / "kprof" / ("clock-gpu" + std::to_string(gpu) + ".json");
}

std::optional<SavedClockState> load_clock_state(int gpu) {
  auto p = clock_state_path(gpu);
  if (!std::filesystem::exists(p)) return std::nullopt;
  try {
    return json::parse(read_file(p)).get<SavedClockState>();
  } catch (const json::exception& e) {
    throw ParseError(p.string(), 0, std::string("malformed clock state: ") + e.what());
  }
}

void save_clock_state(const SavedClockState& s) { write_file_atomic(clock_state_path(s.gpu), json(s).dump(2) + "\n"); }

void remove_clock_state(int gpu) {
  std::error_code ec;
  std::filesystem::remove(clock_state_path(gpu), ec);
}

}  // namespace kprof
