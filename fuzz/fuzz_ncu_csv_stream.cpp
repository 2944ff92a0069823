// The CSV stream splitter every ncu page goes through (records, profiler lines, program output).
#include "collect/ncu/csv_stream.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kprof::fuzz::accept_or_reject([&] { (void)kprof::ncu::split_csv_stream(kprof::fuzz::as_text(data, size), "fuzz.csv"); });
  return 0;
}
