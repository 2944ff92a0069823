// Traces: the binary .kptrace (kprof-trace/1) and CUPTI JSONL, detected from the first bytes as read_trace does.
#include <string_view>

#include "collect/trace/trace_reader.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kprof::fuzz::accept_or_reject([&] {
    (void)kprof::parse_trace(std::string_view(reinterpret_cast<const char*>(data), size), "trace.kptrace");
  });
  return 0;
}
