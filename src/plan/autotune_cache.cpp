#include "plan/autotune_cache.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <tuple>

#include "util/errors.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"

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

fs::path AutotuneCache::entries_dir() const {
  return path_.parent_path() / (path_.stem().string() + ".entries");
}

fs::path AutotuneCache::entry_file(const fs::path& dir, const TileConfig& c) {
  return dir / fmt::format("{:016x}.json", fnv1a(json(c).dump()));
}

namespace {
constexpr char kEntrySchema[] = "kprof.autotune.entry/1";

// One entry file: the entry when it is for `want` and usable, else nullopt with `why`.
std::optional<TuneEntry> read_entry_file(const fs::path& file, const CacheKey& want, std::string& why) {
  try {
    json doc = json::parse(read_file(file));
    if (!doc.is_object() || doc.value("schema", std::string()) != kEntrySchema) {
      why = std::string("is not a ") + kEntrySchema + " file";
      return std::nullopt;
    }
    auto key = doc.at("key").get<CacheKey>();
    if (auto diff = key_difference(want, key); !diff.empty()) {
      why = "was measured for another " + diff;
      return std::nullopt;
    }
    TuneEntry e = doc.at("entry").get<TuneEntry>();
    if (auto problem = entry_problem(e); !problem.empty()) {
      why = "holds an entry " + problem;
      return std::nullopt;
    }
    return e;
  } catch (const std::exception& e) {
    why = std::string("is unreadable (") + e.what() + ")";
    return std::nullopt;
  }
}
}  // namespace

void AutotuneCache::read_back(std::vector<std::string>* warnings) {
  auto warn = [&](const std::string& w) {
    if (warnings) warnings->push_back(w);
  };
  std::vector<TuneEntry> entries;
  std::error_code ec;
  if (cleared_at_.empty() && fs::exists(path_, ec)) {
    std::string why;
    std::vector<std::string> dropped;
    if (auto got = read_cache(path_, file_.key, why, dropped)) {
      entries = std::move(got->entries);
      for (const auto& d : dropped)
        warn("autotune cache " + path_.string() + " " + d + "; that entry is dropped, the others kept");
    } else {
      warn("autotune cache " + path_.string() + " " + why + "; it is rebuilt");
    }
  }
  // Entry files in the order they were measured (then by name): ties for best go to the earlier, as in one file.
  std::vector<std::pair<TuneEntry, fs::path>> files;
  std::map<std::string, int> foreign;
  const fs::path dir = entries_dir();
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto name = it->path().filename().string();
    if (name.empty() || name[0] == '.' || it->path().extension() != ".json") continue;  // a writer's temporary file
    std::string why;
    auto e = read_entry_file(it->path(), file_.key, why);
    if (!e) {
      // Tries for another key (the kernel changed: its source hash) are many: one line says how many.
      if (why.rfind("was measured for another", 0) == 0) ++foreign[why];
      else warn("autotune cache entry " + it->path().string() + " " + why + "; it is ignored");
      continue;
    }
    if (!cleared_at_.empty() && e->measured_at < cleared_at_) {  // --retune: a try from before is forgotten
      std::error_code rm;
      fs::remove(it->path(), rm);
      continue;
    }
    files.emplace_back(std::move(*e), it->path());
  }
  for (const auto& [why, n] : foreign)
    warn(fmt::format("autotune cache {}: {} entry file(s) {}; ignored (tuning again replaces them)", dir.string(), n,
                     why));
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first.measured_at, a.second) < std::tie(b.first.measured_at, b.second);
  });
  for (auto& file : files) {  // not a structured binding: clang 14 cannot capture one in the lambda
    TuneEntry& e = file.first;
    auto same = std::find_if(entries.begin(), entries.end(), [&](const TuneEntry& x) { return x.config == e.config; });
    if (same != entries.end()) *same = std::move(e);
    else entries.push_back(std::move(e));
  }
  file_.entries = std::move(entries);
  file_.best = best_config(file_.entries);
}

void AutotuneCache::load() { read_back(&warnings_); }

void AutotuneCache::clear() {
  file_.entries.clear();
  file_.best.reset();
  cleared_at_ = utc_timestamp();
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
  // The try's own file first: whole (temporary file + rename), and nobody else writes that name but a recorder of
  // the same config, whose try replaces this one whole.
  json doc{{"schema", kEntrySchema}, {"key", file_.key}, {"entry", e}};
  write_file_atomic(entry_file(entries_dir(), e.config), doc.dump(1, ' ', false, json::error_handler_t::replace) + "\n");
  // Then everything the recorders saved (this try included), and the snapshot from it.
  read_back(nullptr);
  if (!find(e.config)) {  // its file was unreadable after all (a full disk): keep it here at least
    file_.entries.push_back(std::move(e));
    file_.best = best_config(file_.entries);
  }
  save();
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
