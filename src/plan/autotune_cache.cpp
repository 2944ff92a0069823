#include "plan/autotune_cache.hpp"

#include <cmath>

#include <cctype>

#include "util/errors.hpp"
#include "util/folder_lock.hpp"
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

namespace {
// Why an entry may not be used (a bad time would win the tuning), or "" when it may.
std::string entry_problem(const TuneEntry& e) {
  if (e.status == TryStatus::unknown) return "with an unknown status";
  const bool bad_median = e.median_ms && (!std::isfinite(*e.median_ms) || *e.median_ms <= 0);
  if (bad_median || (e.status == TryStatus::ok && !e.median_ms))
    return std::string(e.status == TryStatus::ok ? "(status ok) " : "") + "without a positive median_ms";
  return "";
}

// The file at `path` for `want`: nullopt with `why` set when it is unreadable, of another schema or for another
// key. Entries are read one by one: a bad one is dropped (its reason in `dropped`), the others kept.
std::optional<CacheFile> read_cache(const fs::path& path, const CacheKey& want, std::string& why,
                                    std::vector<std::string>& dropped) {
  json doc;
  CacheFile got;
  json entries = json::array();
  try {
    doc = json::parse(read_file(path));
    if (doc.is_object() && doc.contains("entries")) {
      entries = std::move(doc["entries"]);
      doc.erase("entries");
    }
    got = doc.get<CacheFile>();
  } catch (const std::exception& e) {
    why = std::string("is unreadable (") + e.what() + ")";
    return std::nullopt;
  }
  if (got.schema != CacheFile{}.schema) {
    why = "has schema '" + got.schema + "'";
    return std::nullopt;
  }
  if (auto diff = key_difference(want, got.key); !diff.empty()) {
    why = "was measured for another " + diff;
    return std::nullopt;
  }
  if (!entries.is_array()) {
    dropped.push_back("has \"entries\" that is not a list");
    entries = json::array();
  }
  for (std::size_t i = 0; i < entries.size(); ++i) {
    std::string problem;
    try {
      TuneEntry e = entries[i].get<TuneEntry>();
      problem = entry_problem(e);
      if (problem.empty()) {
        got.entries.push_back(std::move(e));
        continue;
      }
    } catch (const std::exception& e) {
      problem = std::string("that does not read (") + e.what() + ")";
    }
    dropped.push_back("has entry " + std::to_string(i) + " " + problem);
  }
  got.best = best_config(got.entries);  // never trust a stored best over the entries
  return got;
}
}  // namespace

void AutotuneCache::load() {
  std::error_code ec;
  if (!fs::exists(path_, ec)) return;
  std::string why;
  std::vector<std::string> dropped;
  auto got = read_cache(path_, file_.key, why, dropped);
  if (!got) {
    warnings_.push_back("autotune cache " + path_.string() + " " + why + "; it is rebuilt");
    CacheKey want = std::move(file_.key);
    file_ = CacheFile{};
    file_.key = std::move(want);
    return;
  }
  for (const auto& d : dropped)
    warnings_.push_back("autotune cache " + path_.string() + " " + d + "; that entry is dropped, the others kept");
  file_ = std::move(*got);
}

void AutotuneCache::clear() {
  file_.entries.clear();
  file_.best.reset();
  cleared_ = true;
}

const TuneEntry* AutotuneCache::find(const TileConfig& c) const {
  for (const auto& e : file_.entries)
    if (e.config == c) return &e;
  return nullptr;
}

void AutotuneCache::record(TuneEntry e) {
  if (auto problem = entry_problem(e); !problem.empty())
    throw Error("autotune cache: refusing to record config " + config_label(e.config) + " " + problem, kExitUsage);
  if (e.measured_at.empty()) e.measured_at = utc_timestamp();
  // Read, add, write back under the folder's lock: other tuners (threads, processes) record into the same file, and
  // what they saved since this cache was loaded is kept (unless it was cleared: --retune starts over).
  FolderLock lock(path_.parent_path());
  std::error_code ec;
  if (!cleared_ && fs::exists(path_, ec)) {
    std::string why;
    std::vector<std::string> dropped;
    if (auto disk = read_cache(path_, file_.key, why, dropped)) file_.entries = std::move(disk->entries);
  }
  bool replaced = false;
  for (auto& old : file_.entries)
    if (old.config == e.config) {
      old = e;
      replaced = true;
    }
  if (!replaced) file_.entries.push_back(std::move(e));
  file_.best = best_config(file_.entries);
  save();
  cleared_ = false;
}

void AutotuneCache::save() const {
  CacheFile f = file_;
  f.updated = utc_timestamp();
  write_file_atomic(path_, json(f).dump(1, ' ', false, json::error_handler_t::replace) + "\n");
}

std::optional<TileConfig> best_config(const std::vector<TuneEntry>& entries) {
  const TuneEntry* best = nullptr;
  for (const auto& e : entries)
    if (e.status == TryStatus::ok && e.median_ms && (!best || *e.median_ms < *best->median_ms)) best = &e;
  if (!best) return std::nullopt;
  return best->config;
}

}  // namespace kprof::plan
