// The whole ncu import as `kprof import` runs it on one file: page detection, parsing, merging, stage grouping.
#include "collect/ncu/ncu_import.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto path = kprof::fuzz::scratch_file("page.csv", data, size);
  kprof::fuzz::accept_or_reject([&] { (void)kprof::ncu::import_ncu({path.string()}); });
  return 0;
}
