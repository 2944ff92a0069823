// `ncu --csv --page raw`: splitter + raw page parser + canonical metrics of every launch.
#include "collect/ncu/canonical.hpp"
#include "collect/ncu/raw_page.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kprof::fuzz::accept_or_reject([&] {
    auto page = kprof::ncu::parse_raw_page(kprof::ncu::split_csv_stream(kprof::fuzz::as_text(data, size), "fuzz.csv"));
    for (const auto& l : page.launches) (void)kprof::ncu::derive_canonical(l);
  });
  return 0;
}
