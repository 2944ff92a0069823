// The autotuning cache: path layout, write/read, best config, and that corrupt or mismatching files are rebuilt
// with a warning instead of failing.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "plan/autotune_cache.hpp"
#include "support/concurrent_writers.hpp"
#include "util/errors.hpp"
#include "util/fs.hpp"

namespace fs = std::filesystem;
using namespace kprof;
using namespace kprof::plan;

namespace {
fs::path fresh_root(const std::string& name) {
  auto p = fs::temp_directory_path() / ("kprof_cache_" + std::to_string(::getpid())) / name;
  fs::remove_all(p);
  return p;
}

CacheKey key() {
  CacheKey k;
  k.kernel = "gemm";
  k.version = "v2";
  k.stage = "gemm";
  k.device = device_key("NVIDIA H200", "9.0");
  k.params.set("m", "256");
  k.params.set("n", "128");
  k.params.dtype = "bf16";
  k.source_hash = "abc123";
  return k;
}

TuneEntry ok(int bm, double median) {
  TuneEntry e;
  e.config = {{"bm", bm}, {"bn", 64}};
  e.status = TryStatus::ok;
  e.median_ms = median;
  e.min_ms = median * 0.9;
  e.samples_ms = {median, median * 0.9, median * 1.1};
  return e;
}
}  // namespace

TEST(AutotuneCache, PathFollowsTheDocumentedLayout) {
  auto p = AutotuneCache::path_for("/c", key());
  EXPECT_EQ(p, fs::path("/c/gemm/v2/gemm/NVIDIA_H200_sm90/m256_n128_bf16.json"));
}

TEST(AutotuneCache, RecordsAreSavedAndReadBackWithTheBestConfig) {
  auto root = fresh_root("rw");
  {
    AutotuneCache c(root, key());
    c.load();
    EXPECT_TRUE(c.entries().empty());
    c.record(ok(64, 2.0));
    c.record(ok(128, 1.5));
    TuneEntry failed;
    failed.config = {{"bm", 256}, {"bn", 64}};
    failed.status = TryStatus::exceeds_resources;
    failed.message = "too many resources requested for launch";
    c.record(failed);
    ASSERT_TRUE(c.best());
    EXPECT_EQ(c.best()->at("bm"), 128);
  }
  AutotuneCache again(root, key());
  again.load();
  EXPECT_TRUE(again.warnings().empty());
  ASSERT_EQ(again.entries().size(), 3u);
  ASSERT_NE(again.find({{"bm", 256}, {"bn", 64}}), nullptr);
  EXPECT_EQ(again.find({{"bm", 256}, {"bn", 64}})->status, TryStatus::exceeds_resources);
  EXPECT_EQ(again.find({{"bm", 32}, {"bn", 64}}), nullptr);
  ASSERT_TRUE(again.best());
  EXPECT_EQ(again.best()->at("bm"), 128);
  std::string text = read_file(again.path());
  EXPECT_NE(text.find("\"exceeds-resources\""), std::string::npos);
  EXPECT_NE(text.find("\"source_hash\": \"abc123\""), std::string::npos);
}

TEST(AutotuneCache, RecordingTheSameConfigReplacesIt) {
  auto root = fresh_root("replace");
  AutotuneCache c(root, key());
  c.record(ok(64, 2.0));
  c.record(ok(128, 1.5));
  c.record(ok(128, 3.0));  // re-measured slower
  EXPECT_EQ(c.entries().size(), 2u);
  EXPECT_EQ(c.best()->at("bm"), 64);
}

TEST(AutotuneCache, FailedOrWrongEntriesNeverBecomeBest) {
  std::vector<TuneEntry> es{ok(64, 2.0), ok(128, 0.5)};
  es[1].status = TryStatus::wrong_result;
  EXPECT_EQ(best_config(es)->at("bm"), 64);
  es[0].status = TryStatus::launch_failed;
  EXPECT_FALSE(best_config(es));
}

