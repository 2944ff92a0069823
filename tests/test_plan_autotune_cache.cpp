// The autotuning cache: path layout, write/read, best config, and that corrupt or mismatching files are rebuilt
// with a warning instead of failing.
#include <gtest/gtest.h>

#include <unistd.h>

#include "plan/autotune_cache.hpp"
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
    ASSERT_EQ(c.warnings().size(), 1u) << field;
    EXPECT_NE(c.warnings()[0].find("measured for another"), std::string::npos) << c.warnings()[0];
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
