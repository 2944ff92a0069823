#include "analyze/device_db.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

#include "analyze/data_files.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"
#include "util/mapped.hpp"

namespace kprof::analyze {

namespace {

constexpr const char* kSchema = "kprof.devices/1";

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Whitespace-separated lower-case words, so "NVL" matches the token and not a substring of another word.
std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : lower(s)) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == '-' || c == '_') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

bool has_word(const std::string& text, const std::string& word) {
  auto ws = words(text);
  return std::find(ws.begin(), ws.end(), lower(word)) != ws.end();
}

json parse_json(const std::string& text, const std::string& origin) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number such as 9e999
    throw ParseError(origin, 0, std::string("malformed JSON: ") + e.what());
  }
}

}  // namespace

DeviceDb DeviceDb::parse(const std::string& json_text, const std::string& origin) {
  DeviceDb db;
  db.merge(json_text, origin);
  return db;
}

void DeviceDb::merge(const std::string& json_text, const std::string& origin) {
  json doc = parse_json(json_text, origin);
  if (!doc.is_object()) throw ParseError(origin, 0, "expected a JSON object with \"schema\" and \"devices\"");
  if (doc.contains("schema") && doc["schema"] != kSchema)
    throw ParseError(origin, 0, "unsupported schema " + doc["schema"].dump() + " (expected " + kSchema + ")");
  if (!doc.contains("devices") || !doc["devices"].is_array())
    throw ParseError(origin, 0, "missing \"devices\" array");
  if (doc.contains("variant_markers")) {
    if (!doc["variant_markers"].is_array()) throw ParseError(origin, 0, "\"variant_markers\" must be an array");
    for (const auto& m : doc["variant_markers"]) {
      if (!m.is_string()) throw ParseError(origin, 0, "\"variant_markers\" must hold strings");
      if (std::find(variant_markers_.begin(), variant_markers_.end(), m.get<std::string>()) == variant_markers_.end())
        variant_markers_.push_back(m.get<std::string>());
    }
  }
  for (std::size_t i = 0; i < doc["devices"].size(); ++i) {
    const json& entry = doc["devices"][i];
    if (!entry.is_object() || !entry.contains("id") || !entry["id"].is_string() || entry["id"].get<std::string>().empty())
      throw ParseError(origin, 0, "devices[" + std::to_string(i) + "] needs a non-empty string \"id\"");
    auto id = entry["id"].get<std::string>();
    auto it = std::find_if(raw_.begin(), raw_.end(), [&](const json& j) { return j["id"] == id; });
    // merge_patch merges nested objects (datasheet, measured) key by key and replaces arrays and scalars.
    if (it != raw_.end()) it->merge_patch(entry);
    else raw_.push_back(entry);
  }
  rebuild(origin);
}

void DeviceDb::merge_file(const std::filesystem::path& path) { merge(read_file(path), path.string()); }

void DeviceDb::rebuild(const std::string& origin) {
  std::vector<DeviceSpec> specs;
  for (const auto& entry : raw_) {
    try {
      specs.push_back(entry.get<DeviceSpec>());
    } catch (const json::exception& e) {
      throw ParseError(origin, 0, "device " + entry["id"].get<std::string>() + ": " + e.what());
    }
  }
  specs_ = std::move(specs);
}

DeviceDb DeviceDb::load(const std::optional<std::filesystem::path>& user_file) {
  auto shipped = find_data_file("devices.json");
  DeviceDb db = parse(read_file(shipped), shipped.string());
  if (auto user = find_user_file(user_file, "KPROF_DEVICES", "devices.json")) db.merge_file(*user);
  return db;
}

const DeviceSpec* DeviceDb::find(const std::string& id) const {
  for (const auto& s : specs_)
    if (s.id == id) return &s;
  return nullptr;
}

const DeviceSpec* DeviceDb::match(const DeviceInfo& info, std::string* reason) const {
  auto set_reason = [&](const std::string& r) { if (reason) *reason = r; };
  const std::string name = lower(info.name);

  if (!name.empty()) {
    for (const auto& s : specs_) {
      if (lower(s.name) == name || lower(s.id) == name) return &s;
      for (const auto& a : s.aliases)
        if (lower(a) == name) return &s;
    }
    // Substring (profile name contains an alias): the longest alias wins ("NVIDIA H100 80GB HBM3" before "H100"). A variant word present in
    // the profile name but absent from the candidate (H200 NVL vs H200 SXM) vetoes the match: same chip,
    // different power limit and peaks, so a wrong roof would be worse than none.
    const DeviceSpec* best = nullptr;
    std::size_t best_len = 0;
    std::string vetoed;
    for (const auto& s : specs_) {
      std::vector<std::string> names = s.aliases;
      names.push_back(s.name);
      for (const auto& a : names) {
        auto la = lower(a);
        if (la.empty() || name.find(la) == std::string::npos) continue;
        bool veto = false;
        for (const auto& m : variant_markers_)
          if (has_word(info.name, m) && !has_word(s.name, m) && !has_word(a, m)) { veto = true; vetoed = m; }
        if (veto) continue;
        if (la.size() > best_len) { best = &s; best_len = la.size(); }
      }
    }
    if (best) return best;
    if (!vetoed.empty()) {
      set_reason("\"" + info.name + "\" is a " + vetoed +
                 " variant with its own peaks and no entry matches it; add one to ~/.config/kprof/devices.json");
      return nullptr;
    }
  }

  if (!info.compute_capability.empty() && info.sm_count > 0) {
    std::vector<const DeviceSpec*> fits;
    for (const auto& s : specs_)
      if (s.compute_capability == info.compute_capability && s.sm_count == info.sm_count) fits.push_back(&s);
    if (fits.size() == 1) return fits.front();
    if (fits.size() > 1) {
      const std::string ids =
          fmt::format("{}", fmt::join(mapped(fits, [](const DeviceSpec* f) { return f->id; }), ", "));
      set_reason("\"" + info.name + "\" (CC " + info.compute_capability + ", " + std::to_string(info.sm_count) +
                 " SMs) fits several entries (" + ids + "); name it in the user devices file");
      return nullptr;
    }
  }
  set_reason("no device entry matches \"" + info.name + "\" (CC " +
             (info.compute_capability.empty() ? "?" : info.compute_capability) + ", " +
             std::to_string(info.sm_count) + " SMs)");
  return nullptr;
}

}  // namespace kprof::analyze