TEST(AutotuneCache, CorruptFileIsRebuiltWithAWarning) {
  auto root = fresh_root("corrupt");
  auto path = AutotuneCache::path_for(root, key());
  write_file_atomic(path, "{\"schema\": \"kprof.autotune/1\", \"entries\": [tr");
  AutotuneCache c(root, key());
  c.load();
  ASSERT_EQ(c.warnings().size(), 1u);
  EXPECT_NE(c.warnings()[0].find("unreadable"), std::string::npos) << c.warnings()[0];
  EXPECT_NE(c.warnings()[0].find("rebuilt"), std::string::npos);
  EXPECT_TRUE(c.entries().empty());
  c.record(ok(64, 1.0));
  AutotuneCache again(root, key());
  again.load();
  EXPECT_TRUE(again.warnings().empty());
  EXPECT_EQ(again.entries().size(), 1u);
}

TEST(AutotuneCache, MismatchingHeaderIsRebuiltWithAWarning) {
  auto root = fresh_root("mismatch");
  {
    AutotuneCache c(root, key());
    c.record(ok(64, 1.0));
  }
  for (int field = 0; field < 3; ++field) {
    auto k = key();
    if (field == 0) k.source_hash = "def456";      // kernel source or flags changed
    if (field == 1) k.device = "NVIDIA_H100_sm90";  // same file name only if placed there by hand: copy it
    if (field == 2) k.params.dtype = "fp16";
    auto want_path = AutotuneCache::path_for(root, k);
    if (want_path != AutotuneCache::path_for(root, key())) fs::create_directories(want_path.parent_path()),
        fs::copy_file(AutotuneCache::path_for(root, key()), want_path, fs::copy_options::overwrite_existing);
    AutotuneCache c(root, k);
    c.load();
    // The snapshot, and for the same path (field 0) its entry files too, in one line: both for another key.
    ASSERT_EQ(c.warnings().size(), field == 0 ? 2u : 1u) << field;
    for (const auto& w : c.warnings()) EXPECT_NE(w.find("measured for another"), std::string::npos) << w;
    if (field == 0) EXPECT_NE(c.warnings()[1].find("1 entry file(s) was measured for another"), std::string::npos);
    EXPECT_TRUE(c.entries().empty()) << field;
  }
}

TEST(AutotuneCache, StoredBestIsRecomputedFromEntries) {
  auto root = fresh_root("best");
  auto path = AutotuneCache::path_for(root, key());
  CacheFile f;
  f.key = key();
  f.entries = {ok(64, 2.0), ok(128, 1.0)};
  f.best = TileConfig{{"bm", 64}, {"bn", 64}};  // stale
  write_file_atomic(path, json(f).dump());
  AutotuneCache c(root, key());
  c.load();
  EXPECT_TRUE(c.warnings().empty());
  EXPECT_EQ(c.best()->at("bm"), 128);
  c.clear();
  EXPECT_TRUE(c.entries().empty());
  EXPECT_FALSE(c.best());
}

// --- issue 24: bad records, bad entries, concurrent recorders ------------------------------------------------------

