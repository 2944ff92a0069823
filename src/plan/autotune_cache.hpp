// The autotuning cache: one file per (kernel, version, stage, device, params), at
//   <root>/<kernel>/<version>/<stage>/<device>/<params>.json      (root: .cache/kernel-autotune)
// with a header naming what it was measured for (validated on load, including a hash of the kernel source and
// compile options) and one entry per config tried, written after every try so an interrupted tuning resumes.
//
// Many tuners write one cache at once (the workers of a sweep, on one node or on the nodes of a cluster sharing the
// cache over NFS), so every try is first its own file, written atomically (temporary file + rename, which NFS keeps
// atomic too) and never rewritten by anyone else:
//   <root>/.../<params>.entries/<hash of the config>.json         (schema kprof.autotune.entry/1: key + entry)
// The <params>.json beside it is then rewritten from everything on disk: a snapshot for readers, which may lack a
// try another writer made at the same moment; load() reads both, the entry files winning, so nothing is lost and
// no lock is needed (flock is not reliable on NFS).
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
KPROF_JSON_DECLARE(TuneEntry)

struct CacheKey {
  std::string kernel, version, stage;
  std::string device;       // "NVIDIA_H200_sm90": name and compute capability
  ProblemParams params;
  std::string source_hash;  // hash of the kernel source and its compile options
};
KPROF_JSON_DECLARE(CacheKey)

struct CacheFile {
  std::string schema = "kprof.autotune/1";
  CacheKey key;
  std::vector<TuneEntry> entries;
  std::optional<TileConfig> best;  // lowest median among ok entries
  std::string updated;
};
KPROF_JSON_DECLARE(CacheFile)

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
  // Adds or replaces the entry for e.config: writes its entry file, reads back what every recorder saved (after
  // clear(): only tries made since), recomputes best and rewrites the snapshot. Throws Error (exit 2) for an entry
  // with an unknown status or a median that is not positive (or none, status ok): it would win the tuning.
  void record(TuneEntry e);
  std::optional<TileConfig> best() const { return file_.best; }
  const std::vector<TuneEntry>& entries() const { return file_.entries; }
  const CacheFile& file() const { return file_; }
  const std::vector<std::string>& warnings() const { return warnings_; }
  // Writes the snapshot file (<params>.json) from the entries held here.
  void save() const;
  // <params>.entries/: one file per config tried.
  std::filesystem::path entries_dir() const;
  static std::filesystem::path entry_file(const std::filesystem::path& entries_dir, const TileConfig& c);

 private:
  // The snapshot's entries, then every entry file's (replacing the snapshot's for the same config); after clear(),
  // only entry files measured since (`cleared_at_`), and those older are removed.
  void read_back(std::vector<std::string>* warnings);

  std::filesystem::path path_;
  CacheFile file_;
  std::vector<std::string> warnings_;
  std::string cleared_at_;  // clear()'s time (ISO 8601): older tries are forgotten; "" when not cleared
};

// Lowest median among ok entries (ties: the earlier entry); nullopt when none succeeded.
std::optional<TileConfig> best_config(const std::vector<TuneEntry>& entries);
// Filesystem-safe device key: "NVIDIA H200" + "9.0" → "NVIDIA_H200_sm90".
std::string device_key(const std::string& name, const std::string& compute_capability);

}  // namespace kprof::plan
