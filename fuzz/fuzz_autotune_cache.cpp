// The autotune cache file: a corrupt or foreign file must leave an empty cache and a warning, never throw.
#include "fuzz_support.hpp"
#include "plan/autotune_cache.hpp"

#include "model/json_support.hpp"  // integer reads range-checked (not nlohmann/json.hpp directly)

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::filesystem::path root = kprof::fuzz::scratch_file("unused", nullptr, 0).parent_path() / "cache";
  // The key of the seed (an H200 cache of mla v2), so that mutated entries get past the header check.
  static const kprof::plan::CacheKey key = nlohmann::json::parse(R"({"device": "NVIDIA_H200_sm90", "kernel": "mla",
      "params": {"dtype": "bf16", "values": {"b": 32, "d": 512, "h": 128, "p": 64, "s": 16, "t": 4096}},
      "source_hash": "a338353d38b8f78e", "stage": "mla_decode", "version": "v2"})").get<kprof::plan::CacheKey>();
  kprof::plan::AutotuneCache cache(root, key);
  std::filesystem::create_directories(cache.path().parent_path());
  std::FILE* f = std::fopen(cache.path().c_str(), "wb");
  if (!f) std::abort();
  if (size) std::fwrite(data, 1, size, f);
  std::fclose(f);
  cache.load();  // documented never to throw
  return 0;
}