TEST(AutotuneCache, AnInvalidRecordIsRefusedAndNothingIsWritten) {
  // A bad time was saved, and on the next load it emptied the whole cache.
  auto root = fresh_root("invalid_record");
  AutotuneCache c(root, key());
  c.record(ok(64, 2.0));
  const std::string before = read_file(c.path());
  TuneEntry unknown = ok(128, 1.0);
  unknown.status = TryStatus::unknown;
  TuneEntry negative = ok(128, -1.0), zero = ok(128, 0.0), nan = ok(128, std::nan(""));
  TuneEntry missing = ok(128, 1.0);
  missing.median_ms.reset();
  TuneEntry failed_negative = ok(128, -5.0);
  failed_negative.status = TryStatus::wrong_result;
  for (const auto* e : {&unknown, &negative, &zero, &nan, &missing, &failed_negative}) {
    try {
      c.record(*e);
      ADD_FAILURE() << "recorded " << json(*e).dump();
    } catch (const Error& err) {
      EXPECT_EQ(err.exit_code(), kExitUsage);
      EXPECT_NE(std::string(err.what()).find("bm128_bn64"), std::string::npos) << err.what();
    }
  }
  EXPECT_EQ(read_file(c.path()), before);
  EXPECT_EQ(c.entries().size(), 1u);
  TuneEntry failed = ok(128, 1.0);  // a failed try without a median is fine
  failed.status = TryStatus::launch_failed;
  failed.median_ms.reset();
  EXPECT_NO_THROW(c.record(failed));
}

TEST(AutotuneCache, OneBadEntryOnLoadDropsOnlyThatEntry) {
  auto root = fresh_root("bad_entry");
  auto path = AutotuneCache::path_for(root, key());
  json f = CacheFile{"kprof.autotune/1", key(), {ok(64, 2.0), ok(128, 1.0), ok(256, 3.0)}, std::nullopt, ""};
  f["entries"][0]["median_ms"] = -1.0;      // would win the tuning
  f["entries"][2]["median_ms"] = "fast";   // does not read
  write_file_atomic(path, f.dump());
  AutotuneCache c(root, key());
  c.load();
  ASSERT_EQ(c.entries().size(), 1u);
  EXPECT_EQ(c.entries()[0].config.at("bm"), 128);
  EXPECT_EQ(c.best()->at("bm"), 128);
  ASSERT_EQ(c.warnings().size(), 2u);
  EXPECT_NE(c.warnings()[0].find("entry 0"), std::string::npos) << c.warnings()[0];
  EXPECT_NE(c.warnings()[0].find("without a positive median_ms"), std::string::npos) << c.warnings()[0];
  EXPECT_NE(c.warnings()[1].find("entry 2"), std::string::npos) << c.warnings()[1];
  EXPECT_NE(c.warnings()[1].find(path.string()), std::string::npos) << c.warnings()[1];
}

TEST(AutotuneCache, FiftyConcurrentRecordersLoseNothing) {
  // Each recorder read the file, added its entry and wrote it back: the others' entries since its read were lost,
  // and with one temporary name per process, threads' writes collided.
  auto root = fresh_root("concurrent");
  constexpr int kProcesses = 25, kThreads = 25;
  const int failures = test::run_concurrent_writers(kProcesses, kThreads, [&](int i, bool child) {
    AutotuneCache c(root, key());
    c.load();
    c.record(child ? ok(1000 + i, 1.0 + i) : ok(2000 + i, 0.5 + i));
  });
  EXPECT_EQ(failures, 0);
  AutotuneCache all(root, key());
  all.load();
  EXPECT_TRUE(all.warnings().empty()) << all.warnings()[0];
  EXPECT_EQ(all.entries().size(), static_cast<std::size_t>(kProcesses + kThreads));
  ASSERT_TRUE(all.best());
  EXPECT_EQ(all.best()->at("bm"), 2000);
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(all.path().parent_path())) files += e.is_regular_file();
  EXPECT_EQ(files, 1u);  // no temporary file left
}

// --- issue 28: sweeps write one cache from many processes and hosts (NFS): no lock, one file per try --------------

