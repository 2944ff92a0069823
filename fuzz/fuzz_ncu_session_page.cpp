// ncu's session page (device and profiler attributes).
#include "collect/ncu/session_page.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kprof::fuzz::accept_or_reject([&] {
    (void)kprof::ncu::parse_session_page(kprof::ncu::split_csv_stream(kprof::fuzz::as_text(data, size), "fuzz.csv"));
  });
  return 0;
}
