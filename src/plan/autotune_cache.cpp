#include "plan/autotune_cache.hpp"

#include <cmath>

#include <cctype>

#include "util/fs.hpp"

namespace kprof::plan {

namespace fs = std::filesystem;

namespace {
std::string safe(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.') ? c : '_';
  while (!out.empty() && out.front() == '.') out.erase(out.begin());
  return out.empty() ? "unnamed" : out;
}

// The first field that differs between two keys, for the warning.
std::string key_difference(const CacheKey& want, const CacheKey& got) {
  if (want.kernel != got.kernel) return "kernel '" + got.kernel + "'";
  if (want.version != got.version) return "version '" + got.version + "'";
  if (want.stage != got.stage) return "stage '" + got.stage + "'";
  if (want.device != got.device) return "device '" + got.device + "'";
  if (want.params.values != got.params.values || want.params.dtype != got.params.dtype)
    return "params '" + got.params.dir_name() + "'";
  if (want.source_hash != got.source_hash) return "source/compile-options hash '" + got.source_hash + "'";
  return "";
}
}  // namespace

std::string device_key(const std::string& name, const std::string& cc) {
  std::string digits;
  for (char c : cc)
    if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
  return safe(name) + (digits.empty() ? "" : "_sm" + digits);
}

fs::path AutotuneCache::path_for(const fs::path& root, const CacheKey& k) {
  return root / safe(k.kernel) / safe(k.version) / safe(k.stage) / safe(k.device) / (safe(k.params.dir_name()) + ".json");
}

AutotuneCache::AutotuneCache(fs::path root, CacheKey key) : path_(path_for(root, key)) { file_.key = std::move(key); }

void AutotuneCache::load() {
  std::error_code ec;
  if (!fs::exists(path_, ec)) return;
  CacheKey want = file_.key;
  auto reset = [&](const std::string& why) {
    warnings_.push_back("autotune cache " + path_.string() + " " + why + "; it is rebuilt");
    file_ = CacheFile{};
    file_.key = want;
  };
  CacheFile got;
  try {
    got = json::parse(read_file(path_)).get<CacheFile>();
  } catch (const std::exception& e) {
    reset(std::string("is unreadable (") + e.what() + ")");
    return;
  }
  if (got.schema != CacheFile{}.schema) return reset("has schema '" + got.schema + "'");
  if (auto diff = key_difference(want, got.key); !diff.empty()) return reset("was measured for another " + diff);
  for (std::size_t i = 0; i < got.entries.size(); ++i) {  // a bad time would win the tuning
    if (got.entries[i].status == TryStatus::unknown)
      return reset("has entry " + std::to_string(i) + " with an unknown status");
    const auto& m = got.entries[i].median_ms;
    if (got.entries[i].status == TryStatus::ok && (!m || !std::isfinite(*m) || *m <= 0))
      return reset("has entry " + std::to_string(i) + " (status ok) without a positive median_ms");
  }
  file_ = std::move(got);
  file_.best = best_config(file_.entries);  // never trust a stored best over the entries
}

void AutotuneCache::clear() {
  file_.entries.clear();
  file_.best.reset();
}

const TuneEntry* AutotuneCache::find(const TileConfig& c) const {
  for (const auto& e : file_.entries)
    if (e.config == c) return &e;
  return nullptr;
}

void AutotuneCache::record(TuneEntry e) {
  if (e.measured_at.empty()) e.measured_at = utc_timestamp();
  bool replaced = false;
  for (auto& old : file_.entries)
    if (old.config == e.config) {
      old = e;
      replaced = true;
    }
  if (!replaced) file_.entries.push_back(std::move(e));
  file_.best = best_config(file_.entries);
  save();
}

void AutotuneCache::save() const {
  CacheFile f = file_;
  f.updated = utc_timestamp();
  write_file_atomic(path_, json(f).dump(1) + "\n");
}

std::optional<TileConfig> best_config(const std::vector<TuneEntry>& entries) {
  const TuneEntry* best = nullptr;
  for (const auto& e : entries)
    if (e.status == TryStatus::ok && e.median_ms && (!best || *e.median_ms < *best->median_ms)) best = &e;
  if (!best) return std::nullopt;
  return best->config;
}

}  // namespace kprof::plan