TEST(AutotuneCache, ThreeHundredWriterProcessesLoseAndTearNothing) {
  // 300 processes (the tuners of a sweep), each recording its own config, plus a second try of a shared config by
  // every tenth: every try must be there after, every file whole, the shared config's entry one of the tries.
  auto root = fresh_root("three_hundred");
  constexpr int kProcesses = 300;
  const int failures = test::run_concurrent_writers(kProcesses, 0, [&](int i, bool) {
    AutotuneCache c(root, key());
    c.load();
    c.record(ok(10000 + i, 1.0 + i * 0.01));
    if (i % 10 == 0) c.record(ok(7, 5.0 + i));
  });
  EXPECT_EQ(failures, 0);
  AutotuneCache all(root, key());
  all.load();
  EXPECT_TRUE(all.warnings().empty()) << all.warnings()[0];
  ASSERT_EQ(all.entries().size(), static_cast<std::size_t>(kProcesses + 1));
  for (int i = 0; i < kProcesses; ++i) EXPECT_NE(all.find({{"bm", 10000 + i}, {"bn", 64}}), nullptr) << i;
  ASSERT_TRUE(all.best());
  EXPECT_EQ(all.best()->at("bm"), 10000);
  // Every file parses on its own (a torn write would not), and no temporary file is left anywhere.
  std::size_t entry_files = 0;
  for (const auto& e : fs::recursive_directory_iterator(all.path().parent_path())) {
    if (!e.is_regular_file()) continue;
    EXPECT_NE(e.path().filename().string()[0], '.') << "temporary file left: " << e.path();
    EXPECT_TRUE(json::accept(read_file(e.path()))) << e.path();
    entry_files += e.path().parent_path() == all.entries_dir();
  }
  EXPECT_EQ(entry_files, static_cast<std::size_t>(kProcesses + 1));
}

TEST(AutotuneCache, EntryFilesCountEvenWhenTheSnapshotMissesThem) {
  // Two writers on two hosts: B's snapshot was written from a read made before A's try landed. A's try is kept.
  auto root = fresh_root("snapshot_race");
  AutotuneCache a(root, key()), b(root, key());
  a.load();
  b.load();
  b.record(ok(64, 2.0));
  a.record(ok(128, 1.0));
  CacheFile stale = b.file();  // B's view: 64 only
  write_file_atomic(b.path(), json(stale).dump());
  AutotuneCache c(root, key());
  c.load();
  EXPECT_TRUE(c.warnings().empty());
  EXPECT_EQ(c.entries().size(), 2u);
  ASSERT_TRUE(c.best());
  EXPECT_EQ(c.best()->at("bm"), 128);
}

TEST(AutotuneCache, RetuneForgetsOlderTriesOnDiskToo) {
  auto root = fresh_root("retune_files");
  AutotuneCache a(root, key());
  a.load();
  TuneEntry old = ok(64, 1.0);
  old.measured_at = "2020-01-01T00:00:00Z";
  a.record(old);
  AutotuneCache b(root, key());
  b.load();
  b.clear();
  b.record(ok(128, 3.0));
  EXPECT_EQ(b.entries().size(), 1u);
  AutotuneCache c(root, key());
  c.load();
  ASSERT_EQ(c.entries().size(), 1u);
  EXPECT_EQ(c.best()->at("bm"), 128);
  EXPECT_FALSE(fs::exists(AutotuneCache::entry_file(c.entries_dir(), old.config)));
}

TEST(AutotuneCache, AForeignOrBrokenEntryFileIsIgnoredWithAWarning) {
  auto root = fresh_root("bad_entry_file");
  AutotuneCache a(root, key());
  a.load();
  a.record(ok(64, 2.0));
  write_file_atomic(a.entries_dir() / "0000000000000bad.json", "{\"schema\": \"kprof.autotune.entry/1\", \"ke");
  CacheKey other = key();
  other.source_hash = "other";
  json foreign{{"schema", "kprof.autotune.entry/1"}, {"key", other}, {"entry", ok(32, 0.1)}};
  write_file_atomic(a.entries_dir() / "000000000000f0e1.json", foreign.dump());
  AutotuneCache c(root, key());
  c.load();
  EXPECT_EQ(c.entries().size(), 1u);
  EXPECT_EQ(c.best()->at("bm"), 64);
  ASSERT_EQ(c.warnings().size(), 2u);
}
