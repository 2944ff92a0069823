// Thresholds (data/thresholds.toml and user overrides applied over an empty table).
#include "analyze/thresholds.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kprof::fuzz::accept_or_reject([&] {
    kprof::analyze::Thresholds t;
    t.apply(kprof::fuzz::as_text(data, size), "thresholds.toml");
  });
  return 0;
}
