// ncu's source page (SASS / PTX / CUDA source with per-line metrics).
#include "collect/ncu/source_page.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kprof::fuzz::accept_or_reject([&] {
    (void)kprof::ncu::parse_source_page(kprof::ncu::split_csv_stream(kprof::fuzz::as_text(data, size), "fuzz.csv"));
  });
  return 0;
}
