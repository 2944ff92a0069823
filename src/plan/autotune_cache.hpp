// The autotuning cache: one file per (kernel, version, stage, device, params), at
//   <root>/<kernel>/<version>/<stage>/<device>/<params>.json      (root: .cache/kernel-autotune)
// with a header naming what it was measured for (validated on load, including a hash of the kernel source and
// compile options) and one entry per config tried, written after every try so an interrupted tuning resumes.
// A corrupt or mismatching file is never fatal: the cache starts empty, says why in warnings(), and the next
// save replaces the file. Modelled on Kernel Tuner's cache (reference-facts.md).
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "model/json_support.hpp"
#include "model/params.hpp"
#include "plan/plan_json.hpp"

namespace kprof::plan {

// `unknown`: a status this kprof does not know, read from a file (the cache refuses such a file).
enum class TryStatus { ok, compile_failed, launch_failed, exceeds_resources, wrong_result, unknown };
NLOHMANN_JSON_SERIALIZE_ENUM(TryStatus, {{TryStatus::unknown, nullptr}, {TryStatus::ok, "ok"}, {TryStatus::compile_failed, "compile-failed"},
                                         {TryStatus::launch_failed, "launch-failed"},
                                         {TryStatus::exceeds_resources, "exceeds-resources"},
                                         {TryStatus::wrong_result, "wrong-result"}})

// One config tried. Times are per launch, milliseconds, CUDA events with L2 flushed before each sample.
struct TuneEntry {
  TileConfig config;
  TryStatus status = TryStatus::ok;
  std::optional<double> median_ms;
  std::optional<double> min_ms;
  std::vector<double> samples_ms;
  std::string message;                        // why it failed, or the check's error figure
  std::map<std::string, double> resources;    // registers, static_smem_bytes, local_bytes, max_threads
  std::string measured_at;                    // ISO 8601 UTC
};
KPROF_JSON(TuneEntry, config, status, median_ms, min_ms, samples_ms, message, resources, measured_at)

struct CacheKey {
  std::string kernel, version, stage;
  std::string device;       // "NVIDIA_H200_sm90": name and compute capability
  ProblemParams params;
  std::string source_hash;  // hash of the kernel source and its compile options
};
KPROF_JSON(CacheKey, kernel, version, stage, device, params, source_hash)

struct CacheFile {
  std::string schema = "kprof.autotune/1";
  CacheKey key;
  std::vector<TuneEntry> entries;
  std::optional<TileConfig> best;  // lowest median among ok entries
  std::string updated;
};
KPROF_JSON(CacheFile, schema, key, entries, best, updated)

class AutotuneCache {
 public:
  AutotuneCache(std::filesystem::path root, CacheKey key);

  static std::filesystem::path path_for(const std::filesystem::path& root, const CacheKey& key);
  const std::filesystem::path& path() const { return path_; }

  // Reads the file if present. Corrupt JSON, another schema or a header for another key: empty cache + warning.
  // An entry that does not read, or has an unknown status or a median that is not positive: that entry is dropped
  // with a warning, the others kept.
  void load();
  // Forget every entry (--retune); the file is replaced on the next record.
  void clear();

  const TuneEntry* find(const TileConfig& c) const;
  // Adds or replaces the entry for e.config, recomputes best and saves atomically. Under the folder's lock, what
  // other recorders saved meanwhile is read back first and kept (not after clear()). Throws Error (exit 2) for an
  // entry with an unknown status or a median that is not positive (or none, status ok): it would win the tuning.
  void record(TuneEntry e);
  std::optional<TileConfig> best() const { return file_.best; }
  const std::vector<TuneEntry>& entries() const { return file_.entries; }
  const CacheFile& file() const { return file_; }
  const std::vector<std::string>& warnings() const { return warnings_; }
  void save() const;

 private:
  std::filesystem::path path_;
  CacheFile file_;
  std::vector<std::string> warnings_;
  bool cleared_ = false;  // clear() since the last record: the file's entries are not read back
};

// Lowest median among ok entries (ties: the earlier entry); nullopt when none succeeded.
std::optional<TileConfig> best_config(const std::vector<TuneEntry>& entries);
// Filesystem-safe device key: "NVIDIA H200" + "9.0" → "NVIDIA_H200_sm90".
std::string device_key(const std::string& name, const std::string& compute_capability);

}  // namespace kprof::plan
