// Where kprof finds its shipped data files (devices.json, thresholds.toml), and the user's override files.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kprof::analyze {

// Directories searched for shipped data, in order: $KPROF_DATA_DIR, <exe dir>/../share/kprof,
// <exe dir>/../../data (a build tree), then the source tree's data/ (compile-time KPROF_SOURCE_DIR).
std::vector<std::filesystem::path> data_search_dirs();

// First existing `name` in data_search_dirs(); throws Error (exit 3) listing the places tried.
std::filesystem::path find_data_file(const std::string& name);

// The user's file: `explicit_path` if given, else $<env_var> if set, else ~/.config/kprof/<name> if it exists.
// An explicit or environment path that does not exist is an error (the user asked for it); the default is optional.
std::optional<std::filesystem::path> find_user_file(const std::optional<std::filesystem::path>& explicit_path,
                                                    const char* env_var, const std::string& name);

}  // namespace kprof::analyze
