// counters.json (kprof.counters/1), written by the in-process CUPTI counter collector.
#include "collect/counters/counters_import.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kprof::fuzz::accept_or_reject(
      [&] { (void)kprof::counters::parse_counters(kprof::fuzz::as_text(data, size), "counters.json"); });
  return 0;
}
