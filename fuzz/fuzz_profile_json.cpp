// profile.json read back from an artifact (`kprof compare`, `--baseline`, re-analysis).
#include "fuzz_support.hpp"
#include "session/artifact.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto path = kprof::fuzz::scratch_file("profile.json", data, size);
  kprof::fuzz::accept_or_reject([&] { (void)kprof::session::load_artifact(path); });
  return 0;
}
